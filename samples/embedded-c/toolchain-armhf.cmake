# Cross-compiling for 32-bit ARM Linux (Raspberry Pi OS, Debian armhf) with
# Debian's gcc-arm-linux-gnueabihf. Programs are linked statically, so
# qemu-arm runs them without a sysroot; ctest and `cmake -E env` run them
# through CMAKE_CROSSCOMPILING_EMULATOR on a Cortex-A7 (the Pi 2's core).
# kiln_add_model takes the triple from the compiler (arm-linux-gnueabihf);
# pass CPU (cortex-a7, cortex-a53, ...) for NEON, as this sample's
# BLAZEFACE_CPU does.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-linux-gnueabihf-gcc)
set(CMAKE_CXX_COMPILER arm-linux-gnueabihf-g++)
set(CMAKE_EXE_LINKER_FLAGS_INIT -static)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-arm -cpu cortex-a7)
set(CMAKE_FIND_ROOT_PATH /usr/arm-linux-gnueabihf)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# Packages: both, so find_package(kiln) finds the host tool outside the sysroot.
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
