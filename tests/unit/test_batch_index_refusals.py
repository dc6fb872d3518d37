"""Batched GEMMs whose batch indices the program computes (convert-nv-tileas-to-cutlass's
``_batch_expressions``): the forms the WGMMA kernel does not take are refused at the user's line with
the reason, and the SIMT path runs them (its mma.sync dots)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")

from tileorch.testing.compile_memo import compile_once  # noqa: E402
from tileorch.testing.export import cutile_bytecode  # noqa: E402

HERE = str(Path(__file__))


@ct.kernel
def c_unbatched(A, B, C, H: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    i, j, bh = ct.bid(0), ct.bid(1), ct.bid(2)
    b, h = bh // H, bh % H
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=3, shape=(1, 1, tm, tk))):
        a = ct.load(A, index=(b, h, i, k), shape=(1, 1, tm, tk)).reshape((tm, tk))
        w = ct.load(B, index=(b, h, k, j), shape=(1, 1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))  # every (b, h) into one C tile


@ct.kernel
def atomic_batched(A, B, C, H: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    i, j, bh = ct.bid(0), ct.bid(1), ct.bid(2)
    b, h = bh // H, bh % H
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=3, shape=(1, 1, tm, tk))):
        a = ct.load(A, index=(b, h, i, k), shape=(1, 1, tm, tk)).reshape((tm, tk))
        w = ct.load(B, index=(b, h, k, j), shape=(1, 1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    rows = i * tm + ct.arange(tm, dtype=ct.int32)
    cols = j * tn + ct.arange(tn, dtype=ct.int32)
    ct.atomic_add(C, (rows[:, None], cols[None, :]), acc)


F16_4D = ((2, 2, 128, 128), "float16")


@pytest.mark.parametrize("kernel,spec,message,line", [
    (c_unbatched, [F16_4D, ((2, 2, 128, 128), "float16"), ((128, 128), "float16"), 2, 128, 128, 64],
     "C is 2-D while an operand is batched", "ct.store(C, index=(i, j)"),
    (atomic_batched, [F16_4D, ((2, 2, 128, 128), "float16"), ((128, 128), "float32"), 2, 128, 128, 64],
     "an atomic epilogue of a GEMM whose operands are batched at computed indices", "ct.atomic_add(C"),
])
def test_refused_at_the_users_line(kernel, spec, message, line):
    prog = compile_once(cutile_bytecode(kernel, spec), kernel._pyfunc.__name__ if hasattr(kernel, "_pyfunc")
                        else "k", arch="sm_90a", ptxas=False)
    assert prog.kind == "simt", prog.remarks
    refusals = [r for r in prog.remarks if "refused" in r]
    lineno = next(n for n, text in enumerate(Path(HERE).read_text().splitlines(), 1) if line in text)
    assert any(r.startswith(f"{HERE}:{lineno}:") and message in r for r in refusals), prog.remarks
    assert "mma.sync" in prog.ptx
