"""The nineteenth user sweep on the GPU (issue 21 item 1: every cuda_tile op on programs without a
dot): every program of ``tileorch.testing.user_programs19`` (SIMT path) runs through
``tileorch.cutile.launch`` on its spec's ragged shapes and grid, against the independent numpy
references of tests/unit/test_user_sweep19_interp.py: each test there runs again (every case of a
parametrized one) with its ``run`` swapped for :func:`gpu_run` (every array inside a larger buffer of
the fill: NaN / an integer sentinel / the fp8 NaN byte / the bool byte 2, whose tail must stay the
fill; the outputs start as the fill; the atomics' tables start as the test gives them).  Then a few
kernels against torch itself on larger ragged shapes (NaN-prefilled outputs): float -> int
conversions of NaN / inf / out of range against torch's saturating ``to`` of the clamped values, the
CAS-loop histogram against ``torch.bincount``, int64 floor division against ``torch.div(...,
rounding_mode="floor")``, the padded gather against indexing, the ordered views and a grid past the
data at 1M elements, the chained running sum over acquire / release flags across 300 programs
against ``torch.cumsum``.
Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.
Run: ``python -m pytest -q tests/gpu/test_user_sweep19_gpu.py``."""

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
import test_user_sweep19_interp as s19  # noqa: E402

import tileorch.cutile  # noqa: E402
from tileorch.testing import user_programs19 as up  # noqa: E402
from tileorch.testing.user_programs19 import PROGRAMS  # noqa: E402


test_every_program_has_a_test, test_on_the_gpu_against_numpy = sweep_harness.numpy_reference_tests(
    PROGRAMS, s19, s19.every_case)


def _gen(seed):
    return torch.Generator(device="cuda").manual_seed(seed)


def _launch(grid, kernel, args):
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
    torch.cuda.synchronize()


def _fill(n, dtype):
    if dtype.is_floating_point:
        return torch.full((n,), float("nan"), device="cuda", dtype=dtype)
    info = torch.iinfo(dtype)
    return torch.full((n,), info.min if info.min < 0 else info.max, device="cuda", dtype=dtype)


def test_float_to_int_against_torch():
    n = 1_000_003
    x = torch.randn(n, device="cuda", generator=_gen(1901)) * 3e9
    x[:6] = torch.tensor([float("nan"), float("inf"), -float("inf"), 1e19, -1e19, -0.5])
    d = torch.randn(n, device="cuda", generator=_gen(1902), dtype=torch.float64) * 3e9
    outs = [_fill(n, t) for t in (torch.int32, torch.int64, torch.int8, torch.uint8, torch.int32)]
    _launch((-(-n // 1024),), up.float_to_int_nan_inf_out_of_range, (x, d, *outs, 1024))

    def want(t, dt):  # truncation, saturating, NaN 0
        info = torch.iinfo(dt)
        t = torch.nan_to_num(t.double(), nan=0.0).clamp(info.min, info.max).trunc()
        return t.to(torch.int64).clamp(info.min, info.max)

    for got, src, dt in zip(outs, (x, x, x, x, d), (torch.int32, torch.int64, torch.int8, torch.uint8, torch.int32)):
        if dt == torch.int64:  # 2**63 - 1 is not a double: compare the saturated ends apart
            big = src.double().abs() >= 2.0 ** 63
            assert torch.equal(got[~big], want(src, dt)[~big])
            assert bool((got[big & (src > 0)] == 2 ** 63 - 1).all()) and bool((got[big & (src < 0)] == -2 ** 63).all())
        else:
            assert torch.equal(got.long(), want(src, dt)), dt


def test_cas_loop_histogram_against_bincount():
    n, bins = 100_003, 97
    v = torch.randint(-1000, 1000, (n,), device="cuda", generator=_gen(1903), dtype=torch.int32)
    b = torch.randint(0, bins, (n,), device="cuda", generator=_gen(1904), dtype=torch.int32)
    tab = torch.zeros(bins, device="cuda", dtype=torch.int32)
    # enough rounds for the contention of this grid: every lane of a bin may lose to all others
    _launch((-(-n // 1024),), up.histogram_sum_by_cas_add_loop, (v, b, tab, 1024, 4096))
    assert torch.equal(tab.long(), torch.bincount(b.long(), weights=v.double(), minlength=bins).long())


def test_int64_floordiv_mod_against_torch():
    n = 1_000_003
    a8 = torch.randint(-128, 128, (n,), device="cuda", generator=_gen(1905), dtype=torch.int8)
    b8 = torch.randint(-128, 128, (n,), device="cuda", generator=_gen(1906), dtype=torch.int8)
    b8[b8 == 0] = 3
    b8[(a8 == -128) & (b8 == -1)] = 1  # -128 // -1 overflows int8: not asked here
    a = torch.randint(-2 ** 62, 2 ** 62, (n,), device="cuda", generator=_gen(1907), dtype=torch.int64)
    b = torch.randint(-2 ** 31, 2 ** 31, (n,), device="cuda", generator=_gen(1908), dtype=torch.int64)
    b[b == 0] = -7
    q8, r8, q, r = _fill(n, torch.int8), _fill(n, torch.int8), _fill(n, torch.int64), _fill(n, torch.int64)
    _launch((-(-n // 1024),), up.int8_int64_floordiv_mod_negatives, (a8, b8, q8, r8, a, b, q, r, 1024))
    assert torch.equal(q, torch.div(a, b, rounding_mode="floor")) and torch.equal(r, torch.remainder(a, b))
    w8 = torch.div(a8.int(), b8.int(), rounding_mode="floor")
    assert torch.equal(q8, w8.to(torch.int8)) and torch.equal(r8.int(), torch.remainder(a8.int(), b8.int()))


def test_gather_padding_against_indexing():
    n, m = 1_000_003, 5000
    x = torch.randn(m, device="cuda", generator=_gen(1909)).half()
    k = torch.randint(-m, 2 * m, (n,), device="cuda", generator=_gen(1910), dtype=torch.int32)
    mask = torch.rand(n, device="cuda", generator=_gen(1911)) < 0.9
    y = _fill(n, torch.float16)
    _launch((-(-n // 1024),), up.gather_masked_nan_padding_f16, (x, k, mask, y, 1024))
    ok = mask & (k >= 0) & (k < m)
    want = torch.where(ok, x[k.clamp(0, m - 1).long()], torch.tensor(float("nan"), device="cuda").half())
    torch.testing.assert_close(y, want, rtol=0, atol=0, equal_nan=True)


def test_ordered_views_and_grid_past_the_data_against_torch():
    n = 1_000_003
    x = torch.randn(n, device="cuda", generator=_gen(1912))
    w = torch.randn(n, device="cuda", generator=_gen(1913))
    y, z = _fill(n, torch.float32), _fill(n, torch.float32)
    _launch((-(-n // 1024),), up.ordered_view_loads_and_stores, (x, w, y, z, 1024))
    assert torch.equal(y, x + w) and torch.equal(z, x * w)
    cnt = torch.zeros(1, device="cuda", dtype=torch.int32)
    g = _fill(n, torch.float32)
    _launch((-(-n // 64) + 50,), up.grid_larger_than_data, (x, g, cnt, 64))  # 50 programs past the end
    assert torch.equal(g, x * 2.0 + 1.0) and int(cnt.item()) == n


def test_chained_sum_over_acquire_release_flags_against_cumsum():
    n, bn = 300 * 1024 - 17, 1024
    progs = -(-n // bn)
    x = torch.randn(n, device="cuda", generator=_gen(1914))
    y = _fill(n, torch.float32)
    carry = _fill(progs + 1, torch.float32)
    carry[0] = 0.0
    flag = torch.zeros(progs + 1, device="cuda", dtype=torch.int32)
    flag[0] = 1
    _launch((progs,), up.chained_sum_by_acquire_spin_release_flag, (x, y, carry, flag, bn))
    torch.testing.assert_close(y.double(), torch.cumsum(x.double(), 0), rtol=1e-4, atol=1e-2)
    assert bool((flag == 1).all())
