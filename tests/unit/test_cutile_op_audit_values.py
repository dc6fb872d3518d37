"""Issue 21, item 3: the op audit's cuTile programs (``test_cutile_op_audit.py``: together they reach every op
cuTile 1.7's front end emits) compute the right values, not only compile: each run by the CPU interpreter of
the lowered kernel (outputs NaN-prefilled) against numpy in float64 / exact integers.

Found while writing it: nothing wrong.  ``ct.matmul`` of int8 tiles is int8 (cuTile: "the result dtype is the
same as the promoted input types": ``mmai`` into i32, then ``trunci``), so its reference wraps; a float to int
conversion saturates (f16 infinity -> INT32_MAX), numpy's cast does not.

CI runs :data:`CI` (float and integer math with casts, shape ops, pointer tiles with atomics);
``TILEORCH_EMULATE_ALL=1`` runs the rest (each ~1.5 CPU s)."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_cutile_op_audit as audit  # noqa: E402

CI = {"float_math", "int_math", "shapes", "pointers"}


def _case(name):
    marks = () if name in CI or os.environ.get("TILEORCH_EMULATE_ALL") else (
        pytest.mark.skip(reason="CI-sized subset: TILEORCH_EMULATE_ALL=1 runs it (CI time)"),)
    return pytest.param(name, marks=marks, id=name)


def _run(name, arrays, grid):
    kernel, spec = audit.LOWERS[name]
    return audit._run(kernel, spec, arrays, grid)


def _close(got, want, tol):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert not np.isnan(got).any(), "an element was never written"
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


rng = np.random.default_rng(21)


def float_math():
    x, y = (rng.uniform(-3, 3, 256).astype(np.float32) for _ in range(2))
    z = _run("float_math", {0: x, 1: y}, (1, 1, 1))[2]
    t, u = x.astype(np.float64), y.astype(np.float64)
    a = np.exp(t) + np.exp2(t) + np.log(np.abs(t) + 1) + np.log2(np.abs(u) + 1) + np.sin(t) + np.cos(u)
    b = (np.tan(t * np.float32(0.1)) + np.sinh(t) + np.cosh(u) + np.tanh(t) + np.sqrt(np.abs(u))
         + 1 / np.sqrt(np.abs(t) + 1))
    c = np.floor(t) + np.ceil(u) + np.power(np.abs(t), u) + np.arctan2(t, u) + np.maximum(t, u) - np.minimum(t, u)
    d = np.mod(t, 3.0) + t / (u * u + 1) - t ** 3 + (-u) * t + u  # (Python's %: the divisor's sign)
    _close(z, a + b + c + d + t, 1e-4)  # (+ t: bitcast to int32 and back)


def int_math():
    x, y = (rng.integers(-1000, 1000, 256).astype(np.int32) for _ in range(2))
    _, _, z, w = _run("int_math", {0: x, 1: y}, (1, 1, 1))
    t, u = x.astype(np.int64), (y | 1).astype(np.int64)
    a = (t + u) * (t - u) + t // u + t % u + np.abs(t) - (-u) + (t & u) + (t ^ u) + (~t) + (t << 2) + (t >> 1)
    s = a + np.maximum(t, u) + np.minimum(t, u) + np.where(t > u, t, u) + (t == u)
    np.testing.assert_array_equal(np.asarray(z).view(np.int32), s.astype(np.int16))  # through int64 and int16
    with np.errstate(over="ignore"):
        h = s.astype(np.float32).astype(np.float16).astype(np.float64)  # past 65504: infinity
    np.testing.assert_array_equal(w, np.clip(np.trunc(h), -2 ** 31, 2 ** 31 - 1).astype(np.float32))


def shapes():
    x = rng.standard_normal((64, 16)).astype(np.float32)
    y = _run("shapes", {0: x}, (16, 1, 1))[1]
    m, n = 4, 16
    want = np.empty((64, 16))
    for b in range(16):
        t = x[b * m:(b + 1) * m].astype(np.float64)
        s = t.reshape(m, n // 2, 2).transpose(1, 0, 2).reshape(n // 2, 2 * m).reshape(n, m).T + np.arange(n)
        want[b * m:(b + 1) * m] = np.concatenate([s[:, :n // 2], np.ones((m, n // 2))], 1)
    _close(y, want, 1e-6)


def pointers():
    """Gather with a mask, scatter, atomic add by index, CAS, exchange: the counters (the scatter and the raw
    load of ``y`` race between programs by design, so ``y`` is not compared)."""
    x = rng.standard_normal(512).astype(np.float32)
    idx = rng.permutation(512).astype(np.int32)
    idx[::7] = -1 - np.arange(len(idx[::7])) % 3  # masked gathers
    counts = _run("pointers", {0: x, 1: idx, 3: np.zeros(16, np.int32)}, (4, 1, 1))[3]
    want = np.bincount(np.mod(idx, 8), minlength=8).tolist() + [1, 5] + [0] * 6  # cas 0 -> 1 once; xchg 5
    assert np.asarray(counts).view(np.int32).tolist() == want


def reductions_and_scans():
    x = rng.uniform(0.5, 1.5, (64, 64)).astype(np.float32)
    _, y, z = _run("reductions_and_scans", {0: x}, (16, 1, 1))
    t = x.astype(np.float64)
    _close(y, t.sum(1) + t.prod(1) + t.max(1) + t.min(1) + t.argmax(1) + t.argmin(1), 1e-5)
    _close(z, np.cumsum(t, 1) + np.cumprod(t, 1), 1e-5)


def control_flow():
    x = rng.standard_normal((8, 1000)).astype(np.float32)
    y = _run("control_flow", {0: x}, (8, 1, 1))[1]
    want = np.zeros((8, 256))
    for row in range(8):
        padded = np.zeros(1024)
        padded[:1000] = x[row]
        acc = padded.reshape(4, 256).sum(0)
        for k in (1, 3, 4):  # k == 2 continues; the sum never passes 1e30
            acc = acc * 0.5
        want[row] = acc + 1000 if row < 7 else acc - 1.0
    _close(y, want, 1e-5)


def advanced_indexing():
    x = rng.standard_normal((64, 64)).astype(np.float32)
    idx = rng.integers(0, 64, 64).astype(np.int32)
    _close(_run("advanced_indexing", {0: x, 1: idx}, (1, 1, 1))[2], x[idx], 0)


def strided_view():
    x = rng.standard_normal(256).astype(np.float32)
    _close(_run("strided_view", {0: x}, (2, 1, 1))[1], np.concatenate([x[0:64], x[32:96]]), 0)  # steps of 32


def view_atomic():
    x = rng.standard_normal(256).astype(np.float32)
    _close(_run("view_atomic", {0: x, 1: np.ones(256, np.float32)}, (4, 1, 1))[1], x + 1, 1e-6)


def packing():
    x = rng.standard_normal(256).astype(np.float32)
    y = _run("packing", {0: x, 1: np.zeros(1024, np.uint8)}, (1, 1, 1))[1]
    np.testing.assert_array_equal(np.asarray(y).view(np.uint8), x.view(np.uint8))
    np.testing.assert_array_equal(_run("unpacking", {0: x.view(np.uint8)}, (1, 1, 1))[1], x)


def dots():
    a, b = (rng.standard_normal((64, 64)).astype(np.float16) for _ in range(2))
    p, q = (rng.integers(-128, 128, (64, 64)).astype(np.int8) for _ in range(2))
    out = _run("dots", {0: a, 1: b, 3: p, 4: q}, (1, 1, 1))
    _close(out[2], a.astype(np.float64) @ b.astype(np.float64), 1e-3)
    wrapped = (p.astype(np.int64) @ q.astype(np.int64)).astype(np.int8)  # an int8 matmul is int8
    np.testing.assert_array_equal(np.asarray(out[5]).view(np.int32), wrapped)


CASES = {f.__name__: f for f in (float_math, int_math, shapes, pointers, reductions_and_scans, control_flow,
                                 advanced_indexing, strided_view, view_atomic, packing, dots)}


@pytest.mark.parametrize("name", [_case(n) for n in CASES])
def test_audit_program_values(name):
    CASES[name]()
