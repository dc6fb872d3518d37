"""Review 30: a fused MLP written as one loop of chained dots (``acc = ct.mma(relu(x @ W1_j), W2_j, acc)``, the
chained-dots tier) with math on the second dot's accumulator in the same step.  **Wrong result fixed**
(``chained_dots._check_yields_after_second_dots``): ``acc = ct.mma(h, w2, acc) + 1`` and a reset ``acc =
ct.where(j == 0, 0, acc)`` after the dot took the chained kernel, which ran that math on the accumulator registers
while the dot's WGMMA was in flight (the PTX emulator reports the race; the reset came out wrong, max error 1.9);
now refused at the dot, located, and the SIMT path computes them.  ``acc * 0.5`` as the dot's C (before it, like
attention's ``acc * alpha``) keeps the chained kernel and is checked on the emulator.  Both refusal tests fail
before.  Needs cuda-tile."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")

C = ct.Constant


def _hidden(X, W1, x, j, TILE_M, TILE_H, D):
    h = ct.mma(x, ct.load(W1, index=(0, j), shape=(D, TILE_H)), ct.full((TILE_M, TILE_H), 0.0, dtype=ct.float32))
    return ct.maximum(h, 0.0).astype(X.dtype)


@ct.kernel
def chain_plus_one(X, W1, W2, Y, TILE_M: C[int], TILE_H: C[int], D: C[int], DOUT: C[int]):
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(TILE_M, D))
    acc = ct.full((TILE_M, DOUT), 0.0, dtype=ct.float32)
    for j in range(ct.num_tiles(W1, axis=1, shape=(D, TILE_H))):
        h = _hidden(X, W1, x, j, TILE_M, TILE_H, D)
        acc = ct.mma(h, ct.load(W2, index=(j, 0), shape=(TILE_H, DOUT)), acc) + 1.0  # (math after the dot)
    ct.store(Y, index=(bm, 0), tile=acc)


@ct.kernel
def chain_reset(X, W1, W2, Y, TILE_M: C[int], TILE_H: C[int], D: C[int], DOUT: C[int]):
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(TILE_M, D))
    acc = ct.full((TILE_M, DOUT), 0.0, dtype=ct.float32)
    for j in range(ct.num_tiles(W1, axis=1, shape=(D, TILE_H))):
        h = _hidden(X, W1, x, j, TILE_M, TILE_H, D)
        acc = ct.mma(h, ct.load(W2, index=(j, 0), shape=(TILE_H, DOUT)), acc)  # (the dot, then a reset)
        acc = ct.where(j == 0, ct.full((TILE_M, DOUT), 0.0, dtype=ct.float32), acc)
    ct.store(Y, index=(bm, 0), tile=acc)


@ct.kernel
def chain_decay(X, W1, W2, Y, TILE_M: C[int], TILE_H: C[int], D: C[int], DOUT: C[int]):
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(TILE_M, D))
    acc = ct.full((TILE_M, DOUT), 0.0, dtype=ct.float32)
    for j in range(ct.num_tiles(W1, axis=1, shape=(D, TILE_H))):
        h = _hidden(X, W1, x, j, TILE_M, TILE_H, D)
        acc = ct.mma(h, ct.load(W2, index=(j, 0), shape=(TILE_H, DOUT)), acc * 0.5)
    ct.store(Y, index=(bm, 0), tile=acc)


M, D, HIDDEN, DOUT = 130, 32, 96, 32
SPEC = [((M, D), "float16"), ((D, HIDDEN), "float16"), ((HIDDEN, DOUT), "float16"), ((M, DOUT), "float32"),
        64, 32, D, DOUT]


def _data():
    rng = np.random.default_rng(30)
    x = rng.standard_normal((M, D)).astype(np.float16)
    w1 = (rng.standard_normal((D, HIDDEN)) / math.sqrt(D)).astype(np.float16)
    w2 = (rng.standard_normal((HIDDEN, DOUT)) / math.sqrt(HIDDEN)).astype(np.float16)
    h = np.maximum(x.astype(np.float32) @ w1.astype(np.float32), 0).astype(np.float16).astype(np.float64)
    steps = [h[:, 32 * j:32 * j + 32] @ w2[32 * j:32 * j + 32].astype(np.float64) for j in range(3)]
    return x, w1, w2, steps


def _line_of(kernel, marker):
    src, first = inspect.getsourcelines(kernel._pyfunc)
    return first + next(i for i, line in enumerate(src) if marker in line)


@pytest.mark.parametrize("kernel,marker", [(chain_plus_one, "(math after the dot)"),
                                           (chain_reset, "(the dot, then a reset)")])
def test_math_after_the_second_dot_is_refused_at_it(kernel, marker):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = compile_once(cutile_bytecode(kernel, SPEC), f"rv30_{kernel._pyfunc.__name__}", arch="sm_90a", ptxas=False)
    assert p.kind == "simt", p.remarks
    said = [r for r in p.remarks if "the loop carries a value computed from this second dot's result" in r]
    assert said and said[0].startswith(f"{__file__}:{_line_of(kernel, marker)}:"), p.remarks


def test_the_simt_path_computes_them(monkeypatch):
    import test_user_sweep_interp as interp

    from tileorch.testing.user_programs import UserProgram

    x, w1, w2, steps = _data()
    for kernel, want in ((chain_plus_one, sum(steps) + 3), (chain_reset, steps[1] + steps[2])):
        name = f"rv30_{kernel._pyfunc.__name__}"
        monkeypatch.setattr(interp, "PROGRAMS", {name: UserProgram(kernel, SPEC, (3,), "simt")})
        y = np.asarray(interp.run(name, {0: x, 1: w1, 2: w2})[3], np.float64)
        np.testing.assert_allclose(y, want, atol=1e-4, rtol=1e-4)


def test_a_decay_as_the_dots_c_keeps_the_chained_kernel():
    from test_chained_variants import _run

    x, w1, w2, steps = _data()
    y = np.full((M, DOUT), np.nan, np.float32)
    _, errors = _run(chain_decay, (x, w1, w2, y), [], (64, 32, D, DOUT), (-(-M // 64), 1))
    assert not errors, errors[:3]
    np.testing.assert_allclose(y, (steps[0] * 0.5 + steps[1]) * 0.5 + steps[2], atol=1e-4, rtol=1e-4)
