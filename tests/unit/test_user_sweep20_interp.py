"""The twentieth user sweep (``tileorch.testing.user_programs20``): the dot programs the tensor-core
tiers refuse, run on their SIMT fallback by the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py,
through test_user_sweep_interp.run) against numpy references computed independently from the same
inputs, outputs pre-filled with NaN (the column sums' vector zeroed, as its caller does): a GQA
program looping over its query heads around the key loop, attention over one key tile with no loop
(the probabilities stored too), a two-pass softmax, per-column-tile max / argmax without the product,
per-batch K lengths, block-sparse K tiles from a table, column sums added atomically, a K step written as
two halves (``@`` and ``ct.mma``), LoRA's product after the K loop, two unchained GEMMs in one
kernel.  (The tier programs: test_user_sweep20_emulated.py and the GPU.)"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import _close, run, sample  # noqa: E402

from tileorch.testing.user_programs20 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)

RNG = np.random.default_rng(2025)


def _h(*shape, scale=0.5):
    return sample(RNG, shape, "float16", scale)


def _d(x):
    return np.asarray(x, np.float64)


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _attn(q, k, v, scale=0.125):
    return _softmax((_d(q) @ np.swapaxes(_d(k), -1, -2)) * scale) @ _d(v)


def test_gqa_heads_looped_around_the_key_loop():
    """Query heads 0, 1 on KV head 0 and 2, 3 on KV head 1."""
    q, k, v = _h(2, 4, 128, 64), _h(2, 2, 192, 64), _h(2, 2, 192, 64)
    o = run("attn_gqa_group_loop_inside", {0: q, 1: k, 2: v})[3]
    _close(o, _attn(q, np.repeat(k, 2, axis=1), np.repeat(v, 2, axis=1)), 2e-3, 1e-2)


def test_attention_over_one_key_tile_stores_probabilities():
    """100 keys in one 128-wide tile: P (f16) and ``P V`` from the f16 P."""
    q, k, v = _h(2, 200, 64), _h(2, 100, 64), _h(2, 100, 64)
    out = run("attn_scores_to_probs_then_pv_f32_out", {0: q, 1: k, 2: v})
    p = _softmax((_d(q) @ np.swapaxes(_d(k), 1, 2)) * 0.125)
    _close(out[4], p, 1e-3, 1e-2)
    _close(out[3], _d(out[4]) @ _d(v), 1e-3, 1e-3)
    _close(out[3], p @ _d(v), 5e-3, 1e-2)


def test_two_pass_softmax():
    q, k, v = _h(2, 128, 64), _h(2, 200, 64), _h(2, 200, 64)
    o = run("attn_two_pass_softmax", {0: q, 1: k, 2: v})[3]
    _close(o, _attn(q, k, v), 2e-3, 1e-2)


def test_column_sums_added_atomically():
    a, b = _h(200, 128), _h(128, 192, scale=0.2)
    out = run("gemm_column_sums_atomic", {0: a, 1: b, 3: np.zeros(192, np.float32)})
    y = _d(a) @ _d(b)
    _close(out[2], y, 1e-3, 1e-4)
    _close(out[3], y.sum(0), 1e-2, 1e-4)


def test_k_step_written_as_two_halves():
    a, b = _h(200, 256), _h(256, 192, scale=0.2)
    _close(run("gemm_matmul_and_mma_halves", {0: a, 1: b})[2], _d(a) @ _d(b), 4e-3, 5e-3)


def test_lora_product_after_the_k_loop():
    """``(0.5 * X A)`` rounded to f16 before its product by B, as the program does."""
    x, w, la, lb = _h(200, 128), _h(128, 192, scale=0.2), _h(128, 16, scale=0.2), _h(16, 192, scale=0.2)
    y = run("lora_linear_two_products", {0: x, 1: w, 2: la, 3: lb})[4]
    xa = (0.5 * (_d(x) @ _d(la))).astype(np.float16)
    _close(y, _d(x) @ _d(w) + _d(xa) @ _d(lb), 4e-3, 5e-3)


def test_two_unchained_gemms_in_one_kernel():
    a1, b1, a2, b2 = _h(200, 128), _h(128, 192, scale=0.2), _h(200, 64), _h(64, 192, scale=0.2)
    out = run("two_gemms_one_kernel_unchained", {0: a1, 1: b1, 3: a2, 4: b2})
    _close(out[2], _d(a1) @ _d(b1), 4e-3, 5e-3)
    _close(out[5], _d(a2) @ _d(b2), 1e-4, 1e-5)


def test_row_max_and_argmax_per_column_tile():
    """V = 500 in four 128-wide tiles (the last holds 116 columns); ties are not drawn (random f16 data)."""
    x, w = _h(200, 128), _h(128, 500, scale=0.2)
    out = run("gemm_row_max_argmax_per_column_tile", {0: x, 1: w})
    y = np.pad(_d(x) @ _d(w), ((0, 0), (0, 12)), constant_values=-np.inf).reshape(200, 4, 128)
    _close(out[2], y.max(-1), 1e-3, 1e-4)
    np.testing.assert_array_equal(out[3], y.argmax(-1) + 128 * np.arange(4)[None, :])


def test_varlen_k_per_batch():
    """K lengths 256 (every stored column), 100 (inside the second tile) and 0 (an empty loop: zeros);
    the stored K past each length is NaN, which the mask must keep out."""
    a, b = _h(3, 200, 256), _h(3, 256, 192, scale=0.2)
    klen = np.array([256, 100, 0], np.int32)
    for i, n in enumerate(klen):
        a[i, :, n:] = np.nan
        b[i, n:, :] = 0  # B's rows past the length are zero (0 * NaN would be NaN: the mask is on A)
    y = run("bmm_varlen_k_from_array", {0: a, 1: b, 2: klen})[3]
    want = np.stack([_d(a[i, :, :n]) @ _d(b[i, :n]) for i, n in enumerate(klen)])
    _close(y, want, 4e-3, 5e-3)


def test_block_sparse_k_index_table():
    """Row tile 0 reads K tiles 5, 0, 3; row tile 1 reads tile 2 twice (a repeat adds twice) and none
    else; the table's unused entries are -1 (never read)."""
    a, b = _h(256, 384), _h(384, 192, scale=0.2)
    cnt = np.array([3, 2], np.int32)
    idx = np.array([[5, 0, 3, -1, -1, -1], [2, 2, -1, -1, -1, -1]], np.int32)
    y = run("gemm_block_sparse_k_index_table", {0: a, 1: b, 2: cnt, 3: idx})[4]

    def part(rows, tiles):
        return sum(_d(a[rows, 64 * t:64 * t + 64]) @ _d(b[64 * t:64 * t + 64]) for t in tiles)
    _close(y, np.concatenate([part(slice(0, 128), [5, 0, 3]), part(slice(128, 256), [2, 2])]), 4e-3, 5e-3)
