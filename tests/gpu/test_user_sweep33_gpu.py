"""The thirty-third user sweep on the GPU: every program of ``tileorch.testing.user_programs33`` runs through
``tileorch.cutile.launch`` on its spec's ragged shapes and grid, against the independent numpy references of
tests/unit/test_user_sweep33_interp.py (the SIMT programs) and tests/unit/test_user_sweep33_emulated.py (the two-dot
programs on the chained kernel and the tier's GEMMs), each with its ``run`` / ``emulate`` swapped for
sweep_harness.gpu_run: every array inside a larger buffer of the fill, whose tail must stay the fill; the path each
program compiles to AND the path its launch ran (tileorch.testing.launch_path: a launch-time SIMT fall back fails)
checked against its table entry.  Then two programs at larger ragged sizes against torch (float64): the causal
sliding window given as a scalar argument (2 x 4 heads, 1500 queries, window 333, head dim 128) and multi-query
attention (8 query heads over one K / V head, 1000 queries against 1777 keys).  Skipped without a GPU; needs torch,
cuda-tile and ml_dtypes.  Run: ``python -m pytest -q tests/gpu/test_user_sweep33_gpu.py``."""

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
import test_user_sweep33_emulated as s33e  # noqa: E402
import test_user_sweep33_interp as s33  # noqa: E402
from sweep_harness import generator as _gen  # noqa: E402
from sweep_harness import launch as _launch  # noqa: E402

from tileorch.testing import launch_path  # noqa: E402
from tileorch.testing import user_programs33 as up  # noqa: E402
from tileorch.testing.user_programs33 import PROGRAMS  # noqa: E402

CHAINED = {n for n, p in PROGRAMS.items() if p.path == "chained"}
GEMM = {n for n, p in PROGRAMS.items() if p.path == "gemm"}
SIMT = {n: p for n, p in PROGRAMS.items() if p.path == "simt"}


def _gpu_run(name, inputs, program=None):
    return sweep_harness.gpu_run(PROGRAMS if program is None else {**PROGRAMS, name: program}, name, inputs)


def test_every_program_has_a_test():
    import inspect

    source = inspect.getsource(s33)
    assert all(f'run("{n}"' in source for n in SIMT), [n for n in SIMT if f'run("{n}"' not in source]
    assert set(s33e.CASES) == GEMM and set(s33e.ATTENTION_CASES) == CHAINED


@pytest.mark.parametrize("test", sorted(n for n in dir(s33) if n.startswith("test_")))
def test_on_the_gpu_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s33, "run", _gpu_run)
    s33.every_case(getattr(s33, test))


@pytest.mark.parametrize("case", sorted(s33e.CASES))
def test_tier_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(s33e, "emulate", lambda name, inputs: _gpu_run(name, inputs))
    s33e.CASES[case]()


@pytest.mark.parametrize("name", sorted(CHAINED))
def test_chained_program_on_the_gpu(name):
    s33e.run_attention_case(name, lambda n, inputs: _gpu_run(n, inputs))


def _cdiv(a, b):
    return -(-a // b)


def _checked(name, grid, args):
    """Launch program ``name`` on ``grid`` and ``args``; its launch must run the program's table path."""
    p = PROGRAMS[name]
    launch_path.checked_launch(name, p.path, p.kernel, grid, args, lambda: _launch(grid, p.kernel, args))


def test_causal_window_scalar_arg_at_size_against_torch():
    """2 x 4 heads, 1500 queries (ragged: 24 tiles of 64, the last of 28), window 333 (rows whose first key tiles
    are all outside the window: the guarded maximum), head dim 128."""
    bh, s, d, w = 8, 1500, 128, 333
    q, k, v = (torch.randn(bh, s, d, device="cuda", generator=_gen(3301 + i)).half() for i in range(3))
    o = torch.full((bh, s, d), float("nan"), device="cuda", dtype=torch.float16)
    _checked("attn_causal_window_scalar_arg", (_cdiv(s, 64), bh), (q, k, v, o, up.scale2(d), w, 64, 64, d))
    i, j = torch.arange(s, device="cuda")[:, None], torch.arange(s, device="cuda")[None, :]
    sc = (q.double() @ k.double().transpose(1, 2)) / math.sqrt(d)
    sc = sc.masked_fill(~((j <= i) & (j > i - w)), float("-inf"))
    torch.testing.assert_close(o.double(), torch.softmax(sc, -1) @ v.double(), rtol=1e-2, atol=1e-2)


def test_mqa_one_kv_head_at_size_against_torch():
    """B = 2, 8 query heads over one K / V head, 1000 queries against 1777 keys, head dim 64."""
    b, h, sq, sk, d = 2, 8, 1000, 1777, 64
    q = torch.randn(b, h, sq, d, device="cuda", generator=_gen(3305)).half()
    k, v = (torch.randn(b, sk, d, device="cuda", generator=_gen(3306 + i)).half() for i in range(2))
    o = torch.full((b, h, sq, d), float("nan"), device="cuda", dtype=torch.float16)
    _checked("attn_mqa_one_kv_head_bhsd", (_cdiv(sq, 64), h, b), (q, k, v, o, up.scale2(d), h, 64, 64, d))
    sc = (q.double() @ k.double()[:, None].transpose(2, 3)) / math.sqrt(d)
    torch.testing.assert_close(o.double(), torch.softmax(sc, -1) @ v.double()[:, None], rtol=1e-2, atol=1e-2)
