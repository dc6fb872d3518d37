"""A cuTile GEMM with one K loop per weight, chosen by the program id in an ``if``: the TileAS tier
refuses it with a located warning that says why and what to write instead (two kernels, or the
weights stacked into one array), and the SIMT path compiles it (tools/untested_diagnostics.py,
session 21: the refusal's message had no test)."""

from __future__ import annotations

import inspect

import pytest

ct = pytest.importorskip("cuda.tile")


@ct.kernel
def two_weights(A, B0, B1, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    if bn % 2 == 0:
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B0, index=(k, bn), shape=(tk, tn)), acc)
    else:
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):  # SECOND LOOP
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B1, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


def test_dot_loops_in_the_branches_of_an_if_are_refused_at_the_second_loop():
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    spec = [((128, 256), "float16"), ((256, 128), "float16"), ((256, 128), "float16"), ((128, 128), "float16"),
            64, 64, 32]  # small tiles: the SIMT path's lowering of the dots stays cheap
    program = lower_once(cutile_bytecode(two_weights, spec), "two_weights", arch="sm_90a")
    assert program.kind == "simt", program.remarks
    lines, first = inspect.getsourcelines(two_weights._annotated_function.pyfunc)
    line = first + next(i for i, text in enumerate(lines) if "SECOND LOOP" in text)
    refusal = [r for r in program.remarks if "loops with dots in the branches of an if" in r]
    assert len(refusal) == 1, program.remarks
    assert f"{__file__}:{line}:" in refusal[0] and " warning: 2 loops with dots in the branches of an if" in refusal[0]
    assert "launch one kernel per branch, or stack the weights into one array" in refusal[0]
    assert "the tensor-core path refused this kernel: the SIMT path compiles it" in refusal[0]
