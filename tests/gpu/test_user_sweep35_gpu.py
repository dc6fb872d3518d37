"""The thirty-fifth user sweep on the GPU: every program of ``tileorch.testing.user_programs35`` (written in the
spelling of cuTile's published samples) runs through ``tileorch.cutile.launch`` on its spec's ragged shapes and grid,
against the independent numpy references of tests/unit/test_user_sweep35_interp.py (the SIMT programs) and
tests/unit/test_user_sweep35_emulated.py (the two-dot programs on the chained kernel and the tier's GEMMs), each with
its ``run`` / ``emulate`` swapped for sweep_harness.gpu_run: every array inside a larger buffer of the fill, whose
tail must stay the fill; the path each program compiles to AND the path its launch ran (tileorch.testing.launch_path:
a launch-time SIMT fall back fails) checked against its table entry.  Then two programs at larger ragged sizes
against torch (float64): the FMHA sample's kernel (GQA 4 query heads per K / V head, causal, 1000 tokens, head dims
128 / 64, K read by ``order``) and split-K by atomics (1000 x 500 x 4096 in 4 splits).  Skipped without a GPU; needs
torch, cuda-tile and ml_dtypes.  Run: ``python -m pytest -q tests/gpu/test_user_sweep35_gpu.py``."""

from __future__ import annotations

import math
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
import test_user_sweep35_emulated as s35e  # noqa: E402
import test_user_sweep35_interp as s35  # noqa: E402
from sweep_harness import generator as _gen  # noqa: E402
from sweep_harness import launch as _launch  # noqa: E402

from tileorch.testing import launch_path  # noqa: E402
from tileorch.testing.user_programs35 import PROGRAMS  # noqa: E402

CHAINED = {n for n, p in PROGRAMS.items() if p.path == "chained"}
GEMM = {n for n, p in PROGRAMS.items() if p.path == "gemm"}
SIMT = {n: p for n, p in PROGRAMS.items() if p.path == "simt"}


def _gpu_run(name, inputs, program=None):
    return sweep_harness.gpu_run(PROGRAMS if program is None else {**PROGRAMS, name: program}, name, inputs)


def test_every_program_has_a_test():
    import inspect

    source = inspect.getsource(s35)
    assert all(f'run("{n}"' in source for n in SIMT), [n for n in SIMT if f'run("{n}"' not in source]
    assert set(s35e.CASES) == GEMM and set(s35e.ATTENTION_CASES) == CHAINED


@pytest.mark.parametrize("test", sorted(n for n in dir(s35) if n.startswith("test_")))
def test_on_the_gpu_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s35, "run", _gpu_run)
    s35.every_case(getattr(s35, test))


@pytest.mark.parametrize("case", sorted(s35e.CASES))
def test_tier_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(s35e, "emulate", lambda name, inputs: _gpu_run(name, inputs))
    s35e.CASES[case]()


@pytest.mark.parametrize("name", sorted(CHAINED))
def test_chained_program_on_the_gpu(name):
    s35e.run_attention_case(name, lambda n, inputs: _gpu_run(n, inputs))


def _cdiv(a, b):
    return -(-a // b)


def _checked(name, grid, args):
    """Launch program ``name`` on ``grid`` and ``args``; its launch must run the program's table path."""
    p = PROGRAMS[name]
    launch_path.checked_launch(name, p.path, p.kernel, grid, args, lambda: _launch(grid, p.kernel, args))


def test_fmha_sample_kernel_at_size_against_torch():
    """B = 2, 8 query heads over 4 K / V heads, 1000 tokens (16 tiles of 64, the last of 40), causal, Dqk = 128,
    Dv = 64, the sample's EVEN_K = False path."""
    b, hq, hkv, s, dqk, dv = 2, 8, 4, 1000, 128, 64
    q = torch.randn(b, hq, s, dqk, device="cuda", generator=_gen(3501)).half()
    k = torch.randn(b, hkv, s, dqk, device="cuda", generator=_gen(3502)).half()
    v = torch.randn(b, hkv, s, dv, device="cuda", generator=_gen(3503)).half()
    o = torch.full((b, hq, s, dv), float("nan"), device="cuda", dtype=torch.float16)
    _checked("fmha_gqa_k_by_order_dv_64_dqk_128", (_cdiv(s, 64), b * hq),
             (q, k, v, o, 1 / math.sqrt(dqk), 0, dqk, dv, hq, 64, 64, 2, True, s % 64 == 0))
    kk, vv = k.double().repeat_interleave(2, dim=1), v.double().repeat_interleave(2, dim=1)
    sc = (q.double() @ kk.transpose(2, 3)) / math.sqrt(dqk)
    i, j = torch.arange(s, device="cuda")[:, None], torch.arange(s, device="cuda")[None, :]
    sc = sc.masked_fill(j > i, float("-inf"))
    torch.testing.assert_close(o.double(), torch.softmax(sc, -1) @ vv, rtol=1e-2, atol=1e-2)


def test_split_k_at_size_against_torch():
    """M = 1000, N = 500, K = 4096 (64 K tiles) in 4 splits of 16 tiles, f16 in, f32 out added atomically into a
    zeroed C."""
    m, n, k, splits = 1000, 500, 4096, 4
    a = torch.randn(m, k, device="cuda", generator=_gen(3504)).half()
    b = (torch.randn(k, n, device="cuda", generator=_gen(3505)) * 0.1).half()
    c = torch.zeros(m, n, device="cuda", dtype=torch.float32)
    _checked("split_k_atomic_add_f32", (_cdiv(m, 64), _cdiv(n, 64), splits), (a, b, c, splits, 64, 64, 64))
    torch.testing.assert_close(c.double(), a.double() @ b.double(), rtol=1e-3, atol=2e-3)
