"""The textbook cuTile GEMM that benchmarks/cutile_vs_tileiras.py compiles with tileiras and with
tileorch (a real module: cuTile reads the kernel's source)."""

import cuda.tile as ct


@ct.kernel
def matmul(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk))
        b = ct.load(B, index=(k, bn), shape=(tk, tn))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))
