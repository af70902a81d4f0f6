"""elf_reader.py - section headers and undefined symbols of an ELF object, read in Python.

The e2e sweep checks every compiled case's undefined symbols against the manifest, and the lit
footprint check (test/lit/AOT/Inputs/check_footprint.py) adds up section sizes. `llvm-nm` and
`llvm-readelf` answer the same questions, but each run of an LLVM tool pays about 70 ms of
libLLVM's start-up, which over the sweep's thousands of cases was minutes of CI. This reads the
headers directly: ELF32 and ELF64, little- and big-endian (every target kiln emits).
"""
import collections
import struct

SHT_SYMTAB = 2
SHN_UNDEF = 0
STB_GLOBAL, STB_WEAK = 1, 2

Section = collections.namedtuple('Section', 'kind flags offset size link entsize')


class Elf:
    def __init__(self, path):
        with open(path, 'rb') as f:
            self.data = f.read()
        if self.data[:4] != b'\x7fELF':
            raise ValueError(f'{path}: not an ELF file')
        self.is64 = self.data[4] == 2
        self.end = '<' if self.data[5] == 1 else '>'

    def sections(self):
        """Every section header, in order."""
        if self.is64:
            shoff, = struct.unpack_from(self.end + 'Q', self.data, 0x28)
            shentsize, shnum = struct.unpack_from(self.end + 'HH', self.data, 0x3A)
            fmt = self.end + 'IIQQQQIIQQ'
        else:
            shoff, = struct.unpack_from(self.end + 'I', self.data, 0x20)
            shentsize, shnum = struct.unpack_from(self.end + 'HH', self.data, 0x2E)
            fmt = self.end + 'IIIIIIIIII'
        out = []
        for i in range(shnum):
            _, kind, flags, _, offset, size, link, _, _, entsize = struct.unpack_from(
                fmt, self.data, shoff + i * shentsize)
            out.append(Section(kind, flags, offset, size, link, entsize))
        return out

    def symbol(self, at):
        """(name offset, st_info, st_shndx) of the symbol table entry at `at`."""
        if self.is64:
            name, info, _, shndx = struct.unpack_from(self.end + 'IBBH', self.data, at)
        else:
            name, _, _, info, _, shndx = struct.unpack_from(self.end + 'IIIBBH', self.data, at)
        return name, info, shndx


def sections(path):
    """The section headers of the ELF object at `path`."""
    return Elf(path).sections()


def undefined_symbols(path):
    """The names of the global and weak symbols `path` references but does not define."""
    elf = Elf(path)
    headers = elf.sections()
    data, names = elf.data, set()
    for table in headers:
        if table.kind != SHT_SYMTAB:
            continue
        strtab = headers[table.link].offset
        for at in range(table.offset + table.entsize, table.offset + table.size, table.entsize):
            name, info, shndx = elf.symbol(at)  # entry 0 is the null symbol
            if shndx == SHN_UNDEF and info >> 4 in (STB_GLOBAL, STB_WEAK) and name:
                names.add(data[strtab + name:data.index(b'\0', strtab + name)].decode())
    return names
