"""Twentieth user sweep (``tileorch.testing.user_programs20``): the tensor-core programs run CTA by
CTA on the CPU by ``tileorch.testing.ptx_emulator`` against numpy float64 on ragged shapes, outputs
NaN-prefilled (an int32 output a sentinel; the split-K and column-sum accumulators zeroed, as their
callers do): the GEMMs through test_user_sweep14_emulated's runner (the launcher's own problem
derivation, tensor maps, tile parameters and K-major copy of an 8-bit B), the chained kernels through
test_user_sweep3_emulated's (every CTA of the host's launch).  f16, bf16 (since session 25), tf32 and
int8 WGMMAs (idem) are emulated; the bf16 attention also runs as its f16 twin.  The SIMT path's
programs: test_user_sweep20_interp.py; everything on the GPU: tests/gpu/test_user_sweep20_gpu.py.
:data:`EMULATED` is the CI-sized subset; ``TILEORCH_EMULATE_ALL=1`` runs every case.  Needs cuda-tile
and ml_dtypes."""

from __future__ import annotations

import dataclasses
import math
import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402
from test_user_sweep16_emulated import _mm, _pos, _scores, _softmax_pv  # noqa: E402

from tileorch.testing.user_programs20 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(2520)
_BF = "attn_causal_bm128_bn64_bf16_lse"
TWINS = {_BF + "__f16": dataclasses.replace(
    PROGRAMS[_BF], spec=[(s[0], "float16" if s[1] == "bfloat16" else s[1]) if isinstance(s, tuple) else s
                         for s in PROGRAMS[_BF].spec])}
"""The bf16 attention's f16 twin (the same kernel, its bf16 arrays f16; P is converted to V's type)."""
_IF = "gemm_k_loop_inside_runtime_if"
TWINS[_IF + "__off"] = dataclasses.replace(PROGRAMS[_IF], spec=[0 if i == 4 else s
                                                               for i, s in enumerate(PROGRAMS[_IF].spec)])
"""The runtime-``if`` GEMM launched with its flag 0 (the K loop skipped: the output is the bias)."""

LOG2E = 1.4426950408889634


@pytest.fixture(autouse=True)
def _twentieth_sweep(monkeypatch):
    s4.add_sweep_programs(monkeypatch, {**PROGRAMS, **TWINS})
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS, **TWINS})
    monkeypatch.setattr(s3, "NP", {**s3.NP, "bfloat16": ml_dtypes.bfloat16})  # NaN-filled bf16 outputs


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _f(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def emulate(name: str, inputs: dict) -> dict:
    """A GEMM program on its spec's shapes (test_user_sweep14_emulated's runner)."""
    return s14e.emulate(name, inputs)


def chained(name: str, inputs: dict) -> dict:
    """A chained-dots program on its spec's shapes and launch grid."""
    grid = tuple(PROGRAMS[name.removesuffix("__f16")].grid)
    return s3._chained(name, inputs, grid + (1,) * (3 - len(grid)))


_check = s14e._check


# ----------------------------------------------------------------------------------------------- GEMMs


def _gemm_case(name, m, k, n):
    a, b = _h(m, k), _h(k, n, scale=0.25)
    _check(emulate(name, {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_gemm_persistent_group_m_swizzle():
    """300 x 330 in 64 x 64 tiles (5 x 6) on 7 programs, groups of 2 row tiles, the last group one."""
    _gemm_case("gemm_persistent_group_m_swizzle", 300, 128, 330)


def _case_gemm_persistent_column_major_tiles():
    _gemm_case("gemm_persistent_column_major_tiles", 200, 128, 200)


def _case_gemm_group_m_swizzle_1d_grid():
    _gemm_case("gemm_group_m_swizzle_1d_grid", 300, 128, 200)


def _case_gemm_splitk_contiguous_atomic_add():
    """K = 320 in 5 tiles of 64, splits of 2 tiles on 3 programs: 2, 2 and 1 tiles."""
    a, b = _h(200, 320), _h(320, 192, scale=0.25)
    y = emulate("gemm_splitk_contiguous_atomic_add", {0: a, 1: b, 2: np.zeros((200, 192), np.float32)})[2]
    _check(y, _mm(a, b), 2e-2)


def _case_gemm_f16_acc_widened_at_end():
    a, b = _h(200, 128, scale=0.5), _h(128, 192, scale=0.25)
    _check(emulate("gemm_f16_acc_widened_at_end", {0: a, 1: b})[2], _mm(a, b), 3e-2, 1e-2)


def _case_bmm_3d_tiles_mma_no_reshape():
    a, b = _h(3, 200, 128), _h(3, 128, 192, scale=0.25)
    _check(emulate("bmm_3d_tiles_mma_no_reshape", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_gemm_k_loop_inside_runtime_if():
    """The flag 1: the K loop runs (the tier's loop, its trip count ``select(flag != 0, nk, 0)``)."""
    a, b, bias = _h(200, 128), _h(128, 192, scale=0.25), _f(192)
    _check(emulate(_IF, {0: a, 1: b, 2: bias})[3], _mm(a, b) + bias[None, :], 2e-2)


def _case_gemm_k_loop_inside_runtime_if__off():
    """The flag 0: no K step, every output the bias (the loop's initial zeros plus the bias)."""
    a, b, bias = _h(200, 128), _h(128, 192, scale=0.25), _f(192)
    y = emulate(_IF + "__off", {0: a, 1: b, 2: bias})[3]
    _check(y, np.broadcast_to(bias[None, :].astype(np.float64), (200, 192)), 0.0, 0.0)


def _case_gemm_k_loop_counting_down():
    _gemm_case("gemm_k_loop_counting_down", 200, 200, 192)


def _case_gemm_k_step_static_iter_two():
    _gemm_case("gemm_k_step_static_iter_two", 200, 256, 192)


def _case_gemm_k_range_from_args():
    """K tiles 1..3 of 5 (columns 64..255 of A, rows 64..255 of B)."""
    a, b = _h(200, 320), _h(320, 192, scale=0.25)
    _check(emulate("gemm_k_range_from_args", {0: a, 1: b})[2], _mm(a[:, 64:256], b[64:256]), 2e-2)


def _case_gemm_row_max_row_sum_full_row():
    a, b = _h(200, 128), _h(128, 100, scale=0.25)
    out = emulate("gemm_row_max_row_sum_full_row", {0: a, 1: b})
    ref = _mm(a, b)
    _check(out[2], ref, 2e-3)
    _check(out[3], ref.max(1), 2e-3)
    _check(out[4], ref.sum(1), 2e-2)


def _case_gemm_softmax_after_full_row():
    x, w = _h(200, 128), _h(128, 100, scale=0.25)
    p = emulate("gemm_softmax_after_full_row", {0: x, 1: w})[2]
    s = _mm(x, w)
    e = np.exp(s - s.max(1, keepdims=True))
    _check(p, e / e.sum(1, keepdims=True), 1e-4)


def _case_gemm_alpha_ab_plus_beta_c():
    a, b, c = _h(200, 128), _h(128, 192, scale=0.25), _h(200, 192)
    y = emulate("gemm_alpha_ab_plus_beta_c", {0: a, 1: b, 2: c})[3]
    _check(y, 0.5 * _mm(a, b) - 2.0 * c.astype(np.float64), 2e-3)


def _case_gemm_acc_init_from_residual():
    a, b, r = _h(200, 128), _h(128, 192, scale=0.25), _h(200, 192)
    y = emulate("gemm_acc_init_from_residual", {0: a, 1: b, 2: r})[3]
    _check(y, _mm(a, b) + r.astype(np.float64), 2e-2)


# ----------------------------------------------------------------------------------------------- attention


def _case_attn_dropout_mask_array():
    q, k, v = _h(2, 128, 64), _h(2, 192, 64), _h(2, 192, 64)
    keep = (RNG.random((2, 128, 192)) >= 0.2).astype(np.uint8)
    o = chained("attn_dropout_mask_array", {0: q, 1: k, 2: v, 3: keep})[4]
    s = _scores(q, k, 0.125)
    e = np.exp(s - s.max(-1, keepdims=True))
    p = e / e.sum(-1, keepdims=True)
    _check(o, (p * keep * 1.25) @ v.astype(np.float64), 3e-3)


def _case_attn_key_padding_lengths():
    """Batch 0 sees 150 keys (inside the third tile), batch 1 sees 37 (inside the first)."""
    q, k, v = _h(4, 128, 64), _h(4, 192, 64), _h(4, 192, 64)
    lens = np.array([150, 37], np.int32)
    o = chained("attn_key_padding_lengths", {0: q, 1: k, 2: v, 3: lens})[4]
    ok = np.arange(192)[None, None, :] < np.repeat(lens, 2)[:, None, None]
    _check(o, _softmax_pv(np.where(ok, _scores(q, k, 0.125), -np.inf), v), 3e-3)


def _case_attn_out_times_reciprocal_l():
    q, k, v = _h(2, 128, 64), _h(2, 200, 64), _h(2, 200, 64)
    o = chained("attn_out_times_reciprocal_l", {0: q, 1: k, 2: v})[3]
    _check(o, _softmax_pv(_scores(q, k, 0.125), v), 3e-3)


def _case_attn_flash_decode_split_kv():
    """The three splits' partials combined in numpy (flash-decoding's second kernel) give softmax(q K^T) V;
    each split's max and sum checked against its own keys."""
    q, k, v = _h(4, 1, 64), _h(4, 300, 64), _h(4, 300, 64)
    out = chained("attn_flash_decode_split_kv", {0: q, 1: k, 2: v})
    o_p, m_p, l_p = (np.asarray(out[i], np.float64) for i in (3, 4, 5))
    s2 = _scores(q, k, 0.125 * LOG2E)[:, 0]  # [4, 300], log2 units
    for sp in range(3):
        part = s2[:, sp * 128:(sp + 1) * 128]
        _check(m_p[:, sp, 0], part.max(-1), 1e-3)
        _check(l_p[:, sp, 0], np.exp2(part - part.max(-1, keepdims=True)).sum(-1), 1e-3)
    m = m_p.max(1, keepdims=True)
    w = np.exp2(m_p - m)
    o = (o_p * w[..., None]).sum(1) / (l_p * w).sum(1)[..., None]
    _check(o, _softmax_pv(_scores(q, k, 0.125), v), 3e-3)


def _case_attn_mqa_decode_heads_as_rows():
    q, k, v = _h(4, 6, 64), _h(4, 300, 64), _h(4, 300, 64)
    o = chained("attn_mqa_decode_heads_as_rows", {0: q, 1: k, 2: v})[3]
    _check(o, _softmax_pv(_scores(q, k, 0.125), v), 3e-3)


def _case_attn_bwd_dv_only():
    """dV = P^T dO over 200 ragged queries, P from the saved log2-unit LSE."""
    q, k, do = _h(2, 200, 64), _h(2, 128, 64), _h(2, 200, 64)
    s = _scores(q, k, 0.125)
    mx = s.max(-1, keepdims=True)
    lse = mx + np.log(np.exp(s - mx).sum(-1, keepdims=True))
    p = np.exp(s - lse)
    ins = {0: q, 1: k, 2: do, 3: (lse[..., 0] * LOG2E).astype(np.float32)}
    dv = chained("attn_bwd_dv_only", ins)[4]
    _check(dv, np.swapaxes(p, 1, 2) @ do.astype(np.float64), 3e-3)


def _causal(name, sq=256):
    q, k, v = _h(2, sq, 64), _h(2, sq, 64), _h(2, sq, 64)
    o = chained(name, {0: q, 1: k, 2: v})[3]
    i, j = _pos(sq, sq)
    _check(o, _softmax_pv(np.where(j <= i, _scores(q, k, 0.125), -np.inf), v), 3e-3)


def _case_attn_causal_two_key_loops():
    _causal("attn_causal_two_key_loops")


def _case_attn_scale_folded_into_q():
    """Q scaled and rounded to f16 in the kernel: the reference's tolerance covers the rounding."""
    _causal("attn_scale_folded_into_q")


def _case_attn_sigmoid_no_softmax():
    q, k, v = _h(2, 128, 64), _h(2, 200, 64), _h(2, 200, 64)
    o = chained("attn_sigmoid_no_softmax", {0: q, 1: k, 2: v})[3]
    p = 1.0 / (1.0 + np.exp(-(_scores(q, k, 0.125) - 2.0)))
    _check(o, p @ v.astype(np.float64), 2e-2)


def _bf16_attention(name, bf):
    q, k, v = (_h(2, 200, 64).astype(bf) for _ in range(3))
    out = chained(name, {0: q, 1: k, 2: v})
    i, j = _pos(200, 200)
    s = np.where(j <= i, _scores(q, k, 0.125), -np.inf)
    mx = s.max(-1, keepdims=True)
    tol = 3e-3 if bf == np.float16 else 2e-2  # P rounded to bf16 (8 bits) before P V
    _check(out[3], _softmax_pv(s, v), tol, 1e-2)
    _check(out[4], (mx + np.log(np.exp(s - mx).sum(-1, keepdims=True)))[..., 0], 1e-3)


def _case_attn_causal_bm128_bn64_bf16_lse():
    """bf16 Q / K / V on the emulator's bf16 WGMMA."""
    _bf16_attention(_BF, ml_dtypes.bfloat16)


def _case_attn_causal_bm128_bn64_bf16_lse__f16():
    _bf16_attention(_BF + "__f16", np.float16)


def _case_gemm_int8_int32_out():
    """int8 x int8 summed exactly in int32 (K = 200 ragged); the output starts as a sentinel."""
    a = RNG.integers(-128, 128, (200, 200)).astype(np.int8)
    b = RNG.integers(-128, 128, (200, 192)).astype(np.int8)
    y = emulate("gemm_int8_int32_out", {0: a, 1: b, 2: np.full((200, 192), -777, np.int32)})[2]
    np.testing.assert_array_equal(y, a.astype(np.int64) @ b.astype(np.int64))


def _case_gemm_int8_row_col_scales_f16():
    a = RNG.integers(-128, 128, (200, 256)).astype(np.int8)
    b = RNG.integers(-128, 128, (256, 192)).astype(np.int8)
    sa, sb = (RNG.random(200) * 1e-3).astype(np.float32), (RNG.random(192) * 1e-2).astype(np.float32)
    y = emulate("gemm_int8_row_col_scales_f16", {0: a, 1: b, 2: sa, 3: sb})[4]
    ref = (a.astype(np.float64) @ b.astype(np.float64)) * sa[:, None] * sb[None, :]
    _check(y, ref, 1e-3, 2e-3)


def _case_gemm_int8_requant_int8_out():
    """``floor((acc + bias) * 0.002 + 0.5)`` clamped to [-128, 127], stored as int8 (the output starts as a
    sentinel byte); the values span the clamp.  The f32 product may round a value across a tie: at most
    one unit off, and almost all exact."""
    a = RNG.integers(-128, 128, (200, 256)).astype(np.int8)
    b = RNG.integers(-128, 128, (256, 192)).astype(np.int8)
    bias = RNG.integers(-5000, 5000, 192).astype(np.int32)
    y = emulate("gemm_int8_requant_int8_out", {0: a, 1: b, 2: bias, 3: np.full((200, 192), 99, np.int8)})[3]
    acc = a.astype(np.int64) @ b.astype(np.int64) + bias[None, :]
    want = np.clip(np.floor((acc.astype(np.float32) * np.float32(0.002)).astype(np.float64) + 0.5), -128, 127)
    assert (want == -128).any() and (want == 127).any()
    assert np.abs(y.astype(np.int64) - want).max() <= 1
    assert (y.astype(np.int64) == want).mean() > 0.999


def _case_gemm_tf32_weight_nk_transposed():
    """f32 operands on tf32 tensor cores: each operand keeps 10 mantissa bits (the reference truncates
    alike; the tolerance covers the f32 sums)."""
    x, w = _f(200, 96), _f(100, 96)
    y = emulate("gemm_tf32_weight_nk_transposed", {0: x, 1: w})[2]

    def tf32(v):
        return (v.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)
    _check(y, _mm(tf32(x), tf32(w).T), 1e-3)


def _case_gemm_f32_in_bf16_in_loop():
    """f32 A and B rounded to bf16 in the K loop (the reference rounds them alike, nearest even)."""
    a, b = _f(200, 128), _f(128, 192) * 0.25
    y = emulate("gemm_f32_in_bf16_in_loop", {0: a, 1: b})[2]
    bf = ml_dtypes.bfloat16
    _check(y, _mm(a.astype(bf), b.astype(bf)), 2e-3)


def _case_attn_paged_kv_block_table():
    """Three sequences of four 64-key cache blocks (blocks repeated across and within sequences, block 9
    never read), 6 query rows each in a 16-row tile."""
    q, kc, vc = _h(3, 6, 64), _h(10, 64, 64), _h(10, 64, 64)
    table = np.array([[3, 0, 7, 1], [2, 2, 5, 8], [6, 4, 0, 3]], np.int32)
    o = chained("attn_paged_kv_block_table", {0: q, 1: kc, 2: vc, 3: table})[4]
    k = kc[table].reshape(3, 256, 64)
    v = vc[table].reshape(3, 256, 64)
    _check(o, _softmax_pv(_scores(q, k, 0.125), v), 3e-3)


def _case_attn_bwd_dk_dv():
    """dK and dV over 200 ragged queries from the saved log2-unit LSE and ``delta = rowsum(dO * O)``."""
    q, k, v, do = _h(2, 200, 64), _h(2, 128, 64), _h(2, 128, 64), _h(2, 200, 64)
    s = _scores(q, k, 0.125)
    mx = s.max(-1, keepdims=True)
    lse = mx + np.log(np.exp(s - mx).sum(-1, keepdims=True))
    p = np.exp(s - lse)
    o = p @ v.astype(np.float64)
    delta = (do.astype(np.float64) * o).sum(-1, keepdims=True)
    ds = p * (do.astype(np.float64) @ np.swapaxes(v.astype(np.float64), 1, 2) - delta)
    ins = {0: q, 1: k, 2: v, 3: do, 4: (lse[..., 0] * LOG2E).astype(np.float32), 5: delta[..., 0].astype(np.float32)}
    out = chained("attn_bwd_dk_dv", ins)
    _check(out[7], np.swapaxes(p, 1, 2) @ do.astype(np.float64), 3e-3)
    _check(out[6], np.swapaxes(ds, 1, 2) @ q.astype(np.float64) * 0.125, 3e-3)


def _case_attn_cross_causal_bottom_right():
    q, k, v = _h(2, 100, 64), _h(2, 300, 64), _h(2, 300, 64)
    o = chained("attn_cross_causal_bottom_right", {0: q, 1: k, 2: v})[3]
    i, j = _pos(100, 300, 200)
    _check(o, _softmax_pv(np.where(j <= i, _scores(q, k, 0.125), -np.inf), v), 3e-3)


def _case_attn_head_dim_32_tiles_128():
    q, k, v = _h(2, 256, 32), _h(2, 300, 32), _h(2, 300, 32)
    o = chained("attn_head_dim_32_tiles_128", {0: q, 1: k, 2: v})[3]
    _check(o, _softmax_pv(_scores(q, k, 1 / math.sqrt(32)), v), 3e-3)


def _case_gemm_store_f32_and_f16_copies():
    a, b = _h(200, 128), _h(128, 192, scale=0.25)
    out = emulate("gemm_store_f32_and_f16_copies", {0: a, 1: b})
    _check(out[2], _mm(a, b), 2e-3)
    np.testing.assert_array_equal(out[3], out[2].astype(np.float16))


def _case_gemm_l2_normalize_rows_full_row():
    x, w = _h(200, 128), _h(128, 96, scale=0.25)
    y = emulate("gemm_l2_normalize_rows_full_row", {0: x, 1: w})[2]
    e = _mm(x, w)
    _check(y, e / np.sqrt((e * e).sum(1, keepdims=True) + 1e-6), 2e-3)


def _case_attn_kv_tile_range_from_arrays():
    """Key tiles [1, 4), [0, 5) (every key, the last tile ragged) and [2, 3)."""
    q, k, v = _h(3, 128, 64), _h(3, 320, 64), _h(3, 320, 64)
    lo, hi = np.array([1, 0, 2], np.int32), np.array([4, 5, 3], np.int32)
    o = chained("attn_kv_tile_range_from_arrays", {0: q, 1: k, 2: v, 3: lo, 4: hi})[5]
    ref = np.stack([_softmax_pv(_scores(q[b], k[b, 64 * lo[b]:64 * hi[b]], 0.125), v[b, 64 * lo[b]:64 * hi[b]])
                    for b in range(3)])
    _check(o, ref, 3e-3)


def _case_gemm_dot_under_if_in_k_loop():
    """K tiles 0..2 of 5 (k_stop = 3)."""
    a, b = _h(200, 320), _h(320, 192, scale=0.25)
    _check(emulate("gemm_dot_under_if_in_k_loop", {0: a, 1: b})[2], _mm(a[:, :192], b[:192]), 2e-2)


def _case_gemm_splitk_bias_by_first_split():
    """Two strided splits of five K tiles (0, 2, 4 and 1, 3); the bias added once."""
    a, b, bias = _h(200, 320), _h(320, 192, scale=0.25), _f(192)
    y = emulate("gemm_splitk_bias_by_first_split", {0: a, 1: b, 2: bias, 3: np.zeros((200, 192), np.float32)})[3]
    _check(y, _mm(a, b) + bias[None, :], 2e-2)


def _case_attn_bwd_dv_causal_from_diagonal():
    q, k, do = _h(2, 200, 64), _h(2, 200, 64), _h(2, 200, 64)
    i, j = _pos(200, 200)
    s = np.where(j <= i, _scores(q, k, 0.125), -np.inf)
    mx = s.max(-1, keepdims=True)
    lse = mx + np.log(np.exp(s - mx).sum(-1, keepdims=True))
    p = np.exp(s - lse)
    ins = {0: q, 1: k, 2: do, 3: (lse[..., 0] * LOG2E).astype(np.float32)}
    dv = chained("attn_bwd_dv_causal_from_diagonal", ins)[4]
    _check(dv, np.swapaxes(p, 1, 2) @ do.astype(np.float64), 3e-3)


def _case_bmm_persistent_bias_relu_bf16():
    """bf16 operands (the emulator's bf16 WGMMA), 3 x 2 x 3 work tiles on 5 programs."""
    bf = ml_dtypes.bfloat16
    a, b, bias = _h(3, 200, 128).astype(bf), _h(3, 128, 192, scale=0.25).astype(bf), _f(3, 192)
    y = emulate("bmm_persistent_bias_relu_bf16", {0: a, 1: b, 2: bias})[3]
    _check(y, np.maximum(_mm(a, b) + bias[:, None, :], 0.0), 3e-2, 1e-2)


def _case_attn_mask_array_shared_by_heads():
    """A random mask (a quarter of the pairs attended), rows 0..63 see no key of tile 1, each row its
    diagonal."""
    q, k, v = _h(4, 192, 64), _h(4, 192, 64), _h(4, 192, 64)
    mask = (RNG.random((192, 192)) < 0.25).astype(np.uint8)
    mask[:64, 64:128] = 0
    mask[np.arange(192), np.arange(192)] = 1
    o = chained("attn_mask_array_shared_by_heads", {0: q, 1: k, 2: v, 3: mask})[4]
    _check(o, _softmax_pv(np.where(mask[None] != 0, _scores(q, k, 0.125), -np.inf), v), 3e-3)


def _case_attn_output_added_to_residual():
    q, k, v, r = _h(2, 128, 64), _h(2, 200, 64), _h(2, 200, 64), _f(2, 128, 64)
    o = chained("attn_output_added_to_residual", {0: q, 1: k, 2: v, 3: r})[4]
    _check(o, r + _softmax_pv(_scores(q, k, 0.125), v), 3e-3)


def _case_attn_gqa_group_loop_inside():
    """GQA, the group's 2 query heads looped over inside each program (session 26: the chained tier's
    instances): query heads 0, 1 on KV head 0 and 2, 3 on KV head 1, keys ragged (192 in 64-key tiles)."""
    q, k, v = _h(2, 4, 128, 64), _h(2, 2, 192, 64), _h(2, 2, 192, 64)
    o = chained("attn_gqa_group_loop_inside", {0: q, 1: k, 2: v})[3]
    _check(o, _softmax_pv(_scores(q, np.repeat(k, 2, axis=1), 0.125), np.repeat(v, 2, axis=1)), 3e-3)


def _case_gemm_column_sums_atomic():
    """Y and its column sums over the valid rows added atomically beside it (on the tier since session 41): three
    M tiles' partials per column (200 rows: the last tile's 56 padded rows masked by ``where``)."""
    a, b = _h(200, 128), _h(128, 192, scale=0.2)
    out = emulate("gemm_column_sums_atomic", {0: a, 1: b, 3: np.zeros(192, np.float32)})
    ref = _mm(a, b)
    _check(out[2], ref, 2e-3)
    _check(out[3], ref.sum(0), 2e-2)


CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}

EMULATED = ["gemm_persistent_group_m_swizzle", "gemm_k_loop_inside_runtime_if", "gemm_k_loop_inside_runtime_if__off", "gemm_splitk_contiguous_atomic_add", "bmm_3d_tiles_mma_no_reshape",
            "gemm_k_loop_counting_down", "gemm_k_range_from_args", "gemm_row_max_row_sum_full_row",
            "gemm_softmax_after_full_row", "gemm_alpha_ab_plus_beta_c", "attn_dropout_mask_array",
            "attn_key_padding_lengths", "attn_flash_decode_split_kv", "attn_bwd_dv_only",
            "attn_causal_two_key_loops", "attn_sigmoid_no_softmax", "attn_causal_bm128_bn64_bf16_lse",
            "gemm_f32_in_bf16_in_loop", "gemm_int8_int32_out", "gemm_int8_row_col_scales_f16", "gemm_int8_requant_int8_out",
            "gemm_tf32_weight_nk_transposed", "attn_paged_kv_block_table", "attn_bwd_dk_dv",
            "attn_cross_causal_bottom_right", "gemm_l2_normalize_rows_full_row", "attn_kv_tile_range_from_arrays",
            "gemm_dot_under_if_in_k_loop", "gemm_splitk_bias_by_first_split", "attn_bwd_dv_causal_from_diagonal",
            "bmm_persistent_bias_relu_bf16", "attn_mask_array_shared_by_heads", "attn_gqa_group_loop_inside"]
"""The CI-sized subset; ``TILEORCH_EMULATE_ALL=1`` runs every case."""
if os.environ.get("TILEORCH_EMULATE_ALL"):
    EMULATED = sorted(CASES)


def test_every_tensor_core_program_has_a_case():
    """The GPU file reruns every case: each program a tensor-core tier takes has one."""
    assert sorted(n for n, p in PROGRAMS.items() if p.path != "simt") == sorted(n for n in CASES if n in PROGRAMS)


@pytest.mark.parametrize("case", EMULATED)
def test_the_ptx_against_numpy(case):
    CASES[case]()
