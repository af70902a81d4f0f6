"""Recounts, from a --emit report JSON's arena buffers (offset, bytes, live range), the bytes a
pool's two threads write per run where the other thread wrote last, and prints them beside the
report's own count (memory.crossed_half_bytes) and the arena size.

The model, written here from its definition rather than from kiln's code: buffers are written in
the order their live ranges start, each by halves (first thread the lower half, second thread the
upper) unless it is under 4 KiB (then the first thread writes it whole); one run follows another,
so the count is taken over a second run.

usage: check_halves.py REPORT.json
"""
import json
import sys

SMALLEST_SPLIT = 4096


def writes(buffer):
    """[(first byte, end, thread)] for one buffer."""
    lo, size = buffer['offset'], buffer['bytes']
    middle = lo + (size if size < SMALLEST_SPLIT else size // 2)
    return [(lo, middle, 0), (middle, lo + size, 1)]


def crossed(buffers, arena):
    owner = bytearray([2]) * arena  # 2: nobody yet
    count = 0
    for run in range(2):
        for buffer in sorted(buffers, key=lambda b: b['live'][0]):
            for lo, hi, thread in writes(buffer):
                if run == 1:
                    count += sum(1 for w in owner[lo:hi] if w != 2 and w != thread)
                owner[lo:hi] = bytes([thread]) * (hi - lo)
    return count


memory = json.load(open(sys.argv[1]))['memory']
print('recounted', crossed(memory['buffers'], memory['arena_bytes']),
      'reported', memory['crossed_half_bytes']['placed'],
      'best fit', memory['crossed_half_bytes']['best_fit'], 'arena', memory['arena_bytes'])
