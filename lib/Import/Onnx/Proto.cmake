# ONNX schema classes: protoc (Debian's protobuf) compiles the project's own
# subset of onnx.proto (proto/onnx/onnx.proto) into KilnImport. Output goes
# to <build>/lib/Import/proto/onnx/onnx.pb.{h,cc}, included as
# "onnx/onnx.pb.h".
set(KILN_ONNX_PROTO_ROOT ${PROJECT_SOURCE_DIR}/proto)
set(KILN_ONNX_PROTO_OUT ${CMAKE_CURRENT_BINARY_DIR}/proto)
set(KILN_ONNX_PB_CC ${KILN_ONNX_PROTO_OUT}/onnx/onnx.pb.cc)
set(KILN_ONNX_PB_H ${KILN_ONNX_PROTO_OUT}/onnx/onnx.pb.h)
add_custom_command(
  OUTPUT ${KILN_ONNX_PB_CC} ${KILN_ONNX_PB_H}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${KILN_ONNX_PROTO_OUT}
  COMMAND protobuf::protoc -I ${KILN_ONNX_PROTO_ROOT}
          --cpp_out=${KILN_ONNX_PROTO_OUT} ${KILN_ONNX_PROTO_ROOT}/onnx/onnx.proto
  DEPENDS ${KILN_ONNX_PROTO_ROOT}/onnx/onnx.proto protobuf::protoc
  COMMENT "protoc: proto/onnx/onnx.proto"
  VERBATIM)
# Generated code is not ours to keep warning-free.
set_source_files_properties(${KILN_ONNX_PB_CC} PROPERTIES COMPILE_OPTIONS "-w")
target_sources(KilnImport PRIVATE ${KILN_ONNX_PB_CC})
# PUBLIC so the unit tests can build ModelProtos directly.
target_include_directories(KilnImport SYSTEM PUBLIC ${KILN_ONNX_PROTO_OUT})
target_link_libraries(KilnImport PRIVATE protobuf::libprotobuf)
