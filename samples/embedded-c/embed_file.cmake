# Writes a C99 file defining `const uint8_t SYMBOL[]` with the bytes of INPUT,
# so the image sits in the program's read-only data (no file system needed).
#   cmake -DINPUT=face.rgb -DOUTPUT=face_image.c -DSYMBOL=face_image -P embed_file.cmake
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR bytes "${digits} / 2")
# 16 bytes per line: "0xAB, " each.
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1, " body "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f], ){16})" "\\1\n  " body "${body}")
file(WRITE "${OUTPUT}.tmp"
  "/* Generated from ${INPUT} by embed_file.cmake; do not edit. */\n"
  "#include <stdint.h>\n\n"
  "const uint8_t ${SYMBOL}[${bytes}] = {\n  ${body}\n};\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
