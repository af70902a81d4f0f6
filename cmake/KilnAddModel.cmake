# kiln_add_model(): compile a model with kiln at build time into a static
# library target. Installed with kiln's CMake package (find_package(kiln));
# docs/cmake.md documents the arguments.
#
#   kiln_add_model(NAME mnist MODEL model.pb [CONFIG model.config.pbtxt]
#                  [TARGET aarch64-linux-gnu] [CPU cortex-a72] [NAMESPACE app::ml]
#                  [SHAPES input=1,28,28 ...] [OPTIONS --fast-math ...]
#                  [DEPENDS extra files ...])
#
# The library target is called NAME. It holds NAME.o and carries the include
# directory of NAME.h and the runtime headers (kiln::runtime), so linking it
# is all an app does. kiln reruns when the model (and a TF.js model's weight
# shards), the config, the kiln executable or the flags change.

include_guard(GLOBAL)

# The triple to pass to --target when the caller gave none: empty for a
# native build (kiln then compiles for the host), otherwise what the
# toolchain says it targets.
function(_kiln_toolchain_triple out)
  set(triple "")
  if(CMAKE_CROSSCOMPILING)
    foreach(lang C CXX)
      if(NOT triple AND CMAKE_${lang}_COMPILER_TARGET)
        set(triple "${CMAKE_${lang}_COMPILER_TARGET}")
      endif()
    endforeach()
    # GCC and Clang name their default target (aarch64-linux-gnu for
    # Debian's cross GCC), which is what a toolchain file usually sets.
    foreach(lang C CXX)
      if(NOT triple AND CMAKE_${lang}_COMPILER
         AND CMAKE_${lang}_COMPILER_ID MATCHES "GNU|Clang")
        execute_process(COMMAND ${CMAKE_${lang}_COMPILER} -dumpmachine
                        OUTPUT_VARIABLE machine OUTPUT_STRIP_TRAILING_WHITESPACE
                        RESULT_VARIABLE status ERROR_QUIET)
        if(status EQUAL 0 AND machine)
          set(triple "${machine}")
        endif()
      endif()
    endforeach()
    if(NOT triple AND CMAKE_SYSTEM_PROCESSOR)
      if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
        set(triple "${CMAKE_SYSTEM_PROCESSOR}-linux-gnu")
      elseif(CMAKE_SYSTEM_NAME STREQUAL "Generic")
        set(triple "${CMAKE_SYSTEM_PROCESSOR}-none-elf")
      elseif(CMAKE_SYSTEM_NAME STREQUAL "Darwin")
        set(triple "${CMAKE_SYSTEM_PROCESSOR}-apple-darwin")
      elseif(CMAKE_SYSTEM_NAME STREQUAL "iOS")
        set(triple "${CMAKE_SYSTEM_PROCESSOR}-apple-ios")
      elseif(CMAKE_SYSTEM_NAME STREQUAL "Android")
        set(triple "${CMAKE_SYSTEM_PROCESSOR}-linux-android")
      endif()
    endif()
    if(NOT triple)
      message(FATAL_ERROR "kiln_add_model: cannot tell the target triple of this "
              "cross build (no CMAKE_C_COMPILER_TARGET, no compiler -dumpmachine, "
              "CMAKE_SYSTEM_NAME '${CMAKE_SYSTEM_NAME}' with CMAKE_SYSTEM_PROCESSOR "
              "'${CMAKE_SYSTEM_PROCESSOR}'); pass TARGET <triple>")
    endif()
  endif()
  set(${out} "${triple}" PARENT_SCOPE)
endfunction()

# The weight shards a TF.js model.json names (weightsManifest[].paths[]),
# so that a changed shard reruns kiln too.
function(_kiln_tfjs_shards model out)
  set(shards "")
  if(model MATCHES "\\.json$" AND EXISTS "${model}")
    file(READ "${model}" text)
    string(JSON groups ERROR_VARIABLE error LENGTH "${text}" weightsManifest)
    if(NOT error AND groups GREATER 0)
      get_filename_component(dir "${model}" DIRECTORY)
      math(EXPR last_group "${groups} - 1")
      foreach(g RANGE ${last_group})
        string(JSON paths ERROR_VARIABLE error LENGTH "${text}" weightsManifest ${g} paths)
        if(error OR paths EQUAL 0)
          continue()
        endif()
        math(EXPR last_path "${paths} - 1")
        foreach(p RANGE ${last_path})
          string(JSON shard GET "${text}" weightsManifest ${g} paths ${p})
          list(APPEND shards "${dir}/${shard}")
        endforeach()
      endforeach()
    endif()
  endif()
  set(${out} "${shards}" PARENT_SCOPE)
endfunction()

function(kiln_add_model)
  cmake_parse_arguments(PARSE_ARGV 0 arg ""
    "NAME;MODEL;CONFIG;TARGET;CPU;NAMESPACE" "SHAPES;OPTIONS;DEPENDS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kiln_add_model: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  foreach(required NAME MODEL)
    if(NOT arg_${required})
      message(FATAL_ERROR "kiln_add_model: ${required} is required")
    endif()
  endforeach()
  if(NOT arg_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "kiln_add_model: NAME '${arg_NAME}' is not a C identifier "
            "(it names the generated functions and the library target)")
  endif()
  if(TARGET ${arg_NAME})
    message(FATAL_ERROR "kiln_add_model: a target named '${arg_NAME}' already exists")
  endif()
  if(NOT KILN_EXECUTABLE)
    message(FATAL_ERROR "kiln_add_model: KILN_EXECUTABLE is not set (find_package(kiln) sets it)")
  endif()

  set(model "${arg_MODEL}")
  cmake_path(ABSOLUTE_PATH model BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${model}")
    message(FATAL_ERROR "kiln_add_model(${arg_NAME}): MODEL '${model}' does not exist")
  endif()
  set(inputs "${model}")
  set(flags --name ${arg_NAME})
  if(arg_CONFIG)
    set(config "${arg_CONFIG}")
    cmake_path(ABSOLUTE_PATH config BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${config}")
      message(FATAL_ERROR "kiln_add_model(${arg_NAME}): CONFIG '${config}' does not exist")
    endif()
    list(APPEND flags --config "${config}")
    list(APPEND inputs "${config}")
  endif()

  set(triple "${arg_TARGET}")
  if(NOT triple)
    _kiln_toolchain_triple(triple)
  endif()
  if(triple)
    list(APPEND flags --target ${triple})
  endif()
  if(arg_CPU)
    list(APPEND flags --cpu ${arg_CPU})
  endif()
  if(arg_NAMESPACE)
    list(APPEND flags --namespace ${arg_NAMESPACE})
  endif()
  foreach(shape IN LISTS arg_SHAPES)
    list(APPEND flags --shape ${shape})
  endforeach()
  list(APPEND flags ${arg_OPTIONS})

  _kiln_tfjs_shards("${model}" shards)
  foreach(extra IN LISTS shards arg_DEPENDS)
    cmake_path(ABSOLUTE_PATH extra BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND inputs "${extra}")
  endforeach()

  set(dir "${CMAKE_CURRENT_BINARY_DIR}/kiln/${arg_NAME}")
  set(prefix "${dir}/${arg_NAME}")
  # The flags as a file that changes only when they do, so a changed flag
  # reruns kiln and an unchanged one after reconfiguring does not.
  string(REPLACE ";" "\n" flag_lines "${flags}")
  file(CONFIGURE OUTPUT "${prefix}.flags" CONTENT "${flag_lines}\n" @ONLY)

  add_custom_command(
    OUTPUT "${prefix}.o" "${prefix}.h" "${prefix}.json"
    COMMAND "${KILN_EXECUTABLE}" compile "${model}" ${flags} -o "${prefix}"
    DEPENDS ${inputs} "${KILN_EXECUTABLE}" "${prefix}.flags"
    COMMENT "kiln: compiling model ${arg_NAME}"
    VERBATIM)

  add_library(${arg_NAME} STATIC "${prefix}.o" "${prefix}.h")
  # The library has no sources of its own; archiving needs a language.
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("C" IN_LIST languages)
    set_target_properties(${arg_NAME} PROPERTIES LINKER_LANGUAGE C)
  else()
    set_target_properties(${arg_NAME} PROPERTIES LINKER_LANGUAGE CXX)
  endif()
  target_include_directories(${arg_NAME} INTERFACE "${dir}")
  target_link_libraries(${arg_NAME} INTERFACE kiln::runtime)
  set_target_properties(${arg_NAME} PROPERTIES
    KILN_HEADER "${prefix}.h" KILN_MANIFEST "${prefix}.json" KILN_OBJECT "${prefix}.o")
endfunction()
