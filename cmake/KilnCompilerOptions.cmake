# Warning and sanitizer flags for kiln's own targets (not its dependencies).

function(kiln_target_options target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  if(KILN_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  # GCC 12's -Wmaybe-uninitialized gives false positives inside libstdc++
  # (std::function in <regex>, used by Catch2) once ASan instruments it.
  if(KILN_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
  endif()
endfunction()

if(KILN_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# The fuzz build (fuzz/, docs/fuzzing.md): every kiln library gets libFuzzer's
# coverage hooks plus ASan and UBSan; only the fuzz targets link the engine.
if(KILN_FUZZ)
  # clang before 18 lacks C++20 floating-point template arguments.
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR CMAKE_CXX_COMPILER_VERSION VERSION_LESS 18)
    message(FATAL_ERROR "KILN_FUZZ=ON needs clang 18 or later: configure with "
                        "-DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19")
  endif()
  # -O1 and line tables only: the usual fuzzing trade (stack traces keep
  # file:line) that roughly halves the compile time of the sanitized build.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined
                      -fno-omit-frame-pointer -fno-sanitize-recover=undefined
                      -O1 -gline-tables-only)
  add_link_options(-fsanitize=address,undefined)
endif()

# kiln_add_library(NAME SOURCES... [DEPENDS libs...])
function(kiln_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_link_libraries(${name} PUBLIC ${ARG_DEPENDS})
  kiln_target_options(${name})
endfunction()

# Internal invariants are checked in every build the tests run on.
if(KILN_ENABLE_ASSERTIONS)
  add_compile_options(-UNDEBUG)
endif()
