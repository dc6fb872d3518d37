"""The thirty-sixth user sweep on the GPU: every program of ``tileorch.testing.user_programs36`` (kernels of LLM
inference / training stacks written in cuTile) runs through ``tileorch.cutile.launch`` on its spec's ragged shapes and
grid, against the independent numpy references of tests/unit/test_user_sweep36_interp.py (the SIMT programs and the
two refused dot programs) and tests/unit/test_user_sweep36_emulated.py (the tier's GEMMs), each with its ``run`` /
``emulate`` swapped for sweep_harness.gpu_run: every array inside a larger buffer of the fill, whose tail must stay
the fill; the path each program compiles to AND the path its launch ran (tileorch.testing.launch_path: a launch-time
SIMT fall back fails) checked against its table entry.  Then two programs at larger ragged sizes against torch
(float64): a decode GEMV in 16-row tiles on the tier (M = 13, 4096 x 11008 weight read through ``order``) and the
fp8 scaled-mm with token / channel scales (1000 x 1000 x 2048).  Skipped without a GPU; needs torch, cuda-tile and
ml_dtypes.  Run: ``python -m pytest -q tests/gpu/test_user_sweep36_gpu.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")
ml_dtypes = pytest.importorskip("ml_dtypes")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if UNIT not in sys.path:  # the CPU tests' numpy references (appended: tests/gpu's modules come first)
    sys.path.append(UNIT)

import sweep_harness  # noqa: E402
import test_user_sweep36_emulated as s36e  # noqa: E402
import test_user_sweep36_interp as s36  # noqa: E402
from sweep_harness import generator as _gen  # noqa: E402
from sweep_harness import launch as _launch  # noqa: E402

from tileorch.testing import launch_path  # noqa: E402
from tileorch.testing.user_programs36 import PROGRAMS  # noqa: E402

GEMM = {n for n, p in PROGRAMS.items() if p.path == "gemm"}
SIMT = {n: p for n, p in PROGRAMS.items() if p.path == "simt"}


def _gpu_run(name, inputs, program=None):
    return sweep_harness.gpu_run(PROGRAMS if program is None else {**PROGRAMS, name: program}, name, inputs)


def test_every_program_has_a_test():
    import inspect

    source = inspect.getsource(s36)
    assert all(f'run("{n}"' in source for n in SIMT), [n for n in SIMT if f'run("{n}"' not in source]
    assert set(s36e.CASES) == GEMM


@pytest.mark.parametrize("test", sorted(n for n in dir(s36) if n.startswith("test_")))
def test_on_the_gpu_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s36, "run", _gpu_run)
    s36.every_case(getattr(s36, test))


@pytest.mark.parametrize("case", sorted(s36e.CASES))
def test_tier_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(s36e, "emulate", lambda name, inputs: _gpu_run(name, inputs))
    s36e.CASES[case]()


def _cdiv(a, b):
    return -(-a // b)


def _checked(name, grid, args):
    """Launch program ``name`` on ``grid`` and ``args``; its launch must run the program's table path."""
    p = PROGRAMS[name]
    launch_path.checked_launch(name, p.path, p.kernel, grid, args, lambda: _launch(grid, p.kernel, args))


def test_decode_gemv_16_row_tile_at_size_against_torch():
    """13 decode rows (a 16-row tile run as a 64-row WGMMA tile) times a Llama MLP weight ``[11008, 4096]`` read
    through ``order``, bf16 out; the launch must run the tier."""
    m, n, k = 13, 11008, 4096
    x = torch.randn(m, k, device="cuda", generator=_gen(3601)).bfloat16()
    w = (torch.randn(n, k, device="cuda", generator=_gen(3602)) * 0.05).bfloat16()
    y = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    _checked("decode_gemv_m3_weight_nk_bf16", (_cdiv(n, 64),), (x, w, y, 16, 64, 64))
    torch.testing.assert_close(y.double(), x.double() @ w.double().T, rtol=2e-2, atol=2e-2)


def test_fp8_scaled_mm_at_size_against_torch():
    """M = 1000, N = 1000, K = 2048, e4m3 activations and a ``[N, K]`` e4m3 weight, per-token and per-channel
    scales, bf16 out."""
    m, n, k = 1000, 1000, 2048
    a = torch.randn(m, k, device="cuda", generator=_gen(3603)).to(torch.float8_e4m3fn)
    w = torch.randn(n, k, device="cuda", generator=_gen(3604)).to(torch.float8_e4m3fn)
    sa = torch.rand(m, device="cuda", generator=_gen(3605)) * 0.01 + 0.001
    sw = torch.rand(n, device="cuda", generator=_gen(3606)) * 0.01 + 0.001
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    _checked("fp8_scaled_mm_weight_nk_token_channel_scales", (_cdiv(m, 64), _cdiv(n, 64)), (a, w, sa, sw, c, 64, 64, 64))
    ref = (a.double() @ w.double().T) * sa.double()[:, None] * sw.double()[None, :]
    torch.testing.assert_close(c.double(), ref, rtol=2e-2, atol=2e-2)
