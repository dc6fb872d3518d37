"""The thirty-sixth user sweep's programs as PTX (after LLVM) run CTA by CTA on the CPU by
``tileorch.testing.ptx_emulator``, against independent numpy (float64 / Python integer) references written from
the programs' docstrings, outputs NaN prefilled, ragged shapes:

* the GEMMs the TileAS tier takes (TMA + WGMMA: test_user_sweep14_emulated's runner): :data:`CASES` -- fp8 and int8
  scaled-mm with scale vectors / scalars, bias + GELU(tanh) / SiLU / residual epilogues, the gated pairs (GeGLU,
  SwiGLU at a decode shape), grouped GEMM over group starts, split-K's workspace program, ``X^T dY``, 4-D batches,
  decode GEMVs with 16-row tiles (M = 3, 5, 7: the tier runs them as 64-row tiles since this sweep);
* the SIMT programs (test_user_sweep36_interp.py's tests with its ``run`` swapped for
  test_user_sweep10_emulated.emulate): :data:`EMULATED`.

CI-sized subsets; ``TILEORCH_EMULATE_ALL=1`` runs every case.  Needs cuda-tile and ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep10_emulated as s10e  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402
import test_user_sweep36_interp as s36  # noqa: E402
from test_user_sweep30_emulated import _check, _d, _mm, _unset  # noqa: E402

from tileorch.testing.user_programs36 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(3640)
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
BF = ml_dtypes.bfloat16
E4M3 = ml_dtypes.float8_e4m3fn


def _h(*shape, scale=1.0, dt=np.float16):
    return (RNG.standard_normal(shape) * scale).astype(np.float32).astype(dt)


def _bf(*shape, scale=1.0):
    return _h(*shape, scale=scale, dt=BF)


def _e4m3(*shape, scale=1.0):
    """fp8 e4m3 values (as the harness passes them: their bytes) and their float64 values."""
    x = _h(*shape, scale=scale, dt=E4M3)
    return x.view(np.uint8), x.astype(np.float64)


def _f(x):
    return np.asarray(x, np.float32)


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def _silu(x):
    return x / (1 + np.exp(-x))


def emulate(name: str, inputs: dict) -> dict:
    """A GEMM-tier program on its spec's shapes (test_user_sweep14_emulated's runner; the GPU file swaps it)."""
    return s14e.emulate(name, inputs)


def _case_fp8_scaled_mm_weight_nk_token_channel_scales():
    (a, ad), (w, wd) = _e4m3(100, 192), _e4m3(80, 192, scale=0.5)
    sa, sw = (RNG.random(100) * 0.1 + 0.01).astype(np.float32), (RNG.random(80) * 0.1 + 0.01).astype(np.float32)
    out = emulate("fp8_scaled_mm_weight_nk_token_channel_scales",
                  {0: a, 1: w, 2: sa, 3: sw, 4: _unset((100, 80), "bfloat16")})[4]
    _check(_f(out), (ad @ wd.T) * _d(sa)[:, None] * _d(sw)[None, :], 2e-2, 1e-2)  # bf16 out


def _case_fp8_gemm_per_tensor_scales_as_scalars_f16():
    (a, ad), (w, wd) = _e4m3(70, 128), _e4m3(96, 128)
    out = emulate("fp8_gemm_per_tensor_scales_as_scalars_f16", {0: a, 1: w, 3: 0.02, 4: 0.05})[2]
    _check(out, (ad @ wd.T) * 0.001, 1e-3, 2e-3)  # f16 out


def _case_int8_scaled_mm_bias_f16_out():
    a = RNG.integers(-128, 128, (90, 160)).astype(np.int8)
    b = RNG.integers(-128, 128, (160, 80)).astype(np.int8)
    sa, sb = (RNG.random(90) * 0.01).astype(np.float32), (RNG.random(80) * 0.01).astype(np.float32)
    bias = _h(80)
    out = emulate("int8_scaled_mm_bias_f16_out", {0: a, 1: b, 2: sa, 3: sb, 4: bias})[5]
    ref = (a.astype(np.int64) @ b.astype(np.int64)) * _d(sa)[:, None] * _d(sb)[None, :] + _d(bias)[None, :]
    _check(out, ref, 1e-2, 2e-3)  # f16 out


def _case_int8_gemm_int32_out_weight_nk():
    a = RNG.integers(-128, 128, (100, 96)).astype(np.int8)
    w = RNG.integers(-128, 128, (64, 96)).astype(np.int8)
    c = np.full((100, 64), -(2 ** 31), np.int32)
    out = emulate("int8_gemm_int32_out_weight_nk", {0: a, 1: w, 2: c})[2]
    assert np.array_equal(np.asarray(out, np.int64), a.astype(np.int64) @ w.astype(np.int64).T)  # exact


def _case_linear_bias_gelu_tanh_ragged_k_200():
    x, w, bias = _h(130, 200), _h(200, 96, scale=0.2), RNG.standard_normal(96).astype(np.float32)
    out = emulate("linear_bias_gelu_tanh_ragged_k_200", {0: x, 1: w, 2: bias})[3]
    _check(out, _gelu_tanh(_mm(x, w) + _d(bias)[None, :]), 1e-2, 2e-3)  # f16 out


def _case_linear_bias_silu_bf16_decode_m7():
    x, w, bias = _bf(7, 256), _bf(256, 200, scale=0.2), _bf(200)
    out = emulate("linear_bias_silu_bf16_decode_m7", {0: x, 1: w, 2: bias, 3: _unset((7, 200), "bfloat16")})[3]
    _check(_f(out), _silu(_mm(_f(x), _f(w)) + _d(_f(bias))[None, :]), 3e-2, 1e-2)  # bf16 out


def _case_geglu_gate_up_weights_nk_shared_x():
    x, wg, wu = _h(90, 128), _h(64, 128, scale=0.2), _h(64, 128, scale=0.2)
    out = emulate("geglu_gate_up_weights_nk_shared_x", {0: x, 1: wg, 2: wu})[3]
    _check(out, _gelu_tanh(_mm(x, wg.T)) * _mm(x, wu.T), 1e-2, 2e-3)  # f16 out


def _case_swiglu_pair_decode_m5_bf16():
    x, wg, wu = _bf(5, 192), _bf(192, 160, scale=0.2), _bf(192, 160, scale=0.2)
    out = emulate("swiglu_pair_decode_m5_bf16", {0: x, 1: wg, 2: wu, 3: _unset((5, 160), "bfloat16")})[3]
    _check(_f(out), _silu(_mm(_f(x), _f(wg))) * _mm(_f(x), _f(wu)), 3e-2, 1e-2)  # bf16 out


def _case_grouped_gemm_tile_aligned_group_starts():
    x, w = _h(292, 128), _h(4, 128, 80, scale=0.2)
    starts = np.array([0, 64, 192, 192, 292], np.int32)  # group 2 empty, group 3 ragged (100 rows)
    out = emulate("grouped_gemm_tile_aligned_group_starts", {0: x, 1: w, 2: starts})[3]
    ref = np.concatenate([_mm(x[starts[g]:starts[g + 1]], w[g]) for g in range(4)])
    _check(out, ref, 1e-2, 2e-3)  # f16 out


def _case_split_k_partials_into_workspace():
    a, b = _h(100, 448), _h(448, 80, scale=0.2)
    ws = emulate("split_k_partials_into_workspace", {0: a, 1: b})[2]
    for s, ks in enumerate((slice(0, 192), slice(192, 384), slice(384, 448))):  # 3, 3 and 1 K tiles of 64
        _check(ws[s], _mm(a[:, ks], b[ks]), 1e-3)


def _case_weight_grad_x_transposed_by_order():
    x, dy = _h(200, 96), _h(200, 80, scale=0.3)
    out = emulate("weight_grad_x_transposed_by_order", {0: x, 1: dy})[2]
    _check(out, _d(x).T @ _d(dy), 2e-3)


def _case_bmm_4d_heads_bf16_in_f16_out():
    a, b = _bf(2, 3, 50, 64), _bf(2, 3, 64, 40, scale=0.3)
    out = emulate("bmm_4d_heads_bf16_in_f16_out", {0: a, 1: b})[2]
    _check(out, np.einsum("bhmk,bhkn->bhmn", _d(_f(a)), _d(_f(b))), 1e-2, 2e-3)  # f16 out


def _case_linear_residual_add_epilogue_bf16():
    x, w, r = _bf(77, 192), _bf(192, 128, scale=0.2), _bf(77, 128)
    out = emulate("linear_residual_add_epilogue_bf16", {0: x, 1: w, 2: r, 3: _unset((77, 128), "bfloat16")})[3]
    _check(_f(out), _mm(_f(x), _f(w)) + _d(_f(r)), 3e-2, 1e-2)  # bf16 out


def _case_decode_gemv_m3_weight_nk_bf16():
    x, w = _bf(3, 512), _bf(200, 512, scale=0.2)
    out = emulate("decode_gemv_m3_weight_nk_bf16", {0: x, 1: w, 2: _unset((3, 200), "bfloat16")})[2]
    _check(_f(out), _mm(_f(x), _f(w).T), 3e-2, 1e-2)  # bf16 out


def _case_batched_linear_bias_gelu_3d_activations():
    x, w, bias = _h(2, 70, 128), _h(128, 96, scale=0.2), RNG.standard_normal(96).astype(np.float32)
    out = emulate("batched_linear_bias_gelu_3d_activations", {0: x, 1: w, 2: bias})[3]
    _check(out, _gelu_tanh(np.einsum("bsk,kn->bsn", _d(x), _d(w)) + _d(bias)), 1e-2, 2e-3)  # f16 out



def _case_gemm_fp8_e4m3_output_quantized():
    a, b = _h(100, 128), _h(128, 80, scale=0.3)
    c = np.full((100, 80), 0x7F, np.uint8)  # e4m3 NaN: an unwritten element stays NaN
    out = emulate("gemm_fp8_e4m3_output_quantized", {0: a, 1: b, 2: c, 3: 0.5})[2]
    got = np.asarray(out, np.uint8).view(E4M3).astype(np.float64)
    ref = 0.5 * _mm(a, b)
    _check(got, ref, 2 ** -9, 2 ** -4)  # e4m3's 3 mantissa bits: half an ulp is 1/16 of the value


def _case_linear_k_100_rows_of_200_bytes():
    x, w = _h(90, 100), _h(100, 64, scale=0.3)
    _check(emulate("linear_k_100_rows_of_200_bytes", {0: x, 1: w})[2], _mm(x, w), 1e-3)

_EMULATE = emulate
CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}
GEMMS = sorted(CASES) if ALL else ["decode_gemv_m3_weight_nk_bf16", "grouped_gemm_tile_aligned_group_starts"]
"""The GEMM cases run in CI (every case of :data:`CASES` with ``TILEORCH_EMULATE_ALL=1``): a 16-row decode tile run
as a 64-row WGMMA tile (this sweep's fix), the grouped GEMM's guarded programs."""


def test_every_gemm_program_has_a_case():
    assert set(CASES) == {n for n, p in PROGRAMS.items() if p.path == "gemm"}


@pytest.mark.parametrize("name", GEMMS)
def test_the_gemm_on_the_wgmma_emulator(name, monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})
    CASES[name]()


# ----------------------------------------------------------------------------------------------- the SIMT programs

MMA_SYNC = {"test_lora_linear_x_w_plus_scaled_x_a_b", "test_fused_qkv_projection_three_outputs"}
"""The refused dot programs: their SIMT kernels' mma.sync operands come through ``ldmatrix``, which the PTX emulator
does not run (the interpreter and the GPU file run them)."""
EMULATED = (sorted(n for n in dir(s36) if n.startswith("test_") and n not in MMA_SYNC) if ALL
            else ["test_kv_cache_paged_append_slot_mapping"])
"""The tests of test_user_sweep36_interp.py run here on the PTX (a CI-sized subset)."""


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s10e, "PROGRAMS", PROGRAMS)
    monkeypatch.setattr(s36, "run", lambda name, inputs, program=None: s10e.emulate(name, inputs))
    s36.every_case(getattr(s36, test))
