"""The twenty-seventh user sweep on the GPU: every program of ``tileorch.testing.user_programs27`` runs through
``tileorch.cutile.launch`` on its spec's ragged shapes and grid, against the independent numpy references of
tests/unit/test_user_sweep27_interp.py (the SIMT programs) and tests/unit/test_user_sweep27_emulated.py (the
tier's GEMMs), each with its ``run`` / ``emulate`` swapped for sweep_harness.gpu_run: every array inside a larger
buffer of the fill, whose tail must stay the fill; the path each program compiles to checked against its table
entry.  Then three GEMMs at larger ragged sizes against torch (the persistent grouped GEMM on 132 programs, split-K
over 4 splits, the int8 GEMM).  Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.  Run:
``python -m pytest -q tests/gpu/test_user_sweep27_gpu.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
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
import test_user_sweep27_emulated as s27e  # noqa: E402
import test_user_sweep27_interp as s27  # noqa: E402
from sweep_harness import generator as _gen  # noqa: E402
from sweep_harness import launch as _launch  # noqa: E402

from tileorch.testing import user_programs27 as up  # noqa: E402
from tileorch.testing.user_programs27 import PROGRAMS  # noqa: E402

GEMM = {n for n, p in PROGRAMS.items() if p.path != "simt"}
SIMT = {n: p for n, p in PROGRAMS.items() if n not in GEMM}


def _gpu_run(name, inputs, program=None):
    return sweep_harness.gpu_run(PROGRAMS if program is None else {**PROGRAMS, name: program}, name, inputs)


def test_every_program_has_a_test():
    import inspect

    source = inspect.getsource(s27)
    assert all(f'run("{n}"' in source for n in SIMT), [n for n in SIMT if f'run("{n}"' not in source]
    assert set(s27e.CASES) == GEMM, GEMM ^ set(s27e.CASES)


@pytest.mark.parametrize("test", sorted(n for n in dir(s27) if n.startswith("test_")))
def test_on_the_gpu_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s27, "run", _gpu_run)
    s27.every_case(getattr(s27, test))


@pytest.mark.parametrize("case", sorted(s27e.CASES))
def test_tier_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(s27e, "emulate", lambda name, inputs: sweep_harness.gpu_run(PROGRAMS, name, inputs))
    s27e.CASES[case]()


def test_persistent_grouped_gemm_at_size_against_torch():
    """1000 x 1500 x 520 (ragged in all three) on 132 programs of the grouped persistent loop."""
    m, n, k = 1000, 1500, 520
    a = torch.randn(m, k, device="cuda", generator=_gen(2731), dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", generator=_gen(2732), dtype=torch.float16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    _launch((132,), up.persistent_gemm_grouped_from_pid, (a, b, c, 8, 64, 64, 32))
    torch.testing.assert_close(c.double(), a.double() @ b.double(), rtol=5e-3, atol=5e-2)


def test_split_k_four_splits_against_torch():
    """300 x 200 x 2000 over 4 K splits (the last range short), summed by atomics into a zeroed C."""
    m, n, k = 300, 200, 2000
    a = torch.randn(m, k, device="cuda", generator=_gen(2733), dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", generator=_gen(2734), dtype=torch.float16)
    c = torch.zeros(m, n, device="cuda")
    _launch((-(-m // 64), -(-n // 64), 4), up.split_k_gemm_atomic_add_axis2, (a, b, c, 64, 64, 32))
    torch.testing.assert_close(c.double(), a.double() @ b.double(), rtol=1e-3, atol=5e-2)


def test_int8_gemm_at_size_exact():
    """int8 x int8 -> int32, 500 x 384 x 1024: exact."""
    m, n, k = 500, 384, 1024
    a = torch.randint(-128, 128, (m, k), device="cuda", generator=_gen(2735), dtype=torch.int8)
    b = torch.randint(-128, 128, (k, n), device="cuda", generator=_gen(2736), dtype=torch.int8)
    c = torch.zeros(m, n, device="cuda", dtype=torch.int32)
    _launch((-(-m // 64), n // 64), up.int8_gemm_int32_out, (a, b, c, 64, 64, 32))
    assert torch.equal(c.long(), a.long().cpu().mm(b.long().cpu()).cuda())
