"""The thirty-fourth user sweep's programs as PTX (after LLVM) run CTA by CTA on the CPU by
``tileorch.testing.ptx_emulator``, against independent numpy (float64 / Python integer) references written from
the programs' docstrings, outputs NaN prefilled, ragged shapes:

* the two-dot programs the chained-dots kernel takes (test_user_sweep3_emulated's runner: every CTA of the launch,
  the launcher's tensor maps; bf16 programs with bf16 inputs): :data:`ATTENTION_CASES`;
* the GEMMs the TileAS tier takes (TMA + WGMMA: test_user_sweep14_emulated's runner): :data:`CASES`;
* the SIMT programs (test_user_sweep34_interp.py's tests with its ``run`` swapped for
  test_user_sweep10_emulated.emulate): :data:`EMULATED`.

CI-sized subsets; ``TILEORCH_EMULATE_ALL=1`` runs every case.  Needs cuda-tile and ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep10_emulated as s10e  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402
import test_user_sweep34_interp as s34  # noqa: E402
from test_user_sweep30_emulated import _check, _d, _masked, _mm, _pos, _unset, attention  # noqa: E402

from tileorch.testing.user_programs34 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(3440)
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
BF = ml_dtypes.bfloat16
E4M3, E5M2 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2


def _h(*shape, scale=1.0, dt=np.float16):
    return (RNG.standard_normal(shape) * scale).astype(np.float32).astype(dt)


def _bf(*shape, scale=1.0):
    return _h(*shape, scale=scale, dt=BF)


def _f(x):
    return np.asarray(x, np.float32)


# ----------------------------------------------------------------------------------------------- two-dot programs


def _qkv(bh, sq, sk, d, dt=np.float16):
    return _h(bh, sq, d, dt=dt), _h(bh, sk, d, dt=dt), _h(bh, sk, d, dt=dt)


def _causal(bh, sq, sk, d, dt=np.float16, out=None, off=0):
    """Causal attention of ``[BH, S, D]`` arrays (query ``i`` sees keys ``j <= i + off``) scaled by ``1 / sqrt(d)``."""
    def case():
        q, k, v = _qkv(bh, sq, sk, d, dt)
        i, j = _pos(sq, sk)
        ref = attention(_f(q), _f(k), _f(v), lambda s, h: _masked(s / np.sqrt(d), j <= i + off))
        return {0: q, 1: k, 2: v, **({3: out((bh, sq, d))} if out else {})}, {3: ref}
    return case


def _plain(bh, sq, sk, d, dt=np.float16, out=None):
    def case():
        q, k, v = _qkv(bh, sq, sk, d, dt)
        ref = attention(_f(q), _f(k), _f(v), lambda s, h: s / np.sqrt(d))
        return {0: q, 1: k, 2: v, **({3: out((bh, sq, d))} if out else {})}, {3: ref}
    return case


def _att_gqa_bhsd():
    q, k, v = _h(2, 8, 150, 64), _h(2, 2, 150, 64), _h(2, 2, 150, 64)
    i, j = _pos(150, 150)
    ref = np.empty((2, 8, 150, 64))
    for b in range(2):
        ref[b] = attention(q[b], k[b][np.arange(8) // 4], v[b][np.arange(8) // 4],
                           lambda s, h: _masked(s / 8.0, j <= i))
    return {0: q, 1: k, 2: v}, {3: ref}


def _att_alibi():
    q, k, v = _qkv(4, 150, 170, 64)
    i, j = _pos(150, 170)
    slopes = [2.0 ** (-8.0 * (h + 1) / 2) for h in range(2)]  # H = 2 heads, B = 2
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, bh: s / 8.0 - slopes[bh % 2] * np.abs(i - j))}


def _att_softcap():
    q, k, v = _qkv(2, 150, 150, 64, BF)
    i, j = _pos(150, 150)
    return {0: q, 1: k, 2: v}, {3: attention(_f(q), _f(k), _f(v),
                                             lambda s, h: _masked(5.0 * np.tanh(s * 0.125 / 5.0), j <= i))}


def _att_gqa_decode():
    q, k, v = _bf(2, 8, 1, 128), _bf(2, 2, 256, 128), _bf(2, 2, 256, 128)
    ref = np.empty((2, 8, 1, 128))
    for b in range(2):
        for h in range(8):
            ref[b, h] = attention(_f(q[b, h])[None], _f(k[b, h // 4, :201])[None], _f(v[b, h // 4, :201])[None],
                                  lambda s, _: s / np.sqrt(128))[0]
    return {0: q, 1: k, 2: v, 3: _unset((2, 8, 1, 128), "bfloat16")}, {3: ref}


ATTENTION_CASES = {
    "attn_gqa_bhsd_4_q_heads_per_kv_causal": _att_gqa_bhsd,
    "attn_alibi_symmetric_slope_from_head": _att_alibi,
    "attn_softcap_tanh_bf16_causal": _att_softcap,
    "attn_causal_bottom_right_sq_lt_sk": _causal(2, 100, 230, 64, off=130),
    "attn_head_dim_96_in_128_causal": _causal(2, 150, 150, 96),
    "attn_head_dim_192_bf16_in_256": _plain(2, 100, 130, 192, BF, lambda s: np.full(s, np.nan, np.float32)),
    "attn_helpers_for_scores_and_softmax": _plain(2, 150, 170, 64),
    "attn_keyword_arguments_everywhere": _causal(2, 150, 150, 64),
    "attn_gqa_decode_bhsd_bf16_kv_len_arg": _att_gqa_decode,
    "attn_causal_bf16_tiles_128x64": _causal(2, 200, 200, 128, BF, lambda s: _unset(s, "bfloat16")),
}
"""Per chained program: ``() -> (inputs, {output position: float64 reference})``."""
BF16 = {"attn_softcap_tanh_bf16_causal", "attn_head_dim_192_bf16_in_256", "attn_gqa_decode_bhsd_bf16_kv_len_arg",
        "attn_causal_bf16_tiles_128x64"}
"""Programs whose probabilities or output are bf16 (a wider tolerance)."""
ATTENTION = sorted(ATTENTION_CASES) if ALL else ["attn_causal_bottom_right_sq_lt_sk"]
"""The chained programs emulated in CI (every one with ``TILEORCH_EMULATE_ALL=1``): the bottom-right causal offset."""


def run_attention_case(name, runner, cases=None, wide=None):
    """Case ``name``'s inputs through ``runner(name, inputs) -> arrays`` against its reference (``cases`` /
    ``wide``: another sweep's cases and its bf16 programs, a wider tolerance; this sweep's by default)."""
    inputs, refs = (ATTENTION_CASES if cases is None else cases)[name]()
    out = runner(name, inputs)
    for pos, ref in refs.items():
        got = np.asarray(np.asarray(out[pos]).astype(np.float32), np.float64)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(ref), err_msg=f"argument {pos}: written elements")
        atol, rtol = (1.5e-2, 2e-2) if name in (BF16 if wide is None else wide) else (3e-3, 1e-2)
        np.testing.assert_allclose(got, ref, atol=atol, rtol=rtol, equal_nan=True)


@pytest.mark.parametrize("name", ATTENTION)
def test_the_chained_program_on_the_emulator(name, monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setitem(s3.NP, "bfloat16", BF)
    monkeypatch.setitem(s3.NP, "int32", np.int32)
    grid = tuple(PROGRAMS[name].grid) + (1,) * (3 - len(PROGRAMS[name].grid))
    run_attention_case(name, lambda n, inputs: s3._chained(n, inputs, grid))


def test_every_chained_program_has_a_case():
    assert set(ATTENTION_CASES) == {n for n, p in PROGRAMS.items() if p.path == "chained"}


# ----------------------------------------------------------------------------------------------- the GEMM cases


def emulate(name: str, inputs: dict) -> dict:
    """A GEMM-tier program on its spec's shapes (test_user_sweep14_emulated's runner; the GPU file swaps it)."""
    return s14e.emulate(name, inputs)


def _r16(x):
    return np.asarray(x, np.float64).astype(np.float16).astype(np.float64)


def _fp8(shape, dt, scale=1.0):
    """Random fp8 values (``dt``: e4m3 / e5m2) as their bytes, and their float64 values."""
    x = (RNG.standard_normal(shape) * scale).astype(np.float32).astype(dt)
    return x.view(np.uint8), x.astype(np.float64)


def _case_gemm_at_b_a_stored_k_by_m():
    at, b = _h(128, 100), _h(128, 80, scale=0.3)
    _check(emulate("gemm_at_b_a_stored_k_by_m", {0: at, 1: b})[2], _mm(at.T, b), 1e-2, 2e-3)  # f16 out


def _case_gemm_at_bt_by_permute():
    at, bt = _h(128, 100), _h(80, 128, scale=0.3)
    _check(emulate("gemm_at_bt_by_permute", {0: at, 1: bt})[2], _mm(at.T, bt.T), 1e-3)


def _case_gemm_bf16_in_f32_out_keyword_load():
    a, b = _bf(100, 192), _bf(192, 80, scale=0.3)
    _check(emulate("gemm_bf16_in_f32_out_keyword_load", {0: a, 1: b})[2], _mm(_f(a), _f(b)), 1e-3)


def _case_gemm_f16_out_f32_bias_row():
    a, b, bias = _h(100, 128), _h(128, 80, scale=0.3), RNG.standard_normal(80).astype(np.float32)
    out = emulate("gemm_f16_out_f32_bias_row", {0: a, 1: b, 2: bias})[3]
    _check(out, _mm(a, b) + _d(bias)[None, :], 1e-2, 2e-3)  # f16 out


def _tf32_truncated(x):
    """f32 values as the tier's tf32 WGMMA reads them: the 13 low mantissa bits dropped (toward zero; the compile
    says so in a remark, test_user_sweep34_compile.py)."""
    return (np.asarray(x, np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)


def _case_gemm_f32_inputs_as_tf32():
    a, b = RNG.standard_normal((100, 64)).astype(np.float32), RNG.standard_normal((64, 80)).astype(np.float32)
    out = emulate("gemm_f32_inputs_as_tf32", {0: a, 1: b})[2]
    _check(out, _tf32_truncated(a) @ _tf32_truncated(b), 1e-4, 1e-5)  # exact products, summed in f32
    _check(out, _mm(a, b), 0.1, 1e-2)  # within tf32 of the f32 product (on the GPU too)


def _case_gemm_int8_int32_out_raw():
    a = RNG.integers(-128, 128, (100, 128)).astype(np.int8)
    b = RNG.integers(-128, 128, (128, 80)).astype(np.int8)
    out = emulate("gemm_int8_int32_out_raw", {0: a, 1: b, 2: np.full((100, 80), -7, np.int32)})[2]
    assert out.tolist() == (a.astype(np.int64) @ b.astype(np.int64)).tolist()


def _case_gemm_e4m3_per_tensor_scales_bf16():
    (a, ad), (b, bd) = _fp8((100, 128), E4M3, 2.0), _fp8((128, 80), E4M3)
    out = emulate("gemm_e4m3_per_tensor_scales_bf16", {0: a, 1: b, 2: _unset((100, 80), "bfloat16"), 3: 0.5, 4: 0.25})[2]
    _check(_f(out), (ad @ bd) * 0.125, 2e-2, 1e-2)  # bf16 out


def _case_gemm_e5m2_scales_from_arrays_f16():
    (a, ad), (b, bd) = _fp8((100, 128), E5M2, 2.0), _fp8((128, 80), E5M2)
    sa, sb = np.array([0.5], np.float32), np.array([0.125], np.float32)
    out = emulate("gemm_e5m2_scales_from_arrays_f16", {0: a, 1: b, 2: sa, 3: sb})[4]
    _check(out, (ad @ bd) * 0.0625, 1e-2, 2e-3)  # f16 out


def _case_gemm_mnk_all_ragged_f16():
    a, b = _h(130, 100), _h(100, 90, scale=0.3)
    _check(emulate("gemm_mnk_all_ragged_f16", {0: a, 1: b})[2], _mm(a, b), 1e-2, 2e-3)  # f16 out


def _case_gemm_k_16_one_tile():
    a, b = _h(100, 16), _h(16, 80)
    _check(emulate("gemm_k_16_one_tile", {0: a, 1: b})[2], _mm(a, b), 1e-4, 1e-5)


def _case_gemm_k_32_static_iter_constant_trips():
    a, b = _h(100, 32), _h(32, 80)
    _check(emulate("gemm_k_32_static_iter_constant_trips", {0: a, 1: b})[2], _mm(a, b), 1e-2, 2e-3)  # f16 out


def _case_gemm_decode_m_40_in_64_rows():
    x, w = _bf(40, 512, scale=0.5), _bf(512, 192, scale=0.3)
    out = emulate("gemm_decode_m_40_in_64_rows", {0: x, 1: w, 2: _unset((40, 192), "bfloat16")})[2]
    _check(_f(out), _mm(_f(x), _f(w)), 3e-2, 1e-2)  # bf16 out


def _case_gemm_decode_m_24_weights_nk():
    x, w = _h(24, 256), _h(200, 256, scale=0.3)
    _check(emulate("gemm_decode_m_24_weights_nk", {0: x, 1: w})[2], _mm(x, w.T), 2e-3)


def _case_gemm_store_column_major_output():
    a, b = _h(100, 64), _h(64, 80, scale=0.3)
    _check(emulate("gemm_store_column_major_output", {0: a, 1: b})[2], _mm(a, b).T, 1e-2, 2e-3)  # f16 out


def _case_gemm_residual_add_then_clamp():
    a, b, r = _h(100, 64), _h(64, 80, scale=0.3), _h(100, 80)
    out = emulate("gemm_residual_add_then_clamp", {0: a, 1: b, 2: r, 4: -1.5, 5: 2.0})[3]
    ref = np.clip(_mm(a, b) + _d(r), -1.5, 2.0)
    assert (ref == 2.0).any() and (ref == -1.5).any()  # the clamp is exercised
    _check(out, ref, 2e-3, 2e-3)  # f16 out


def _case_gemm_swish_learned_beta_item():
    a, b, beta = _h(100, 64), _h(64, 80, scale=0.3), np.array([1.7], np.float32)
    out = emulate("gemm_swish_learned_beta_item", {0: a, 1: b, 2: beta})[3]
    h = _mm(a, b)
    _check(out, h / (1 + np.exp(-1.7 * h)), 1e-2, 2e-3)  # f16 out


def _case_gemm_per_row_scale_bf16():
    a, b, s = _bf(100, 64), _bf(64, 80, scale=0.3), (RNG.random(100) + 0.5).astype(np.float32)
    out = emulate("gemm_per_row_scale_bf16", {0: a, 1: b, 2: s, 3: _unset((100, 80), "bfloat16")})[3]
    _check(_f(out), _mm(_f(a), _f(b)) * _d(s)[:, None], 3e-2, 1e-2)  # bf16 out


def _case_gemm_lower_triangle_by_index_compare():
    a, b = _h(100, 64), _h(64, 100, scale=0.3)
    out = emulate("gemm_lower_triangle_by_index_compare", {0: a, 1: b})[2]
    i, j = _pos(100, 100)
    _check(out, np.where(j <= i, _mm(a, b), 0.0), 1e-3)


def _case_gemm_out_e5m2_saturated():
    a, b = _h(100, 64), _h(64, 80)
    q = emulate("gemm_out_e5m2_saturated", {0: a, 1: b, 2: np.full((100, 80), 0x7F, np.uint8), 3: 4096.0})[2]
    got = q.view(E5M2).astype(np.float64)
    ref = np.clip(_mm(a, b) * 4096.0, -57344, 57344)
    assert np.isfinite(got).all() and (np.abs(ref) == 57344).any()  # saturated, not inf
    np.testing.assert_allclose(got, ref, rtol=2 ** -2, atol=2 ** -14)  # one e5m2 rounding


def _case_gemm_batched_bid_2_three_dim_arrays():
    a, b = _h(3, 100, 64), _h(3, 64, 80, scale=0.3)
    out = emulate("gemm_batched_bid_2_three_dim_arrays", {0: a, 1: b})[2]
    _check(out, np.einsum("zmk,zkn->zmn", _d(a), _d(b)), 1e-2, 2e-3)  # f16 out


CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}
GEMMS = sorted(CASES) if ALL else ["gemm_mnk_all_ragged_f16", "gemm_out_e5m2_saturated",
                                   "gemm_store_column_major_output"]
"""The GEMM cases run in CI (every case of :data:`CASES` with ``TILEORCH_EMULATE_ALL=1``): the f32 dot of widened
f16 tiles the tier takes since this sweep, the saturated e5m2 output, the column-major store."""


def test_every_gemm_program_has_a_case():
    assert set(CASES) == {n for n, p in PROGRAMS.items() if p.path == "gemm"}


@pytest.mark.parametrize("name", GEMMS)
def test_the_gemm_on_the_wgmma_emulator(name, monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})
    CASES[name]()


# ----------------------------------------------------------------------------------------------- the SIMT programs

EMULATED = sorted(n for n in dir(s34) if n.startswith("test_")) if ALL else ["test_outer_sum_by_broadcast_to"]
"""The tests of test_user_sweep34_interp.py run here on the PTX (a CI-sized subset)."""


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s10e, "PROGRAMS", PROGRAMS)
    monkeypatch.setattr(s34, "run", lambda name, inputs, program=None: s10e.emulate(name, inputs))
    s34.every_case(getattr(s34, test))
