"""cuTile programs of the hand-written edge cases of 2026-12-03 (tools/cutile_edge_cases.py) kept
for tests/unit/test_fuzz_findings.py; importing it needs ``cuda.tile``."""

import cuda.tile as ct


@ct.kernel
def big_k_tile(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):  # LOOP
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def f64_dot(A, B, C, t: ct.Constant[int]):
    acc = ct.zeros((t, t), dtype=ct.float64)
    for k in range(ct.num_tiles(A, axis=1, shape=(t, t))):
        acc = ct.mma(ct.load(A, index=(0, k), shape=(t, t)), ct.load(B, index=(k, 0), shape=(t, t)), acc)  # DOT
    ct.store(C, index=(0, 0), tile=acc)


@ct.kernel
def shift_by_64(x, y):
    ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(64,)) << 64)
