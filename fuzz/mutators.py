"""Mutation strategies of the mutation campaign (fuzz/mutate.py).

Every function takes a random.Random and the input bytes (or text) and returns
a mutated copy; none reads global state, so a case is reproducible from its
seed alone. Byte-level strategies work on any input; the format-aware ones
(text numbers and lines, JSON trees, protobuf wire fields) reach the deeper
checks that random bytes rarely get past.
"""
import json
import re
import struct

INTERESTING_BYTES = [0x00, 0xff, 0x7f, 0x80]
# Sizes and indices that overflow 32 and 64 bits, signed and unsigned.
INTERESTING_INTS = [0, 1, -1, 2, 255, 256, 4096, 65535, 65536, 2**31 - 1, 2**31, 2**32 - 1,
                    2**32, 2**62, 2**63 - 1, -2**63, -2**31]
INTERESTING_TEXT_NUMBERS = ['0', '-1', '2147483648', '4294967296', '9223372036854775807',
                            '-9223372036854775808', '1e30', 'nan', 'inf', '-inf', '1e-45',
                            '65536', '100000000']
INTERESTING_FLOATS = [0.0, -0.0, 1e30, -1e30, float('nan'), float('inf'), float('-inf'),
                      1e-45, 2.0**31, 2.0**64]

# A number in text: an optional sign, digits with an optional fraction and
# exponent. Not preceded by a letter or digit, so names such as 'conv2d_1' keep
# their digits most of the time (they are still mutated byte-wise).
_NUMBER = re.compile(rb'(?<![A-Za-z0-9_.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?')


# --- byte level ------------------------------------------------------------

def _span(rng, data, longest=64):
    start = rng.randrange(len(data) + 1)
    return start, min(len(data), start + rng.randint(1, longest))


def flip_bits(rng, data):
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if out:
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def replace_interesting_bytes(rng, data):
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if out:
            start, end = _span(rng, out, 8)
            value = rng.choice(INTERESTING_BYTES)
            out[start:end] = bytes([value]) * (end - start)
    return bytes(out)


def insert_run(rng, data):
    start = rng.randrange(len(data) + 1)
    length = rng.choice([1, 2, 4, 8, 64, 1024])
    if rng.random() < 0.5:
        run = bytes([rng.choice(INTERESTING_BYTES)]) * length
    else:
        run = bytes(rng.randrange(256) for _ in range(min(length, 64)))
    return data[:start] + run + data[start:]


def delete_run(rng, data):
    start, end = _span(rng, data, rng.choice([1, 4, 64, 1024]))
    return data[:start] + data[end:]


def truncate(rng, data):
    return data[:rng.randrange(len(data) + 1)]


def duplicate_chunk(rng, data):
    start, end = _span(rng, data, rng.choice([4, 64, 512]))
    at = rng.randrange(len(data) + 1)
    return data[:at] + data[start:end] * rng.randint(1, 4) + data[at:]


def splice(rng, data, other):
    """The head of one seed and the tail of another seed of the same format."""
    return data[:rng.randrange(len(data) + 1)] + other[rng.randrange(len(other) + 1):]


BYTE_STRATEGIES = [flip_bits, replace_interesting_bytes, insert_run, delete_run, truncate,
                   duplicate_chunk]


def mutate_bytes(rng, data, other=None):
    if other is not None and rng.random() < 0.15:
        return splice(rng, data, other), 'splice'
    strategy = rng.choice(BYTE_STRATEGIES)
    return strategy(rng, data), strategy.__name__


# --- text (pbtxt, HLO, tf2xla config, .npy header) --------------------------

def replace_number(rng, text):
    numbers = list(_NUMBER.finditer(text))
    if not numbers:
        return None
    match = rng.choice(numbers)
    value = rng.choice(INTERESTING_TEXT_NUMBERS).encode()
    return text[:match.start()] + value + text[match.end():]


def _lines(text):
    return text.splitlines(keepends=True)


def delete_lines(rng, text):
    lines = _lines(text)
    if not lines:
        return None
    start = rng.randrange(len(lines))
    del lines[start:start + rng.choice([1, 1, 2, 5])]
    return b''.join(lines)


def duplicate_lines(rng, text):
    lines = _lines(text)
    if not lines:
        return None
    start = rng.randrange(len(lines))
    block = lines[start:start + rng.choice([1, 1, 3])]
    at = rng.randrange(len(lines) + 1)
    lines[at:at] = block * rng.choice([1, 1, 2, 100])
    return b''.join(lines)


def swap_lines(rng, text):
    lines = _lines(text)
    if len(lines) < 2:
        return None
    a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[a], lines[b] = lines[b], lines[a]
    return b''.join(lines)


def insert_brackets(rng, text):
    """Deep nesting at a random place: recursion limits of the parsers."""
    at = rng.randrange(len(text) + 1)
    opening = rng.choice([b'a { ', b'{', b'[', b'(', b'a < '])
    return text[:at] + opening * rng.choice([50, 200, 20000]) + text[at:]


TEXT_STRATEGIES = [replace_number, replace_number, replace_number, delete_lines,
                   duplicate_lines, swap_lines, insert_brackets]


def mutate_text(rng, text, other=None):
    """A text-aware mutation most of the time, else a byte-level one."""
    if rng.random() < 0.7:
        strategy = rng.choice(TEXT_STRATEGIES)
        mutated = strategy(rng, text)
        if mutated is not None:
            return mutated, strategy.__name__
    return mutate_bytes(rng, text, other)


# --- JSON tree -------------------------------------------------------------

def _json_slots(value, slots):
    """Every (container, key) pair of a parsed JSON document. Iterative: a
    mutant nested thousands deep must not exceed Python's recursion limit."""
    pending = [value]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            for key in value:
                slots.append((value, key))
                pending.append(value[key])
        elif isinstance(value, list):
            for index in range(len(value)):
                slots.append((value, index))
                pending.append(value[index])
    return slots


def _interesting_json_value(rng, old):
    if isinstance(old, str) and re.fullmatch(r'-?\d+', old):
        return str(rng.choice(INTERESTING_INTS))  # int64 fields are strings in proto JSON
    if isinstance(old, (int, float)) and not isinstance(old, bool):
        return rng.choice(INTERESTING_INTS + INTERESTING_FLOATS)
    return rng.choice([None, [], {}, '', True, 0, -1, 2**63, 'nan', 1e30, [old, old],
                       {'x': old}])


def _mutate_json_slot(rng, container, key):
    old = container[key]
    action = rng.choice(['value', 'value', 'value', 'delete', 'duplicate', 'nest'])
    if action == 'value':
        container[key] = _interesting_json_value(rng, old)
    elif action == 'delete':
        del container[key]
    elif action == 'duplicate' and isinstance(container, list):
        container.insert(key, old)
    elif action == 'duplicate' and isinstance(old, list) and old:
        container[key] = old + old[:1] * rng.choice([1, 1000])
    else:  # nest: deep recursion in the reader
        for _ in range(rng.choice([2, 50, 200, 600])):  # json.dumps recurses
            old = [old] if rng.random() < 0.5 else {'a': old}
        container[key] = old
    return 'json_' + action


def mutate_json(rng, text, other=None):
    """A mutation on the parsed tree when the text parses, else a text one."""
    if rng.random() < 0.75:
        try:
            document = json.loads(text)
        except (ValueError, UnicodeDecodeError, RecursionError):
            document = None
        slots = _json_slots(document, []) if document is not None else []
        if slots:
            rounds = rng.choice([1, 1, 1, 2, 3])
            names = []
            for _ in range(rounds):
                slots = _json_slots(document, [])
                if not slots:
                    break
                names.append(_mutate_json_slot(rng, *rng.choice(slots)))
            try:
                return json.dumps(document).encode(), '+'.join(names)
            except (ValueError, RecursionError):
                pass
    return mutate_text(rng, text, other)


# --- protobuf wire format --------------------------------------------------

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5


def _read_varint(data, pos, end):
    value, shift = 0, 0
    while pos < end and shift < 70:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7f) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
    raise ValueError('bad varint')


def encode_varint(value):
    value &= (1 << 64) - 1  # negative int64 is 10 bytes, as protobuf writes it
    out = bytearray()
    while True:
        byte = value & 0x7f
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


class Field:
    """One wire field. `value` is an int (varint), bytes (fixed or opaque
    length-delimited) or a list of Fields (a length-delimited payload that
    parses as a message)."""
    __slots__ = ('number', 'wire_type', 'value', 'length_override')

    def __init__(self, number, wire_type, value):
        self.number, self.wire_type, self.value = number, wire_type, value
        self.length_override = None


def parse_message(data, start=0, end=None, depth=0, budget=None):
    """Fields of a message, payloads parsed as nested messages where they
    parse completely. Raises ValueError when `data` is not a message."""
    end = len(data) if end is None else end
    budget = budget if budget is not None else [200000]
    fields, pos = [], start
    while pos < end:
        budget[0] -= 1
        if budget[0] < 0:
            raise ValueError('too many fields')
        key, pos = _read_varint(data, pos, end)
        number, wire_type = key >> 3, key & 7
        if number == 0:
            raise ValueError('field 0')
        if wire_type == VARINT:
            value, pos = _read_varint(data, pos, end)
        elif wire_type in (FIXED64, FIXED32):
            size = 8 if wire_type == FIXED64 else 4
            if pos + size > end:
                raise ValueError('short fixed')
            value, pos = bytes(data[pos:pos + size]), pos + size
        elif wire_type == LENGTH:
            length, pos = _read_varint(data, pos, end)
            if pos + length > end:
                raise ValueError('short payload')
            value = bytes(data[pos:pos + length])
            if depth < 12 and 0 < length:
                try:
                    value = parse_message(data, pos, pos + length, depth + 1, budget)
                except ValueError:
                    pass
            pos += length
        else:
            raise ValueError('wire type')
        fields.append(Field(number, wire_type, value))
    return fields


def serialize(fields):
    out = bytearray()
    for field in fields:
        out += encode_varint(field.number << 3 | field.wire_type)
        if field.wire_type == VARINT:
            out += encode_varint(field.value)
        elif field.wire_type == LENGTH:
            payload = serialize(field.value) if isinstance(field.value, list) else field.value
            length = len(payload) if field.length_override is None else field.length_override
            out += encode_varint(length) + payload
        else:
            out += field.value
    return bytes(out)


def _all_fields(fields, found):
    for field in fields:
        found.append((fields, field))
        if isinstance(field.value, list):
            _all_fields(field.value, found)
    return found


def _mutate_field(rng, siblings, field):
    if field.wire_type == VARINT and rng.random() < 0.8:
        choice = rng.random()
        if choice < 0.7:
            field.value = rng.choice(INTERESTING_INTS)
        else:
            field.value = field.value + rng.choice([-1, 1])
        return 'varint'
    if field.wire_type == LENGTH and rng.random() < 0.1:  # desyncs the rest: rarely
        payload = serialize(field.value) if isinstance(field.value, list) else field.value
        field.length_override = max(0, rng.choice(
            [len(payload) + d for d in (-16, -1, 1, 16)] + [0, 2**31, 2**32 - 1]))
        return 'length'
    if field.wire_type == FIXED32 and rng.random() < 0.6:
        field.value = struct.pack('<f', rng.choice(INTERESTING_FLOATS))
        return 'float'
    if field.wire_type == FIXED64 and rng.random() < 0.6:
        field.value = struct.pack('<d', rng.choice(INTERESTING_FLOATS))
        return 'double'
    index = siblings.index(field)
    if rng.random() < 0.5:
        del siblings[index]
        return 'delete_field'
    siblings.insert(index, field)  # the same field object twice: a repeat
    return 'duplicate_field'


def mutate_protobuf(rng, data, other=None):
    """A mutation of a decoded wire field (lengths kept consistent unless the
    length itself is the mutation), else a byte-level one."""
    if rng.random() < 0.85:
        try:
            fields = parse_message(data)
        except ValueError:
            fields = None
        names = []
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            candidates = _all_fields(fields or [], [])
            if candidates:
                names.append(_mutate_field(rng, *rng.choice(candidates)))
        if names:
            return serialize(fields), '+'.join(names)
    return mutate_bytes(rng, data, other)
