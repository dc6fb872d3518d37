"""The eighteenth user sweep on the GPU (issue 20 and the principal tier: dot and attention-shaped
programs acceptance runs that we will not see): every program of ``tileorch.testing.user_programs18``
runs through ``tileorch.cutile.launch`` on its spec's ragged shapes and grid (tests/gpu/sweep_harness.gpu_run:
every array inside a larger buffer of the fill, NaN for floats, an integer sentinel, the fp8 NaN
byte; outputs start as the fill and the tails must stay it; the path the program compiles to checked
against its table entry).  The f16 programs rerun tests/unit/test_user_sweep18_emulated.py's cases
(float64 numpy references) with the emulator swapped for the GPU; the programs the emulator cannot
run (bf16 and fp8 WGMMAs) and the programs the tiers refuse (the SIMT path's mma.sync) are checked
here against torch fp32 on the GPU.  Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.
Run: ``python -m pytest -q tests/gpu/test_user_sweep18_gpu.py``."""

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
import test_user_sweep18_emulated as s18e  # noqa: E402
from test_user_sweep16_gpu import _bf, _check, _h, _ref, _t  # noqa: E402

from tileorch.testing.user_programs18 import PROGRAMS  # noqa: E402

if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

RNG = np.random.default_rng(2418)
TABLE = {**PROGRAMS, **s18e.TWINS}


def run(name: str, inputs: dict) -> dict:
    return sweep_harness.gpu_run(TABLE, name, inputs)


# ----------------------------------------------------------------------------------------------- the emulated f16 cases


@pytest.mark.parametrize("case", sorted(s18e.CASES))
def test_emulated_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(s18e, "emulate", run)
    monkeypatch.setattr(s18e, "chained", run)
    s18e.CASES[case]()


# ----------------------------------------------------------------------------------------------- bf16 / fp8


def test_attn_bf16_in_f32_out_causal():
    q, k, v = _bf(2, 256, 64), _bf(2, 256, 64), _bf(2, 256, 64)
    o = run("attn_bf16_in_f32_out_causal", {0: q, 1: k, 2: v})[3]
    s = (_t(q) @ _t(k).transpose(-1, -2)) * 0.125
    mask = torch.arange(256, device="cuda")[None, :] <= torch.arange(256, device="cuda")[:, None]
    _check(o, _ref(torch.softmax(s.masked_fill(~mask, float("-inf")), -1) @ _t(v)), 2e-2, 2e-2)


def test_gemm_tile_64x256_bf16():
    a, b = _bf(100, 128), _bf(128, 500, scale=0.25)
    _check(run("gemm_tile_64x256_bf16", {0: a, 1: b})[2], _ref(_t(a) @ _t(b)), 2e-3, 1e-3)


def test_gemm_bias_gelu_tanh_dropout_bf16():
    a, b = _bf(200, 128), _bf(128, 192, scale=0.1)
    bias = RNG.standard_normal(192).astype(np.float32)
    keep = (RNG.random((200, 192)) < 0.8).astype(np.uint8)
    y = run("gemm_bias_gelu_tanh_dropout_bf16", {0: a, 1: b, 2: bias, 3: keep})[4]
    x = _t(a) @ _t(b) + _t(bias)[None, :]
    ref = torch.nn.functional.gelu(x, approximate="tanh") * _t(keep) * 1.25
    _check(y, _ref(ref), 3e-2, 1e-2)


def test_gemm_fp8_e5m2_a_to_e4m3():
    """e5m2 values inside e4m3's range convert exactly (two mantissa bits into three)."""
    a = (RNG.standard_normal((200, 256)) * 2).astype(ml_dtypes.float8_e5m2)
    b = (RNG.standard_normal((256, 192)) * 0.5).astype(ml_dtypes.float8_e4m3fn)
    y = run("gemm_fp8_e5m2_a_to_e4m3", {0: a.view(np.uint8), 1: b.view(np.uint8)})[2]
    ref = (_t(a.astype(np.float32)) @ _t(b.astype(np.float32))) * 0.5
    _check(y, _ref(ref), 0.25, 1e-2)


# ----------------------------------------------------------------------------------------------- refused by the tiers


def test_gemm_k8_single_tile():
    a, b = _h(200, 8), _h(8, 192)
    _check(run("gemm_k8_single_tile", {0: a, 1: b})[2], _ref(_t(a) @ _t(b)), 1e-3)


def test_gemm_elementwise_before_loop():
    a, b, x2 = _h(200, 128), _h(128, 192, scale=0.25), _h(200, 192)
    out = run("gemm_elementwise_before_loop", {0: a, 1: b, 3: x2})
    _check(out[2], _ref(_t(a) @ _t(b)), 2e-2)
    _check(out[4], np.maximum(x2.astype(np.float64), 0.0), 0.0)


def test_mlp_relu_sq_chain_wt():
    """The squared hidden layer rounded to f16 before the second dot, as the program does."""
    x, w1, w2t = _h(200, 256), _h(256, 64, scale=0.1), _h(192, 64, scale=0.2)
    y = run("mlp_relu_sq_chain_wt", {0: x, 1: w1, 2: w2t})[3]
    h = torch.relu(_t(x) @ _t(w1))
    _check(y, _ref((h * h).half().float() @ _t(w2t).T), 2e-2, 1e-2)


def test_attn_f16_pv_accumulator():
    """The PV product accumulated in f16 (the SIMT path's mma.sync rounds to the f16 accumulator)."""
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = run("attn_f16_pv_accumulator", {0: q, 1: k, 2: v})[3]
    s = (_t(q) @ _t(k).transpose(-1, -2)) * 0.125
    mask = torch.arange(256, device="cuda")[None, :] <= torch.arange(256, device="cuda")[:, None]
    _check(o, _ref(torch.softmax(s.masked_fill(~mask, float("-inf")), -1) @ _t(v)), 2e-2, 1e-2)


def test_gemm_f64_output():
    a, b = _h(200, 128), _h(128, 192, scale=0.25)
    _check(run("gemm_f64_output", {0: a, 1: b})[2], _ref(_t(a).double() @ _t(b).double()), 1e-4, 1e-5)


def test_every_program_is_checked():
    import inspect

    src = inspect.getsource(sys.modules[__name__]) + inspect.getsource(s18e)
    assert not [n for n in PROGRAMS if f'"{n}' not in src]
