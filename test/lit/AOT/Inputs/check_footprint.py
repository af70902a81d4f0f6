"""Checks the manifest's flash_bytes and ram_bytes against the object's ELF
section headers (read here with struct, not through kiln), then compiles
again at the limits: --max-flash/--max-ram equal to the need must succeed,
one byte less must fail with the documented message and write no file.

usage: check_footprint.py KILN PREFIX MODEL [kiln compile flags...]
"""
import json
import os
import struct
import subprocess
import sys

SHF_WRITE, SHF_ALLOC, SHT_NOBITS = 0x1, 0x2, 8


def sections(path):
    """(type, flags, size) of every section of an ELF32 or ELF64 object."""
    data = open(path, "rb").read()
    assert data[:4] == b"\x7fELF", path
    is64 = data[4] == 2
    endian = "<" if data[5] == 1 else ">"
    if is64:
        shoff, = struct.unpack_from(endian + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(endian + "HH", data, 0x3A)
        fmt = endian + "IIQQQQ"
    else:
        shoff, = struct.unpack_from(endian + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(endian + "HH", data, 0x2E)
        fmt = endian + "IIIIII"
    for i in range(shnum):
        _, kind, flags, _, _, size = struct.unpack_from(fmt, data, shoff + i * shentsize)
        yield kind, flags, size


def footprint(prefix):
    flash = writable = 0
    for kind, flags, size in sections(prefix + ".o"):
        if not flags & SHF_ALLOC:
            continue
        if kind != SHT_NOBITS:
            flash += size
        if flags & SHF_WRITE:
            writable += size
    manifest = json.load(open(prefix + ".json"))
    ram = manifest["arena"]["bytes"] + writable + sum(
        t["bytes"] for t in manifest["args"] + manifest["results"])
    return manifest["sizes"], flash, ram


def compile_at(kiln, model, prefix, flags, limit_flag, limit):
    command = [kiln, "compile", model, "-o", prefix, limit_flag, str(limit)] + flags
    return subprocess.run(command, capture_output=True, text=True)


def main():
    kiln, prefix, model, flags = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    sizes, flash, ram = footprint(prefix)
    if (sizes["flash_bytes"], sizes["ram_bytes"]) != (flash, ram):
        sys.exit(f"manifest says flash {sizes['flash_bytes']} ram {sizes['ram_bytes']}, "
                 f"the sections say flash {flash} ram {ram}")
    for flag, need in (("--max-flash", flash), ("--max-ram", ram)):
        at = compile_at(kiln, model, prefix + ".at", flags, flag, need)
        if at.returncode != 0:
            sys.exit(f"{flag} {need} (the need) failed: {at.stderr}")
        below = compile_at(kiln, model, prefix + ".below", flags, flag, need - 1)
        leftovers = [p for p in os.listdir(os.path.dirname(prefix) or ".")
                     if p.startswith(os.path.basename(prefix) + ".below")]
        if below.returncode == 0 or leftovers:
            sys.exit(f"{flag} {need - 1} did not fail cleanly: {below.returncode} {leftovers}")
        print(below.stderr.strip().replace(f"needs {need} bytes", "needs NEED bytes"))
    print(f"footprint agrees: flash {flash} ram {ram}")


main()
