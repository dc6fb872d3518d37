"""The thirty-fifth user sweep's programs as PTX (after LLVM) run CTA by CTA on the CPU by
``tileorch.testing.ptx_emulator``, against independent numpy (float64 / Python integer) references written from
the programs' docstrings, outputs NaN prefilled, ragged shapes:

* the two-dot programs the chained-dots kernel takes (test_user_sweep3_emulated's runner: every CTA of the launch,
  the launcher's tensor maps): :data:`ATTENTION_CASES`;
* the GEMMs the TileAS tier takes (TMA + WGMMA: test_user_sweep14_emulated's runner): :data:`CASES`;
* the SIMT programs (test_user_sweep35_interp.py's tests with its ``run`` swapped for
  test_user_sweep10_emulated.emulate): :data:`EMULATED`.

CI-sized subsets; ``TILEORCH_EMULATE_ALL=1`` runs every case.  Needs cuda-tile and ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

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
import test_user_sweep34_emulated as s34e  # noqa: E402
import test_user_sweep35_interp as s35  # noqa: E402
from test_user_sweep30_emulated import _check, _d, _masked, _mm, _pos, _unset, attention  # noqa: E402

from tileorch.testing.user_programs35 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(3540)
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
BF = ml_dtypes.bfloat16


def _h(*shape, scale=1.0, dt=np.float16):
    return (RNG.standard_normal(shape) * scale).astype(np.float32).astype(dt)


def _bf(*shape, scale=1.0):
    return _h(*shape, scale=scale, dt=BF)


def _f(x):
    return np.asarray(x, np.float32)


# ----------------------------------------------------------------------------------------------- two-dot programs


def _fmha_gqa_order():
    """B = 2, 4 query heads over 2 K / V heads, 150 tokens (ragged), causal, Dqk = 128, Dv = 64, scale 1/sqrt(128)."""
    q, k, v = _h(2, 4, 150, 128), _h(2, 2, 150, 128), _h(2, 2, 150, 64)
    i, j = _pos(150, 150)
    ref = np.empty((2, 4, 150, 64))
    for b in range(2):
        ref[b] = attention(q[b], k[b][np.arange(4) // 2], v[b][np.arange(4) // 2],
                           lambda s, h: _masked(s / np.sqrt(128), j <= i))
    return {0: q, 1: k, 2: v}, {3: ref}


def _fmha_chunk():
    """Queries at positions 130..229 against 230 keys: query ``i`` sees keys ``j <= i + 130``."""
    q, k, v = _h(1, 2, 100, 64), _h(1, 2, 230, 64), _h(1, 2, 230, 64)
    i, j = _pos(100, 230)
    return {0: q, 1: k, 2: v}, {3: attention(q[0], k[0], v[0], lambda s, h: _masked(s / 8.0, j <= i + 130))[None]}


def _sliding_window():
    q, k, v = _h(2, 200, 64), _h(2, 200, 64), _h(2, 200, 64)
    i, j = _pos(200, 200)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: _masked(s / 8.0, (j <= i) & (j > i - 70)))}


def _varlen():
    q, k, v = _h(2, 2, 130, 64), _h(2, 2, 200, 64), _h(2, 2, 200, 64)
    lens = np.array([200, 77], np.int32)
    ref = np.empty((2, 2, 130, 64))
    for b in range(2):
        n = int(lens[b])
        ref[b] = attention(q[b], k[b][:, :n], v[b][:, :n], lambda s, h: s / 8.0)
    return {0: q, 1: k, 2: v, 3: lens}, {4: ref}


def _even_k():
    q, k, v = _h(2, 200, 64), _h(2, 256, 64), _h(2, 256, 64)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: s / 8.0)}


def _bf16_causal():
    q, k, v = _bf(2, 190, 128), _bf(2, 190, 128), _bf(2, 190, 128)
    i, j = _pos(190, 190)
    return ({0: q, 1: k, 2: v, 3: _unset((2, 190, 128), "bfloat16")},
            {3: attention(_f(q), _f(k), _f(v), lambda s, h: _masked(s / np.sqrt(128), j <= i))})


def _decode():
    q, k, v = _h(2, 4, 1, 64), _h(2, 4, 300, 64), _h(2, 4, 300, 64)
    ref = np.empty((2, 4, 1, 64))
    for b in range(2):
        ref[b] = attention(q[b], k[b], v[b], lambda s, h: s / 8.0)
    return {0: q, 1: k, 2: v}, {3: ref}


ATTENTION_CASES = {
    "fmha_gqa_k_by_order_dv_64_dqk_128": _fmha_gqa_order,
    "fmha_chunked_prefill_input_pos": _fmha_chunk,
    "attn_sliding_window_causal": _sliding_window,
    "attn_varlen_key_lengths_array": _varlen,
    "fmha_even_k_tiles_128_no_mask": _even_k,
    "fmha_bf16_causal_axis_minus_one": _bf16_causal,
    "mha_decode_one_query_per_head": _decode,
}
"""Per chained program: ``() -> (inputs, {output position: float64 reference})``."""
BF16 = {"fmha_bf16_causal_axis_minus_one"}
"""Programs whose probabilities or output are bf16 (a wider tolerance)."""
ATTENTION = sorted(ATTENTION_CASES) if ALL else ["fmha_chunked_prefill_input_pos"]
"""The chained programs emulated in CI (every one with ``TILEORCH_EMULATE_ALL=1``): the runtime query offset."""


def run_attention_case(name, runner):
    """Case ``name``'s inputs through ``runner(name, inputs) -> arrays`` against its reference (sweep 34's check)."""
    s34e.run_attention_case(name, runner, ATTENTION_CASES, BF16)


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


def _tf32_truncated(x):
    """f32 values as the tier's tf32 WGMMA reads them: the 13 low mantissa bits dropped (said by a remark since
    sweep 34)."""
    return (np.asarray(x, np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)


def _case_matmul_1d_grid_group_swizzle():
    a, b = _h(300, 200), _h(200, 200, scale=0.3)
    _check(emulate("matmul_1d_grid_group_swizzle", {0: a, 1: b})[2], _mm(a, b), 1e-2, 2e-3)  # f16 out


def _case_matmul_f32_inputs_tf32_by_dtype_choice():
    a, b = RNG.standard_normal((100, 72)).astype(np.float32), RNG.standard_normal((72, 90)).astype(np.float32)
    out = emulate("matmul_f32_inputs_tf32_by_dtype_choice", {0: a, 1: b})[2]
    _check(out, _mm(a, b), 0.1, 1e-2)  # within tf32 of the f32 product (on the GPU too)
    if emulate is _EMULATE:  # the emulator's WGMMA reads the truncated operands exactly
        _check(out, _tf32_truncated(a) @ _tf32_truncated(b), 1e-4, 1e-5)


def _case_persistent_matmul_bf16_fewer_programs():
    a, b = _bf(150, 128), _bf(128, 130, scale=0.3)
    out = emulate("persistent_matmul_bf16_fewer_programs", {0: a, 1: b, 2: _unset((150, 130), "bfloat16")})[2]
    _check(_f(out), _mm(_f(a), _f(b)), 3e-2, 1e-2)  # bf16 out


def _case_bmm_batch_on_grid_axis_1_flat_tiles():
    a, b = _h(3, 100, 64), _h(3, 64, 80, scale=0.3)
    out = emulate("bmm_batch_on_grid_axis_1_flat_tiles", {0: a, 1: b})[2]
    _check(out, np.einsum("zmk,zkn->zmn", _d(a), _d(b)), 1e-3)


def _case_bmm_shared_weight_2d():
    x, w = _h(2, 100, 128), _h(128, 80, scale=0.3)
    out = emulate("bmm_shared_weight_2d", {0: x, 1: w})[2]
    _check(out, np.einsum("zmk,kn->zmn", _d(x), _d(w)), 1e-2, 2e-3)  # f16 out


def _case_split_k_atomic_add_f32():
    a, b = _h(100, 320), _h(320, 80, scale=0.3)
    out = emulate("split_k_atomic_add_f32", {0: a, 1: b, 2: np.zeros((100, 80), np.float32)})[2]
    _check(out, _mm(a, b), 2e-3)


def _case_swiglu_mlp_gate_up_two_weights():
    x, wg, wu = _bf(100, 128), _bf(128, 80, scale=0.2), _bf(128, 80, scale=0.2)
    out = emulate("swiglu_mlp_gate_up_two_weights", {0: x, 1: wg, 2: wu, 3: _unset((100, 80), "bfloat16")})[3]
    g, u = _mm(_f(x), _f(wg)), _mm(_f(x), _f(wu))
    _check(_f(out), g / (1 + np.exp(-g)) * u, 3e-2, 1e-2)  # bf16 out


def _case_linear_gelu_tanh_epilogue():
    x, w = _h(100, 128), _h(128, 80, scale=0.2)
    out = emulate("linear_gelu_tanh_epilogue", {0: x, 1: w})[2]
    h = _mm(x, w)
    _check(out, 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h ** 3))), 1e-2, 2e-3)  # f16 out


def _case_moe_grouped_gemm_expert_per_m_tile():
    x, w = _h(192, 128), _h(3, 128, 80, scale=0.2)
    experts = np.array([2, 0, 2], np.int32)
    out = emulate("moe_grouped_gemm_expert_per_m_tile", {0: x, 1: w, 2: experts})[3]
    ref = np.concatenate([_mm(x[64 * t:64 * (t + 1)], w[e]) for t, e in enumerate(experts)])
    _check(out, ref, 1e-2, 2e-3)  # f16 out


def _case_linear_weight_nk_by_order_bias_relu():
    x, w, bias = _h(100, 128), _h(80, 128, scale=0.2), RNG.standard_normal(80).astype(np.float32)
    out = emulate("linear_weight_nk_by_order_bias_relu", {0: x, 1: w, 2: bias})[3]
    ref = np.maximum(_mm(x, w.T) + _d(bias)[None, :], 0.0)
    assert (ref == 0).any() and (ref > 0).any()
    _check(out, ref, 1e-2, 2e-3)  # f16 out


def _case_gemm_alpha_beta_constbool_f16_c():
    a, b, c = _h(100, 64), _h(64, 80, scale=0.3), _h(100, 80)
    out = emulate("gemm_alpha_beta_constbool_f16_c", {0: a, 1: b, 2: c.copy(), 3: 1.5, 4: -0.5})[2]
    _check(out, 1.5 * _mm(a, b) - 0.5 * _d(c), 1e-2, 2e-3)  # f16 C


def _case_decode_gemv_one_token():
    x, w = _bf(1, 384), _bf(384, 200, scale=0.3)
    _check(emulate("decode_gemv_one_token", {0: x, 1: w})[2], _mm(_f(x), _f(w)), 1e-3)


def _case_int8_gemm_row_col_scales_bf16():
    a = RNG.integers(-128, 128, (100, 128)).astype(np.int8)
    b = RNG.integers(-128, 128, (128, 80)).astype(np.int8)
    sa, sb = (RNG.random(100) * 0.01).astype(np.float32), (RNG.random(80) * 0.01).astype(np.float32)
    out = emulate("int8_gemm_row_col_scales_bf16", {0: a, 1: b, 2: sa, 3: sb, 4: _unset((100, 80), "bfloat16")})[4]
    ref = (a.astype(np.int64) @ b.astype(np.int64)) * _d(sa)[:, None] * _d(sb)[None, :]
    _check(_f(out), ref, 2e-2, 1e-2)  # bf16 out


def _case_matmul_sample_tiles_128x256x64():
    a, b = _h(200, 200), _h(200, 300, scale=0.3)
    _check(emulate("matmul_sample_tiles_128x256x64", {0: a, 1: b})[2], _mm(a, b), 1e-2, 2e-3)  # f16 out


_EMULATE = emulate
CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}
GEMMS = sorted(CASES) if ALL else ["split_k_atomic_add_f32", "swiglu_mlp_gate_up_two_weights"]
"""The GEMM cases run in CI (every case of :data:`CASES` with ``TILEORCH_EMULATE_ALL=1``): split-K by atomics on the
tier, the dual GEMM."""


def test_every_gemm_program_has_a_case():
    assert set(CASES) == {n for n, p in PROGRAMS.items() if p.path == "gemm"}


@pytest.mark.parametrize("name", GEMMS)
def test_the_gemm_on_the_wgmma_emulator(name, monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})
    CASES[name]()


# ----------------------------------------------------------------------------------------------- the SIMT programs

EMULATED = sorted(n for n in dir(s35) if n.startswith("test_")) if ALL else ["test_layernorm_bwd_dx_one_tile"]
"""The tests of test_user_sweep35_interp.py run here on the PTX (a CI-sized subset)."""


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s10e, "PROGRAMS", PROGRAMS)
    monkeypatch.setattr(s35, "run", lambda name, inputs, program=None: s10e.emulate(name, inputs))
    s35.every_case(getattr(s35, test))
