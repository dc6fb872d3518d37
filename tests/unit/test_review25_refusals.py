"""Refusals found by review 25's adversarial programs: a computed GEMM operand transposed *before* the ops that
compute it (``ct.transpose(w).astype(f16)``, ``ct.maximum(ct.transpose(a), 0)``) falls back to the SIMT path with
the reason at the transpose's line (``tileas/early_transpose.py``); the refusal used to say the operand "reaches
the dot without a transpose", at the dot, of a program that has one.  The same values written with the transpose
last (``ct.transpose(w.astype(f16))``) take the tensor-core tier.  Needs cuda-tile, no GPU."""

from __future__ import annotations

import inspect
import re

import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")


@ct.kernel
def w8_transposed_then_cast(X, W, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.transpose(ct.load(W, index=(j, k), shape=(tn, tk))).astype(ct.float16)  # B: transpose, then cast
        acc = ct.mma(ct.load(X, index=(i, k), shape=(tm, tk)), w, acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def w8_cast_then_transposed(X, W, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.transpose(ct.load(W, index=(j, k), shape=(tn, tk)).astype(ct.float16))
        acc = ct.mma(ct.load(X, index=(i, k), shape=(tm, tk)), w, acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def relu_of_transposed_a(AT, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(AT, axis=0, shape=(tk, tm))):
        a = ct.maximum(ct.transpose(ct.load(AT, index=(k, i), shape=(tk, tm))), 0.0)  # A: transpose, then relu
        acc = ct.mma(a, ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc)


def _lower(kernel, spec, name):
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    return lower_once(cutile_bytecode(kernel, spec), name, arch="sm_90a")


def _line_of(kernel, marker: str) -> int:
    """The line of this file holding ``marker`` in ``kernel``'s source."""
    src, first = inspect.getsourcelines(kernel._pyfunc if hasattr(kernel, "_pyfunc") else kernel)
    return first + next(i for i, line in enumerate(src) if marker in line)


W8 = [((100, 128), "float16"), ((64, 128), "int8"), ((100, 64), "float32"), 64, 64, 64]


@pytest.mark.parametrize("kernel,name,role,marker", [
    (w8_transposed_then_cast, "rv25_w8_t_cast", "B", "B: transpose, then cast"),
    (relu_of_transposed_a, "rv25_relu_at", "A", "A: transpose, then relu"),
])
def test_an_operand_transposed_before_its_ops_is_refused_at_the_transpose(kernel, name, role, marker):
    spec = W8 if role == "B" else [((128, 100), "float16"), ((128, 64), "float16"), ((100, 64), "float32"), 64, 64, 64]
    prog = _lower(kernel, spec, name)
    assert prog.kind == "simt", prog.remarks
    said = [r for r in prog.remarks if "is transposed before the ops that compute it" in r]
    assert len(said) == 1 and f"{role} tile" in said[0] and "ct.transpose(f(x))" in said[0], prog.remarks
    where = re.match(r"(.+?):(\d+):(\d+): warning:", said[0])
    assert where and where.group(1).endswith("test_review25_refusals.py"), said[0]
    line = int(where.group(2))
    assert line == _line_of(kernel, marker), said[0]
    assert "reaches the dot without a transpose" not in said[0]


def test_the_transpose_written_last_takes_the_tier():
    """The same values with the transpose last: the tier's computed B (no refusal)."""
    prog = _lower(w8_cast_then_transposed, W8, "rv25_w8_cast_t")
    assert prog.kind == "gemm", prog.remarks
    assert not any("transposed before the ops" in r for r in prog.remarks)
