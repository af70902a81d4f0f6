# Bare-metal Cortex-M with clang-19 and ld.lld: no vendor SDK, no C library. KWS_CPU picks the
# core, and with it the triple and the single-precision FPU the C files are built for (the
# model is float32, no double reaches the code): cortex-m4 (FPv4, the default), cortex-m7
# (FPv5), cortex-m33 (Armv8-M Mainline, FPv5) or cortex-m55 (Armv8.1-M, FP-ARMv8 with half
# precision; Helium is kiln's --features +mve.fp, see CMakeLists.txt's KWS_FEATURES).
# kiln_add_model takes its --target from CMAKE_C_COMPILER_TARGET.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(KWS_CPU cortex-m4 CACHE STRING "Cortex-M core: cortex-m4, cortex-m7, cortex-m33 or cortex-m55")
set(kws_triple_cortex-m4 thumbv7em-none-eabihf)
set(kws_triple_cortex-m7 thumbv7em-none-eabihf)
set(kws_triple_cortex-m33 thumbv8m.main-none-eabihf)
set(kws_triple_cortex-m55 thumbv8.1m.main-none-eabihf)
set(kws_fpu_cortex-m4 fpv4-sp-d16)
set(kws_fpu_cortex-m7 fpv5-sp-d16)
set(kws_fpu_cortex-m33 fpv5-sp-d16)
set(kws_fpu_cortex-m55 fp-armv8-fullfp16-sp-d16)
if(NOT kws_fpu_${KWS_CPU})
  message(FATAL_ERROR "KWS_CPU=${KWS_CPU}: expected cortex-m4, cortex-m7, cortex-m33 or cortex-m55")
endif()

set(CMAKE_C_COMPILER clang-19)
set(CMAKE_C_COMPILER_TARGET ${kws_triple_${KWS_CPU}})
set(CMAKE_AR llvm-ar-19)
set(CMAKE_RANLIB llvm-ranlib-19)
set(CMAKE_C_FLAGS_INIT "-mcpu=${KWS_CPU} -mfpu=${kws_fpu_${KWS_CPU}} -mfloat-abi=hard -ffreestanding -fno-builtin")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld -nostdlib")
# Nothing links before the startup code exists: test the compiler with a library.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_TRY_COMPILE_PLATFORM_VARIABLES KWS_CPU)
# kiln is a host program: find its package outside any sysroot.
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
