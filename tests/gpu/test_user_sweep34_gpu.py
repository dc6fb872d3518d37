"""The thirty-fourth user sweep on the GPU: every program of ``tileorch.testing.user_programs34`` runs through
``tileorch.cutile.launch`` on its spec's ragged shapes and grid, against the independent numpy references of
tests/unit/test_user_sweep34_interp.py (the SIMT programs) and tests/unit/test_user_sweep34_emulated.py (the two-dot
programs on the chained kernel and the tier's GEMMs), each with its ``run`` / ``emulate`` swapped for
sweep_harness.gpu_run: every array inside a larger buffer of the fill, whose tail must stay the fill; the path each
program compiles to AND the path its launch ran (tileorch.testing.launch_path: a launch-time SIMT fall back fails)
checked against its table entry.  Then two programs at larger ragged sizes against torch (float64): GQA with 4
query heads per K / V head over three grid axes (causal, 1000 tokens, head dim 128) and causal attention with fewer
queries than keys aligned bottom-right (300 queries against 1777 keys).  Skipped without a GPU; needs torch,
cuda-tile and ml_dtypes.  Run: ``python -m pytest -q tests/gpu/test_user_sweep34_gpu.py``."""

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
import test_user_sweep34_emulated as s34e  # noqa: E402
import test_user_sweep34_interp as s34  # noqa: E402
from sweep_harness import generator as _gen  # noqa: E402
from sweep_harness import launch as _launch  # noqa: E402

from tileorch.testing import launch_path  # noqa: E402
from tileorch.testing import user_programs34 as up  # noqa: E402
from tileorch.testing.user_programs34 import PROGRAMS  # noqa: E402

CHAINED = {n for n, p in PROGRAMS.items() if p.path == "chained"}
GEMM = {n for n, p in PROGRAMS.items() if p.path == "gemm"}
SIMT = {n: p for n, p in PROGRAMS.items() if p.path == "simt"}


def _gpu_run(name, inputs, program=None):
    return sweep_harness.gpu_run(PROGRAMS if program is None else {**PROGRAMS, name: program}, name, inputs)


def test_every_program_has_a_test():
    import inspect

    source = inspect.getsource(s34)
    assert all(f'run("{n}"' in source for n in SIMT), [n for n in SIMT if f'run("{n}"' not in source]
    assert set(s34e.CASES) == GEMM and set(s34e.ATTENTION_CASES) == CHAINED


@pytest.mark.parametrize("test", sorted(n for n in dir(s34) if n.startswith("test_")))
def test_on_the_gpu_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s34, "run", _gpu_run)
    s34.every_case(getattr(s34, test))


@pytest.mark.parametrize("case", sorted(s34e.CASES))
def test_tier_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(s34e, "emulate", lambda name, inputs: _gpu_run(name, inputs))
    s34e.CASES[case]()


@pytest.mark.parametrize("name", sorted(CHAINED))
def test_chained_program_on_the_gpu(name):
    s34e.run_attention_case(name, lambda n, inputs: _gpu_run(n, inputs))


def _cdiv(a, b):
    return -(-a // b)


def _checked(name, grid, args):
    """Launch program ``name`` on ``grid`` and ``args``; its launch must run the program's table path."""
    p = PROGRAMS[name]
    launch_path.checked_launch(name, p.path, p.kernel, grid, args, lambda: _launch(grid, p.kernel, args))


def test_gqa_bhsd_4_q_heads_per_kv_at_size_against_torch():
    """B = 2, 8 query heads over 2 K / V heads, 1000 tokens (ragged: 16 tiles of 64, the last of 40), causal, head dim
    128."""
    b, hq, hkv, s, d = 2, 8, 2, 1000, 128
    q = torch.randn(b, hq, s, d, device="cuda", generator=_gen(3401)).half()
    k, v = (torch.randn(b, hkv, s, d, device="cuda", generator=_gen(3402 + i)).half() for i in range(2))
    o = torch.full((b, hq, s, d), float("nan"), device="cuda", dtype=torch.float16)
    _checked("attn_gqa_bhsd_4_q_heads_per_kv_causal", (_cdiv(s, 64), hq, b), (q, k, v, o, up.scale2(d), 4, 64, 64, d))
    kk, vv = (x.double().repeat_interleave(4, dim=1) for x in (k, v))
    sc = (q.double() @ kk.transpose(2, 3)) / math.sqrt(d)
    i, j = torch.arange(s, device="cuda")[:, None], torch.arange(s, device="cuda")[None, :]
    sc = sc.masked_fill(j > i, float("-inf"))
    torch.testing.assert_close(o.double(), torch.softmax(sc, -1) @ vv, rtol=1e-2, atol=1e-2)


def test_causal_bottom_right_at_size_against_torch():
    """4 heads, 300 queries against 1777 keys (a chunk of prefill against its cache), head dim 64: query i sees keys
    j <= i + 1477."""
    bh, sq, sk, d = 4, 300, 1777, 64
    q = torch.randn(bh, sq, d, device="cuda", generator=_gen(3405)).half()
    k, v = (torch.randn(bh, sk, d, device="cuda", generator=_gen(3406 + i)).half() for i in range(2))
    o = torch.full((bh, sq, d), float("nan"), device="cuda", dtype=torch.float16)
    _checked("attn_causal_bottom_right_sq_lt_sk", (_cdiv(sq, 64), bh), (q, k, v, o, up.scale2(d), 64, 64, d))
    sc = (q.double() @ k.double().transpose(1, 2)) / math.sqrt(d)
    i, j = torch.arange(sq, device="cuda")[:, None], torch.arange(sk, device="cuda")[None, :]
    sc = sc.masked_fill(j > i + (sk - sq), float("-inf"))
    torch.testing.assert_close(o.double(), torch.softmax(sc, -1) @ v.double(), rtol=1e-2, atol=1e-2)
