"""Review 30: GEMM-path programs whose arrays' shapes disagree, as a valid cuTile program may have them -- a K loop
over B's rows with a wider A (A's K allocated larger), an output with more rows than the product (a padded
buffer: the program stores the zero-padded rows too), a batch of Bs shorter than A's.  The launcher's
``gemm_problem_batched`` raised a plain ``ValueError`` ("GEMM shapes do not agree"), so ``tileorch.cutile.launch``
failed on a program cuTile runs; it now raises ``LayoutNotSupported``, which the launch answers by running the
program on the SIMT path with a warning (``tests/gpu/test_review30_gpu.py`` runs them).  ``test_shapes_that_
disagree_send_the_launch_to_the_simt_path`` fails before.  Needs cuda-tile, no GPU."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

from test_review30_blocks import C, ZERO, compile_for  # noqa: E402


@ct.kernel
def k_over_b_rows(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(B.shape[0], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def batched(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn, bl = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((1, tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], tk)):
        acc = ct.mma(ct.load(A, index=(bl, bm, k), shape=(1, tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(bl, k, bn), shape=(1, tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bl, bm, bn), tile=acc)


def _z(*shape, dt=np.float16):
    return np.zeros(shape, dt)


CASES = {  # name -> (kernel, arguments, words of the reason)
    "a_wider_than_b_rows": (k_over_b_rows, [_z(130, 128), _z(64, 80), _z(130, 80, dt=np.float32), 64, 64, 32],
                            "GEMM shapes do not agree: A (130, 128)"),
    "output_taller_than_a": (k_over_b_rows, [_z(130, 64), _z(64, 80), _z(192, 80, dt=np.float32), 64, 64, 32],
                             "C (192, 80)"),
    "fewer_bs_than_as": (batched, [_z(3, 130, 64), _z(2, 64, 80), _z(3, 130, 80, dt=np.float32), 64, 64, 32],
                         "batch sizes do not agree"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_shapes_that_disagree_send_the_launch_to_the_simt_path(name):
    from tileorch.launchers import cutile as rc

    kernel, args, words = CASES[name]
    prog, arguments, _ = compile_for(kernel, args, f"rv30_launch_{name}")
    assert prog.kind == "gemm", prog.remarks
    with pytest.raises(rc.LayoutNotSupported) as info:
        rc.gemm_problem_batched(prog, arguments)
    assert words in str(info.value) and "a valid program" in str(info.value)
