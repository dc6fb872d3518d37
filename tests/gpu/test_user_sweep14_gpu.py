"""The fourteenth user sweep on the GPU (issue 22: dot programs acceptance runs that we will not see):
every program of ``tileorch.testing.user_programs14`` runs through ``tileorch.cutile.launch`` on its
spec's ragged shapes and grid (tests/gpu/sweep_harness.gpu_run: every array inside a larger buffer of
the fill, NaN for floats, an integer sentinel, the fp8 NaN byte; outputs start as the fill and the
tails must stay it; the path the program compiles to checked against its table entry).  The f16 GEMMs
rerun tests/unit/test_user_sweep14_emulated.py's cases (float64 numpy references) with the emulator
swapped for the GPU; the programs the emulator cannot run (bf16, fp8, int8, tf32 WGMMAs) and the
programs the tier refuses (the SIMT path's mma.sync) are checked here against torch fp32 on the GPU.
Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.
Run: ``python -m pytest -q tests/gpu/test_user_sweep14_gpu.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")
ml_dtypes = pytest.importorskip("ml_dtypes")

UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if UNIT not in sys.path:  # the CPU tests' numpy references (appended: tests/gpu's modules come first)
    sys.path.append(UNIT)

import sweep_harness  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402
from tileorch.testing.user_programs14 import PROGRAMS, SIMT_KERNELS  # noqa: E402

if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

RNG = np.random.default_rng(2214)
TABLE = {**PROGRAMS, **{n: UserProgram(k, spec, grid, "simt") for n, (k, spec, grid) in SIMT_KERNELS.items()}}


def run(name: str, inputs: dict) -> dict:
    return sweep_harness.gpu_run(TABLE, name, inputs)


def _t(x):
    """A host array as a torch fp32 tensor on the GPU (the reference's operand)."""
    return torch.from_numpy(np.asarray(x, np.float32)).cuda()


def _ref(x) -> np.ndarray:
    return x.double().cpu().numpy()


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _bf(*shape, scale=1.0):
    """bf16 values (as float32) of a normal sample."""
    return (RNG.standard_normal(shape) * scale).astype(ml_dtypes.bfloat16).astype(np.float32)


def _check(out, ref, atol, rtol=2e-3):
    out = np.asarray(out, np.float64)
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=atol, rtol=rtol)


# ----------------------------------------------------------------------------------------------- the emulated f16 cases

F16_CASES = sorted(s14e.CASES)


@pytest.mark.parametrize("case", F16_CASES)
def test_emulated_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(s14e, "emulate", run)
    s14e.CASES[case]()


# ----------------------------------------------------------------------------------------------- refused by the tier


def test_moe_gather_token_rows():
    x, w = _h(300, 128), _h(3, 128, 128, scale=0.25)
    idx = RNG.integers(0, 300, 200).astype(np.int32)
    y = run("moe_gather_token_rows", {0: x, 1: idx, 2: w})[3]
    _check(y, _ref(_t(x)[torch.from_numpy(idx).long().cuda()] @ _t(w[1])), 2e-2)


def test_moe_ragged_groups_offsets():
    """Groups of 70, 0 and 180 rows (an empty expert; group 2 spans three 64-row programs)."""
    x, w = _h(250, 128), _h(3, 128, 128, scale=0.25)
    offs = np.array([0, 70, 70, 250], np.int32)
    y = run("moe_ragged_groups_offsets", {0: x, 1: w, 2: offs})[3]
    ref = torch.cat([_t(x[offs[g]:offs[g + 1]]) @ _t(w[g]) for g in range(3)])
    _check(y, _ref(ref), 2e-2)


def test_grouped_experts_bid2_offsets_aligned():
    x, w = _h(384, 128), _h(3, 128, 128, scale=0.25)
    offs = np.array([0, 128, 192, 384], np.int32)
    y = run("grouped_experts_bid2_offsets_aligned", {0: x, 1: w, 2: offs})[3]
    ref = torch.cat([_t(x[offs[g]:offs[g + 1]]) @ _t(w[g]) for g in range(3)])
    _check(y, _ref(ref), 2e-2)


def test_w4_nibbles_two_halves():
    """K tile k (128 wide): A's columns 128k .. 128k + 63 against the low nibbles of packed rows
    64k .. 64k + 63, the next 64 columns against their high nibbles; ``(q - 8) * s`` rounded to f16."""
    x = _h(128, 256)
    wp = RNG.integers(0, 256, (128, 128)).astype(np.uint8)
    s = (RNG.random(128) * 0.1 + 0.01).astype(np.float16)
    y = run("w4_nibbles_two_halves", {0: x, 1: wp, 2: s})[3]
    lo = ((wp & 15).astype(np.int32) - 8).astype(np.float16) * s
    hi = ((wp >> 4).astype(np.int32) - 8).astype(np.float16) * s
    w = np.concatenate([np.concatenate([lo[64 * k:64 * k + 64], hi[64 * k:64 * k + 64]]) for k in range(2)])
    _check(y, _ref(_t(x) @ _t(w.astype(np.float16))), 2e-2)


def test_gemv_one_row_tile():
    x, w = _h(1, 256), _h(256, 300)
    _check(run("gemv_one_row_tile", {0: x, 1: w})[2], _ref(_t(x) @ _t(w)), 1e-3)


def test_logits_row_max_only():
    x, w = _h(200, 128), _h(128, 128)
    mx = run("logits_row_max_only", {0: x, 1: w})[2]
    _check(mx, _ref((_t(x) @ _t(w)).amax(1, keepdim=True)), 1e-3)


def test_logits_lse_and_argmax():
    x, w = _h(200, 128), _h(128, 128)
    out = run("logits_lse_and_argmax", {0: x, 1: w})
    logits = _t(x) @ _t(w)
    _check(out[2], _ref(torch.logsumexp(logits, 1, keepdim=True)), 1e-3)
    top2 = logits.topk(2, 1).values
    clear = (top2[:, 0] - top2[:, 1] > 1e-3).cpu().numpy()  # rows whose maximum is not a near tie
    assert clear.sum() > 150
    np.testing.assert_array_equal(out[3][clear], logits.argmax(1).cpu().numpy()[clear])


def test_two_products_one_acc():
    a1, b1, a2, b2 = _h(200, 128), _h(128, 192, scale=0.25), _h(200, 128), _h(128, 192, scale=0.25)
    y = run("two_products_one_acc", {0: a1, 1: b1, 2: a2, 3: b2})[4]
    _check(y, _ref(_t(a1) @ _t(b1) + _t(a2) @ _t(b2)), 2e-2)


# ----------------------------------------------------------------------------------------------- bf16 / fp8 / int8 / tf32


def test_splitk_partials_then_the_second_kernel():
    a, b = _h(256, 320), _h(320, 128, scale=0.25)
    bias = RNG.standard_normal(128).astype(np.float32)
    wk = run("splitk_partials_workspace_3d", {0: a, 1: b})[2]
    y = run("splitk_sum_partials", {0: wk, 1: bias})[2]
    _check(y, _ref(_t(a) @ _t(b) + _t(bias)), 5e-2, 1e-2)


def test_fp8_e5m2_row_scale_bt_bf16():
    a = RNG.standard_normal((200, 256)).astype(ml_dtypes.float8_e5m2)
    bt = RNG.standard_normal((192, 256)).astype(ml_dtypes.float8_e5m2)
    sa = (RNG.random(200) + 0.5).astype(np.float32)
    y = run("fp8_e5m2_row_scale_bt_bf16", {0: a.view(np.uint8), 1: bt.view(np.uint8), 2: sa})[4]
    ref = (_t(a.astype(np.float32)) @ _t(bt.astype(np.float32)).T) * _t(sa)[:, None] * 0.5
    _check(y, _ref(ref), 0.1, 1e-2)


def test_i8_i32_bias_i32():
    a = RNG.integers(-128, 128, (200, 256)).astype(np.int8)
    bt = RNG.integers(-128, 128, (192, 256)).astype(np.int8)
    bias = RNG.integers(-1000, 1000, 192).astype(np.int32)
    y = run("i8_i32_bias_i32", {0: a, 1: bt, 2: bias})[3]
    np.testing.assert_array_equal(y, a.astype(np.int64) @ bt.astype(np.int64).T + bias)


def test_tf32_tiles_64x32_k32():
    a, b = RNG.standard_normal((100, 96)).astype(np.float32), RNG.standard_normal((96, 80)).astype(np.float32)
    y = run("tf32_tiles_64x32_k32", {0: a, 1: b})[2]
    _check(y, a.astype(np.float64) @ b.astype(np.float64), 3e-2, 3e-3)  # tf32: 10 mantissa bits per operand


def test_c_plus_ab_bf16():
    a, b, c = _bf(200, 128), _bf(128, 192, scale=0.25), _bf(200, 192)
    y = run("c_plus_ab_bf16", {0: a, 1: b, 2: c})[2]
    _check(y, _ref(_t(c) + _t(a) @ _t(b)), 6e-2, 1e-2)


def test_epi_gelu_tanh_bf16_operands():
    a, b = _bf(200, 128), _bf(128, 192, scale=0.25)
    y = run("epi_gelu_tanh_bf16_operands", {0: a, 1: b})[2]
    _check(y, _ref(torch.nn.functional.gelu(_t(a) @ _t(b), approximate="tanh")), 3e-2, 1e-2)


def test_every_program_is_checked():
    import inspect

    src = inspect.getsource(sys.modules[__name__]) + inspect.getsource(s14e)
    assert not [n for n in TABLE if f'"{n}"' not in src]
