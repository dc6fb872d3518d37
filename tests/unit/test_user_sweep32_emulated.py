"""The thirty-second user sweep's programs as PTX (after LLVM) run CTA by CTA on the CPU by
``tileorch.testing.ptx_emulator``, against independent numpy (float64 / Python integer) references written from
the programs' docstrings, outputs NaN prefilled, ragged shapes:

* the two-dot programs the chained-dots kernel takes (test_user_sweep3_emulated's runner: every CTA of the launch,
  the launcher's tensor maps; bf16 programs with bf16 inputs -- the emulator's WGMMA takes bf16):
  :data:`ATTENTION_CASES`;
* the GEMMs the TileAS tier takes (TMA + WGMMA: test_user_sweep14_emulated's runner): :data:`CASES`;
* the SIMT programs (test_user_sweep32_interp.py's tests with its ``run`` swapped for
  test_user_sweep10_emulated.emulate): :data:`EMULATED`.

CI-sized subsets; ``TILEORCH_EMULATE_ALL=1`` runs every case.  Needs cuda-tile and ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

import os

import math

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep10_emulated as s10e  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402
import test_user_sweep32_interp as s32  # noqa: E402
from test_user_sweep30_emulated import _check, _d, _masked, _mm, _pos, _unset, attention  # noqa: E402

from tileorch.testing.user_programs32 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(3240)
LOG2E = 1.4426950408889634
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
BF = ml_dtypes.bfloat16


def _h(*shape, scale=1.0, dt=np.float16):
    return (RNG.standard_normal(shape) * scale).astype(np.float32).astype(dt)


def _bf(*shape, scale=1.0):
    return _h(*shape, scale=scale, dt=BF)


def _f(x):
    return np.asarray(x, np.float32)


# ----------------------------------------------------------------------------------------------- two-dot programs


def _qkv(bh, sq, sk, d, dt=np.float16):
    return _h(bh, sq, d, dt=dt), _h(bh, sk, d, dt=dt), _h(bh, sk, d, dt=dt)


def _att_alibi():
    q, k, v = _qkv(4, 150, 150, 64)
    i, j = _pos(150, 150)

    def scores(s, bh):
        slope = 2.0 ** (-8.0 * (bh % 2 + 1) / 2)
        return _masked(s / 8.0 + slope * (j - i), j <= i)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, scores)}


def _att_rel_bias():
    q, k, v = _qkv(2, 150, 170, 64)
    bias = _h(150, 170, dt=np.float32)
    return {0: q, 1: k, 2: v, 3: bias}, {4: attention(q, k, v, lambda s, h: s * 0.125 + _d(bias))}


def _att_window_range():
    q, k, v = _qkv(2, 200, 200, 64)
    i, j = _pos(200, 200)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: _masked(s / 8.0, (j <= i) & (j > i - 70)))}


def _att_window_sym():
    q, k, v = _qkv(2, 150, 150, 64)
    i, j = _pos(150, 150)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: _masked(s / 8.0, np.abs(j - i) < 40))}


def _att_softcap_hand():
    q, k, v = _qkv(2, 150, 170, 64)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: np.tanh(s * 0.125 / 5.0) * 5.0)}


def _att_softcap_bf16():
    q, k, v = _qkv(2, 150, 150, 64, BF)
    i, j = _pos(150, 150)
    ref = attention(_f(q), _f(k), _f(v), lambda s, h: _masked(np.tanh(s * 0.125 / 5.0) * 5.0, j <= i))
    return {0: q, 1: k, 2: v, 3: _unset((2, 150, 64), "bfloat16")}, {3: ref}


def _att_gqa_product():
    q, k, v = _h(2, 4, 150, 64), _h(2, 2, 170, 64), _h(2, 2, 170, 64)
    ref = np.empty((2, 4, 150, 64))
    for b in range(2):
        for h in range(4):
            kv = h * 2 // 4
            ref[b, h] = attention(q[b, h][None], k[b, kv][None], v[b, kv][None], lambda s, _: s / 8.0)[0]
    return {0: q, 1: k, 2: v}, {3: ref}


def _att_gqa_modulo():
    q, k, v = _h(8, 150, 64), _h(4, 170, 64), _h(4, 170, 64)
    kv = [(bh // 4) * 2 + (bh % 4) % 2 for bh in range(8)]
    ref = attention(q, k[kv], v[kv], lambda s, h: s / 8.0)
    return {0: q, 1: k, 2: v}, {3: ref}


def _att_cross_lens():
    q, k, v = _qkv(4, 100, 333, 64)
    lens = np.array([333, 97], np.int32)
    j = np.arange(333)[None, :]
    ref = attention(q, k, v, lambda s, bh: _masked(s / 8.0, j < lens[bh // 2]))
    return {0: q, 1: k, 2: v, 3: lens}, {4: ref}


def _att_bottom_right():
    q, k, v = _qkv(2, 100, 230, 64)
    i, j = _pos(100, 230)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: _masked(s / 8.0, j <= i + 130))}


def _att_row_scale():
    q, k, v = _qkv(2, 150, 170, 64)
    g = _h(2, 150, dt=np.float32)
    return {0: q, 1: k, 2: v, 3: g}, {4: attention(q, k, v, lambda s, h: s / 8.0) * _d(g)[:, :, None]}


def _att_lse_bhs():
    q, k, v = _h(2, 2, 150, 64), _h(2, 2, 170, 64), _h(2, 2, 170, 64)
    qf, kf, vf = (x.reshape(4, -1, 64) for x in (q, k, v))
    o = attention(qf, kf, vf, lambda s, h: s / 8.0).reshape(2, 2, 150, 64)
    lse = np.stack([np.log(np.exp(_d(qf[h]) @ _d(kf[h]).T / 8.0).sum(1)) for h in range(4)]).reshape(2, 2, 150)
    return {0: q, 1: k, 2: v}, {3: o, 4: lse}


def _att_key_padding():
    q, k, v = _qkv(4, 150, 170, 64)
    keep = RNG.random((2, 170)) < 0.6
    keep[:, 0] = True
    return {0: q, 1: k, 2: v, 3: keep}, {4: attention(q, k, v, lambda s, bh: _masked(s / 8.0, keep[bh // 2][None]))}


def _att_f16_bf16_pv():
    q, k = _h(2, 150, 64), _h(2, 170, 64)
    v = _bf(2, 170, 64)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, _f(v), lambda s, h: s / 8.0)}


def _att_q_bf16_cast():
    q = _bf(2, 150, 64)
    k, v = _h(2, 170, 64), _h(2, 170, 64)
    qh = _f(q).astype(np.float16)  # the cast after the load
    return {0: q, 1: k, 2: v}, {3: attention(qh, k, v, lambda s, h: s / 8.0)}


def _mlp_relu():
    x, w1, w2 = _h(150, 64), _h(64, 512, scale=0.2), _h(512, 32, scale=0.2)
    hdn = np.maximum(_mm(x, w1), 0).astype(np.float16)
    return {0: x, 1: w1, 2: w2}, {3: _mm(hdn, w2)}


def _mlp_silu():
    x, w1, w2 = _bf(150, 64), _bf(64, 200, scale=0.2), _bf(200, 128, scale=0.2)
    hdn = _mm(_f(x), _f(w1))
    g = _f((hdn / (1 + np.exp(-hdn))).astype(np.float32).astype(BF))
    return {0: x, 1: w1, 2: w2, 3: _unset((150, 128), "bfloat16")}, {3: _mm(g, _f(w2))}


def _att_v_ds():
    q, k, v = _qkv(2, 150, 176, 64)
    vt = np.ascontiguousarray(np.swapaxes(v, 1, 2))  # [BH, D, S]
    return {0: q, 1: k, 2: vt}, {3: attention(q, k, v, lambda s, h: s / 8.0)}


def _att_varlen():
    q, k, v = _qkv(4, 100, 300, 64)
    lens = np.array([300, 129], np.int32)  # the second batch's keys end one past a tile boundary
    j = np.arange(300)[None, :]
    return {0: q, 1: k, 2: v, 3: lens}, {4: attention(q, k, v, lambda s, bh: _masked(s / 8.0, j < lens[bh // 2]))}


def _att_prefix_lm():
    q, k, v = _qkv(2, 200, 200, 64)
    i, j = _pos(200, 200)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: _masked(s / 8.0, (j < 90) | (j <= i)))}


def _mlp_bias_residual():
    x, w1, w2 = _h(150, 64), _h(64, 256, scale=0.2), _h(256, 64, scale=0.2)
    b1 = _h(256, dt=np.float32)
    hdn = np.maximum(_mm(x, w1) + _d(b1), 0).astype(np.float16)
    return {0: x, 1: w1, 2: b1, 3: w2}, {4: _mm(hdn, w2) + _d(x)}


def _att_threshold():
    q, k, v = _qkv(2, 150, 170, 64)
    j = np.arange(170)[None, :]

    def scores(s, h):
        s2 = _f(s) * np.float32(0.125)  # the kernel's f32 scores in log2 units
        return _masked(_d(s2) * math.log(2.0), (s2 > 0.5) | (j == 0))
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, scores)}


def _att_q_to_bf16():
    q = _h(2, 150, 64)
    k, v = _h(2, 170, 64, dt=BF), _h(2, 170, 64, dt=BF)
    qs = (_f(q) * np.float32(LOG2E / 8.0)).astype(BF)  # scaled in f32, rounded to bf16 before the loop
    ref = attention(_f(qs), _f(k), _f(v), lambda s, h: s * math.log(2.0))
    return {0: q, 1: k, 2: v, 3: _unset((2, 150, 64), "bfloat16")}, {3: ref}


def _plain():
    """Plain attention over 2 x 150 queries and 170 keys, head dim 64 (the programs whose spelling differs)."""
    def case():
        q, k, v = _qkv(2, 150, 170, 64)
        return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: s / 8.0)}
    return case


def _att_bf16_f16_causal():
    q, k = _h(2, 300, 128, dt=BF), _h(2, 300, 128, dt=BF)
    v = _h(2, 300, 128)
    i, j = _pos(300, 300)
    return {0: q, 1: k, 2: v}, {3: attention(_f(q), _f(k), v, lambda s, h: _masked(s / math.sqrt(128), j <= i))}


def _mlp_f16_bf16():
    x, w1, w2 = _h(150, 64), _h(64, 256, scale=0.2), _bf(256, 64, scale=0.2)
    hdn = _mm(x, w1)
    g = 0.5 * hdn * (1 + np.tanh(math.sqrt(2 / math.pi) * (hdn + 0.044715 * hdn ** 3)))
    return {0: x, 1: w1, 2: w2}, {3: _mm(_f(g.astype(np.float32).astype(BF)), _f(w2))}


def _att_qk_e4m3():
    """e4m3 Q and K (bytes in, their exact values in the reference), f16 V: the chained kernel's e4m3 first dot
    (session 43; the SIMT path before)."""
    q8, k8 = _h(2, 150, 64, scale=2.0, dt=ml_dtypes.float8_e4m3fn), _h(2, 170, 64, scale=2.0, dt=ml_dtypes.float8_e4m3fn)
    v = _h(2, 170, 64)
    ref = attention(q8.astype(np.float64), k8.astype(np.float64), v, lambda s, h: s / 8.0)
    return {0: q8.view(np.uint8), 1: k8.view(np.uint8), 2: v}, {3: ref}


ATTENTION_CASES = {
    "attn_alibi_slope_exp2_of_head": _att_alibi,
    "attn_relative_bias_tile_per_key_tile": _att_rel_bias,
    "attn_sliding_window_both_bounds_in_range": _att_window_range,
    "attn_sliding_window_symmetric_all_tiles": _att_window_sym,
    "attn_softcap_tanh_by_exp_by_hand": _att_softcap_hand,
    "attn_softcap_tanh_causal_bf16": _att_softcap_bf16,
    "attn_gqa_kv_head_by_product": _att_gqa_product,
    "attn_gqa_kv_head_interleaved_modulo": _att_gqa_modulo,
    "attn_cross_ragged_kv_lengths_array": _att_cross_lens,
    "attn_causal_bottom_right_sq_lt_skv": _att_bottom_right,
    "attn_output_row_scale_after_loop": _att_row_scale,
    "attn_lse_bhs_3d_beside_o_bhsd": _att_lse_bhs,
    "attn_key_padding_bool_mask_array": _att_key_padding,
    "attn_f16_scores_bf16_pv": _att_f16_bf16_pv,
    "attn_q_bf16_cast_to_f16_after_load": _att_q_bf16_cast,
    "mlp_relu_two_gemms_n1_128_n2_32": _mlp_relu,
    "mlp_silu_hidden_ragged_n2_128": _mlp_silu,
    "attn_v_stored_ds_order": _att_v_ds,
    "attn_varlen_loop_bound_item": _att_varlen,
    "attn_prefix_lm_mask": _att_prefix_lm,
    "mlp_bias_in_loop_residual_after": _mlp_bias_residual,
    "attn_threshold_sparse_mask": _att_threshold,
    "attn_q_f16_to_bf16_scaled": _att_q_to_bf16,
    "attn_den_of_rounded_probs": _plain(),
    "attn_keys_walked_last_first": _plain(),
    "attn_acc_kept_normalised": _plain(),
    "attn_bf16_scores_f16_pv_causal_d128": _att_bf16_f16_causal,
    "mlp_f16_up_bf16_down_gelu": _mlp_f16_bf16,
    "attn_qk_e4m3_pv_f16": _att_qk_e4m3,
}
"""Per chained program: ``() -> (inputs, {output position: float64 reference})``."""
BF16_OUT = {"attn_softcap_tanh_causal_bf16", "mlp_silu_hidden_ragged_n2_128", "attn_f16_scores_bf16_pv",
            "attn_q_f16_to_bf16_scaled", "mlp_bias_in_loop_residual_after", "mlp_f16_up_bf16_down_gelu"}
"""Programs whose probabilities / hidden tile or output are bf16, or whose f16 output is of magnitude ~10 (a
wider tolerance)."""
ATTENTION = sorted(ATTENTION_CASES) if ALL else ["attn_f16_scores_bf16_pv", "attn_q_bf16_cast_to_f16_after_load"]
"""The chained programs emulated in CI (every one with ``TILEORCH_EMULATE_ALL=1``): the two this sweep made take
the chained kernel (each dot's own 16-bit type; Q converted in place)."""


EPILOGUE_READS = {"mlp_bias_in_loop_residual_after"}
"""Chained programs whose epilogue reads a TMA-loaded array again (the residual ``x`` after the loop): the runner
places those arrays in global memory too."""


def run_attention_case(name, runner):
    """Case ``name``'s inputs through ``runner(name, inputs) -> arrays`` against its reference."""
    inputs, refs = ATTENTION_CASES[name]()
    out = runner(name, inputs)
    for pos, ref in refs.items():
        got = np.asarray(np.asarray(out[pos]).astype(np.float32), np.float64)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(ref), err_msg=f"argument {pos}: written elements")
        atol, rtol = (1.5e-2, 2e-2) if name in BF16_OUT else (3e-3, 1e-2)
        np.testing.assert_allclose(got, ref, atol=atol, rtol=rtol, equal_nan=True)


@pytest.mark.parametrize("name", ATTENTION)
def test_the_chained_program_on_the_emulator(name, monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setitem(s3.NP, "bfloat16", BF)
    monkeypatch.setitem(s3.NP, "bool_", np.bool_)
    monkeypatch.setitem(s3.NP, "int32", np.int32)
    grid = tuple(PROGRAMS[name].grid) + (1,) * (3 - len(PROGRAMS[name].grid))
    run_attention_case(name, lambda n, inputs: s3._chained(n, inputs, grid, tma_arrays_in_memory=n in EPILOGUE_READS))


def test_every_chained_program_has_a_case():
    assert set(ATTENTION_CASES) == {n for n, p in PROGRAMS.items() if p.path == "chained"}


# ----------------------------------------------------------------------------------------------- the GEMM cases


def emulate(name: str, inputs: dict) -> dict:
    """A GEMM-tier program on its spec's shapes (test_user_sweep14_emulated's runner; the GPU file swaps it)."""
    return s14e.emulate(name, inputs)


def _e4m3(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)


def _case_gemm_residual_add_second_input():
    a, b, r = _h(100, 128), _h(128, 80, scale=0.3), _h(100, 80)
    _check(emulate("gemm_residual_add_second_input", {0: a, 1: b, 2: r})[3], _mm(a, b) + _d(r), 1e-2, 2e-3)  # f16


def _case_gemm_col_scale_fp8_e4m3_saturated():
    a, b = _h(100, 128), _h(128, 80, scale=0.3)
    sc = (RNG.random(80) * 200).astype(np.float32)  # some products past 448: saturated
    out = emulate("gemm_col_scale_fp8_e4m3_saturated",
                  {0: a, 1: b, 2: sc, 3: np.full((100, 80), 0x7F, np.uint8)})[3]
    y = np.clip(_f(_mm(a, b)) * sc[None, :], -448, 448)
    ref = y.astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
    got = np.asarray(out, np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    assert np.abs(ref).max() == 448.0  # the saturation is exercised
    np.testing.assert_allclose(got, ref, rtol=0.07, atol=1e-2)  # one e4m3 step (the f32 sum's rounding may differ)


def _case_gemm_row_max_per_tile_beside_c():
    a, b = _h(100, 64), _h(64, 80, scale=0.3)
    out = emulate("gemm_row_max_per_tile_beside_c", {0: a, 1: b})
    c = _mm(a, b)
    _check(out[2], c, 1e-3)
    _check(out[3], np.stack([c[:, :64].max(1), c[:, 64:].max(1)], 1), 1e-3)


def _case_gemm_a_km_transposed_by_permute():
    at, b = _h(96, 100), _h(96, 80, scale=0.3)
    _check(emulate("gemm_a_km_transposed_by_permute", {0: at, 1: b})[2], _mm(at.T, b), 1e-3)


def _case_gemm_b_nk_loaded_with_order_f():
    a, w = _bf(100, 96), _bf(80, 96, scale=0.3)
    _check(emulate("gemm_b_nk_loaded_with_order_f", {0: a, 1: w})[2], _mm(_f(a), _f(w).T), 1e-3)


def _case_gemm_batched_batch_on_grid_axis_1():
    a, b = _h(3, 100, 64), _h(3, 64, 144, scale=0.3)
    _check(emulate("gemm_batched_batch_on_grid_axis_1", {0: a, 1: b})[2], np.einsum("zmk,zkn->zmn", _d(a), _d(b)),
           1e-3)


def _case_gemm_batched_batch_on_grid_axis_2_shared_b():
    a, b = _bf(3, 100, 64), _bf(64, 80, scale=0.3)
    out = emulate("gemm_batched_batch_on_grid_axis_2_shared_b", {0: a, 1: b, 2: _unset((3, 100, 80), "bfloat16")})[2]
    _check(_f(out), np.einsum("zmk,kn->zmn", _d(_f(a)), _d(_f(b))), 2e-2, 1e-2)  # bf16 out


def _case_gemm_a_km_order_f_num_tiles():
    at, b = _h(100, 100), _h(100, 80, scale=0.3)  # At[k, m]
    _check(emulate("gemm_a_km_order_f_num_tiles", {0: at, 1: b})[2], _mm(at.T, b), 1e-3)


def _case_gemm_while_loop_over_k():
    a, b = _h(100, 128), _h(128, 80, scale=0.3)
    _check(emulate("gemm_while_loop_over_k", {0: a, 1: b})[2], _mm(a, b), 1e-3)


def _case_gemm_f16_accumulator_by_num_tiles_relu():
    a, b = _h(100, 96, scale=0.5), _h(96, 80, scale=0.3)
    _check(emulate("gemm_f16_accumulator_by_num_tiles_relu", {0: a, 1: b})[2], np.maximum(_mm(a, b), 0), 2e-2, 1e-2)


def _case_gemm_alpha_beta_c_in_place():
    a, b, c = _h(100, 64), _h(64, 80, scale=0.3), _h(100, 80, dt=np.float32)
    out = emulate("gemm_alpha_beta_c_in_place", {0: a, 1: b, 2: c})[2]
    _check(out, 1.5 * _mm(a, b) - 0.5 * _d(c), 1e-3)


def _case_gemm_bf16_b_cast_to_f16_in_loop():
    a, b = _h(100, 64), _bf(64, 80, scale=0.3)
    bh = _f(b).astype(np.float16)  # the cast in the loop
    _check(emulate("gemm_bf16_b_cast_to_f16_in_loop", {0: a, 1: b})[2], _mm(a, bh), 1e-3)


def _case_gemm_matmul_operator_bias_row_2d():
    a, b, bias = _bf(100, 64), _bf(64, 80, scale=0.3), _h(1, 80, dt=np.float32)
    h = _mm(_f(a), _f(b)) + _d(bias)
    g = 0.5 * h * (1 + np.tanh(0.7978845608028654 * (h + 0.044715 * h ** 3)))
    out = emulate("gemm_matmul_operator_bias_row_2d", {0: a, 1: b, 2: bias, 3: _unset((100, 80), "bfloat16")})[3]
    _check(_f(out), g, 2e-2, 1e-2)  # bf16 out


def _case_gemm_e4m3_row_col_scales_bf16_out():
    a, b = _e4m3(100, 128), _e4m3(128, 80, scale=0.5)
    sa, sb = (RNG.random(100) + 0.5).astype(np.float32), (RNG.random(80) + 0.5).astype(np.float32)
    out = emulate("gemm_e4m3_row_col_scales_bf16_out",
                  {0: a.view(np.uint8), 1: b.view(np.uint8), 2: sa, 3: sb, 4: _unset((100, 80), "bfloat16")})[4]
    ref = _mm(a.astype(np.float32), b.astype(np.float32)) * _d(sa)[:, None] * _d(sb)[None, :]
    _check(_f(out), ref, 5e-2, 1e-2)  # bf16 out


def _case_int8_by_uint8_gemm_int32_out():
    a = RNG.integers(-128, 128, (100, 192)).astype(np.int8)
    b = RNG.integers(0, 256, (192, 80)).astype(np.uint8)
    out = emulate("int8_by_uint8_gemm_int32_out", {0: a, 1: b, 2: np.full((100, 80), -7, np.int32)})[2]
    assert (np.asarray(out, np.int64) == a.astype(np.int64) @ b.astype(np.int64)).all()  # exact


def _case_tf32_gemm_by_astype_operands():
    a, b = _h(100, 64, dt=np.float32), _h(64, 80, scale=0.3, dt=np.float32)
    out = emulate("tf32_gemm_by_astype_operands", {0: a, 1: b})[2]
    _check(out, _mm(a, b), 2e-2, 5e-3)  # TF32 products (10-bit mantissas)


def _case_gemm_k_loop_in_elements():
    a, b = _h(100, 128), _h(128, 80, scale=0.3)
    _check(emulate("gemm_k_loop_in_elements", {0: a, 1: b})[2], _mm(a, b), 1e-3)


def _case_gemm_check_bounds_false():
    a, b = _h(128, 128), _h(128, 128, scale=0.3)
    _check(emulate("gemm_check_bounds_false", {0: a, 1: b})[2], _mm(a, b), 1e-3)


def _case_gemm_row_bias_vector():
    a, b, r = _h(100, 64), _h(64, 80, scale=0.3), _h(100, dt=np.float32)
    _check(emulate("gemm_row_bias_vector", {0: a, 1: b, 2: r})[3], _mm(a, b) + _d(r)[:, None], 1e-3)


def _case_gemm_first_k_tile_peeled():
    a, b = _h(100, 128), _h(128, 80, scale=0.3)
    _check(emulate("gemm_first_k_tile_peeled", {0: a, 1: b})[2], _mm(a, b), 1e-3)


def _case_gemm_acc_starts_from_c():
    a, b, c = _h(100, 128), _h(128, 80, scale=0.3), _h(100, 80, dt=np.float32)
    _check(emulate("gemm_acc_starts_from_c", {0: a, 1: b, 2: c})[2], _mm(a, b) + _d(c), 1e-3)


def _case_gemm_requant_int8_out():
    a = RNG.integers(-128, 128, (100, 128)).astype(np.int8)
    b = RNG.integers(-128, 128, (128, 80)).astype(np.int8)
    sc = np.array([1.0 / 500.0], np.float32)  # some products past 127 / -128: clamped
    out = emulate("gemm_requant_int8_out", {0: a, 1: b, 2: sc, 3: np.full((100, 80), 99, np.int8)})[3]
    y = np.floor((a.astype(np.int64) @ b.astype(np.int64)).astype(np.float32) * sc[0] + np.float32(0.5))
    ref = np.clip(y, -128, 127).astype(np.int64)
    assert (ref == 127).any() and (ref == -128).any()  # the clamp is exercised
    assert np.abs(np.asarray(out, np.int64) - ref).max() <= 1  # (a product on a .5 boundary may round either way)


CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}
GEMMS = sorted(CASES) if ALL else ["gemm_batched_batch_on_grid_axis_1", "gemm_bf16_b_cast_to_f16_in_loop"]
"""The GEMM cases run in CI (every case of :data:`CASES` with ``TILEORCH_EMULATE_ALL=1``)."""


def test_every_gemm_program_has_a_case():
    assert set(CASES) == {n for n, p in PROGRAMS.items() if p.path == "gemm"}


@pytest.mark.parametrize("name", GEMMS)
def test_the_gemm_on_the_wgmma_emulator(name, monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})
    CASES[name]()


# ----------------------------------------------------------------------------------------------- the SIMT programs

MMA_SYNC = {"test_gemm_batched_n_tiles_looped_in_kernel", "test_gemm_c_and_ct_stored", "test_attn_qk_e4m3_pv_f16",
            "test_gemm_k_unrolled_by_two"}
"""The refused dots' tests: their mma.sync needs ``ldmatrix``, which the emulator does not model (and
``test_attn_qk_e4m3_pv_f16``, refused until session 43: its chained kernel is :data:`ATTENTION_CASES`' case)."""
EMULATED = sorted(n for n in dir(s32) if n.startswith("test_") and n not in MMA_SYNC) \
    if ALL else ["test_segmented_sums_by_id_masks"]
"""The tests of test_user_sweep32_interp.py run here on the PTX (a CI-sized subset)."""


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s10e, "PROGRAMS", PROGRAMS)
    monkeypatch.setattr(s32, "run", lambda name, inputs, program=None: s10e.emulate(name, inputs))
    s32.every_case(getattr(s32, test))
