"""Writes an HLO module whose entry is a chain of N elementwise instructions
(tanh, exponential, logistic, multiply: each expands into a long LLVM
function), to stdout. Usage: make_chain.py N."""
import sys

count = int(sys.argv[1])
ops = ['tanh({})', 'exponential({})', 'logistic({})', 'multiply({}, y)']
lines = ['HloModule chain_%d, entry=main' % count, '', 'ENTRY main {',
         '  x = f32[1000] parameter(0)', '  y = f32[1000] parameter(1)']
previous = 'x'
for i in range(count):
    lines.append('  v%d = f32[1000] %s' % (i, ops[i % len(ops)].format(previous)))
    previous = 'v%d' % i
lines.append('  ROOT r = f32[1000] add(%s, y)' % previous)
lines.append('}')
print('\n'.join(lines))
