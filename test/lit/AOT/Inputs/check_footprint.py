"""Checks the manifest's flash_bytes and ram_bytes against the object's ELF
section headers (read with struct by test/e2e/elf_reader.py, not through kiln), then compiles
again at the limits: --max-flash/--max-ram equal to the need must succeed,
one byte less must fail with the documented message and write no file.

usage: check_footprint.py KILN PREFIX MODEL [kiln compile flags...]
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "e2e"))
from elf_reader import sections  # noqa: E402

SHF_WRITE, SHF_ALLOC, SHT_NOBITS = 0x1, 0x2, 8


def footprint(prefix):
    flash = writable = 0
    for section in sections(prefix + ".o"):
        if not section.flags & SHF_ALLOC:
            continue
        if section.kind != SHT_NOBITS:
            flash += section.size
        if section.flags & SHF_WRITE:
            writable += section.size
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
