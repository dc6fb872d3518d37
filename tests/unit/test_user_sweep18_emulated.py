"""Eighteenth user sweep (``tileorch.testing.user_programs18``): the tensor-core programs with f16
operands run CTA by CTA on the CPU by ``tileorch.testing.ptx_emulator`` against numpy float64 on
ragged shapes, outputs NaN-prefilled: the GEMMs through test_user_sweep14_emulated's runner (the
launcher's own problem derivation, tensor maps and tile parameters), the chained kernels through
test_user_sweep3_emulated's (every CTA of the host's launch); the bf16-in / f32-out attention runs
as its f16 twin (the emulator's WGMMA is ``.f32.f16.f16``).  The bf16 / fp8 GEMMs and the SIMT
path's programs run on the GPU, tests/gpu/test_user_sweep18_gpu.py.  :data:`EMULATED` is the
CI-sized subset; ``TILEORCH_EMULATE_ALL=1`` runs every case.  Needs cuda-tile and ml_dtypes."""

from __future__ import annotations

import dataclasses
import math
import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402
from test_user_sweep16_emulated import _mm, _pos, _scores, _softmax_pv  # noqa: E402

from tileorch.testing.user_programs18 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(2418)
_BF = "attn_bf16_in_f32_out_causal"
TWINS = {_BF + "__f16": dataclasses.replace(
    PROGRAMS[_BF], spec=[(s[0], "float16" if s[1] == "bfloat16" else s[1]) if isinstance(s, tuple) else s
                         for s in PROGRAMS[_BF].spec])}
"""The bf16 attention's f16 twin (the same kernel, its bf16 arrays f16, the f32 output kept)."""


@pytest.fixture(autouse=True)
def _eighteenth_sweep(monkeypatch):
    s4.add_sweep_programs(monkeypatch, {**PROGRAMS, **TWINS})
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})


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


# ----------------------------------------------------------------------------------------------- attention


def _case_attn_d80_padded_tile128():
    q, k, v = _h(2, 128, 80), _h(2, 200, 80), _h(2, 200, 80)
    o = chained("attn_d80_padded_tile128", {0: q, 1: k, 2: v})[3]
    _check(o, _softmax_pv(_scores(q, k, 1 / math.sqrt(80)), v), 3e-3)


def _case_attn_d192_padded_tile256_bm64():
    q, k, v = _h(2, 128, 192), _h(2, 128, 192), _h(2, 128, 192)
    o = chained("attn_d192_padded_tile256_bm64", {0: q, 1: k, 2: v})[3]
    _check(o, _softmax_pv(_scores(q, k, 1 / math.sqrt(192)), v), 3e-3)


def _case_attn_gqa_h_div_group_d96():
    """Four query heads on two KV heads (``h // 2``), causal, head dim 96."""
    q, k, v = _h(2, 4, 128, 96), _h(2, 2, 128, 96), _h(2, 2, 128, 96)
    o = chained("attn_gqa_h_div_group_d96", {0: q, 1: k, 2: v})[3]
    i, j = _pos(128, 128)
    kk, vv = np.repeat(k, 2, axis=1), np.repeat(v, 2, axis=1)
    _check(o, _softmax_pv(np.where(j <= i, _scores(q, kk, 1 / math.sqrt(96)), -np.inf), vv), 3e-3)


def _case_attn_gqa_head_table():
    """Three query heads mapped to KV heads 1, 0, 1 (uneven groups) of two, two batches."""
    q, k, v = _h(6, 128, 64), _h(4, 128, 64), _h(4, 128, 64)
    table = np.array([1, 0, 1], np.int32)
    o = chained("attn_gqa_head_table", {0: q, 1: k, 2: v, 3: table})[4]
    rows = [2 * (bh // 3) + table[bh % 3] for bh in range(6)]
    _check(o, _softmax_pv(_scores(q, k[rows], 0.125), v[rows]), 3e-3)


def _case_attn_mqa_kv_3d():
    q, k, v = _h(2, 3, 128, 64), _h(2, 150, 64), _h(2, 150, 64)
    o = chained("attn_mqa_kv_3d", {0: q, 1: k, 2: v})[3]
    _check(o, _softmax_pv(_scores(q, k[:, None], 0.125), v[:, None]), 3e-3)


def _case_attn_sliding_window_ragged():
    q, k, v = _h(2, 250, 64), _h(2, 250, 64), _h(2, 250, 64)
    o = chained("attn_sliding_window_ragged", {0: q, 1: k, 2: v})[3]
    i, j = _pos(250, 250)
    _check(o, _softmax_pv(np.where((j <= i) & (j > i - 100), _scores(q, k, 0.125), -np.inf), v), 3e-3)


def _case_attn_softcap_exp_scale_unfolded():
    q, k, v = _h(2, 128, 64, scale=2.0), _h(2, 200, 64, scale=2.0), _h(2, 200, 64)
    o = chained("attn_softcap_exp_scale_unfolded", {0: q, 1: k, 2: v})[3]
    _check(o, _softmax_pv(5.0 * np.tanh(_scores(q, k, 0.125) / 5.0), v), 3e-3)


def _case_attn_alibi_slopes_array_sym():
    q, k, v = _h(4, 128, 64), _h(4, 128, 64), _h(4, 128, 64)
    slopes = np.array([0.5, 0.0625], np.float32)
    o = chained("attn_alibi_slopes_array_sym", {0: q, 1: k, 2: v, 3: slopes})[4]
    i, j = _pos(128, 128)
    sl = slopes[np.arange(4) % 2].astype(np.float64)[:, None, None]
    _check(o, _softmax_pv(_scores(q, k, 0.125) - sl * np.abs(j - i), v), 3e-3)


def _case_attn_prefix_lm_len_array():
    """Prefix lengths 100 (inside the second query tile) and 200 (past the third's causal end)."""
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    pre = np.array([100, 200], np.int32)
    o = chained("attn_prefix_lm_len_array", {0: q, 1: k, 2: v, 3: pre})[4]
    i, j = _pos(256, 256)
    mask = (j <= i)[None] | (j[None] < pre[:, None, None])
    _check(o, _softmax_pv(np.where(mask, _scores(q, k, 0.125), -np.inf), v), 3e-3)


def _case_attn_decode_q5_kv300():
    q, k, v = _h(4, 5, 64), _h(4, 300, 64), _h(4, 300, 64)
    o = chained("attn_decode_q5_kv300", {0: q, 1: k, 2: v})[3]
    _check(o, _softmax_pv(_scores(q, k, 0.125), v), 3e-3)


def _case_attn_decode_q7_causal_tail():
    q, k, v = _h(4, 7, 64), _h(4, 77, 64), _h(4, 77, 64)
    o = chained("attn_decode_q7_causal_tail", {0: q, 1: k, 2: v})[3]
    i, j = _pos(7, 77, 70)
    _check(o, _softmax_pv(np.where(j <= i, _scores(q, k, 0.125), -np.inf), v), 3e-3)


def _case_attn_lse_flat_1d():
    q, k, v = _h(2, 128, 64), _h(2, 128, 64), _h(2, 128, 64)
    out = chained("attn_lse_flat_1d", {0: q, 1: k, 2: v})
    s = _scores(q, k, 0.125)
    mx = s.max(-1, keepdims=True)
    _check(out[3], _softmax_pv(s, v), 3e-3)
    _check(out[4], (mx + np.log(np.exp(s - mx).sum(-1, keepdims=True))).reshape(-1), 1e-3)


def _case_attn_bf16_in_f32_out_causal():
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = chained(_BF + "__f16", {0: q, 1: k, 2: v})[3]
    i, j = _pos(256, 256)
    _check(o, _softmax_pv(np.where(j <= i, _scores(q, k, 0.125), -np.inf), v), 3e-3)


def _case_attn_v_transposed_dsk():
    q, k, v = _h(2, 128, 64), _h(2, 192, 64), _h(2, 192, 64)
    vt = np.ascontiguousarray(np.swapaxes(v, 1, 2))
    o = chained("attn_v_transposed_dsk", {0: q, 1: k, 2: vt})[3]
    _check(o, _softmax_pv(_scores(q, k, 0.125), v), 3e-3)


def _case_attn_bwd_dq_lse_delta():
    """dQ from the saved log2-unit LSE and ``delta = rowsum(dO * O)``."""
    q, k, v, do = _h(2, 128, 64), _h(2, 128, 64), _h(2, 128, 64), _h(2, 128, 64)
    s = _scores(q, k, 0.125)
    mx = s.max(-1, keepdims=True)
    lse = mx + np.log(np.exp(s - mx).sum(-1, keepdims=True))
    p = np.exp(s - lse)
    o = p @ v.astype(np.float64)
    delta = (do.astype(np.float64) * o).sum(-1, keepdims=True)
    dq_ref = (p * (do.astype(np.float64) @ np.swapaxes(v.astype(np.float64), 1, 2) - delta)) @ k * 0.125
    ins = {0: q, 1: k, 2: v, 3: do, 4: (lse[..., 0] / math.log(2.0)).astype(np.float32),
           5: delta[..., 0].astype(np.float32)}
    _check(chained("attn_bwd_dq_lse_delta", ins)[6], dq_ref, 3e-3)


def _case_attn_heads_packed_columns():
    """``[B, S, H * D]`` with H = 3: head h's columns h * 64 .. h * 64 + 63."""
    q, k, v = _h(2, 128, 192), _h(2, 192, 192), _h(2, 192, 192)
    o = chained("attn_heads_packed_columns", {0: q, 1: k, 2: v})[3]

    def heads(x):
        return np.swapaxes(x.reshape(2, x.shape[1], 3, 64), 1, 2)
    ref = _softmax_pv(_scores(heads(q), heads(k), 0.125), heads(v))
    _check(o, np.swapaxes(ref, 1, 2).reshape(2, 128, 192), 3e-3)


def _case_attn_fused_qkv_one_array():
    qkv = _h(2, 128, 384)
    o = chained("attn_fused_qkv_one_array", {0: qkv})[1]
    x = np.swapaxes(qkv.reshape(2, 128, 3, 2, 64), 1, 3)  # [B, H, 3, S, D]
    i, j = _pos(128, 128)
    ref = _softmax_pv(np.where(j <= i, _scores(x[:, :, 0], x[:, :, 1], 0.125), -np.inf), x[:, :, 2])
    _check(o, np.swapaxes(ref, 1, 2).reshape(2, 128, 128), 3e-3)


def _case_attn_rescale_then_add_dot():
    q, k, v = _h(2, 128, 64), _h(2, 192, 64), _h(2, 192, 64)
    o = chained("attn_rescale_then_add_dot", {0: q, 1: k, 2: v})[3]
    _check(o, _softmax_pv(_scores(q, k, 0.125), v), 3e-3)


def _case_attn_neg_inf_causal_ragged():
    q, k, v = _h(2, 200, 64), _h(2, 200, 64), _h(2, 200, 64)
    o = chained("attn_neg_inf_causal_ragged", {0: q, 1: k, 2: v})[3]
    i, j = _pos(200, 200)
    _check(o, _softmax_pv(np.where(j <= i, _scores(q, k, 0.125), -np.inf), v), 3e-3)


def _case_attn_chunked_prefill_offset_arg():
    """A 128-query chunk at positions 192..319 of 320 keys."""
    q, k, v = _h(2, 128, 64), _h(2, 320, 64), _h(2, 320, 64)
    o = chained("attn_chunked_prefill_offset_arg", {0: q, 1: k, 2: v})[3]
    i, j = _pos(128, 320, 192)
    _check(o, _softmax_pv(np.where(j <= i, _scores(q, k, 0.125), -np.inf), v), 3e-3)


def _case_attn_bias_shared_by_heads():
    q, k, v, bias = _h(4, 128, 64), _h(4, 192, 64), _h(4, 192, 64), _f(128, 192)
    o = chained("attn_bias_shared_by_heads", {0: q, 1: k, 2: v, 3: bias})[4]
    _check(o, _softmax_pv(_scores(q, k, 0.125) + bias[None], v), 3e-3)


def _case_attn_dqk64_dv128():
    q, k, v = _h(2, 128, 64), _h(2, 200, 64), _h(2, 200, 128)
    o = chained("attn_dqk64_dv128", {0: q, 1: k, 2: v})[3]
    _check(o, _softmax_pv(_scores(q, k, 0.125), v), 3e-3)


def _case_attn_decode_q1_tile16():
    """One query row in a 16-row tile: rows 1..15 are padding, their store dropped (O is [4, 1, 64])."""
    q, k, v = _h(4, 1, 64), _h(4, 300, 64), _h(4, 300, 64)
    o = chained("attn_decode_q1_tile16", {0: q, 1: k, 2: v})[3]
    _check(o, _softmax_pv(_scores(q, k, 0.125), v), 3e-3)


def _case_attn_mask_after_exp():
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = chained("attn_mask_after_exp", {0: q, 1: k, 2: v})[3]
    i, j = _pos(256, 256)
    _check(o, _softmax_pv(np.where(j <= i, _scores(q, k, 0.125), -np.inf), v), 3e-3)


def _case_attn_keys_last_to_first():
    q, k, v = _h(2, 128, 64), _h(2, 200, 64), _h(2, 200, 64)
    o = chained("attn_keys_last_to_first", {0: q, 1: k, 2: v})[3]
    _check(o, _softmax_pv(_scores(q, k, 0.125), v), 3e-3)


def _causal_case(name):
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = chained(name, {0: q, 1: k, 2: v})[3]
    i, j = _pos(256, 256)
    _check(o, _softmax_pv(np.where(j <= i, _scores(q, k, 0.125), -np.inf), v), 3e-3)


def _case_attn_causal_where_reversed():
    _causal_case("attn_causal_where_reversed")


def _case_attn_causal_additive_int64():
    """int64 position tiles: the compile failed until session 24 (the i32 element position added to the
    i64 program offset in the score mask)."""
    _causal_case("attn_causal_additive_int64")


def _case_attn_key_padding_gathered():
    """Batch 0 pads its last 50 keys, batch 1 every third key."""
    q, k, v = _h(2, 128, 64), _h(2, 192, 64), _h(2, 192, 64)
    ok = np.ones((2, 192), np.int32)
    ok[0, 142:] = 0
    ok[1, ::3] = 0
    o = chained("attn_key_padding_gathered", {0: q, 1: k, 2: v, 3: ok})[4]
    _check(o, _softmax_pv(np.where(ok[:, None, :] != 0, _scores(q, k, 0.125), -np.inf), v), 3e-3)


# ----------------------------------------------------------------------------------------------- GEMMs


def _case_bmm_both_transposed_shared_wt():
    at, wt = _h(3, 128, 200), _h(192, 128, scale=0.25)
    y = emulate("bmm_both_transposed_shared_wt", {0: at, 1: wt})[2]
    _check(y, _mm(np.swapaxes(at, 1, 2), wt.T[None]), 2e-2)


def _case_bmm_weight_batch_of_one():
    a, w = _h(3, 200, 128), _h(1, 128, 192, scale=0.25)
    _check(emulate("bmm_weight_batch_of_one", {0: a, 1: w})[2], _mm(a, w), 2e-2)


def _case_gemm_tile_256x64():
    a, b = _h(300, 128), _h(128, 192, scale=0.25)
    _check(emulate("gemm_tile_256x64", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_gemm_store_transposed_row_bias():
    a, b, bias = _h(200, 128), _h(128, 100, scale=0.25), _f(200)
    y = emulate("gemm_store_transposed_row_bias", {0: a, 1: b, 2: bias})[3]
    _check(y, (_mm(a, b) + bias[:, None]).T, 2e-3)


def _case_gemm_k24_tk32_padded():
    a, b = _h(200, 24), _h(24, 192)
    _check(emulate("gemm_k24_tk32_padded", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_gemm_tk16_runtime_k_first_tile_bias():
    """``nk`` = 6 K tiles of 16 (K = 96); the bias on columns 0..63 only."""
    a, b, bias = _h(256, 96), _h(96, 192, scale=0.25), _f(64)
    y = emulate("gemm_tk16_runtime_k_first_tile_bias", {0: a, 1: b, 2: bias})[3]
    ref = _mm(a, b)
    ref[:, :64] += bias[None, :]
    _check(y, ref, 2e-2)


def _case_gemm_plus_unrelated_scale():
    a, b, x2 = _h(200, 128), _h(128, 192, scale=0.25), _h(200, 192)
    out = emulate("gemm_plus_unrelated_scale", {0: a, 1: b, 3: x2})
    _check(out[2], _mm(a, b), 2e-2)
    _check(out[4], 0.5 * x2.astype(np.float64), 1e-3)


def _case_gemm_acc_starts_from_bias():
    a, b, bias = _h(200, 128), _h(128, 100, scale=0.25), _f(100)
    y = emulate("gemm_acc_starts_from_bias", {0: a, 1: b, 2: bias})[3]
    _check(y, _mm(a, b) + bias[None, :], 2e-2)


def _case_bmm_batch_on_grid_axis0():
    a, b = _h(3, 200, 128), _h(3, 128, 192, scale=0.25)
    _check(emulate("bmm_batch_on_grid_axis0", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_gemm_first_k_step_peeled():
    a, b = _h(200, 256), _h(256, 192, scale=0.25)
    _check(emulate("gemm_first_k_step_peeled", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_grouped_offsets_empty_groups():
    """Five groups of 64-row tiles: 2, 0, 1, 0 and 3 tiles (groups 1 and 3 empty); the programs past their
    group's tiles return, each row tile of Y stored once, by its group's weight."""
    x, w = _h(384, 128), _h(5, 128, 192, scale=0.25)
    offs = np.array([0, 128, 128, 192, 192, 384], np.int32)
    y = emulate("grouped_offsets_empty_groups", {0: x, 1: w, 2: offs})[3]
    _check(y, np.concatenate([_mm(x[offs[g]:offs[g + 1]], w[g]) for g in range(5)]), 2e-2)


def _case_scores_qkt_causal_tril():
    q, k = _h(200, 64), _h(200, 64)
    s = emulate("scores_qkt_causal_tril", {0: q, 1: k})[2]
    i, j = _pos(200, 200)
    _check(s, np.where(j <= i, _mm(q, k.T) * 0.125, 0.0), 2e-3)


def _case_gemm_bias_gathered_i64_row_scale():
    """N = 100 of two 64-wide column tiles: the gather's bounds check drops columns 100..127 (they are not
    stored); row tiles scaled by 0.5 and 2."""
    a, b, bias = _h(200, 128), _h(128, 100, scale=0.25), _f(100)
    scale = np.array([0.5, 2.0], np.float32)
    y = emulate("gemm_bias_gathered_i64_row_scale", {0: a, 1: b, 2: bias, 3: scale})[4]
    _check(y, (_mm(a, b) + bias[None, :]) * np.repeat(scale, 128)[:200, None], 2e-3)


CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}

EMULATED = ["attn_d80_padded_tile128", "attn_gqa_h_div_group_d96", "attn_gqa_head_table", "attn_mqa_kv_3d",
            "attn_sliding_window_ragged", "attn_softcap_exp_scale_unfolded", "attn_prefix_lm_len_array",
            "attn_decode_q7_causal_tail", "attn_lse_flat_1d", "attn_v_transposed_dsk", "attn_bwd_dq_lse_delta",
            "bmm_both_transposed_shared_wt", "gemm_store_transposed_row_bias", "gemm_tk16_runtime_k_first_tile_bias",
            "gemm_plus_unrelated_scale", "attn_causal_additive_int64", "gemm_bias_gathered_i64_row_scale",
            "grouped_offsets_empty_groups"]
"""The CI-sized subset (padded head dim, both GQA spellings, MQA, the ragged window, soft-capping with
natural exp, the per-row prefix, the decode tail, the flat LSE, V^T, the three-dot dQ, the shared
transposed weight, the transposed store, the runtime K count with the first tile's bias, the
unrelated store, and the three the tier now takes: int64 positions, an epilogue gather, a group's
weight at program id 2 beside 2-D X and Y); ``TILEORCH_EMULATE_ALL=1`` runs every case."""
if os.environ.get("TILEORCH_EMULATE_ALL"):
    EMULATED = sorted(CASES)


@pytest.mark.parametrize("case", EMULATED)
def test_the_ptx_against_numpy(case):
    CASES[case]()
