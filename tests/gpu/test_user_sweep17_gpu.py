"""The seventeenth user sweep on the GPU (issue 21: memory-bound and non-dot programs at the edges of
the element types and of the grid, programs acceptance runs that we will not see): every program of
``tileorch.testing.user_programs17`` (SIMT path) runs through ``tileorch.cutile.launch`` on its spec's
ragged shapes and grid, against the independent numpy references of
tests/unit/test_user_sweep17_interp.py: each test there runs again with its ``run`` swapped for
:func:`gpu_run` (every array inside a larger buffer of the fill: NaN / an integer sentinel / the fp8
NaN byte, whose tail must stay the fill; the outputs start as the fill; the atomics' tables start as
the test gives them).  Then a few kernels against torch itself on larger ragged shapes (NaN-prefilled
outputs): top-k against ``torch.topk``, the atomic histogram against ``scatter_reduce``, the distinct
count against ``torch.unique``, the chained scan over 300 instances against ``torch.cumsum``, NaN /
inf max and argmax against ``torch.max`` / ``torch.argmax``, a 1,000,003-element row sum.
Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.
Run: ``python -m pytest -q tests/gpu/test_user_sweep17_gpu.py``."""

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
import test_user_sweep17_interp as s17  # noqa: E402

import tileorch.cutile  # noqa: E402
from tileorch.testing import user_programs17 as up  # noqa: E402
from tileorch.testing.user_programs17 import PROGRAMS  # noqa: E402


def gpu_run(name: str, inputs: dict) -> dict:
    """tests/gpu/sweep_harness.gpu_run for this sweep's programs (all on the SIMT path)."""
    return sweep_harness.gpu_run(PROGRAMS, name, inputs)


ON_GPU = sorted(n for n in dir(s17) if n.startswith("test_"))


def test_every_program_has_a_test():
    import inspect

    source = inspect.getsource(s17)
    assert all(f'run("{name}"' in source for name in PROGRAMS), [n for n in PROGRAMS if f'run("{n}"' not in source]


@pytest.mark.parametrize("test", ON_GPU)
def test_on_the_gpu_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s17, "run", gpu_run)
    getattr(s17, test)()


def _nan(*shape, dtype=torch.float32):
    return torch.full(shape, float("nan"), device="cuda", dtype=dtype)


def _launch(grid, kernel, args):
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
    torch.cuda.synchronize()


def test_topk_against_torch():
    g = torch.Generator(device="cuda").manual_seed(1701)
    x = torch.randn(1000, 1531, device="cuda", generator=g)
    v, i = _nan(1000, 4), torch.full((1000, 4), -7, device="cuda", dtype=torch.int32)
    _launch((1000,), up.topk_rows_repeated_argmax, (x, v, i, 4, 2048))
    want = torch.topk(x, 4, dim=1)
    torch.testing.assert_close(v, want.values, rtol=0, atol=0)
    torch.testing.assert_close(i.long(), want.indices, rtol=0, atol=0)


def test_histogram_min_max_count_against_scatter_reduce():
    g = torch.Generator(device="cuda").manual_seed(1702)
    n, bins = 1_000_003, 97
    v = torch.randint(-10 ** 6, 10 ** 6, (n,), device="cuda", generator=g, dtype=torch.int32)
    b = torch.randint(0, bins, (n,), device="cuda", generator=g, dtype=torch.int32)
    mn = torch.full((bins,), 2 ** 31 - 1, device="cuda", dtype=torch.int32)
    mx = torch.full((bins,), -2 ** 31, device="cuda", dtype=torch.int32)
    cnt = torch.zeros(bins, device="cuda", dtype=torch.int32)
    _launch((-(-n // 1024),), up.histogram_bin_min_max_count, (v, b, mn, mx, cnt, 1024))
    idx = b.long()
    want_mn = torch.full((bins,), 2 ** 31 - 1, device="cuda", dtype=torch.int32).scatter_reduce(0, idx, v, "amin")
    want_mx = torch.full((bins,), -2 ** 31, device="cuda", dtype=torch.int32).scatter_reduce(0, idx, v, "amax")
    assert torch.equal(mn, want_mn) and torch.equal(mx, want_mx)
    assert torch.equal(cnt.long(), torch.bincount(idx, minlength=bins))


def test_distinct_count_against_torch_unique():
    g = torch.Generator(device="cuda").manual_seed(1703)
    n, ids = 2_000_001, 300_000
    x = torch.randint(0, ids, (n,), device="cuda", generator=g, dtype=torch.int32)
    seen, count = torch.zeros(ids, device="cuda", dtype=torch.int32), torch.zeros(1, device="cuda", dtype=torch.int32)
    _launch((-(-n // 1024),), up.distinct_count_presence_xchg, (x, seen, count, 1024))
    assert int(count.item()) == torch.unique(x).numel()


def test_chained_scan_against_cumsum():
    g = torch.Generator(device="cuda").manual_seed(1704)
    n, bn = 300 * 1024 - 17, 1024
    progs = -(-n // bn)
    x = torch.randn(n, device="cuda", generator=g)
    y, carry = _nan(n), _nan(progs + 1)
    carry[0] = 0.0
    flag = torch.zeros(progs + 1, device="cuda", dtype=torch.int32)
    flag[0] = 1
    _launch((progs,), up.chained_scan_flag_lookback, (x, y, carry, flag, bn))
    want = torch.cumsum(x.double(), 0)
    torch.testing.assert_close(y.double(), want, rtol=1e-4, atol=1e-2)
    assert bool((flag == 1).all())


def test_nan_inf_max_argmax_against_torch():
    g = torch.Generator(device="cuda").manual_seed(1705)
    x = torch.randn(512, 3001, device="cuda", generator=g)
    x[::7, 5] = float("nan")
    x[::5, 2999] = float("inf")
    x[3] = float("nan")
    mx, mn, mxp = _nan(512), _nan(512), _nan(512)
    am, amp = (torch.full((512,), -7, device="cuda", dtype=torch.int32) for _ in range(2))
    _launch((512,), up.nan_inf_max_min_argmax, (x, mx, mn, mxp, am, amp, 4096))
    torch.testing.assert_close(mxp, torch.max(x, 1).values, rtol=0, atol=0, equal_nan=True)
    assert torch.equal(amp.long(), torch.argmax(x, 1))  # torch: NaN is the maximum, its first index
    # (torch.nan_to_num also turns +inf into the largest finite float unless told: the H200 run of session 25
    # read that as the kernel losing +inf)
    nanfree = torch.where(torch.isnan(x), -float("inf"), x)
    torch.testing.assert_close(mx, nanfree.max(1).values[:], rtol=0, atol=0)
    rows = [r for r in range(512) if r != 3]
    assert torch.equal(am.long()[rows], torch.argmax(nanfree, 1)[rows])


def test_million_element_row_sum():
    g = torch.Generator(device="cuda").manual_seed(1706)
    x = torch.randn(8, 1_000_003, device="cuda", generator=g)
    y = _nan(8)
    _launch((8,), up.long_row_sum_tiles_70001, (x, y, 4096))
    torch.testing.assert_close(y.double(), x.double().sum(1), rtol=1e-4, atol=1e-2)
