"""The launcher's K-major copy (``tileorch.launchers.k_major_copy``, session 43) on the GPU: tf32 / fp8 / int8
GEMMs with an N-major B, and tf32 with an M-major A, run on a K-major copy that tileorch's copy program makes
on the launch's stream before the GEMM; the launch is kept bound with the copy (a repeated call takes the hot
path: ``last_full_launch`` stays unset) and still copies: B rewritten in place between calls gives the new
product.  B also a non-contiguous N-major view (a column slice of a wider array).  Against independent
references (float64 products of the operands' values; int8 exactly), outputs pre-filled with NaN (int32: the
-2^31 sentinel).  Skipped without a GPU (tests/gpu/conftest.py)."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing.dot_programs import PROGRAMS, build, refill, unwritten  # noqa: E402

M, N, K = 333, 200, 704


def _check(out, a, b, name):
    assert not unwritten(out).any(), f"{name}: unwritten output elements"
    ref = a.float().double() @ b.float().double()
    if out.dtype == torch.int32:
        assert torch.equal(out.long(), ref.long()), f"{name}: int32 products differ"
        return
    err = float((out.double() - ref).norm() / ref.norm())
    assert err < 5e-3, f"{name}: relative error {err:.2e}"


def _flipped(b):
    """B's columns in reverse order (1-byte types through their bytes: torch has no flip of float8)."""
    if b.element_size() == 1:
        return b.view(torch.uint8).flip(1).view(b.dtype)
    return b.flip(1)


def _launch(kernel, grid, args):
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
    torch.cuda.synchronize()


@pytest.mark.parametrize("name", ["gemm_tf32_n_major_b", "gemm_fp8_e4m3_n_major_b", "gemm_i8_n_major_b"])
def test_n_major_b_runs_on_tileorchs_copy_and_is_kept_bound(name):
    rc.clear_caches()
    kernel, args, grid, out, _ref, _lib = build(name, M, N, K, seed=43)
    a, b = args[0], args[1]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _launch(kernel, grid, args)
    said = [str(w.message) for w in caught if "K-major copy" in str(w.message)]
    assert said and "tileorch's copy program k_major_copy_2d" in said[0], said
    _check(out, a, b, name)
    # the same arguments again: the bound launch (copy, then GEMM), B rewritten in place in between
    for trial in range(2):
        refill(out)
        b.copy_(_flipped(b))
        rc.last_full_launch[0] = None
        _launch(kernel, grid, args)
        assert rc.last_full_launch[0] is None, f"trial {trial}: the full path ran (the launch was not kept bound)"
        _check(out, a, b, f"{name} (bound, trial {trial})")


@pytest.mark.parametrize("name", ["gemm_tf32_n_major_b", "gemm_fp8_e4m3_n_major_b", "gemm_i8_n_major_b"])
def test_a_column_slice_of_b(name):
    kernel, args, grid, out, _ref, _lib = build(name, M, N, K, seed=44)
    a, b = args[0], args[1]
    wide = torch.zeros((K, N + 48), dtype=b.dtype, device=b.device)
    wide[:, 16:16 + N] = b
    view = wide[:, 16:16 + N]  # N-major, rows N + 48 elements apart
    assert not view.is_contiguous()
    _launch(kernel, grid, (a, view, out, *args[3:]))
    _check(out, a, view, name)


def test_m_major_a_tf32():
    """``gemm_tf32`` with A given as the transpose of a [K, M] array (M-major): WGMMA reads tf32 K-major only,
    so A's K-major copy."""
    p = PROGRAMS["gemm_tf32_n_major_b"]
    g = torch.Generator(device="cuda").manual_seed(45)
    a = (torch.randn(K, M, device="cuda", generator=g) * 0.5).t()
    b = torch.randn(K, N, device="cuda", generator=g) * 0.5
    out = torch.full((M, N), float("nan"), device="cuda")
    grid = (-(-M // p.tiles[0]), -(-N // p.tiles[1]), 1)
    for _ in range(3):
        refill(out)
        _launch(p.kernel, grid, (a, b, out, *p.tiles))
        _check(out, a, b, "gemm_tf32, M-major A")


def test_two_gemms_bound_on_one_stream_replayed_on_two_streams():
    """Review of session 43 (HIGH): two tf32 GEMMs X and Z with N-major Bs of the same shape, both first launched on
    stream s1, are bound to s1's one K-major buffer; X replayed on s2 while Z runs on s1 wrote that buffer from both
    streams at once.  Now X's replay on s2 is ordered with s1 (said once as a PerformanceWarning): both products
    right, trial after trial with the Bs rewritten in between."""
    rc.clear_caches()
    name, size = "gemm_tf32_n_major_b", 2048
    gemms = [build(name, size, size, size, seed=seed) for seed in (46, 47)]
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    here = torch.cuda.current_stream()
    torch.cuda.synchronize()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for kernel, args, grid, out, _ref, _lib in gemms:
            s1.wait_stream(here)
            tileorch.cutile.launch(s1, grid, kernel, args)
        torch.cuda.synchronize()
        for kernel, args, grid, out, _ref, _lib in gemms:
            _check(out, args[0], args[1], f"{name} on s1")
        for trial in range(3):
            for kernel, args, grid, out, _ref, _lib in gemms:
                refill(out)
                args[1].copy_(_flipped(args[1]))
            torch.cuda.synchronize()
            (xk, xa, xg, xo, _, _), (zk, za, zg, zo, _, _) = gemms
            for _ in range(4):  # (interleaved: X on s2, Z on s1)
                tileorch.cutile.launch(s2, xg, xk, xa)
                tileorch.cutile.launch(s1, zg, zk, za)
            torch.cuda.synchronize()
            _check(xo, xa[0], xa[1], f"X on s2, trial {trial}")
            _check(zo, za[0], za[1], f"Z on s1, trial {trial}")
    said = [str(w.message) for w in caught if "was replayed on stream" in str(w.message)]
    assert said, "X's bound launch was not replayed on the other stream"
