"""Twenty-second user sweep (``tileorch.testing.user_programs22``): the tensor-core programs run CTA by
CTA on the CPU by ``tileorch.testing.ptx_emulator`` against numpy float64 references computed from the
inputs alone, on ragged shapes, outputs NaN-prefilled (the int32 output a sentinel): the GEMMs through
test_user_sweep14_emulated's runner (the launcher's own problem derivation, tensor maps, tile parameters
and K-major copies).  f16, bf16, tf32, 8-bit integer and (since session 38) e4m3 / e5m2 WGMMAs are
emulated; the cases of :data:`GPU_ONLY` run on the GPU alone (tests/gpu/test_user_sweep22_gpu.py reruns every case).
:data:`EMULATED` is the CI-sized subset; ``TILEORCH_EMULATE_ALL=1`` runs every emulable case.  Needs
cuda-tile and ml_dtypes."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402

from tileorch.testing.user_programs22 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(2622)
BF16 = ml_dtypes.bfloat16
E4M3 = ml_dtypes.float8_e4m3fn


@pytest.fixture(autouse=True)
def _twenty_second_sweep(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})
    monkeypatch.setattr(s3, "NP", {**s3.NP, "bfloat16": BF16, "float8_e4m3fn": E4M3})  # NaN-filled outputs


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _f(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def _d(x):
    return np.asarray(x, np.float64)


def _mm(a, b):
    return _d(a) @ _d(b)


def _tf32(x):
    """f32 values rounded to tf32 (10-bit mantissa, nearest even): the operands the tf32 WGMMA sees
    (the reference's tolerance covers truncation too)."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0xFFF + ((bits >> 13) & 1)) & ~np.uint64(0x1FFF)
    return bits.astype(np.uint32).view(np.float32)


def emulate(name: str, inputs: dict) -> dict:
    """A GEMM program on its spec's shapes (test_user_sweep14_emulated's runner)."""
    return s14e.emulate(name, inputs)


def _check(out, ref, atol, rtol=2e-3):
    s14e._check(out, ref, atol, rtol)


# ----------------------------------------------------------------------------------------------- cases


def _case_samples_matmul_swizzle_helper():
    """f32 arrays as tf32 (the sample's ``dtype`` choice), 200 x 136 x 100 on 64 x 64 x 32 tiles (12
    programs, GROUP_SIZE_M 8 over 4 row tiles: one short group)."""
    a, b = _f(200, 100), _f(100, 136, scale=0.25)
    y = emulate("samples_matmul_swizzle_helper", {0: a, 1: b})[2]
    _check(y, _mm(_tf32(a), _tf32(b)), 2e-2)
    _check(y, _mm(a, b), 6e-2)


def _case_samples_matmul_swizzle_helper_f16():
    a, b = _h(300, 128), _h(128, 200, scale=0.25)
    _check(emulate("samples_matmul_swizzle_helper_f16", {0: a, 1: b})[2], _mm(a, b), 3e-2, 1e-2)


def _case_gemm_unaligned_row_strides():
    a, b = _h(129, 93), _h(93, 67, scale=0.25)
    _check(emulate("gemm_unaligned_row_strides", {0: a, 1: b})[2], _mm(a, b), 3e-2, 1e-2)


def _case_gemm_at_b_load_order_f():
    at, b = _h(128, 200), _h(128, 136, scale=0.25)
    _check(emulate("gemm_at_b_load_order_f", {0: at, 1: b})[2], _mm(at.T, b), 2e-2)


def _case_gemm_store_order_f_transposed():
    a, b = _h(200, 128), _h(128, 136, scale=0.25)
    _check(emulate("gemm_store_order_f_transposed", {0: a, 1: b})[2], _mm(a, b).T, 3e-2, 1e-2)


def _case_gemm_static_k_annotated():
    a, b = _h(200, 192), _h(192, 136, scale=0.25)
    _check(emulate("gemm_static_k_annotated", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_bmm_two_batches_per_tile_shared_b():
    """4 batches of 100 rows, two per program on grid axis 2, one B for all."""
    a, b = _h(4, 100, 128), _h(128, 136, scale=0.25)
    _check(emulate("bmm_two_batches_per_tile_shared_b", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_bmm_shared_a_batched_b():
    """A ``[1, 200, 128]`` read at batch 0 by every program, 3 batches of B and C."""
    a, b = _h(1, 200, 128), _h(3, 128, 136, scale=0.25)
    _check(emulate("bmm_shared_a_batched_b", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_gemm_runtime_k_masked_tail():
    """K = 150 of A's 256 columns (3 K tiles of 64, the last masked from column 150): A's and B's values
    past K must not count."""
    a, b = _h(200, 256), _h(256, 136, scale=0.25)
    _check(emulate("gemm_runtime_k_masked_tail", {0: a, 1: b})[2], _mm(a[:, :150], b[:150]), 2e-2)


def _case_gemm_runtime_k_masked_tail_tk32():
    a, b = _h(200, 256), _h(256, 136, scale=0.25)
    _check(emulate("gemm_runtime_k_masked_tail_tk32", {0: a, 1: b})[2], _mm(a[:, :150], b[:150]), 2e-2)


def _case_gemm_full_k_loop_masked_past_k():
    """All 4 K tiles of 64 read, columns 150.. zeroed by the mask."""
    a, b = _h(200, 256), _h(256, 136, scale=0.25)
    _check(emulate("gemm_full_k_loop_masked_past_k", {0: a, 1: b})[2], _mm(a[:, :150], b[:150]), 2e-2)


def _case_gemm_int8_odd_k_weight_nk_dequant_bf16():
    x = RNG.integers(-128, 128, (200, 100)).astype(np.int8)
    w = RNG.integers(-128, 128, (136, 100)).astype(np.int8)
    sx, sw = _f(200, scale=1e-3), _f(136, scale=1e-2)
    y = emulate("gemm_int8_odd_k_weight_nk_dequant_bf16", {0: x, 1: w, 2: sx, 3: sw})[4]
    ref = (x.astype(np.int64) @ w.T.astype(np.int64)) * _d(sx)[:, None] * _d(sw)[None, :]
    _check(y, ref, 1e-6, 8e-3)  # bf16 output: 8 bits of mantissa


def _case_gemm_uint8_uint8_int32():
    a = RNG.integers(0, 256, (200, 192)).astype(np.uint8)
    b = RNG.integers(0, 256, (192, 136)).astype(np.uint8)
    y = emulate("gemm_uint8_uint8_int32", {0: a, 1: b, 2: np.full((200, 136), -2**31, np.int32)})[2]
    np.testing.assert_array_equal(y, a.astype(np.int64) @ b.astype(np.int64))


def _case_gemm_fp8_e4m3_weight_nk_tensor_scales_bf16():
    """fp8 arrays passed as their bytes (the GPU harness's convention), the references from their values."""
    x, w = _f(200, 192).astype(E4M3), _f(136, 192, scale=0.5).astype(E4M3)
    sx, sw = np.array([0.5], np.float32), np.array([0.125], np.float32)
    y = emulate("gemm_fp8_e4m3_weight_nk_tensor_scales_bf16",
                {0: x.view(np.uint8), 1: w.view(np.uint8), 2: sx, 3: sw})[4]
    _check(y, _mm(x, w.T) * 0.0625, 1e-2, 8e-3)


def _case_gemm_fp8_e4m3_f16_accumulator():
    """An f16 accumulator over K = 192: small values (sums far below f16's range), tolerance of f16 sums."""
    a, b = _f(200, 192, scale=0.5).astype(E4M3), _f(192, 136, scale=0.25).astype(E4M3)
    y = emulate("gemm_fp8_e4m3_f16_accumulator", {0: a.view(np.uint8), 1: b.view(np.uint8)})[2]
    _check(y, _mm(a, b), 3e-2, 1e-2)


def _case_gemm_f16_acc_plus_f16_bias_after_loop():
    """The f16 accumulator (f16 sums) plus the f16 bias in f16: f16 tolerance."""
    a, b, bias = _h(200, 128, scale=0.5), _h(128, 136, scale=0.25), _h(136)
    y = emulate("gemm_f16_acc_plus_f16_bias_after_loop", {0: a, 1: b, 2: bias})[3]
    _check(y, _mm(a, b) + _d(bias)[None, :], 3e-2, 1e-2)


def _case_gemm_bf16_a_f16_b_cast_to_bf16():
    a, b = _f(200, 128).astype(BF16), _h(128, 136, scale=0.25)
    y = emulate("gemm_bf16_a_f16_b_cast_to_bf16", {0: a, 1: b})[2]
    _check(y, _mm(a, b.astype(BF16)), 2e-3)
    _check(y, _mm(a, b), 3e-2, 1e-2)


def _case_gemm_a_column_major_view():
    """A given as the column-major view of a row-major ``[K, M]`` buffer: the emulator's A is the
    launcher's row-major matrix (the view's logical values)."""
    a, b = _h(200, 128), _h(128, 136, scale=0.25)
    _check(emulate("gemm_a_column_major_view", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_gemm_gelu_tanh_bias_layer_scale_residual_bf16():
    x, w = _h(200, 128), _h(128, 136, scale=0.25)
    bias, gamma, r = _f(136), _f(136, scale=0.5), _f(200, 136).astype(BF16)
    y = emulate("gemm_gelu_tanh_bias_layer_scale_residual_bf16", {0: x, 1: w, 2: bias, 3: gamma, 4: r})[5]
    h = _mm(x, w) + _d(bias)[None, :]
    g = 0.5 * h * (1 + np.tanh(0.7978845608028654 * (h + 0.044715 * h ** 3)))
    _check(y, _d(r) + g * _d(gamma)[None, :], 4e-2, 1e-2)


def _case_gemm_masked_log_softmax_full_row():
    x, w = _h(200, 128), _h(128, 100, scale=0.25)
    y = emulate("gemm_masked_log_softmax_full_row", {0: x, 1: w})[2]
    z = _mm(x, w)
    mx = z.max(1, keepdims=True)
    _check(y, z - mx - np.log(np.exp(z - mx).sum(1, keepdims=True)), 2e-2)


def _case_mlp_relu_two_dots_biases():
    """Hidden 64 (one tile), the hidden tile rounded to f16 before the second dot (as the program)."""
    x, w1, b1 = _h(200, 128, scale=0.5), _h(128, 64, scale=0.25), _f(64, scale=0.5)
    w2, b2 = _h(64, 136, scale=0.25), _f(136)
    y = emulate("mlp_relu_two_dots_biases", {0: x, 1: w1, 2: b1, 3: w2, 4: b2})[5]
    h = np.maximum(_mm(x, w1) + _d(b1)[None, :], 0).astype(np.float16)
    _check(y, _mm(h, w2) + _d(b2)[None, :], 3e-2, 1e-2)


CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}

GPU_ONLY = {"gemm_unaligned_row_strides", "gemm_a_column_major_view"}
"""Cases the emulator's runner cannot run, the GPU file does (the fp8 ones run here since session 38: the
emulator's e4m3 / e5m2 WGMMA): rows TMA cannot address in place (odd row strides: the launcher's padded copies, ``gemm_host.StagingPlan``,
which the runner does not model: C's pair stores fault at odd rows of 67 f32); a column-major view (the
runner describes every array as contiguous)."""

EMULATED = ["samples_matmul_swizzle_helper", "gemm_at_b_load_order_f",
            "gemm_store_order_f_transposed", "bmm_two_batches_per_tile_shared_b",
            "gemm_int8_odd_k_weight_nk_dequant_bf16", "gemm_uint8_uint8_int32", "gemm_bf16_a_f16_b_cast_to_bf16",
            "gemm_gelu_tanh_bias_layer_scale_residual_bf16", "gemm_masked_log_softmax_full_row",
            "mlp_relu_two_dots_biases", "gemm_static_k_annotated", "gemm_f16_acc_plus_f16_bias_after_loop",
            "bmm_shared_a_batched_b", "gemm_runtime_k_masked_tail",
            "gemm_full_k_loop_masked_past_k"]
"""The CI-sized subset; ``TILEORCH_EMULATE_ALL=1`` runs every emulable case."""
if os.environ.get("TILEORCH_EMULATE_ALL"):
    EMULATED = sorted(set(CASES) - GPU_ONLY)


def test_the_ci_subset_runs_on_the_emulator():
    assert not set(EMULATED) & GPU_ONLY and set(EMULATED) <= set(CASES)


def test_every_tensor_core_program_has_a_case():
    """The GPU file reruns every case: each program a tensor-core tier takes has one."""
    assert sorted(n for n, p in PROGRAMS.items() if p.path != "simt") == sorted(n for n in CASES if n in PROGRAMS)


@pytest.mark.parametrize("case", EMULATED)
def test_the_ptx_against_numpy(case):
    CASES[case]()
