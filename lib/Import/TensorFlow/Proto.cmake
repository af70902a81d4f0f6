# TensorFlow schema classes (GraphDef, tf2xla.Config): Debian's protoc
# compiles the project's own subset (proto/tensorflow/*.proto) into
# KilnImport. Output goes to <build>/lib/Import/proto/tensorflow/*.pb.{h,cc},
# included as "tensorflow/graph.pb.h". Included by lib/Import/CMakeLists.txt.
set(KILN_TF_PROTO_ROOT ${PROJECT_SOURCE_DIR}/proto)
set(KILN_TF_PROTO_OUT ${CMAKE_CURRENT_BINARY_DIR}/proto)

set(KILN_TF_PROTO_FILES)
set(KILN_TF_PB_CC)
set(KILN_TF_PB_OUTPUTS)
foreach(name graph tf2xla)
  list(APPEND KILN_TF_PROTO_FILES ${KILN_TF_PROTO_ROOT}/tensorflow/${name}.proto)
  list(APPEND KILN_TF_PB_CC ${KILN_TF_PROTO_OUT}/tensorflow/${name}.pb.cc)
  list(APPEND KILN_TF_PB_OUTPUTS ${KILN_TF_PROTO_OUT}/tensorflow/${name}.pb.cc
       ${KILN_TF_PROTO_OUT}/tensorflow/${name}.pb.h)
endforeach()

add_custom_command(
  OUTPUT ${KILN_TF_PB_OUTPUTS}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${KILN_TF_PROTO_OUT}
  COMMAND protobuf::protoc -I ${KILN_TF_PROTO_ROOT} --cpp_out=${KILN_TF_PROTO_OUT}
          ${KILN_TF_PROTO_FILES}
  DEPENDS ${KILN_TF_PROTO_FILES} protobuf::protoc
  COMMENT "protoc: proto/tensorflow/{graph,tf2xla}.proto"
  VERBATIM)
# Generated code is protoc's, not ours to keep warning-free.
set_source_files_properties(${KILN_TF_PB_CC} PROPERTIES COMPILE_OPTIONS "-w")
target_sources(KilnImport PRIVATE ${KILN_TF_PB_CC})
target_include_directories(KilnImport SYSTEM PRIVATE ${KILN_TF_PROTO_OUT})
target_link_libraries(KilnImport PRIVATE protobuf::libprotobuf)
# TF.js model.json (its manifest and signature around the GraphDef).
target_link_libraries(KilnImport PRIVATE nlohmann_json::nlohmann_json)
