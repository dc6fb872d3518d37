"""The thirty-first user sweep on the GPU: every program of ``tileorch.testing.user_programs31`` runs through
``tileorch.cutile.launch`` on its spec's ragged shapes and grid, against the independent numpy references of
tests/unit/test_user_sweep31_interp.py (the SIMT programs, the refused dots and the strided-batch GEMM -- here on the
tier with a strided torch view) and tests/unit/test_user_sweep31_emulated.py (the attention-shaped programs and the
GELU MLP chain -- bf16 ones with bf16 inputs here, the CPU emulator runs their f16 twins -- and the tier's GEMMs),
each with its ``run`` / ``emulate`` swapped for sweep_harness.gpu_run: every array inside a larger buffer of the
fill, whose tail must stay the fill; the path each program compiles to checked against its table entry.  Then two
programs at larger ragged sizes against torch (float64): attention with K stored ``[B, H, D, S]`` (head dim 128,
1000 queries) and the hand-written split-K GEMM.  Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.
Run: ``python -m pytest -q tests/gpu/test_user_sweep31_gpu.py``."""

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

import numpy as np  # noqa: E402

import sweep_harness  # noqa: E402
import test_user_sweep31_emulated as s31e  # noqa: E402
import test_user_sweep31_interp as s31  # noqa: E402
from sweep_harness import generator as _gen  # noqa: E402
from sweep_harness import launch as _launch  # noqa: E402

from tileorch.testing import user_programs31 as up  # noqa: E402
from tileorch.testing.user_programs31 import PROGRAMS  # noqa: E402

CHAINED = {n for n, p in PROGRAMS.items() if p.path == "chained"}
GEMM = {n for n, p in PROGRAMS.items() if p.path == "gemm"}
SIMT = {n: p for n, p in PROGRAMS.items() if p.path == "simt"}


LAUNCH_RUNS_SIMT: set = set()  # session 42: gemm_batched_strided_batch_view runs on the tier (a strided batch: A's tensor map takes its batch stride)
"""Tier programs whose launch on their spec's arrays runs the SIMT path by design, with a PerformanceWarning saying
why (none since session 42; before, A a strided batch view (batch stride 12800 elements, not 100 x 64): the batched WGMMA GEMM's tensor maps need contiguous matrices -- session 41's launch-path check found that this launch never ran on the tier (this file checked the compile's path only)); the harness checks that the launch ran exactly that path (sweep_harness.gpu_run's ``ran``)."""


def _gpu_run(name, inputs, program=None):
    return sweep_harness.gpu_run(PROGRAMS if program is None else {**PROGRAMS, name: program}, name, inputs,
                                 ran="simt" if name in LAUNCH_RUNS_SIMT else None)


def _bf16(x):
    return np.asarray(x, np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)


def test_every_program_has_a_test():
    import inspect

    source = inspect.getsource(s31)
    assert all(f'run("{n}"' in source for n in SIMT), [n for n in SIMT if f'run("{n}"' not in source]
    assert set(s31e.CASES) | s31e.STRIDED == GEMM and set(s31e.ATTENTION_CASES) == CHAINED
    assert all(f'run("{n}"' in source for n in s31e.STRIDED)


@pytest.mark.parametrize("test", sorted(n for n in dir(s31) if n.startswith("test_")))
def test_on_the_gpu_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s31, "run", _gpu_run)
    s31.every_case(getattr(s31, test))


@pytest.mark.parametrize("case", sorted(s31e.CASES))
def test_tier_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(s31e, "emulate", lambda name, inputs: _gpu_run(name, inputs))
    s31e.CASES[case]()


@pytest.mark.parametrize("name", sorted(CHAINED))
def test_chained_program_on_the_gpu(name):
    bf16 = any(isinstance(s, tuple) and s[1] == "bfloat16" for s in PROGRAMS[name].spec)
    s31e.run_attention_case(name, lambda n, inputs: _gpu_run(n, inputs), _bf16 if bf16 else None)


def _cdiv(a, b):
    return -(-a // b)


def test_k_stored_transposed_attention_at_size_against_torch():
    """2 x 4 heads x 1000 queries (ragged: 16 query tiles of 64, the last of 40), K cached ``[B, H, D, S]``, head
    dim 128, f16 in and out."""
    b, h, s, d = 2, 4, 1000, 128
    q, k, v = (torch.randn(b, h, s, d, device="cuda", generator=_gen(3101 + i)).half() for i in range(3))
    kt = k.transpose(2, 3).contiguous()
    o = torch.full((b, h, s, d), float("nan"), device="cuda", dtype=torch.float16)
    _launch((_cdiv(s, 64), b * h), up.attn_bhsd_k_stored_transposed, (q, kt, v, o, up.scale2(d), h, 64, 64, d))
    ref = torch.softmax((q.double() @ k.double().transpose(2, 3)) / math.sqrt(d), -1) @ v.double()
    torch.testing.assert_close(o.double(), ref, rtol=1e-2, atol=1e-2)


def test_split_k_by_hand_at_size_against_torch():
    """M = 1000, N = 520, K = 4000 in 5 splits (f16 in, f32 atomics into a zero-filled C)."""
    m, n, k = 1000, 520, 4000
    a = torch.randn(m, k, device="cuda", generator=_gen(3104)).half()
    w = (torch.randn(k, n, device="cuda", generator=_gen(3105)) * 0.05).half()
    c = torch.zeros(m, n, device="cuda")
    _launch((_cdiv(m, 64), _cdiv(n, 64), 5), up.split_k_by_hand_atomic_f32_runtime_split, (a, w, c, 64, 64, 32))
    torch.testing.assert_close(c.double(), a.double() @ w.double(), rtol=1e-3, atol=1e-2)
