"""The accuracy of two-level fp8 accumulation by interval, on the CPU (session 39, the evidence for
``TILEORCH_FP8_PROMOTE_INTERVAL``'s default).  C = A B of e4m3 operands (normal values + a mean) summed as the
GEMM tier's kernel sums them with the PTX emulator's model of the fp8 WGMMA adder (``Emu.fp8_sum_bits``: each
WGMMA's 32 products and its accumulator truncated to ``bits`` fraction bits below the largest term): K tiles of
128 in blocks of P (0: one block, the WGMMAs chaining over the whole K loop), each block from a zero scratch, added
in f32.  Prints, per K, mean and P, the largest relative error over the elements above 1% of the largest and how
many of the M x N elements miss ``rtol = 1e-3, atol = 1e-3 * max|C|`` against float64.  The kernel's bits equal
this model (tests/unit/test_fp8_promotion_emulated.py), so the numbers are the emulated kernel's.

    PYTHONPATH=src python benchmarks/fp8_promotion_model.py [--bits 13] [--k 512 1024 4096]
"""

from __future__ import annotations

import argparse

import ml_dtypes
import numpy as np

from tileorch.testing.ptx_emulator import _narrow_sum


def two_level(a, b, interval, bits, tile_k=128):
    """A [M, K] @ B [K, N] (float32 values) summed by the model (see the module's text)."""
    tiles = -(-a.shape[1] // tile_k)
    pad = tiles * tile_k - a.shape[1]
    a = np.pad(a, ((0, 0), (0, pad))).astype(np.float32)
    bt = np.pad(b, ((0, pad), (0, 0))).T.astype(np.float32)
    every = interval or tiles
    acc = np.zeros((a.shape[0], bt.shape[0]), np.float32)
    for kb in range(0, tiles, every):
        part = np.zeros_like(acc)
        for c in range(kb * tile_k, min(kb + every, tiles) * tile_k, 32):
            part = _narrow_sum(a[:, c:c + 32], bt[:, c:c + 32], part, 1, bits)
        acc = (acc + part).astype(np.float32)
    return acc.astype(np.float64)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bits", type=int, default=13)
    ap.add_argument("--k", type=int, nargs="+", default=[128, 512, 1024, 4096])
    ap.add_argument("--intervals", type=int, nargs="+", default=[0, 1, 2, 4, 8])
    ap.add_argument("--size", type=int, default=64, help="M = N")
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    e4m3 = ml_dtypes.float8_e4m3fn
    for k in args.k:
        for mean in (0.0, 1.0):
            a = (rng.standard_normal((args.size, k)) + mean).astype(e4m3).astype(np.float64)
            b = (rng.standard_normal((k, args.size)) + mean).astype(e4m3).astype(np.float64)
            ref = a @ b
            top = np.abs(ref).max()
            cells = []
            for p in args.intervals:
                out = two_level(a, b, p, args.bits)
                rel = np.abs(out - ref) / np.maximum(np.abs(ref), 1e-300)
                worst = float(np.max(np.where(np.abs(ref) > 0.01 * top, rel, 0)))
                missed = int((~np.isclose(out, ref, rtol=1e-3, atol=1e-3 * top)).sum())
                cells.append(f"P={p}: {worst:.1e} / {missed}")
            print(f"K={k:5d} mean={mean}: " + " | ".join(cells))


if __name__ == "__main__":
    main()
