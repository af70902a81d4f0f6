#!/usr/bin/python3
"""math_f32_constants.py - Derives the constants of lib/CodeGen/MathSingle.cpp.

Prints, as C++ hex-float literals:
  - pi/2 as six pieces of 13 significant bits each (Cody-Waite reduction:
    an 11-bit integer times a piece is exact in f32);
  - the polynomial coefficients of erf: erf(x)/x in x^2 on [0, 1] and
    erfc(x) * exp(x^2) in 1/x on [1, 4], least-squares fits on Chebyshev
    nodes weighted for relative error (close to minimax), rounded to f32,
    with the measured relative error of the rounded polynomial.
Run with /usr/bin/python3 (needs numpy).
"""
import math
from fractions import Fraction

import numpy as np


def arctan_inverse(n, bits):
    """atan(1/n) * 2^bits, truncated, by the Taylor series in integers."""
    scale = 1 << bits
    total, term, k, sign = 0, scale // n, 1, 1
    while term:
        total += sign * (term // k)
        term //= n * n
        k += 2
        sign = -sign
    return total


def half_pi(bits=200):
    """pi/2 as an exact fraction accurate to ~2^-bits (Machin's formula)."""
    pi_scaled = 4 * (4 * arctan_inverse(5, bits + 10) -
                     arctan_inverse(239, bits + 10))
    return Fraction(pi_scaled, 1 << (bits + 10)) / 2


def round_to_bits(value, bits):
    """value rounded to `bits` significant bits, as an exact fraction."""
    if value == 0:
        return Fraction(0)
    exponent = math.floor(math.log2(abs(float(value))))
    quantum = Fraction(2) ** (exponent - bits + 1)
    return round(value / quantum) * quantum


def pieces_of_half_pi(count=6, bits=13):
    rest, pieces = half_pi(), []
    for _ in range(count):
        piece = round_to_bits(rest, bits)
        pieces.append(piece)
        rest -= piece
    return pieces, float(rest)


def fit(f, lo, hi, degree, variable, samples=4000):
    k = np.arange(samples)
    x = (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / samples)
    y = f(x)
    weight = 1 / np.abs(y)
    a = np.vander(variable(x), degree + 1)
    c, *_ = np.linalg.lstsq(a * weight[:, None], y * weight, rcond=None)
    c = c.astype(np.float32).astype(np.float64)
    xs = np.linspace(lo, hi, 200001)
    err = np.max(np.abs(np.polyval(c, variable(xs)) - f(xs)) / np.abs(f(xs)))
    return c, err


def main():
    pieces, rest = pieces_of_half_pi()
    print('// pi/2 in 13-bit pieces; remainder %.3g' % rest)
    for p in pieces:
        print('  %s,' % float(p).hex())
    erf = np.vectorize(math.erf)
    erfc = np.vectorize(math.erfc)
    small, err = fit(lambda x: erf(x) / x, 1e-6, 1.0, 6, lambda x: x * x)
    print('// erf(x)/x in x^2 on [0, 1], degree 6: rel. error %.3g' % err)
    print(''.join('  %s,\n' % float(c).hex() for c in small), end='')
    large, err = fit(lambda x: erfc(x) * np.exp(x * x), 1.0, 4.0, 9,
                     lambda x: 1 / x)
    print('// erfc(x)*exp(x^2) in 1/x on [1, 4], degree 9: rel. error %.3g' % err)
    print(''.join('  %s,\n' % float(c).hex() for c in large), end='')


if __name__ == '__main__':
    main()
