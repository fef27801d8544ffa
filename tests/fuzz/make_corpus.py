#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_exdot (tests/fuzz/corpus/): a few inputs in each
encoding (see fuzz_exdot.cpp), among them the classic hard cases. Deterministic."""
import os
import random
import struct

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "corpus")
os.makedirs(out, exist_ok=True)

STRIDE_CODE = {1: 0, 2: 1, 3: 2, -1: 3, -2: 4, 0: 5, 5: 7}


def header(encoding, incx=1, incy=1, base_byte=128):
    return bytes([encoding | (STRIDE_CODE[incx] << 2) | (STRIDE_CODE[incy] << 5), base_byte])


def raw_pairs(pairs):
    return b"".join(struct.pack("<dd", x, y) for x, y in pairs)


def write(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


inf, nan = float("inf"), float("nan")
dmax, tiny = 1.7976931348623157e308, 5e-324
hard = {
    "raw_2p1000_plus_1": [(2.0**1000, 1), (1, 1), (-2.0**1000, 1)],
    "raw_ties": [(1, 1), (2.0**-53, 1), (1 + 2.0**-52, 1), (2.0**-53, 1), (-1 - 2.0**-52, 1)],
    "raw_overflow_products": [(2.0**600, 2.0**600), (2.0**600, -2.0**600), (3, 1), (dmax, 1), (2.0**970, 1)],
    "raw_subnormal_products": [(2.0**-538, 2.0**-537), (3 * 2.0**-538, 2.0**-537), (tiny, 0.5), (-(2.0**-600), 2.0**-600)],
    "raw_specials": [(inf, 1), (0.0, 5), (-0.0, 1), (nan, 0), (-inf, 2)],
    "raw_signed_zeros": [(-0.0, 1), (0.0, -1), (-0.0, -0.0)],
}
for i, (name, pairs) in enumerate(hard.items()):
    write(name, header(0, [1, 2, -1, 3, 0, 5][i], [1, -2, 1, 2, 1, 3][i]) + raw_pairs(pairs))

rng = random.Random(2019)
for k in range(3):  # compact encodings, random
    for enc, size in ((1, 6), (2, 4), (3, 4)):
        n = rng.choice([3, 8, 17, 67, 200])
        body = bytes(rng.randrange(256) for _ in range(n * size))
        incx, incy = rng.choice(list(STRIDE_CODE)), rng.choice(list(STRIDE_CODE))
        write("enc%d_%d" % (enc, k), header(enc, incx, incy, rng.randrange(256)) + body)

# compact: a cancelling sequence (equal magnitudes, alternating signs) plus a tie
body = b""
for i in range(40):
    body += bytes([(0x80 if i % 2 else 0) | 64, 0x12, 0x34]) + bytes([64, 0, 0])
body += bytes([64 - 53, 0, 0]) + bytes([64, 0, 0])
write("enc1_cancel_tie", header(1, 1, 1, 128) + body)
