"""The thirty-first user sweep's programs as PTX (after LLVM) run CTA by CTA on the CPU by
``tileorch.testing.ptx_emulator``, against independent numpy (float64 / Python integer) references written from
the programs' docstrings, outputs NaN prefilled, ragged shapes:

* the attention-shaped programs and the MLP chain the chained-dots kernel takes (test_user_sweep3_emulated's
  runner: every CTA of the launch, the launcher's tensor maps): :data:`ATTENTION_CASES` (the emulator's WGMMA is
  f16: a bf16 program runs as its f16 twin; its bf16 form runs on the GPU in tests/gpu/test_user_sweep31_gpu.py);
* the GEMMs the TileAS tier takes (TMA + WGMMA: test_user_sweep14_emulated's runner): :data:`CASES` (the strided
  batch view runs on the GPU: this runner places contiguous arrays);
* the SIMT programs (test_user_sweep31_interp.py's tests with its ``run`` swapped for
  test_user_sweep10_emulated.emulate): :data:`EMULATED`.

CI-sized subsets; ``TILEORCH_EMULATE_ALL=1`` runs every case.  Needs cuda-tile and ml_dtypes, no GPU, no ptxas."""

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
import test_user_sweep10_emulated as s10e  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402
import test_user_sweep31_interp as s31  # noqa: E402
from test_user_sweep30_emulated import _check, _d, _masked, _mm, _pos, _unset, attention  # noqa: E402

from tileorch.testing.user_programs31 import PROGRAMS, scale2  # noqa: E402

RNG = np.random.default_rng(3139)
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
LN2 = math.log(2.0)


def _h(*shape, scale=1.0, dt=np.float16):
    return (RNG.standard_normal(shape) * scale).astype(dt)


def _bf(*shape, scale=1.0):
    """bf16 values as ``ml_dtypes.bfloat16`` (the runner places arrays' bytes as they are)."""
    return (RNG.standard_normal(shape) * scale).astype(np.float32).astype(ml_dtypes.bfloat16)


def _i8(*shape):
    return RNG.integers(-128, 128, shape).astype(np.int8)


# ----------------------------------------------------------------------------------------------- attention

_ROUND = [None]
"""How a case's Q / K / V (and the MLP's hidden tile) are rounded (None: f16 as drawn; the GPU file runs a bf16
program's case with its inputs rounded to bf16, :func:`run_attention_case`)."""


def _r(x):
    return x if _ROUND[0] is None else _ROUND[0](x)


def _qkv(bh, sq, sk, d):
    return tuple(_r(x) for x in (_h(bh, sq, d), _h(bh, sk, d), _h(bh, sk, d)))


def _plain(bh, sq, sk, d, scale=None):
    def case():
        q, k, v = _qkv(bh, sq, sk, d)
        return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: s * (scale or 1 / math.sqrt(d)))}
    return case


def _causal():
    q, k, v = _qkv(2, 150, 150, 64)
    i, j = _pos(150, 150)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: _masked(s / 8.0, j <= i))}


def _att_kt():
    q, k, v = _h(1, 2, 150, 64), _h(1, 2, 152, 64), _h(1, 2, 152, 64)  # (152 keys: K^T's rows 304 bytes, for TMA)
    kt = np.ascontiguousarray(np.swapaxes(k, 2, 3))  # [B, H, D, S]
    ref = attention(q[0], k[0], v[0], lambda s, h: s / 8.0)
    return {0: q, 1: kt, 2: v}, {3: ref[None]}


def _att_prescaled():
    q, k, v = _qkv(2, 150, 170, 64)
    qs = (q.astype(np.float32) * np.float32(scale2(64))).astype(np.float16)  # Q scaled and rounded to f16 first
    return {0: q, 1: k, 2: v}, {3: attention(qs, k, v, lambda s, h: s * LN2)}


def _att_lse():
    q, k, v = _qkv(2, 150, 170, 64)
    lse = np.stack([np.log(np.exp(_d(q[h]) @ _d(k[h]).T / 8.0).sum(1)) for h in range(2)])
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: s / 8.0), 4: lse}


def _att_bhsd_causal():
    q, k, v = _h(2, 2, 150, 64), _h(2, 2, 150, 64), _h(2, 2, 150, 64)
    i, j = _pos(150, 150)
    ref = attention(q.reshape(4, 150, 64), k.reshape(4, 150, 64), v.reshape(4, 150, 64),
                    lambda s, h: _masked(s / 8.0, j <= i))
    return {0: q, 1: k, 2: v}, {3: ref.reshape(2, 2, 150, 64)}


def _mlp():
    x, w1, w2 = _r(_h(150, 64)), _r(_h(64, 256, scale=0.2)), _r(_h(256, 64, scale=0.2))
    hdn = _mm(x, w1)
    g = 0.5 * hdn * (1 + np.tanh(math.sqrt(2 / math.pi) * (hdn + 0.044715 * hdn ** 3)))
    g = g.astype(np.float16) if _ROUND[0] is None else _ROUND[0](g)  # cast to W2's type before the second dot
    return {0: x, 1: w1, 2: w2}, {3: _mm(g, w2)}


ATTENTION_CASES = {
    "attn_bhsd_k_stored_transposed": _att_kt,
    "attn_max_folded_into_scores": _plain(2, 150, 170, 64),
    "attn_causal_where_large_negative": _causal,
    "attn_causal_mask_from_broadcast_iota": _causal,
    "attn_q_prescaled_before_loop": _att_prescaled,
    "attn_head_dim_32_bm128": _plain(2, 150, 170, 32),
    "attn_head_dim_128_bn32": _plain(2, 100, 170, 128),
    "attn_head_dim_256_bf16_bn32": _plain(2, 100, 100, 256),
    "attn_queries_77_keys_45_padded": _plain(3, 77, 45, 64),
    "attn_softmax_of_scaled_scores_exp_natural_recip": _plain(2, 150, 170, 64),
    "attn_lse_natural_log_f32": _att_lse,
    "attn_bhsd_causal_f32_out_4d": _att_bhsd_causal,
    "attn_probs_zeroed_by_where_after_exp": _causal,
    "mlp_gelu_tanh_two_dots_bf16": _mlp,
    "attn_q_scaled_inside_loop": _plain(2, 150, 170, 64),
    "attn_l_1d_indexed_none": _plain(2, 150, 170, 64),
    "attn_bn128_keys_170": _plain(2, 150, 170, 64),
}
"""Per chained program: ``() -> (inputs, {output position: float64 reference})`` (f16 inputs)."""
TWINS = {f"{n}__f16": dataclasses.replace(p, spec=[(s[0], "float16", *s[2:]) if isinstance(s, tuple) and
                                                   s[1] == "bfloat16" else s for s in p.spec])
         for n, p in PROGRAMS.items() if p.path == "chained" and
         any(isinstance(s, tuple) and s[1] == "bfloat16" for s in p.spec)}
ATTENTION = sorted(ATTENTION_CASES) if ALL else ["attn_bhsd_k_stored_transposed", "attn_queries_77_keys_45_padded"]
"""The chained programs emulated in CI (every one with ``TILEORCH_EMULATE_ALL=1``)."""


def run_attention_case(name, runner, round_inputs=None):
    """Case ``name``'s inputs through ``runner(name, inputs) -> arrays`` against its reference; ``round_inputs``:
    inputs rounded by it before the run and the reference (a bf16 program on the GPU)."""
    _ROUND[0] = round_inputs
    try:
        inputs, refs = ATTENTION_CASES[name]()
    finally:
        _ROUND[0] = None
    out = runner(name, inputs)
    for pos, ref in refs.items():
        got = np.asarray(out[pos], np.float64)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(ref), err_msg=f"argument {pos}: written elements")
        atol, rtol = (3e-3, 1e-2) if round_inputs is None else (1e-2, 2e-2)  # (bf16 probabilities and outputs)
        np.testing.assert_allclose(got, ref, atol=atol, rtol=rtol, equal_nan=True)


@pytest.mark.parametrize("name", ATTENTION)
def test_the_chained_program_on_the_emulator(name, monkeypatch):
    s4.add_sweep_programs(monkeypatch, {**PROGRAMS, **TWINS})
    key = f"{name}__f16" if f"{name}__f16" in TWINS else name
    grid = tuple(PROGRAMS[name].grid) + (1,) * (3 - len(PROGRAMS[name].grid))
    run_attention_case(name, lambda n, inputs: s3._chained(key, inputs, grid))


def test_every_chained_program_has_a_case():
    assert set(ATTENTION_CASES) == {n for n, p in PROGRAMS.items() if p.path == "chained"}


# ----------------------------------------------------------------------------------------------- the GEMM cases


def emulate(name: str, inputs: dict) -> dict:
    """A GEMM-tier program on its spec's shapes (test_user_sweep14_emulated's runner; the GPU file swaps it)."""
    return s14e.emulate(name, inputs)


def _case_split_k_by_hand_atomic_f32_runtime_split():
    a, b = _h(100, 256), _h(256, 80, scale=0.3)
    out = emulate("split_k_by_hand_atomic_f32_runtime_split", {0: a, 1: b, 2: np.zeros((100, 80), np.float32)})[2]
    _check(out, _mm(a, b), 1e-3)


def _case_gemm_log_softmax_rows_epilogue():
    a, b = _h(100, 96), _h(96, 64, scale=0.3)
    z = _mm(a, b)
    z = z - z.max(1, keepdims=True)
    _check(emulate("gemm_log_softmax_rows_epilogue", {0: a, 1: b})[2], z - np.log(np.exp(z).sum(1, keepdims=True)),
           1e-3)


def _case_gemm_k_100_tile_32_ragged():
    a, b = _bf(100, 100), _bf(100, 80, scale=0.3)
    _check(emulate("gemm_k_100_tile_32_ragged", {0: a, 1: b})[2], _mm(a.astype(np.float32), b.astype(np.float32)),
           1e-3)


def _case_int8_gemm_dequant_row_col_scales():
    a, b = _i8(100, 128), _i8(128, 80)
    sa, sb = (RNG.random(100) * 1e-3).astype(np.float32), (RNG.random(80) * 1e-2).astype(np.float32)
    out = emulate("int8_gemm_dequant_row_col_scales", {0: a, 1: b, 2: sa, 3: sb})[4]
    ref = (a.astype(np.int64) @ b.astype(np.int64)) * _d(sa)[:, None] * _d(sb)[None, :]
    _check(out, ref, 1e-3, 2e-3)  # f16 out


def _case_gemm_f16_accumulator_bias_f16():
    a, b, bias = _h(100, 64), _h(64, 80, scale=0.3), _h(80)
    out = emulate("gemm_f16_accumulator_bias_f16", {0: a, 1: b, 2: bias})[3]
    _check(out, _mm(a, b) + _d(bias), 5e-2, 1e-2)  # an f16 accumulator and f16 out


def _case_gemm_3d_tiles_mma_batched():
    a, b = _bf(3, 100, 64), _bf(3, 64, 80, scale=0.3)
    ref = np.einsum("zmk,zkn->zmn", _d(a.astype(np.float32)), _d(b.astype(np.float32)))
    _check(emulate("gemm_3d_tiles_mma_batched", {0: a, 1: b})[2], ref, 1e-3)


def _case_gemm_a_stored_km_transposed_tile():
    at, b = _h(64, 100), _h(64, 80, scale=0.3)
    r = np.maximum(_mm(at.T, b), 0)
    out = emulate("gemm_a_stored_km_transposed_tile", {0: at, 1: b, 2: _unset((100, 80), "bfloat16")})[2]
    _check(out.astype(np.float32), r * r, 2e-2, 1e-2)  # bf16 out


def _case_gemm_stored_twice_f32_and_f16():
    a, b = _h(100, 64), _h(64, 80, scale=0.3)
    out = emulate("gemm_stored_twice_f32_and_f16", {0: a, 1: b})
    _check(out[2], _mm(a, b), 1e-3)
    _check(out[3], _mm(a, b), 1e-2, 2e-3)  # f16 copy


def _case_gemm_two_k_loops_halves():
    a, b = _h(100, 256), _h(256, 80, scale=0.3)  # 8 K tiles: two loops of 4
    _check(emulate("gemm_two_k_loops_halves", {0: a, 1: b})[2], _mm(a, b), 1e-3)


def _case_gemm_last_k_tile_masked_by_branch():
    a, b = _h(100, 100), _h(100, 80, scale=0.3)  # K tiles of 64: the second one 36 wide, masked
    _check(emulate("gemm_last_k_tile_masked_by_branch", {0: a, 1: b})[2], _mm(a, b), 1e-3)


def _case_gemm_later_k_tiles_halved_by_branch():
    a, b = _h(100, 256), _h(256, 80, scale=0.3)
    _check(emulate("gemm_later_k_tiles_halved_by_branch", {0: a, 1: b})[2],
           _mm(a[:, :64], b[:64]) + 0.5 * _mm(a[:, 64:], b[64:]), 1e-3)


def _case_gemm_k_loop_reversed():
    a, b = _h(100, 256), _h(256, 80, scale=0.3)
    _check(emulate("gemm_k_loop_reversed", {0: a, 1: b})[2], _mm(a, b), 1e-3)


def _case_gemm_128x256_tile_bf16():
    a, b = _bf(300, 128), _bf(128, 300, scale=0.3)
    out = emulate("gemm_128x256_tile_bf16", {0: a, 1: b, 2: _unset((300, 300), "bfloat16")})[2]
    _check(out.astype(np.float32), _mm(a.astype(np.float32), b.astype(np.float32)), 2e-2, 1e-2)  # bf16 out


def _case_gemm_bias_then_relu_by_maximum():
    a, b, bias = _h(100, 64), _h(64, 80, scale=0.3), _h(80, dt=np.float32)
    _check(emulate("gemm_bias_then_relu_by_maximum", {0: a, 1: b, 2: bias})[3], np.maximum(_mm(a, b) + _d(bias), 0),
           1e-3)


CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}
STRIDED = {"gemm_batched_strided_batch_view"}
"""Tier programs whose arrays are strided views: the GPU file runs them (this runner places contiguous arrays;
test_user_sweep31_interp.py runs the program's semantics on the SIMT fallback)."""
GEMMS = sorted(CASES) if ALL else ["int8_gemm_dequant_row_col_scales", "gemm_two_k_loops_halves",
                                   "gemm_later_k_tiles_halved_by_branch"]
"""The GEMM cases run in CI (every case of :data:`CASES` with ``TILEORCH_EMULATE_ALL=1``)."""


def test_every_gemm_program_has_a_case():
    assert set(CASES) | STRIDED == {n for n, p in PROGRAMS.items() if p.path == "gemm"}


@pytest.mark.parametrize("name", GEMMS)
def test_the_gemm_on_the_wgmma_emulator(name, monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})
    CASES[name]()


# ----------------------------------------------------------------------------------------------- the SIMT programs

MMA_SYNC = {"test_attn_v_fp8_e4m3_cast_in_kernel", "test_attn_bf16_qk_f16_v_cast", "test_tf32_linear_weight_nk_bias",
            "test_gemm_batched_strided_batch_view"}
"""The refused dots' tests (and the strided GEMM's SIMT fallback): their mma.sync needs ``ldmatrix``, which the
emulator does not model."""
EMULATED = sorted(n for n in dir(s31) if n.startswith("test_") and n not in MMA_SYNC) \
    if ALL else ["test_index_add_rows_scatter_add"]
"""The tests of test_user_sweep31_interp.py run here on the PTX (a CI-sized subset)."""


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s10e, "PROGRAMS", PROGRAMS)
    monkeypatch.setattr(s31, "run", lambda name, inputs, program=None: s10e.emulate(name, inputs))
    s31.every_case(getattr(s31, test))
