"""The launcher's retile of C-reading GEMM programs (the epilogue reads C as the accumulator's start, or a residual
and a gate) runs a kernel ptxas assembled without spilling (session 40's final read: 100 x 80 retiled to 128 x 256
in 2x1 clusters spilled 56-60 B, a PerformanceWarning; now narrowed until its spill report is clean,
``launchers.cutile._unspilled_retile``), with outputs against torch float64 (NaN-prefilled), no spill warning, and
the retile remark naming the kernel chosen.  tests/unit/test_retile192_emulated.py checks the same choice on the
CPU with ptxas."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

import tileorch.cutile  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing.user_programs3 import PROGRAMS  # noqa: E402

SHAPES = [(100, 80, 64), (1000, 800, 512)]


def _gen(seed):
    return torch.Generator(device="cuda").manual_seed(seed)


def _r(*shape, seed, dtype=torch.float16, scale=1.0):
    return (torch.randn(shape, device="cuda", generator=_gen(seed)) * scale).to(dtype)


def _launch(name, args, m, n):
    p = PROGRAMS[name]
    consts = p.spec[len(args):]
    rc.clear_caches()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tileorch.cutile.launch(torch.cuda.current_stream(), (-(-m // 128), -(-n // 128), 1), p.kernel,
                               tuple(args) + tuple(consts))
        torch.cuda.synchronize()
    why = "\n".join(r for e in rc._programs.values() for r in e.launch_remarks.values())
    spills = [str(w.message) for w in caught if "spill" in str(w.message)]
    return why, spills


def _rel(got, ref, tol):
    assert not torch.isnan(got.double()).any(), "unwritten elements"
    err = float((got.double() - ref).norm() / ref.norm())
    assert err < tol, f"relative error {err:.3e}"
    return err


@pytest.mark.parametrize("m, n, k", SHAPES)
def test_c_accumulated_in_place(m, n, k):
    a, b = _r(m, k, seed=1), _r(k, n, seed=2, scale=0.1)
    c0 = _r(m, n, seed=3, dtype=torch.float32)
    c = c0.clone()
    why, spills = _launch("mm_accumulate_into_c", [a, b, c], m, n)
    err = _rel(c, c0.double() + a.double() @ b.double(), 1e-4)
    print(f"[s41 refactor] mm_accumulate_into_c {m}x{n}x{k} rel_err={err:.2e} spill_warnings={len(spills)} "
          f"{why.splitlines()[-1] if why else 'no retile remark'}")
    assert not spills, spills


@pytest.mark.parametrize("m, n, k", SHAPES)
def test_residual_and_gate(m, n, k):
    a, b = _r(m, k, seed=4), _r(k, n, seed=5, scale=0.1)
    r, g = _r(m, n, seed=6), _r(m, n, seed=7, dtype=torch.float32)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    why, spills = _launch("mm_residual_gate", [a, b, r, g, c], m, n)
    err = _rel(c, r.double() + g.double() * (a.double() @ b.double()), 2e-3)
    print(f"[s41 refactor] mm_residual_gate {m}x{n}x{k} rel_err={err:.2e} spill_warnings={len(spills)} "
          f"{why.splitlines()[-1] if why else 'no retile remark'}")
    assert not spills, spills
