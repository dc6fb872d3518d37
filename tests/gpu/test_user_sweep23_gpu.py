"""The twenty-third user sweep on the GPU (programs as users write them, mostly without a dot): every program
of ``tileorch.testing.user_programs23`` runs through ``tileorch.cutile.launch`` on its spec's ragged shapes and
grid, against the independent numpy references of tests/unit/test_user_sweep23_interp.py (each test there
runs again with its ``run`` swapped for sweep_harness.gpu_run: every array inside a larger buffer of the fill,
NaN / an integer sentinel / the fp8 NaN byte / the bool byte 2, whose tail must stay the fill; the path each
program compiles to checked against its table entry); the Gram matrix reruns
tests/unit/test_user_sweep23_emulated.py's case with the emulator swapped for the GPU.  Then a few kernels
against torch on larger ragged shapes: the masked softmax's NaN rows against ``torch.softmax``, ``torch.histc``
at 1M values, ``torch.argmax``'s first index of ties, f64 ``torch.logsumexp``; f64 ``exp`` / ``log`` within 2 ulp
over their whole range.  Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.
Run: ``python -m pytest -q tests/gpu/test_user_sweep23_gpu.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")
pytest.importorskip("ml_dtypes")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if UNIT not in sys.path:  # the CPU tests' numpy references (appended: tests/gpu's modules come first)
    sys.path.append(UNIT)

import sweep_harness  # noqa: E402
import test_user_sweep23_emulated as s23e  # noqa: E402
import test_user_sweep23_interp as s23  # noqa: E402
from sweep_harness import filled as _fill  # noqa: E402
from sweep_harness import generator as _gen  # noqa: E402
from sweep_harness import launch as _launch  # noqa: E402

from tileorch.testing import user_programs23 as up  # noqa: E402
from tileorch.testing.user_programs23 import PROGRAMS  # noqa: E402

GEMM = {n for n, p in PROGRAMS.items() if p.path != "simt"}
SIMT = {n: p for n, p in PROGRAMS.items() if n not in GEMM}

test_every_program_has_a_test, test_on_the_gpu_against_numpy = sweep_harness.numpy_reference_tests(
    SIMT, s23, s23.every_case)


@pytest.mark.parametrize("case", sorted(s23e.CASES))
def test_tier_case_on_the_gpu(case, monkeypatch):
    assert set(s23e.CASES) == GEMM
    monkeypatch.setattr(s23e, "emulate", lambda name, inputs: sweep_harness.gpu_run(PROGRAMS, name, inputs))
    s23e.CASES[case]()


def test_masked_softmax_nan_rows_against_torch():
    """4096 rows of 1000 keys, every 7th row masked everywhere: NaN exactly where torch.softmax gives NaN."""
    m, n = 4096, 1000
    x = torch.randn(m, n, device="cuda", generator=_gen(2301))
    keep = torch.rand(m, n, device="cuda", generator=_gen(2302)) < 0.6
    keep[::7] = False
    mask = torch.zeros(m, n, device="cuda").masked_fill(~keep, float("-inf"))
    y = torch.full((m, n), 1234.0, device="cuda")
    _launch((m,), up.softmax_additive_mask_torch_nan_rows, (x, mask, y, 1024))
    ref = torch.softmax(x + mask, dim=-1)
    assert torch.equal(torch.isnan(y), torch.isnan(ref))
    torch.testing.assert_close(y.nan_to_num(0.0), ref.nan_to_num(0.0), rtol=1e-5, atol=1e-7)


def test_histc_at_1m_against_torch():
    """torch.histc's bins over [-2, 2.5] (values outside dropped); bin edges can differ by one rounding."""
    n = 1_000_003
    x = torch.randn(n, device="cuda", generator=_gen(2303)) * 1.5
    h = torch.zeros(17, device="cuda", dtype=torch.int32)
    _launch((-(-n // 256),), up.histc_float_bins_atomic, (x, h, -2.0, 2.5, 256))
    ref = torch.histc(x, bins=17, min=-2.0, max=2.5)
    assert int(h.sum()) == int(ref.sum())
    assert (h.double() - ref.double()).abs().max() <= 4


def test_argmax_first_index_of_ties_against_torch():
    x = torch.randint(0, 4, (30, 50), device="cuda", generator=_gen(2304)).float()
    ri, rv, ci = _fill((30,), torch.int32), _fill((30,), torch.float32), _fill((50,), torch.int32)
    _launch((1,), up.top1_ties_rows_and_cols, (x, ri, rv, ci, 32, 64))
    assert torch.equal(ri.long(), torch.argmax(x, dim=1)) and torch.equal(ci.long(), torch.argmax(x, dim=0))
    assert torch.equal(rv, x.amax(dim=1))


def test_f64_logsumexp_against_torch():
    x = torch.randn(512, 100, device="cuda", generator=_gen(2305), dtype=torch.float64) * 30 + 1e3
    var, lse = _fill((512,), torch.float64), _fill((512,), torch.float64)
    _launch((512,), up.f64_two_pass_variance_exp, (x, var, lse, 128))
    torch.testing.assert_close(lse, torch.logsumexp(x, dim=1), rtol=1e-14, atol=0)
    torch.testing.assert_close(var, x.var(dim=1), rtol=1e-13, atol=0)


def test_f64_exp_and_log_within_two_ulp_on_the_gpu():
    """tests/unit/test_f64_math_emulated.py's kernel and inputs on the GPU (f64_math.py's exp / exp2 / log / log2)."""
    import numpy as np
    import test_f64_math_emulated as fm

    x, z, y = fm._inputs()
    ins = [torch.from_numpy(a).cuda() for a in (x, z, y)]
    outs = [_fill((fm.N,), torch.float64) for _ in range(4)]
    _launch((fm.N // 128,), fm.f64_exp_log_tiles, (*ins, *outs, 128))
    with np.errstate(all="ignore"):
        refs = [np.exp(x), np.exp2(z), np.log(y), np.log2(y)]
    for name, got, ref in zip(("exp", "exp2", "log", "log2"), outs, refs):
        u = fm._ulps(got.cpu().numpy(), ref)
        assert u.max() <= 2, (name, int(np.argmax(u)), u.max())


def test_f64_pow_and_tanh_on_the_gpu(monkeypatch):
    """tests/unit/test_f64_math_emulated.py's ``pow`` and ``tanh`` cases on the GPU: within 4 ulp of numpy, C's
    special cases."""
    import numpy as np
    import test_f64_math_emulated as fm

    def on_gpu(_monkeypatch, _name, kernel, arrays, spec_tail=(), grid=(1,)):
        ins = [torch.from_numpy(np.ascontiguousarray(a)).cuda() for a in arrays]
        _launch(grid, kernel, (*ins, *spec_tail))
        return [t.cpu().numpy() for t in ins]

    monkeypatch.setattr(fm.s10e, "emulate_kernel", on_gpu)
    fm.test_f64_pow_within_four_ulp_and_c_special_cases_on_the_ptx(monkeypatch)
    fm.test_f64_tanh_within_four_ulp_on_the_ptx(monkeypatch)
