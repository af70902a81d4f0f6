#!/usr/bin/env python3
"""Makes face.rgb, the input image of the embedded-c sample, from astronaut.png.

astronaut.png is the photograph of astronaut Eileen Collins (NASA, public domain) that
scikit-image ships; Debian has it in python3-skimage. It need not be installed:

    apt-get download python3-skimage
    dpkg-deb -x python3-skimage_*.deb skimage
    /usr/bin/python3 samples/embedded-c/make_input.py \
        skimage/usr/lib/python3/dist-packages/skimage/data/astronaut.png samples/embedded-c

The image (512x512 RGB) is cropped to the square CROP around her head and shoulders and
shrunk to 128x128 by averaging 2x2 blocks: BlazeFace's front model looks for faces that fill
a good part of a 128x128 selfie-style frame. face.rgb is the raw result, 128*128*3 bytes,
rows top to bottom, R G B per pixel. face.png is the same image for people to look at.
Needs only NumPy (the PNG is decoded with zlib here, so no imaging library is needed).
"""
import os
import struct
import sys
import zlib

import numpy as np

CROP = (96, 0, 256)  # left, top, side length in astronaut.png pixels
SIZE = 128


def read_png_rgb(path):
    """Decodes an 8-bit RGB, non-interlaced PNG (what astronaut.png is) to an HxWx3 array."""
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        sys.exit(f'error: {path} is not a PNG file')
    pos, idat, header = 8, b'', None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b'IHDR':
            header = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
    width, height, depth, color, _, _, interlace = header
    if (depth, color, interlace) != (8, 2, 0):
        sys.exit(f'error: {path}: expected 8-bit RGB non-interlaced, found depth {depth} '
                 f'colour type {color} interlace {interlace}')
    raw = zlib.decompress(idat)
    stride = width * 3
    image = np.zeros((height, stride), dtype=np.int32)
    previous = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = np.frombuffer(raw[start + 1:start + 1 + stride], dtype=np.uint8).astype(np.int32)
        image[y] = unfilter(kind, line, previous)
        previous = image[y]
    return image.reshape(height, width, 3).astype(np.uint8)


def unfilter(kind, line, previous):
    """Undoes one scanline's PNG filter (bytes per pixel 3)."""
    if kind == 0:
        return line
    if kind == 2:
        return (line + previous) & 255
    out = np.zeros_like(line)
    for i in range(len(line)):
        left = out[i - 3] if i >= 3 else 0
        up = previous[i]
        up_left = previous[i - 3] if i >= 3 else 0
        if kind == 1:
            predictor = left
        elif kind == 3:
            predictor = (left + up) // 2
        elif kind == 4:
            p = left + up - up_left
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
            predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else up_left)
        else:
            sys.exit(f'error: unknown PNG filter type {kind}')
        out[i] = (line[i] + predictor) & 255
    return out


def write_png_rgb(path, image):
    height, width, _ = image.shape
    raw = b''.join(b'\x00' + image[y].tobytes() for y in range(height))

    def chunk(kind, body):
        return (struct.pack('>I', len(body)) + kind + body +
                struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff))

    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height,
                                                                    8, 2, 0, 0, 0)) +
                chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: make_input.py ASTRONAUT.png OUTPUT_DIR')
    image = read_png_rgb(sys.argv[1])
    left, top, side = CROP
    crop = image[top:top + side, left:left + side].astype(np.float64)
    factor = side // SIZE
    small = crop.reshape(SIZE, factor, SIZE, factor, 3).mean(axis=(1, 3))
    small = np.clip(np.rint(small), 0, 255).astype(np.uint8)
    small.tofile(os.path.join(sys.argv[2], 'face.rgb'))
    write_png_rgb(os.path.join(sys.argv[2], 'face.png'), small)


if __name__ == '__main__':
    main()
