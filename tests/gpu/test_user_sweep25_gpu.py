"""The twenty-fifth user sweep on the GPU: every program of ``tileorch.testing.user_programs25`` runs through
``tileorch.cutile.launch`` on its spec's ragged shapes and grid (the interpreter's resized GEMV and 4000-program
grid at the spec's full sizes here), against the independent numpy references of
tests/unit/test_user_sweep25_interp.py (the SIMT programs) and tests/unit/test_user_sweep25_emulated.py (the
tier's GEMMs), each with its ``run`` / ``emulate`` swapped for sweep_harness.gpu_run: every array inside a larger
buffer of the fill, whose tail must stay the fill; the path each program compiles to checked against its table
entry.  Then what the emulator cannot run -- the fp8 GEMMs (e4m3 x e4m3 scaled, e5m2 x e5m2) and the column-major
B view -- and a few GEMMs at larger ragged sizes against torch (K not a multiple of the tile, the user's split-K
by atomics, int8 -> int32).  Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.
Run: ``python -m pytest -q tests/gpu/test_user_sweep25_gpu.py``."""

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
import test_user_sweep25_emulated as s25e  # noqa: E402
import test_user_sweep25_interp as s25  # noqa: E402
from sweep_harness import generator as _gen  # noqa: E402
from sweep_harness import launch as _launch  # noqa: E402

from tileorch.testing import user_programs25 as up  # noqa: E402
from tileorch.testing.user_programs25 import PROGRAMS  # noqa: E402

GEMM = {n for n, p in PROGRAMS.items() if p.path != "simt"}
SIMT = {n: p for n, p in PROGRAMS.items() if n not in GEMM}
ON_THE_GPU_ONLY = {"fp8_e4m3_gemm_scaled_f32_out", "fp8_e5m2_gemm_f16_out", "gemm_b_column_major_view"}
"""The tier's programs the emulator cannot run (its WGMMA models no fp8; its runner reads no view strides)."""


def _gpu_run(name, inputs, program=None):
    return sweep_harness.gpu_run(PROGRAMS if program is None else {**PROGRAMS, name: program}, name, inputs)


def test_every_program_has_a_test():
    import inspect

    source = inspect.getsource(s25)
    assert all(f'run("{n}"' in source for n in SIMT), [n for n in SIMT if f'run("{n}"' not in source]
    assert set(s25e.CASES) | ON_THE_GPU_ONLY == GEMM, GEMM ^ (set(s25e.CASES) | ON_THE_GPU_ONLY)


@pytest.mark.parametrize("test", sorted(n for n in dir(s25) if n.startswith("test_")))
def test_on_the_gpu_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s25, "run", _gpu_run)
    monkeypatch.setattr(s25, "_FULL", True)  # the spec's sizes (the interpreter runs a part of the GEMV / grid)
    s25.every_case(getattr(s25, test))


@pytest.mark.parametrize("case", sorted(s25e.CASES))
def test_tier_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(s25e, "emulate", lambda name, inputs: sweep_harness.gpu_run(PROGRAMS, name, inputs))
    s25e.CASES[case]()


RNG = np.random.default_rng(2526)


def _fp8(shape, fmt, scale):
    """(bytes, values as float64) of fp8 ``fmt`` values drawn at ``scale``."""
    q = (RNG.standard_normal(shape) * scale).astype(np.float32).astype(fmt)
    return q.view(np.uint8), q.astype(np.float64)


def test_fp8_e4m3_gemm_scaled():
    (a, ad), (b, bd) = _fp8((128, 128), ml_dtypes.float8_e4m3fn, 4.0), _fp8((128, 128), ml_dtypes.float8_e4m3fn, 4.0)
    out = _gpu_run("fp8_e4m3_gemm_scaled_f32_out", {0: a, 1: b})[2]
    # exact products, but not f32 sums: Hopper's fp8 WGMMA adds its products in a narrower accumulator than
    # f32 (about 14 bits of mantissa kept; the H100 run of session 33 measured errors up to 0.073 on sums
    # of magnitude ~50 against the exact f64 sum), so the bound scales with the sum of |products|: a wrong
    # scale, layout or operand order is off by O(1..50), far outside it
    bound = 2.0 ** -9 * (np.abs(ad) @ np.abs(bd)) * 0.25 + 1e-3
    err = np.abs(out.astype(np.float64) - ad @ bd * 0.25)
    assert not np.isnan(out).any() and (err <= bound).all(), (err.max(), (err / bound).max())


def test_fp8_e5m2_gemm_f16_out():
    (a, ad), (b, bd) = _fp8((128, 192), ml_dtypes.float8_e5m2, 2.0), _fp8((192, 128), ml_dtypes.float8_e5m2, 2.0)
    out = _gpu_run("fp8_e5m2_gemm_f16_out", {0: a, 1: b})[2]
    np.testing.assert_allclose(out.astype(np.float64), ad @ bd, rtol=2e-3, atol=2e-2)  # f16 out


def test_gemm_b_column_major_view():
    a = (RNG.standard_normal((100, 96))).astype(np.float16)
    w = (RNG.standard_normal((80, 96))).astype(np.float16)  # B = w.t(): the [96, 80] view, strides (1, 96)
    out = _gpu_run("gemm_b_column_major_view", {0: a, 1: w.T})[2]
    np.testing.assert_allclose(out, a.astype(np.float64) @ w.T.astype(np.float64), rtol=2e-3, atol=2e-2)


def test_gemm_k_not_a_multiple_at_size_against_torch():
    m, n, k = 1000, 776, 999
    a = torch.randn(m, k, device="cuda", generator=_gen(2511), dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", generator=_gen(2512), dtype=torch.float16)
    c = torch.full((m, n), float("nan"), device="cuda")
    _launch((-(-m // 64), -(-n // 64)), up.gemm_k_not_a_multiple_of_the_tile, (a, b, c, 64, 64, 32))
    torch.testing.assert_close(c, a.double().mm(b.double()).float(), rtol=1e-3, atol=5e-2)


def test_user_split_k_atomics_at_size_against_torch():
    m, n, k, split = 256, 192, 4096 + 96, 5
    a = torch.randn(m, k, device="cuda", generator=_gen(2513), dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", generator=_gen(2514), dtype=torch.float16)
    c = torch.zeros(m, n, device="cuda")
    _launch((m // 64, n // 64, split), up.split_k_by_user_atomics, (a, b, c, split, 64, 64, 32))
    torch.testing.assert_close(c, a.double().mm(b.double()).float(), rtol=1e-3, atol=1e-1)


def test_int8_gemm_at_size_is_exact():
    m, n, k = 520, 384, 1040
    a = torch.randint(-128, 128, (m, k), device="cuda", generator=_gen(2515), dtype=torch.int8)
    b = torch.randint(-128, 128, (k, n), device="cuda", generator=_gen(2516), dtype=torch.int8)
    c = torch.full((m, n), -1, device="cuda", dtype=torch.int32)
    _launch((-(-m // 64), -(-n // 64)), up.int8_gemm_int32_accumulate, (a, b, c, 64, 64, 32))
    assert torch.equal(c.long(), a.long().cpu().mm(b.long().cpu()).cuda())
