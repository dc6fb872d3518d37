"""Adversarial programs for session 26's epilogue-dot loop over N tiles (``GemmConfig.epi_loop``: the first dot once
per work tile, the second dot and C's store over ``epi_c`` N tiles; ``epilogue_dot.n_loop_refusal``) on the PTX
emulator against numpy, outputs NaN-prefilled: the column tile taken from a 1-D grid (``pid % n_tiles``), the grid's
axes swapped (row tile program id 1), the epilogue scaling by the column tile's index, a transposed store.  Each
is taken with the loop and right for several ``epi_c``, or keeps one N tile per work tile (then right at 1).
Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")

import test_epilogue_dot_programs as edp  # noqa: E402


RNG = np.random.default_rng(2633)
C = ct.Constant


@ct.kernel
def mlp_one_d_grid(X, W1, W2, Y, H: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """``relu(x W1) W2`` on a 1-D grid: the row tile ``pid // nt``, the column tile ``pid % nt``."""
    pid = ct.bid(0)
    nt = ct.cdiv(Y.shape[1], tn)
    bm, bn = pid // nt, pid % nt
    h = ct.zeros((tm, H), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W1, index=(k, 0), shape=(tk, H)), h)
    a = ct.maximum(h, 0.0).astype(ct.float16)
    y = ct.mma(a, ct.load(W2, index=(0, bn), shape=(H, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y)


@ct.kernel
def mlp_swapped_grid(X, W1, W2, Y, H: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """The grid's axes swapped: the column tile program id 0, the row tile program id 1."""
    bn, bm = ct.bid(0), ct.bid(1)
    h = ct.zeros((tm, H), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W1, index=(k, 0), shape=(tk, H)), h)
    a = ct.maximum(h, 0.0).astype(ct.float16)
    y = ct.mma(a, ct.load(W2, index=(0, bn), shape=(H, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y)


@ct.kernel
def mlp_output_scaled_by_column_tile(X, W1, W2, Y, H: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """The second dot's result times ``bn + 1`` (program id 1 in the epilogue, after the second dot)."""
    bm, bn = ct.bid(0), ct.bid(1)
    h = ct.zeros((tm, H), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W1, index=(k, 0), shape=(tk, H)), h)
    a = ct.maximum(h, 0.0).astype(ct.float16)
    y = ct.mma(a, ct.load(W2, index=(0, bn), shape=(H, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y * (bn + 1).astype(ct.float32))


@ct.kernel
def mlp_stored_transposed(X, W1, W2, YT, H: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """C stored transposed (``YT [N, M]`` at ``(bn, bm)``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    h = ct.zeros((tm, H), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W1, index=(k, 0), shape=(tk, H)), h)
    a = ct.maximum(h, 0.0).astype(ct.float16)
    y = ct.mma(a, ct.load(W2, index=(0, bn), shape=(H, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(YT, index=(bn, bm), tile=ct.transpose(y))


M, K, H, N = 130, 136, 64, 600


def _inputs():
    return (RNG.standard_normal((M, K)).astype(np.float16), (RNG.standard_normal((K, H)) / 8).astype(np.float16),
            (RNG.standard_normal((H, N)) / 4).astype(np.float16))


def _hidden(x, w1):
    return np.maximum(x.astype(np.float64) @ w1.astype(np.float64), 0).astype(np.float16).astype(np.float64)


def _run(kernel, out_shape, epi_c):
    from tileorch.diagnostics import LocatedError

    spec = [edp._a((M, K)), edp._a((K, H)), edp._a((H, N)), edp._a(out_shape, "float32"), H, 64, 128, 64]
    try:
        prog = edp._compile(kernel, spec)
    except LocatedError as e:  # refused by the tier (the emulator's compile raises where the driver falls back)
        assert "test_review26_epilogue_n_loop.py:" in str(e), str(e)
        return None, None
    if not prog.gemm_config.epi_loop and epi_c > 1:
        return prog, None
    x, w1, w2 = _inputs()
    y = edp._emulate(kernel, spec, {0: x, 1: w1, 2: w2}, 3, 2, epi_c=epi_c if prog.gemm_config.epi_loop else 1)
    return prog, (x, w1, w2, y)


@pytest.mark.parametrize("epi_c", [1, 2, 5])
@pytest.mark.parametrize("name", ["one_d", "swapped", "scaled", "transposed"])
def test_n_loop_adversarial(name, epi_c):
    kernel, shape = {"one_d": (mlp_one_d_grid, (M, N)), "swapped": (mlp_swapped_grid, (M, N)),
                     "scaled": (mlp_output_scaled_by_column_tile, (M, N)),
                     "transposed": (mlp_stored_transposed, (N, M))}[name]
    prog, got = _run(kernel, shape, epi_c)
    if got is None:
        return
    x, w1, w2, y = got
    want = _hidden(x, w1) @ w2.astype(np.float64)
    if name == "scaled":
        want = want * (np.arange(N) // 128 + 1)[None, :]
    if name == "transposed":
        want = want.T
    np.testing.assert_allclose(y, want, atol=2e-2, rtol=1e-2, err_msg=f"epi_loop={prog.gemm_config.epi_loop}")
