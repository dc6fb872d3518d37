"""The ninth user sweep (``tileorch.testing.user_programs9``): the programs the tensor-core tiers
refuse, run on their SIMT fallback by the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py,
through test_user_sweep_interp.run) against numpy references computed independently from the same
inputs, outputs pre-filled with NaN / a sentinel: a matrix-vector dot (N = 1), a dot with a
``ct.ones`` tile, two dots sharing B, a complex product of four dots, an MoE GEMM in
``moe_align_block_size`` layout, a grouped GEMM with sizes from an array, cross-entropy over a
one-tile vocabulary and over vocabulary tiles, a greedy argmax per tile, an atomic column sum beside
C, DeepSeek-style fp8 block scales.  (The tier programs: test_user_sweep9_emulated.py and the GPU.)"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import _close, run, sample  # noqa: E402

from tileorch.testing.user_programs9 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)
sweep.NP.update({"float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8})

RNG = np.random.default_rng(919)


def _h(*shape, scale=0.5):
    return sample(RNG, shape, "float16", scale)


def _d(x):
    return np.asarray(x, np.float64)


def _lse(t):
    m = t.max(1)
    return m + np.log(np.exp(t - m[:, None]).sum(1))


def test_matrix_vector_n1():
    a, x = _h(256, 256), _h(256, 1)
    _close(run("gemv_n1", {0: a, 1: x})[2], _d(a) @ _d(x), 2e-3, 1e-3)


def test_dot_with_ones_tile_is_a_row_sum():
    a = _h(256, 256)
    _close(run("mm_dot_with_ones_tile", {0: a})[1], np.repeat(_d(a).sum(1, keepdims=True), 16, 1), 2e-3, 1e-4)


def test_two_dots_sharing_b():
    a1, a2, b = _h(256, 256), _h(256, 256), _h(256, 128)
    _close(run("mm_two_dots_shared_b", {0: a1, 1: a2, 2: b})[3], _d(a1) @ _d(b) - _d(a2) @ _d(b), 8e-3, 5e-3)


def test_complex_product_of_four_dots():
    ar, ai, br, bi = (_h(128, 128) for _ in range(4))
    out = run("complex_matmul_four_dots", {0: ar, 1: ai, 2: br, 3: bi})
    ref = (_d(ar) + 1j * _d(ai)) @ (_d(br) + 1j * _d(bi))
    _close(out[4], ref.real, 1e-3, 1e-4)
    _close(out[5], ref.imag, 1e-3, 1e-4)


def test_moe_align_block_layout():
    """64 tokens, top-2, 4 experts of 32 slots each padded to 64-row blocks (pad id 128)."""
    x, w = _h(64, 128), _h(4, 128, 128, scale=0.2)
    expert = RNG.permutation(128) % 4
    ids = np.full(256, 128, np.int32)
    for e in range(4):
        s = np.nonzero(expert == e)[0]
        ids[64 * e:64 * e + len(s)] = s
    tw = RNG.random(128).astype(np.float32)
    y = run("moe_align_block_gemm", {0: x, 1: w, 3: ids, 4: np.arange(4, dtype=np.int32), 5: tw})[2]
    slots = np.arange(128)
    ref = np.einsum("sk,skn->sn", _d(x)[slots // 2], _d(w)[expert]) * tw[:, None]
    _close(y, ref, 4e-3, 5e-3)


def test_grouped_gemm_sizes_from_an_array():
    a, b = _h(300, 128), _h(3, 128, 128, scale=0.2)
    c = run("grouped_gemm_sizes_prefix", {0: a, 1: b, 3: np.array([100, 72, 128], np.int32)})[2]
    ref = np.concatenate([_d(a[:100]) @ _d(b[0]), _d(a[100:172]) @ _d(b[1]), _d(a[172:]) @ _d(b[2])])
    _close(c, ref, 4e-3, 5e-3)


def test_cross_entropy_one_vocab_tile():
    x, w = _h(256, 256), _h(256, 128)
    lab = RNG.integers(0, 128, 256).astype(np.int32)
    loss = run("mm_cross_entropy_one_vocab_tile", {0: x, 1: w, 2: lab})[3]
    t = _d(x) @ _d(w)
    _close(loss[:, 0], _lse(t) - t[np.arange(256), lab], 2e-3, 1e-4)


def test_cross_entropy_over_vocab_tiles():
    x, w = _h(128, 128), _h(128, 512)
    lab = RNG.integers(0, 512, 128).astype(np.int32)
    loss = run("ce_vocab_tile_loop", {0: x, 1: w, 2: lab})[3]
    t = _d(x) @ _d(w)
    _close(loss[:, 0], _lse(t) - t[np.arange(128), lab], 2e-3, 1e-4)


def test_greedy_argmax_per_tile():
    a, b = _h(256, 256), _h(256, 256)
    out = run("mm_greedy_argmax_per_tile", {0: a, 1: b})
    t = (_d(a) @ _d(b)).reshape(256, 2, 128)
    _close(out[3], t.max(2), 2e-3, 1e-4)
    idx = out[2].astype(np.int64)
    assert ((idx // 128) == np.arange(2)[None, :]).all()
    _close(np.take_along_axis(t.reshape(256, 256), idx, 1), t.max(2), 2e-3, 1e-4)


def test_relu_column_sum_added_atomically():
    a, b = _h(256, 256), _h(256, 128)
    out = run("mm_relu_colsum_atomic", {0: a, 1: b, 3: np.zeros(128, np.float32)})
    r = np.maximum(_d(a) @ _d(b), 0)
    _close(out[2], r, 8e-3, 5e-3)
    _close(out[3], r.sum(0), 1e-2, 1e-4)


def test_fp8_deepseek_block_scales():
    e4m3 = ml_dtypes.float8_e4m3fn
    a = RNG.standard_normal((256, 256)).astype(e4m3)
    b = RNG.standard_normal((256, 256)).astype(e4m3)
    sa = RNG.random((256, 2)).astype(np.float32) + 0.5
    sb = RNG.random((2, 2)).astype(np.float32) + 0.5
    c = run("mm_fp8_deepseek_block_scales", {0: a.view(np.uint8), 1: b.view(np.uint8), 2: sa, 3: sb})[4]
    af, bf = a.astype(np.float64), b.astype(np.float64)
    ref = sum((af[:, 128 * k:128 * k + 128] @ bf[128 * k:128 * k + 128]) * sa[:, k:k + 1]
              * np.repeat(sb[k], 128)[None, :] for k in range(2))
    _close(c, ref, 0.5, 1e-2)  # bf16 output of values of magnitude ~30
