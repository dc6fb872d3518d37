"""The twenty-sixth user sweep's programs as PTX (after LLVM) run CTA by CTA on the CPU by
``tileorch.testing.ptx_emulator``, against independent numpy (float64 / Python integer) references, outputs NaN /
sentinel prefilled, ragged shapes:

* the GEMMs the TileAS tier takes (TMA + WGMMA: test_user_sweep14_emulated's runner): :data:`CASES` (the batched
  GEMM whose B has a stride-0 batch axis runs on the GPU alone: this runner describes arrays by their shapes,
  not a view's strides);
* test_user_sweep26_interp.py's tests with its ``run`` swapped for the emulator of the path the program table names
  (``sweep_paths.emulate_on_its_path``): :data:`EMULATED`.

CI-sized subsets; ``TILEORCH_EMULATE_ALL=1`` runs every case.  Needs cuda-tile and ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402
import sweep_paths  # noqa: E402
import test_user_sweep26_interp as s26  # noqa: E402

from tileorch.testing.user_programs26 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(2627)
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))


def _h(*shape, scale=1.0, dt=np.float16):
    return (RNG.standard_normal(shape) * scale).astype(dt)


def _bf(*shape, scale=1.0):
    """bf16 values as ``ml_dtypes.bfloat16`` (the runner places arrays' bytes as they are)."""
    return (RNG.standard_normal(shape) * scale).astype(np.float32).astype(ml_dtypes.bfloat16)


def _unset(shape, dt):
    """An output prefilled as the runner would (NaN; an integer sentinel), for dtypes its table lacks."""
    if dt == "bfloat16":
        return np.full(shape, np.nan, ml_dtypes.bfloat16)
    return np.full(shape, np.iinfo(dt).min, dt)


def _mm(a, b):
    return np.asarray(a, np.float64) @ np.asarray(b, np.float64)


def _check(out, ref, atol, rtol=2e-3):
    out = np.asarray(out, np.float64)
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=atol, rtol=rtol)


def emulate(name: str, inputs: dict) -> dict:
    """A program on its spec's shapes, on the emulator of the path its table entry names
    (:func:`sweep_paths.emulate_on_its_path`; the GPU file swaps it)."""
    return sweep_paths.emulate_on_its_path(PROGRAMS, name, inputs)


def _gelu(h):
    return 0.5 * h * (1.0 + np.tanh(0.7978845608028654 * (h + 0.044715 * h ** 3)))


# ----------------------------------------------------------------------------------------------- the GEMM cases


def _case_moe_expert_table_weights_nk():
    x, w = _h(192, 96), _h(3, 80, 96, scale=0.5)
    table = np.array([2, 0, 2], np.int32)
    y = emulate("moe_expert_table_weights_nk", {0: x, 1: w, 2: table})[3]
    ref = np.concatenate([_mm(x[64 * t:64 * t + 64], w[e].T) for t, e in enumerate(table)])
    _check(y, ref, 2e-2, 5e-3)  # f16 out


def _case_moe_combine_weighted_atomic_add():
    x, w = _h(128, 64), _h(64, 96, scale=0.5)
    tok = RNG.integers(0, 128, 128).astype(np.int32)
    tok[::7] = -1
    gate = RNG.random(128).astype(np.float32)
    y = emulate("moe_combine_weighted_atomic_add", {0: x, 1: w, 2: tok, 3: gate, 4: np.zeros((128, 96), np.float32)})[4]
    ref = np.zeros((128, 96))
    keep = tok >= 0
    np.add.at(ref, tok[keep], _mm(x, w)[keep] * gate[keep, None])
    _check(y, ref, 2e-2)


def _case_gemm_bias_gelu_tanh_dropout_mask():
    a, b, bias = _bf(100, 64), _bf(64, 96, scale=0.3), _bf(96)
    keep = (RNG.random((100, 96)) < 0.75).astype(np.uint8)
    out = emulate("gemm_bias_gelu_tanh_dropout_mask",
                  {0: a, 1: b, 2: bias, 3: keep, 4: _unset((100, 96), "bfloat16")})[4]
    h = _mm(a.astype(np.float32), b.astype(np.float32)) + bias.astype(np.float64)
    _check(out.astype(np.float32), np.where(keep != 0, _gelu(h) / 0.75, 0.0), 3e-2, 1e-2)  # bf16 out


def _case_gemm_k_tiles_argument_zero():
    a, b, bias = _h(100, 64), _h(64, 80), RNG.standard_normal(80).astype(np.float32)
    out = emulate("gemm_k_tiles_argument_zero", {0: a, 1: b, 2: bias})[3]
    np.testing.assert_array_equal(out, np.broadcast_to(bias, (100, 80)))  # zero K tiles: the bias alone


def _case_gemm_twelve_arguments():
    a, b = _h(130, 64), _h(64, 70)
    bias, rs, cs = (RNG.standard_normal(n).astype(np.float32) for n in (70, 130, 70))
    res = _h(130, 70)
    out = emulate("gemm_twelve_arguments", {0: a, 1: b, 2: bias, 3: rs, 4: cs, 5: res})[6]
    ref = np.maximum(1.25 * _mm(a, b) * rs[:, None] * cs[None, :] + bias - 0.5 * res.astype(np.float64), -0.75)
    _check(out, ref, 2e-2)


def _case_linear_bias_silu():
    a, b, bias = _h(100, 64), _h(64, 72, scale=0.3), _h(72)
    out = emulate("linear_bias_silu", {0: a, 1: b, 2: bias})[3]
    h = _mm(a, b) + bias.astype(np.float64)
    _check(out, h / (1 + np.exp(-h)), 1e-2, 5e-3)  # f16 out


def _case_linear_no_bias_relu():
    a, b, bias = _h(100, 64), _h(64, 72, scale=0.3), _h(72, scale=100.0)  # (the bias is not read)
    out = emulate("linear_no_bias_relu", {0: a, 1: b, 2: bias})[3]
    _check(out, np.maximum(_mm(a, b), 0), 1e-2, 5e-3)


def _case_gemm_128_cubed_tiles():
    a, b = _h(200, 256, scale=0.5), _h(256, 150, scale=0.5)
    _check(emulate("gemm_128_cubed_tiles", {0: a, 1: b})[2], _mm(a, b), 5e-2, 5e-3)


def _case_conv2d_implicit_gemm_im2col_gather():
    x, w = _h(6, 10, 8), _h(72, 16, scale=0.3)
    y = emulate("conv2d_implicit_gemm_im2col_gather", {0: x, 1: w})[2]
    xp = np.pad(x.astype(np.float64), ((1, 1), (1, 1), (0, 0)))
    cols = np.stack([xp[r:r + 6, s:s + 10, :] for r in range(3) for s in range(3)], axis=2)  # [6, 10, 9, 8]
    _check(y, cols.reshape(60, 72) @ w.astype(np.float64), 2e-2)


def _case_gemm_then_row_softmax_whole_n():
    a, b = _h(130, 64), _h(64, 100, scale=0.3)
    p = emulate("gemm_then_row_softmax_whole_n", {0: a, 1: b})[2]
    z = _mm(a, b)
    e = np.exp(z - z.max(1, keepdims=True))
    _check(p, e / e.sum(1, keepdims=True), 1e-4, 5e-3)


CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}
GEMMS = sorted(CASES) if ALL else ["moe_expert_table_weights_nk", "moe_combine_weighted_atomic_add",
                                   "gemm_k_tiles_argument_zero", "conv2d_implicit_gemm_im2col_gather",
                                   "linear_no_bias_relu"]
"""The GEMM cases run in CI (every case of :data:`CASES` passed on the emulator in session 34)."""


@pytest.mark.parametrize("name", GEMMS)
def test_the_gemm_on_the_wgmma_emulator(name, monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})
    CASES[name]()


# ----------------------------------------------------------------------------------------------- the SIMT programs

LAUNCH_ONLY = ("broadcast_by_zero", "fewer_tokens")
"""Tests whose launch this emulator's runner (array shapes, no strides, the compiled path) does not reproduce: a B of
batch stride 0 (since session 42 the launcher runs the program's ``b_shared=1`` kernel, emulated in
test_launch_strided_batch.py), C of fewer rows than M (the SIMT path: tests/gpu/test_user_sweep26_gpu.py)."""
EMULATED = sorted(n for n in dir(s26) if n.startswith("test_") and n not in sweep_paths.refused_dot_tests(PROGRAMS, s26)
                  and not any(w in n for w in LAUNCH_ONLY)) \
    if ALL else ["test_quant_int4_per_group_pack_nibbles", "test_dequant_int4_nibbles_sign_extend",
                 "test_quant_fp8_e4m3_per_row_scale", "test_histogram_float_bins_clamped",
                 "test_dropout_hash_mask_uint32", "test_byteswap_int32_pack_unpack",
                 "test_loop_zero_trips_carries_init", "test_stream_compact_positive_by_scan"]
"""The tests of test_user_sweep26_interp.py run here on the PTX, each on the emulator of the path the program table
names (a CI-sized subset; the refused dots' mma.sync needs ``ldmatrix``, which the emulator does not model; every
other test passed here with ``TILEORCH_EMULATE_ALL=1`` in session 34)."""


def test_every_program_has_a_numpy_test():
    """A case here or a test of test_user_sweep26_interp.py for every program, whatever its path (moving a program
    between the tier and the SIMT path edits its table entry only)."""
    assert not sweep_paths.untested(PROGRAMS, s26, sys.modules[__name__], cases=(CASES,))


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s26, "run", lambda name, inputs, program=None:
                        sweep_paths.emulate_on_its_path(PROGRAMS, name, inputs, program))
    s26.every_case(getattr(s26, test))
