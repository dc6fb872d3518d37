"""A new user's first hour on a GPU (docs/troubleshooting.md): the launch-time mistakes the CPU
tests (tests/unit/test_first_hour.py) answer before any GPU call leave the CUDA context usable,
and the inputs that are not mistakes run right against torch: empty arrays, strided views,
reads past the end without padding, a runtime trip count, a kernel of 33 parameters, a
truncated cubin in the on-disk cache (compiled again), no ptxas (the driver's JIT, said by a
warning), two processes compiling the same program into one cache at once.  Skipped (by
tests/gpu/conftest.py) without a GPU; needs torch and cuda-tile."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing.dot_programs import gemm, gemm_bias_relu  # noqa: E402

NAN = float("nan")


@ct.kernel
def axpy(x, y, out, alpha, tile: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(tile,)) * alpha
    ct.store(out, index=(i,), tile=t + ct.load(y, index=(i,), shape=(tile,)))


@ct.kernel
def row_sum(x, out, tn: ct.Constant[int]):
    r = ct.bid(0)
    acc = ct.zeros((1, tn), dtype=ct.float32)
    for j in range(ct.num_tiles(x, axis=1, shape=(1, tn))):
        acc = acc + ct.load(x, index=(r, j), shape=(1, tn), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(r,), tile=ct.sum(acc, axis=1))


@ct.kernel
def repeat_add(x, out, n: int, tile: ct.Constant[int]):
    """out[i-th tile] = n * x[i-th tile]: a loop whose trip count is a runtime scalar."""
    i = ct.bid(0)
    acc = ct.zeros((tile,), dtype=ct.float32)
    for _ in range(n):
        acc = acc + ct.load(x, index=(i,), shape=(tile,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(i,), tile=acc)


@ct.kernel
def many(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15,
         s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15, tile: ct.Constant[int]):
    i = ct.bid(0)
    acc = ct.load(a0, index=(i,), shape=(tile,)) * s0
    acc = acc + ct.load(a1, index=(i,), shape=(tile,)) * s1
    acc = acc + ct.load(a2, index=(i,), shape=(tile,)) * s2
    acc = acc + ct.load(a3, index=(i,), shape=(tile,)) * s3
    acc = acc + ct.load(a4, index=(i,), shape=(tile,)) * s4
    acc = acc + ct.load(a5, index=(i,), shape=(tile,)) * s5
    acc = acc + ct.load(a6, index=(i,), shape=(tile,)) * s6
    acc = acc + ct.load(a7, index=(i,), shape=(tile,)) * s7
    acc = acc + ct.load(a8, index=(i,), shape=(tile,)) * s8
    acc = acc + ct.load(a9, index=(i,), shape=(tile,)) * s9
    acc = acc + ct.load(a10, index=(i,), shape=(tile,)) * s10
    acc = acc + ct.load(a11, index=(i,), shape=(tile,)) * s11
    acc = acc + ct.load(a12, index=(i,), shape=(tile,)) * s12
    acc = acc + ct.load(a13, index=(i,), shape=(tile,)) * s13
    acc = acc + ct.load(a14, index=(i,), shape=(tile,)) * (s14 + s15)
    ct.store(a15, index=(i,), tile=acc)


def _stream() -> int:
    return torch.cuda.current_stream().cuda_stream


def _gen(seed: int):
    return torch.Generator(device="cuda").manual_seed(seed)


def _nan_view(n: int, dtype=torch.float32):
    """An ``n``-element view at the start of a NaN buffer with 4096 spare elements after it."""
    buf = torch.full((n + 4096,), NAN, device="cuda", dtype=dtype)
    return buf, buf[:n]


def _context_usable():
    """A launch after the refused ones runs (nothing reached the driver to poison the context)."""
    x = torch.arange(256, device="cuda", dtype=torch.float32)
    out = torch.full((256,), NAN, device="cuda")
    tileorch.cutile.launch(_stream(), (1,), axpy, (x, x, out, 2.0, 256), sync=True)
    torch.testing.assert_close(out, 3 * x)


def test_launch_mistakes_are_refused_and_the_context_stays_usable():
    """Each is an exception naming the argument or the grid, raised before the driver is asked."""
    x = torch.ones(1024, device="cuda")
    y, out = torch.ones_like(x), torch.empty_like(x)
    cases = [
        (((2**31,), (x, y, out, 1.0, 256)), ValueError, "exceeds what CUDA launches"),
        (((1, 70000), (x, y, out, 1.0, 256)), ValueError, "exceeds what CUDA launches"),
        (((4,), (x, y, out, 1e300, 256)), ValueError, r"argument 3 \('alpha'\) = 1e\+300 does not fit in float32"),
        (((4,), (x.cpu(), y, out, 1.0, 256)), TypeError, r"argument 0 \('x'\) is a torch tensor on cpu"),
        (((4,), (x.cpu().numpy(), y, out, 1.0, 256)), TypeError, r"argument 0 \('x'\) is a numpy array, in host "
                                                                r"memory"),
        (((4,), (x.to(torch.complex64), y, out, 1.0, 256)), TypeError, r"has dtype torch.complex64"),
        (((4,), (x, y, out, 1.0)), TypeError, r"kernel 'axpy' takes 5 arguments"),
        (((0,), (x, y, out, 1.0, 256)), ValueError, "grid extents must be positive"),
    ]
    for (grid, args), exc, words in cases:
        with pytest.raises(exc, match=words):
            tileorch.cutile.launch(_stream(), grid, axpy, args)
    _context_usable()


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
def test_a_tensor_on_another_gpu_is_refused():
    x = torch.ones(1024, device="cuda:1")
    y = torch.ones(1024, device="cuda:0")
    with pytest.raises(ValueError, match=r"argument 0 \('x'\) is on cuda:1; tileorch.cutile.launch runs kernels on "
                                         r"device 0"):
        tileorch.cutile.launch(_stream(), (4,), axpy, (x, y, torch.empty_like(y), 1.0, 256))
    _context_usable()


def test_empty_arrays_launch_and_write_nothing():
    """Zero-size arrays (a null or any pointer, extent 0): the kernel's tiles are all out of
    bounds, nothing is read or written, no fault."""
    x = torch.empty(0, device="cuda")
    out = torch.empty(0, device="cuda")
    tileorch.cutile.launch(_stream(), (3,), axpy, (x, x, out, 2.0, 256), sync=True)
    buf, view = _nan_view(0)
    tileorch.cutile.launch(_stream(), (1,), axpy, (x, x, view, 2.0, 256), sync=True)
    assert torch.isnan(buf).all()


@pytest.mark.parametrize("n", [1, 255, 1000, 70001])
def test_reads_past_the_end_without_padding_are_bounded(n):
    """ct.load without padding_mode on a ragged last tile: in-bounds results exact, nothing
    written past the end (the tail of the buffer stays NaN), no fault."""
    g = _gen(n)
    x, y = torch.randn(n, device="cuda", generator=g), torch.randn(n, device="cuda", generator=g)
    buf, out = _nan_view(n)
    tileorch.cutile.launch(_stream(), ((n + 255) // 256,), axpy, (x, y, out, 0.5, 256), sync=True)
    torch.testing.assert_close(out, 0.5 * x + y)
    assert torch.isnan(buf[n:]).all()


def test_strided_and_transposed_views_are_read_as_given():
    g = _gen(7)
    base = torch.randn(96, 600, device="cuda", generator=g)
    for x in (base[:, ::3], base.t()[:200, :], base[10:70, 5:505]):
        out = torch.full((x.shape[0],), NAN, device="cuda")
        tileorch.cutile.launch(_stream(), (x.shape[0],), row_sum, (x, out, 128), sync=True)
        torch.testing.assert_close(out, x.double().sum(dim=1).float(), atol=1e-3, rtol=1e-4)


@pytest.mark.parametrize("trips", [0, 1, 5])
def test_a_runtime_trip_count(trips):
    x = torch.randn(1000, device="cuda", generator=_gen(trips))
    buf, out = _nan_view(1000)
    tileorch.cutile.launch(_stream(), (4,), repeat_add, (x, out, trips, 256), sync=True)
    torch.testing.assert_close(out, x * trips, atol=1e-5, rtol=1e-5)
    assert torch.isnan(buf[1000:]).all()


def test_a_kernel_of_33_parameters():
    n = 777
    g = _gen(33)
    arrays = [torch.randn(n, device="cuda", generator=g) for _ in range(15)] + [torch.full((n,), NAN, device="cuda")]
    scalars = [float(i + 1) / 4 for i in range(16)]
    tileorch.cutile.launch(_stream(), (4,), many, (*arrays, *scalars, 256), sync=True)
    ref = sum(a.double() * s for a, s in zip(arrays[:14], scalars[:14]))
    ref = ref + arrays[14].double() * (scalars[14] + scalars[15])
    torch.testing.assert_close(arrays[15], ref.float(), atol=1e-4, rtol=1e-5)


def _cubins(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.glob("kernels/*/*/kernel.cubin"))


def test_a_truncated_cubin_in_the_cache_is_compiled_again(tmp_path, monkeypatch):
    """A cubin cut short on disk (a full disk, a copy interrupted): the next process (here: the
    in-process caches cleared) gets a CacheWarning, compiles again, runs right, and the entry is
    whole again."""
    from tileorch.cache import CacheWarning

    monkeypatch.setenv("TILEORCH_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TILEORCH_CACHE", raising=False)
    rc.clear_caches()
    x = torch.randn(1000, device="cuda", generator=_gen(1))
    out = torch.full((1000,), NAN, device="cuda")
    tileorch.cutile.launch(_stream(), (4,), axpy, (x, x, out, 1.0, 256), sync=True)
    (cubin,) = _cubins(tmp_path)
    whole = cubin.read_bytes()
    cubin.write_bytes(whole[: len(whole) // 2])
    rc.clear_caches()
    out.fill_(NAN)
    with pytest.warns(CacheWarning, match="is corrupt"):
        tileorch.cutile.launch(_stream(), (4,), axpy, (x, x, out, 3.0, 256), sync=True)
    torch.testing.assert_close(out, 4 * x)
    assert [p.read_bytes() for p in _cubins(tmp_path)] == [whole]
    rc.clear_caches()


def test_without_ptxas_the_driver_jit_runs_it_and_a_warning_says_so(monkeypatch):
    from tileorch.diagnostics import PerformanceWarning

    monkeypatch.setenv("TILEORCH_PTXAS", "/nonexistent/ptxas")
    monkeypatch.setenv("TILEORCH_CACHE", "0")
    rc.clear_caches()
    x = torch.randn(1000, device="cuda", generator=_gen(2))
    out = torch.full((1000,), NAN, device="cuda")
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        tileorch.cutile.launch(_stream(), (4,), axpy, (x, x, out, 1.0, 256), sync=True)
    torch.testing.assert_close(out, 2 * x)
    texts = [str(w.message) for w in got if issubclass(w.category, PerformanceWarning)]
    assert any("TILEORCH_PTXAS=/nonexistent/ptxas is not an executable file" in t and "JIT" in t for t in texts), texts
    rc.clear_caches()


_CHILD = textwrap.dedent("""
    import sys, torch, cuda.tile as ct, tileorch.cutile
    sys.path.insert(0, {here!r})
    from test_first_hour_gpu import axpy
    x = torch.arange(1000, device="cuda", dtype=torch.float32)
    out = torch.full((1000,), float("nan"), device="cuda")
    tileorch.cutile.launch(torch.cuda.current_stream().cuda_stream, (4,), axpy, (x, x, out, 2.0, 256), sync=True)
    assert torch.equal(out, 3 * x), out
    print("ok")
""")


def test_two_processes_compiling_one_program_into_one_cache(tmp_path):
    """Two fresh processes launch the same kernel at once with one new cache directory: both
    compile (or one reads the other's entry), both run right, one whole entry is left."""
    env = dict(os.environ, TILEORCH_CACHE_DIR=str(tmp_path), TILEORCH_CACHE="1")
    code = _CHILD.format(here=str(Path(__file__).parent))
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert all(o[0].strip() == "ok" for o in outs), outs
    assert len(_cubins(tmp_path)) == 1
    assert not [p for p in tmp_path.glob("kernels/*/.*")], "a temporary entry was left"


@pytest.mark.parametrize("m,n,k", [(256, 256, 0), (0, 256, 128), (256, 0, 128), (1, 1, 0)])
def test_gemm_of_empty_operands(m, n, k):
    """An empty K stores zeros; an empty M or N writes nothing; no hang (sync: the watchdog)."""
    a = torch.randn(m, k, device="cuda", generator=_gen(m + k)).half()
    b = torch.randn(k, n, device="cuda", generator=_gen(n + k)).half()
    buf, c = _nan_view(m * n, torch.float16)
    c = c.view(m, n)
    grid = (max(1, (m + 127) // 128), max(1, (n + 127) // 128))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tileorch.cutile.launch(_stream(), grid, gemm, (a, b, c, 128, 128, 64), sync=True)
    torch.testing.assert_close(c.float(), (a.float() @ b.float()))
    assert torch.isnan(buf[m * n:]).all()
    if m == 0 or n == 0:  # nothing to compute: no SIMT launch and no layout complaint about an empty operand
        assert not [str(w.message) for w in caught if "SIMT" in str(w.message)]


def test_gemm_epilogue_with_an_empty_k():
    """K = 0 with a fused bias + ReLU epilogue: C = relu(bias) on every row (the launcher's
    zero-fill shortcut does not apply: the kernel runs its epilogue on a zero accumulator)."""
    m, n = 256, 384
    a = torch.empty(m, 0, device="cuda", dtype=torch.float16)
    b = torch.empty(0, n, device="cuda", dtype=torch.float16)
    bias = torch.randn(n, device="cuda", generator=_gen(5)).half()
    c = torch.full((m, n), NAN, device="cuda", dtype=torch.float16)
    tileorch.cutile.launch(_stream(), (m // 128, n // 128), gemm_bias_relu, (a, b, bias, c, 128, 128, 64), sync=True)
    torch.testing.assert_close(c, torch.relu(bias.float()).half().expand(m, n))


@ct.kernel
def f64_ops(x, y, out, tile: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(tile,), padding_mode=ct.PaddingMode.ZERO)
    b = ct.load(y, index=(i,), shape=(tile,), padding_mode=ct.PaddingMode.ZERO)
    r = ct.maximum(-a, ct.minimum(b, a)) + ct.sqrt(ct.abs(a)) + ct.rsqrt(ct.abs(b) + 1.0) + ct.mod(a, b)
    ct.store(out, index=(i,), tile=r)


@ct.kernel
def f64_row_max(x, out, tn: ct.Constant[int]):
    r = ct.bid(0)
    ct.store(out, index=(r,), tile=ct.max(ct.load(x, index=(r, 0), shape=(1, tn),
                                                  padding_mode=ct.PaddingMode.NEG_INF), axis=1))


def test_f64_elementwise_and_a_negative_infinity_padding():
    """float64 negation, abs, sqrt, rsqrt, maximum/minimum and mod run in f64 (they were refused
    or invalid IR); a -inf padding value of f64 reads as -inf (cuTile writes it as a 65-bit
    varint, which the bytecode reader refused)."""
    g = _gen(64)
    x = torch.randn(1000, device="cuda", dtype=torch.float64, generator=g) * 1e3 + 1e-9
    y = torch.randn(1000, device="cuda", dtype=torch.float64, generator=g) * 7 + 0.5
    out = torch.full((1000,), NAN, device="cuda", dtype=torch.float64)
    tileorch.cutile.launch(_stream(), (4,), f64_ops, (x, y, out, 256), sync=True)
    ref = (torch.maximum(-x, torch.minimum(y, x)) + x.abs().sqrt() + (y.abs() + 1.0).rsqrt()
           + torch.remainder(x, y))
    torch.testing.assert_close(out, ref, rtol=1e-13, atol=1e-12)
    m = torch.randn(7, 200, device="cuda", dtype=torch.float64, generator=g) * 1e-3 - 5.0
    mx = torch.full((7,), NAN, device="cuda", dtype=torch.float64)
    tileorch.cutile.launch(_stream(), (7,), f64_row_max, (m, mx, 256), sync=True)
    assert torch.equal(mx, m.max(dim=1).values)
