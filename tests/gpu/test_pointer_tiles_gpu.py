"""Pointer tiles and atomics through the SIMT path (issue 21) against torch: a histogram with
atomic_add (integer and float), a row gather and scatter by index vectors (ragged: fewer rows
than the tile), a masked gather, a compare-and-swap spin lock with a counter, and a split-K GEMM
serialized by a lock and a counter.  Outputs start as NaN (or a sentinel) so an unwritten
element shows.  The kernels are those of tests/unit/cutile_pointer_programs.py.  Skipped
without a GPU (tests/gpu/conftest.py); needs torch and cuda-tile."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "cutile_pointer_programs", Path(__file__).parents[1] / "unit" / "cutile_pointer_programs.py")
P = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(P)


def _launch(grid, kernel, args):
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
    torch.cuda.synchronize()


def _gen(seed):
    return torch.Generator(device="cuda").manual_seed(seed)


@pytest.mark.parametrize("n_values", [256 * 37, 256 * 5 + 100])
def test_histogram(n_values):
    x = torch.randint(0, 50, (n_values,), device="cuda", dtype=torch.int32, generator=_gen(1))
    bins = torch.zeros(50, device="cuda", dtype=torch.int32)
    _launch(((n_values + 255) // 256, 1, 1), P.histogram, (x, bins, 256))
    ref = torch.bincount(x.long(), minlength=50).int()
    # the ragged last tile reads padding zeros into bin 0: count them as the kernel does
    ref[0] += (-n_values) % 256
    torch.testing.assert_close(bins, ref)


def test_histogram_f32():
    n = 128 * 20
    x = torch.randint(0, 16, (n,), device="cuda", dtype=torch.int32, generator=_gen(2))
    w = torch.rand(n, device="cuda", generator=_gen(3))
    bins = torch.zeros(16, device="cuda")
    _launch((n // 128, 1, 1), P.histogram_f32, (x, w, bins, 128))
    ref = torch.zeros(16, device="cuda", dtype=torch.float64).index_add_(0, x.long(), w.double())
    torch.testing.assert_close(bins.double(), ref, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("rows", [16 * 8, 16 * 8 - 5])
def test_gather_rows(rows):
    src = torch.randn(300, 64, device="cuda", generator=_gen(4)).half()
    idx = torch.randint(0, 300, (rows,), device="cuda", dtype=torch.int32, generator=_gen(5))
    out = torch.full((rows, 64), float("nan"), device="cuda", dtype=torch.float16)
    _launch(((rows + 15) // 16, 1, 1), P.gather_rows, (src, idx, out, 16, 64))
    torch.testing.assert_close(out, src[idx.long()])


def test_scatter_rows():
    rows = 16 * 6
    src = torch.randn(rows, 64, device="cuda", generator=_gen(6))
    idx = torch.randperm(rows, device="cuda", generator=_gen(7)).int()
    out = torch.full((rows, 64), float("nan"), device="cuda")
    _launch((rows // 16, 1, 1), P.scatter_rows, (src, idx, out, 16, 64))
    ref = torch.empty_like(src)
    ref[idx.long()] = src
    torch.testing.assert_close(out, ref)


def test_gather_masked():
    n = 128 * 4
    src = torch.randn(1000, device="cuda", generator=_gen(8))
    idx = torch.randint(-300, 1000, (n,), device="cuda", dtype=torch.int32, generator=_gen(9))
    out = torch.full((n,), float("nan"), device="cuda")
    _launch((n // 128, 1, 1), P.gather_masked, (src, idx, out, 128))
    ref = torch.where(idx >= 0, src[idx.clamp(min=0).long()], torch.full_like(src[:1], -1.0))
    torch.testing.assert_close(out, ref)


def test_scalar_counter():
    programs = 64
    counts = torch.zeros(4, device="cuda", dtype=torch.int32)
    out = torch.full((programs,), -7, device="cuda", dtype=torch.int32)
    _launch((programs, 1, 1), P.scalar_counter, (counts, out))
    assert counts.tolist() == [programs // 4] * 4
    # each program saw a distinct old value of its slot: 0 .. programs/4 - 1
    for s in range(4):
        assert sorted(out[s::4].tolist()) == list(range(programs // 4))


def test_spin_lock_counts_every_increment():
    programs, n_iter = 96, 4
    locks = torch.zeros(2, device="cuda", dtype=torch.int32)
    counts = torch.zeros(2, device="cuda", dtype=torch.int32)
    _launch((programs, 1, 1), P.spin_lock, (locks, counts, n_iter))
    assert locks.tolist() == [0, 0]
    assert counts.tolist() == [programs // 2 * n_iter] * 2  # a lost update would show here


@pytest.mark.parametrize("m,n,k", [(256, 192, 512), (200, 130, 300)])
def test_split_k_gemm(m, n, k):
    a = torch.randn(m, k, device="cuda", generator=_gen(10)).half()
    b = torch.randn(k, n, device="cuda", generator=_gen(11)).half()
    c = torch.full((m, n), float("nan"), device="cuda")
    gm, gn, splits = (m + 63) // 64, (n + 63) // 64, 4
    locks = torch.zeros(gm * gn, device="cuda", dtype=torch.int32)
    counts = torch.zeros(gm * gn, device="cuda", dtype=torch.int32)
    _launch((gm, gn, splits), P.split_k_gemm, (a, b, c, locks, counts, 64, 64, 32, splits))
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-3, atol=1e-2)
    assert counts.tolist() == [splits] * (gm * gn) and not locks.any()
