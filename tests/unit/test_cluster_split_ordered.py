"""A reduction loop whose loads carry a memory order is not split over a cluster
(``tileaa_to_simt/cluster_split.py``): split, its iterations would run concurrently on the
cluster's CTAs, a later iteration's loads before an earlier one's ``ACQUIRE``.  The same loop with
weak loads is split (the remark says so).  Needs cuda-tile, no GPU."""

from __future__ import annotations

import pytest

ct = pytest.importorskip("cuda.tile")

C = ct.Constant
SPLIT = "its reduction loop is split over a cluster"


@ct.kernel
def acquire_col_sum(X, Y, TM: C[int], TN: C[int]):
    j = ct.bid(0)
    acc = ct.zeros((TN,), dtype=ct.float32)
    for i in range(ct.num_tiles(X, axis=0, shape=(TM, TN))):
        x = ct.load(X, index=(i, j), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO,
                    memory_order=ct.MemoryOrder.ACQUIRE, memory_scope=ct.MemoryScope.DEVICE)
        acc = acc + ct.sum(x, axis=0)
    ct.store(Y, index=(j,), tile=acc)


@ct.kernel
def weak_col_sum(X, Y, TM: C[int], TN: C[int]):
    j = ct.bid(0)
    acc = ct.zeros((TN,), dtype=ct.float32)
    for i in range(ct.num_tiles(X, axis=0, shape=(TM, TN))):
        acc = acc + ct.sum(ct.load(X, index=(i, j), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO), axis=0)
    ct.store(Y, index=(j,), tile=acc)


@pytest.mark.parametrize("kernel,split", [(acquire_col_sum, False), (weak_col_sum, True)],
                         ids=["acquire", "weak"])
def test_a_loop_with_ordered_loads_is_not_split(kernel, split):
    from tileorch.testing.gemm_emulation import compile_cutile

    prog = compile_cutile(kernel, [((4096, 256), "float32"), ((256,), "float32"), 8, 256],
                          "acquire_col_sum" if not split else "weak_col_sum")
    assert prog.kind == "simt", prog.remarks
    assert bool(prog.cluster_split) == split and any(SPLIT in r for r in prog.remarks) == split, prog.remarks
