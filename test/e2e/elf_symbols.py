"""elf_symbols.py - the undefined symbols of a relocatable ELF object, read in Python.

The e2e sweep checks every compiled case's undefined symbols against the manifest. `llvm-nm`
answers the same question, but each run of an LLVM tool pays about 70 ms of libLLVM's start-up,
which over the sweep's thousands of cases was minutes of CI. This reads the symbol table
directly: ELF32 and ELF64, little- and big-endian (every target kiln emits).
"""
import struct

SHT_SYMTAB = 2
SHN_UNDEF = 0
STB_GLOBAL, STB_WEAK = 1, 2


def undefined_symbols(path):
    """The names of the global and weak symbols `path` references but does not define."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:4] != b'\x7fELF':
        raise ValueError(f'{path}: not an ELF file')
    is64 = data[4] == 2
    end = '<' if data[5] == 1 else '>'
    if is64:
        shoff, = struct.unpack_from(end + 'Q', data, 0x28)
        shentsize, shnum = struct.unpack_from(end + 'HH', data, 0x3A)
    else:
        shoff, = struct.unpack_from(end + 'I', data, 0x20)
        shentsize, shnum = struct.unpack_from(end + 'HH', data, 0x2E)
    sections = [section_header(data, end, is64, shoff + i * shentsize) for i in range(shnum)]
    names = set()
    for kind, offset, size, link, entsize in sections:
        if kind != SHT_SYMTAB:
            continue
        strtab = sections[link][1]
        for at in range(offset + entsize, offset + size, entsize):  # entry 0 is null
            name, info, shndx = symbol(data, end, is64, at)
            if shndx == SHN_UNDEF and info >> 4 in (STB_GLOBAL, STB_WEAK) and name:
                names.add(data[strtab + name:data.index(b'\0', strtab + name)].decode())
    return names


def section_header(data, end, is64, at):
    """(type, offset, size, link, entsize) of the section header at `at`."""
    if is64:
        _, kind, _, _, offset, size, link, _, _, entsize = struct.unpack_from(
            end + 'IIQQQQIIQQ', data, at)
    else:
        _, kind, _, _, offset, size, link, _, _, entsize = struct.unpack_from(
            end + 'IIIIIIIIII', data, at)
    return kind, offset, size, link, entsize


def symbol(data, end, is64, at):
    """(name offset, st_info, st_shndx) of the symbol table entry at `at`."""
    if is64:
        name, info, _, shndx = struct.unpack_from(end + 'IBBH', data, at)
    else:
        name, _, _, info, _, shndx = struct.unpack_from(end + 'IIIBBH', data, at)
    return name, info, shndx
