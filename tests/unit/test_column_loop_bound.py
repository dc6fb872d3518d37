"""``tileas-column-loop-to-tiles`` bounds the output's column tiles by the loop's own trip count (session 29,
s29-wrongcode; s29-gemm2 noticed it).  After the rewrite the GEMM kernel covers C's column tiles, every one of them
(``GemmConfig.epi_loop``); the launcher checks that the second dot's B has C's columns
(:func:`tileorch.launchers.cutile.epi_operand`), but a loop counted by another array's tiles (here the bias's:
``range(ct.cdiv(B2.shape[0], tn))``, B2 of 100 elements, Y of 232 columns) covers fewer: the kernel wrote Y's
column tiles 2 and 3 (``a @ W2[:, j] + 0``), which the program leaves untouched.  The rewrite now takes a loop whose
trip count is the tile count of C's columns or of the second dot's B only; this one stays a loop (the SIMT path
runs it, the reason a remark).  Run on the PTX emulator against numpy, Y prefilled with a sentinel.  Needs cuda-tile
and ml_dtypes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402

C = ct.Constant
ZERO = ct.PaddingMode.ZERO
M, K, H, N, NB = 130, 64, 64, 232, 100  # Y's 4 column tiles of 64; the bias's 2
SENTINEL = 7.0


@ct.kernel
def mlp_loops_bias_count(X, W1, W2, B2, Y, tm: C[int], th: C[int], tn: C[int], tk: C[int]):
    """``y[:, j] = relu(x @ W1) @ W2[:, j] + b2[j]`` for the column tiles ``j`` the bias has (fewer than Y's)."""
    bm = ct.bid(0)
    h = ct.zeros((tm, th), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                   ct.load(W1, index=(k, 0), shape=(tk, th), padding_mode=ZERO), h)
    a = ct.maximum(h, 0.0).astype(ct.float16)
    for j in range(ct.cdiv(B2.shape[0], tn)):
        y = ct.mma(a, ct.load(W2, index=(0, j), shape=(th, tn), padding_mode=ZERO),
                   ct.zeros((tm, tn), dtype=ct.float32))
        y = y + ct.load(B2, index=(j,), shape=(tn,), padding_mode=ZERO).astype(ct.float32)[None, :]
        ct.store(Y, index=(bm, j), tile=y.astype(Y.dtype))


SPEC = [((M, K), "float16"), ((K, H), "float16"), ((H, N), "float16"), ((NB,), "float16"), ((M, N), "float16"),
        64, H, 64, 64]


def _inputs():
    rng = np.random.default_rng(29)
    x, w1 = rng.standard_normal((M, K)).astype(np.float16), (rng.standard_normal((K, H)) * 0.2).astype(np.float16)
    w2, b2 = (rng.standard_normal((H, N)) * 0.2).astype(np.float16), rng.standard_normal(NB).astype(np.float16)
    return x, w1, w2, b2


def _want(x, w1, w2, b2):
    """The program's Y: the bias's column tiles (columns 0 .. 127) written, the others the sentinel."""
    a = np.maximum(x.astype(np.float64) @ w1.astype(np.float64), 0).astype(np.float16).astype(np.float64)
    bias = np.zeros(N)
    bias[:NB] = b2
    y = np.full((M, N), SENTINEL)
    cols = -(-NB // 64) * 64
    y[:, :cols] = (a @ w2.astype(np.float64) + bias[None, :])[:, :cols]
    return y


def test_a_loop_counted_by_the_bias_stays_a_loop():
    """Before: the rewrite took it (the tier's epi_loop GEMM, covering all of Y's column tiles)."""
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    prog = compile_once(cutile_bytecode(mlp_loops_bias_count, SPEC), "s29wc_mlp_loops_bias_count", arch="sm_90a",
                        ptxas=False)
    assert prog.kind == "simt"
    assert not getattr(prog.gemm_config, "epi_loop", False)


def test_a_loop_counted_by_the_bias_writes_the_bias_tiles_only(monkeypatch):
    """The SIMT path's run (its dots as FMAs: the emulator has no ldmatrix); before, see the module doc."""
    monkeypatch.setenv("TILEORCH_SIMT_MMA", "0")
    x, w1, w2, b2 = _inputs()
    y = s10e.emulate_kernel(monkeypatch, "s29wc_mlp_loops_bias_count_run", mlp_loops_bias_count,
                            [x, w1, w2, b2, np.full((M, N), SENTINEL, np.float16)], SPEC[5:], grid=(3,))[4]
    np.testing.assert_allclose(y.astype(np.float64), _want(x, w1, w2, b2), atol=3e-2, rtol=1e-2)
