"""The twenty-ninth user sweep on the GPU: every program of ``tileorch.testing.user_programs29`` runs through
``tileorch.cutile.launch`` on its spec's ragged shapes and grid, against the independent numpy references of
tests/unit/test_user_sweep29_interp.py (the SIMT programs and the refused dots) and
tests/unit/test_user_sweep29_emulated.py (the tier's GEMMs, the fp8 ones included: the CPU emulator models e4m3 /
e5m2 WGMMA since session 38, with exact f32 sums the tensor core need not give), each with its ``run`` / ``emulate`` swapped for sweep_harness.gpu_run:
every array inside a larger buffer of the fill, whose tail must stay the fill; the path each program compiles to
checked against its table entry.  Then three programs at larger ragged sizes against torch: the fp8 e4m3 GEMM with
per-tensor scales, the int8 GEMM with a ragged K, and split-K by atomics.  Skipped without a GPU; needs torch,
cuda-tile and ml_dtypes.  Run: ``python -m pytest -q tests/gpu/test_user_sweep29_gpu.py``."""

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
import test_user_sweep29_emulated as s29e  # noqa: E402
import test_user_sweep29_interp as s29  # noqa: E402
from sweep_harness import generator as _gen  # noqa: E402
from sweep_harness import launch as _launch  # noqa: E402

from tileorch.testing import user_programs29 as up  # noqa: E402
from tileorch.testing.user_programs29 import PROGRAMS  # noqa: E402

GEMM = {n for n, p in PROGRAMS.items() if p.path != "simt"}
SIMT = {n: p for n, p in PROGRAMS.items() if n not in GEMM}


def _gpu_run(name, inputs, program=None):
    return sweep_harness.gpu_run(PROGRAMS if program is None else {**PROGRAMS, name: program}, name, inputs)


def test_every_program_has_a_test():
    import inspect

    source = inspect.getsource(s29)
    assert all(f'run("{n}"' in source for n in SIMT), [n for n in SIMT if f'run("{n}"' not in source]
    assert set(s29e.CASES) == GEMM, GEMM ^ set(s29e.CASES)


@pytest.mark.parametrize("test", sorted(n for n in dir(s29) if n.startswith("test_")))
def test_on_the_gpu_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s29, "run", _gpu_run)
    s29.every_case(getattr(s29, test))


@pytest.mark.parametrize("case", sorted(s29e.CASES))
def test_tier_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(s29e, "emulate", lambda name, inputs: sweep_harness.gpu_run(PROGRAMS, name, inputs))
    s29e.CASES[case]()


def _cdiv(a, b):
    return -(-a // b)


def test_fp8_e4m3_gemm_with_tensor_scales_at_size_against_torch():
    """1000 x 700 x 512 (M and N ragged): e4m3 operands, scales 0.5 and 0.25 from 1-element tensors, bf16 out."""
    m, n, k = 1000, 700, 512
    a = torch.randn(m, k, device="cuda", generator=_gen(2901)).to(torch.float8_e4m3fn)
    b = (torch.randn(k, n, device="cuda", generator=_gen(2902)) * 0.5).to(torch.float8_e4m3fn)
    sa, sb = torch.tensor([0.5], device="cuda"), torch.tensor([0.25], device="cuda")
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    _launch((_cdiv(m, 64), _cdiv(n, 64)), up.fp8_e4m3_gemm_tensor_scales_from_arrays_bf16,
            (a, b, sa, sb, c, 64, 64, 64))
    ref = (a.double() @ b.double()) * 0.125
    torch.testing.assert_close(c.double(), ref, rtol=1e-2, atol=5e-2)


def test_int8_gemm_ragged_k_at_size_against_torch():
    """500 x 300 x 1000 (K = 1000: 15 full K tiles of 64 and one of 40): exact int32 sums."""
    m, n, k = 500, 300, 1000
    a = torch.randint(-128, 128, (m, k), device="cuda", generator=_gen(2903), dtype=torch.int8)
    b = torch.randint(-128, 128, (k, n), device="cuda", generator=_gen(2904), dtype=torch.int8)
    c = torch.full((m, n), -2**31, device="cuda", dtype=torch.int32)
    _launch((_cdiv(m, 64), _cdiv(n, 64)), up.int8_gemm_int32_ragged_k, (a, b, c, 64, 64, 64))
    ref = (a.cpu().long() @ b.cpu().long())
    assert torch.equal(c.cpu().long(), ref)


def test_split_k_by_atomics_at_size_against_torch():
    """400 x 320 x 2048 in 8 splits of 256 (bf16 in, f32 out by atomic adds into zeros)."""
    m, n, k, splits = 400, 320, 2048, 8
    a = torch.randn(m, k, device="cuda", generator=_gen(2905)).to(torch.bfloat16)
    b = (torch.randn(k, n, device="cuda", generator=_gen(2906)) * 0.1).to(torch.bfloat16)
    c = torch.zeros((m, n), device="cuda")
    _launch((_cdiv(m, 64), _cdiv(n, 64), splits), up.split_k_gemm_atomic_add_bf16_in, (a, b, c, splits, 64, 64, 32))
    torch.testing.assert_close(c.double(), a.double() @ b.double(), rtol=1e-3, atol=2e-2)
