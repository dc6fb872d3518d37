"""Repeated launches on the GPU (issue 22's fast paths): ``tileorch.cutile.launch`` re-enqueues
the launch bound for an equal call (the key read by the kernel's learnt reader) and
``tileorch.gemm`` its bound problem; a call with another pointer, shape, dtype, scalar value or
stream must launch with its own bytes.  Every result is checked against torch computed in fp32
from the same inputs, after the inputs changed in place (a bound launch reads memory again),
outputs pre-filled with NaN.  Skipped (by tests/gpu/conftest.py) without a GPU; needs torch and
cuda-tile for the cuTile part."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

NAN = float("nan")
ct = None  # cuda.tile, imported by the cuTile tests (the GEMM test runs without it)
_kernels: dict = {}


def _scale_kernel():
    """``y = x * alpha`` by tiles of ``tile`` elements (defined once; cuTile reads its annotations
    in this module's namespace)."""
    global ct
    ct = pytest.importorskip("cuda.tile")
    if "scale" not in _kernels:

        @ct.kernel
        def scale(x, y, alpha, tile: ct.Constant[int]):
            i = ct.bid(0)
            ct.store(y, index=(i,), tile=(ct.load(x, index=(i,), shape=(tile,)) * alpha).astype(y.dtype))

        _kernels["scale"] = scale
    return _kernels["scale"]


def _launch(stream, grid, kernel, args):
    import tileorch.cutile

    tileorch.cutile.launch(stream, grid, kernel, args)


def test_repeated_cutile_launches_follow_every_change_of_the_call():
    from tileorch.launchers import cutile_bound

    scale = _scale_kernel()
    stream = torch.cuda.current_stream()
    n, tile = 4096, 256
    x = torch.randn(n, device="cuda")
    y = torch.full_like(x, NAN)
    args = (x, y, 2.0, tile)
    for step in range(3):  # the same call: the bound launch, reading x anew
        x.copy_(torch.randn(n, device="cuda"))
        y.fill_(NAN)
        _launch(stream, (n // tile,), scale, args)
        torch.cuda.synchronize()
        torch.testing.assert_close(y, x * 2.0, rtol=0, atol=0)
    assert cutile_bound.reader(scale) is not cutile_bound.call_key  # learnt after the first call

    y2 = torch.full_like(x, NAN)  # another output pointer
    _launch(stream, (n // tile,), scale, (x, y2, 2.0, tile))
    _launch(stream, (n // tile,), scale, (x, y, -3.0, tile))  # another scalar value
    torch.cuda.synchronize()
    torch.testing.assert_close(y2, x * 2.0, rtol=0, atol=0)
    torch.testing.assert_close(y, x * -3.0, rtol=0, atol=0)

    pos = x.abs() + 1.0
    for alpha in (0.0, -0.0, 0.0):  # 0.0 == -0.0, but the kernel's parameter bytes differ
        y.fill_(NAN)
        _launch(stream, (n // tile,), scale, (pos, y, alpha, tile))
        torch.cuda.synchronize()
        assert (y == 0).all() and bool(torch.signbit(y).all()) == (str(alpha) == "-0.0")

    short = torch.randn(n // 2, device="cuda")  # another shape and grid
    y_short = torch.full_like(short, NAN)
    _launch(stream, (n // 2 // tile,), scale, (short, y_short, 2.0, tile))
    half = torch.randn(n, device="cuda", dtype=torch.float16)  # another dtype: another kernel
    y_half = torch.full_like(half, NAN)
    _launch(stream, (n // tile,), scale, (half, y_half, 2.0, tile))
    torch.cuda.synchronize()
    torch.testing.assert_close(y_short, short * 2.0, rtol=0, atol=0)
    torch.testing.assert_close(y_half.float(), half.float() * 2.0, rtol=1e-3, atol=1e-3)

    inplace = torch.randn(n, device="cuda")  # the output is the input: another alias group
    expected = inplace * 2.0
    _launch(stream, (n // tile,), scale, (inplace, inplace, 2.0, tile))
    torch.cuda.synchronize()
    torch.testing.assert_close(inplace, expected, rtol=0, atol=0)
    y.fill_(NAN)
    _launch(stream, (n // tile,), scale, (x, y, 2.0, tile))  # apart again
    torch.cuda.synchronize()
    torch.testing.assert_close(y, x * 2.0, rtol=0, atol=0)

    moved = torch.randn(n, device="cuda")  # the same tensor object on new storage (set_)
    x.set_(moved)
    y.fill_(NAN)
    _launch(stream, (n // tile,), scale, args)
    torch.cuda.synchronize()
    torch.testing.assert_close(y, moved * 2.0, rtol=0, atol=0)


def test_cutile_launches_on_new_arrays_at_each_call_are_re_pointed():
    """More arrays than launches are kept bound (cutile_bound.BOUND_MAX), each passed once, then
    all again, then every other one: each call re-points the bound launch (a buffer of its own
    per call; the stream's launch configuration shared) or finds its own, queued without a
    synchronisation in between; every output is its own input times alpha."""
    from tileorch.launchers import cutile_bound

    scale = _scale_kernel()
    stream = torch.cuda.current_stream()
    rows, n, tile = cutile_bound.BOUND_MAX + 44, 2048, 256
    xs = torch.randn((rows, n), device="cuda")
    ys = torch.full_like(xs, NAN)
    for order in (range(rows), range(rows), range(0, rows, 2)):
        ys.fill_(NAN)
        for i in order:
            _launch(stream, (n // tile,), scale, (xs[i], ys[i], 1.5, tile))
        torch.cuda.synchronize()
        picked = list(order)
        torch.testing.assert_close(ys[picked], xs[picked] * 1.5, rtol=0, atol=0)
    assert cutile_bound.hot_launchers.get(scale) is not None


def test_a_bound_cutile_launch_runs_on_the_stream_of_the_call():
    scale = _scale_kernel()
    n, tile = 1 << 20, 1024
    x = torch.randn(n, device="cuda")
    y = torch.full_like(x, NAN)
    _launch(torch.cuda.current_stream(), (n // tile,), scale, (x, y, 2.0, tile))  # bound on the default stream
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for value in (1.0, 5.0, -2.0):  # fill and scale on the side stream, in its order
            x.fill_(value)
            y.fill_(NAN)
            _launch(side, (n // tile,), scale, (x, y, 2.0, tile))
            expected = torch.full_like(x, 2.0 * value)
            torch.testing.assert_close(y, expected, rtol=0, atol=0)  # a read on the side stream


def test_repeated_gemm_calls_follow_every_change_of_the_call():
    import tileorch

    g = torch.Generator(device="cuda").manual_seed(22)
    m, n, k = 256, 384, 512
    a = torch.randn((m, k), device="cuda", dtype=torch.float16, generator=g)
    b = torch.randn((k, n), device="cuda", dtype=torch.float16, generator=g)
    c = torch.full((m, n), NAN, device="cuda", dtype=torch.float16)

    def check(out, lhs, rhs):
        torch.cuda.synchronize()
        ref = lhs.float() @ rhs.float()
        assert torch.isfinite(out).all(), "unwritten (NaN) or non-finite outputs"
        err = float((out.float() - ref).norm() / ref.norm())
        assert err < 1e-2, f"relative error {err:.3e}"

    for _ in range(3):  # the bound problem, inputs changed in place
        a.copy_(torch.randn((m, k), device="cuda", dtype=torch.float16, generator=g))
        c.fill_(NAN)
        tileorch.gemm(a, b, c)
        check(c, a, b)
    c2 = torch.full_like(c, NAN)  # another output pointer
    tileorch.gemm(a, b, c2)
    check(c2, a, b)
    big = torch.randn((2 * m, k), device="cuda", dtype=torch.float16, generator=g)
    top = big[m // 2:m // 2 + m]  # the same shape at another address (a view)
    c.fill_(NAN)
    tileorch.gemm(top, b, c)
    check(c, top, b)
    c_big = torch.full((2 * m, n), NAN, device="cuda", dtype=torch.float16)  # another M
    tileorch.gemm(big, b, c_big)
    check(c_big, big, b)
    a16, b16 = a.to(torch.bfloat16), b.to(torch.bfloat16)  # another dtype
    c16 = torch.full((m, n), NAN, device="cuda", dtype=torch.bfloat16)
    tileorch.gemm(a16, b16, c16)
    check(c16, a16, b16)
    c.fill_(NAN)
    tileorch.gemm(a, b, c)  # the first binding again
    check(c, a, b)


# --------------------------------------------------------------------------- both launch paths

@pytest.fixture(params=["c", "ctypes", "cuda-python"])
def launch_path(request, monkeypatch):
    """Bound launches through the compiled C launcher (the default: ``TILEORCH_LAUNCH_C`` and
    ``TILEORCH_LAUNCH_CTYPES`` unset; skipped, with the reason, where it does not build), through
    ctypes straight into libcuda, or through cuda-python's binding with repeats checked in Python
    (``TILEORCH_LAUNCH_CTYPES=0 TILEORCH_LAUNCH_C=0``, session 32's path): the caches cleared so that
    every launch is bound anew."""
    from tileorch.launchers import cutile as rc
    from tileorch.launchers import gemm as gapi
    from tileorch.runtime import c_launch

    if request.param == "c":
        monkeypatch.delenv("TILEORCH_LAUNCH_CTYPES", raising=False)
        monkeypatch.delenv(c_launch.ENV, raising=False)  # (on by default since session 34)
        if c_launch.wait() is None:
            pytest.skip(f"no C launcher: {c_launch.why_not()}")
    else:
        monkeypatch.setenv("TILEORCH_LAUNCH_CTYPES", "1" if request.param == "ctypes" else "0")
        if request.param == "cuda-python":
            monkeypatch.setenv(c_launch.ENV, "0")
    rc.clear_caches()
    gapi.clear_caches()
    yield request.param
    rc.clear_caches()
    gapi.clear_caches()


def test_cutile_launches_give_torchs_results_on_either_path(launch_path):
    from tileorch.launchers import cutile_bound

    scale = _scale_kernel()
    n, tile = 1 << 16, 1024
    xs = torch.randn((4, n), device="cuda")
    ys = torch.full_like(xs, NAN)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    for rep in range(3):  # bound, repeated, re-pointed rows, on the current and a side stream
        for i in range(4):
            stream = torch.cuda.current_stream() if i % 2 == 0 else side
            with torch.cuda.stream(stream):
                _launch(stream, (n // tile,), scale, (xs[i], ys[i], 1.0 + rep + i, tile))
        torch.cuda.synchronize()
        for i in range(4):
            torch.testing.assert_close(ys[i], xs[i] * (1.0 + rep + i), rtol=0, atol=0)
        ys.fill_(NAN)
        # the refill runs on the current stream: the side stream's next launch waits for it (without
        # this the refill could land after the side stream's kernel: NaN in odd rows, session 18 H200)
        side.wait_stream(torch.cuda.current_stream())
    paths = {getattr(launch, "path", None) for launch in cutile_bound.bound_launches.values()}
    assert paths == {launch_path}, paths


@pytest.mark.parametrize("m, n, k", [(256, 384, 512), (512, 512, 8192), (2048, 2048, 1024)])
def test_gemm_calls_give_torchs_results_on_either_path(launch_path, m, n, k):
    """Shapes that take the persistent scheduler, Stream-K with locks to zero (PreparedGemm.launch),
    and 2-CTA clusters."""
    import tileorch
    from tileorch.launchers import gemm as gapi

    g = torch.Generator(device="cuda").manual_seed(7)
    a = torch.randn((m, k), device="cuda", dtype=torch.float16, generator=g)
    b = torch.randn((k, n), device="cuda", dtype=torch.float16, generator=g)
    c = torch.full((m, n), NAN, device="cuda", dtype=torch.float16)
    for _ in range(2):
        c.fill_(NAN)
        tileorch.gemm(a, b, c)
        torch.cuda.synchronize()
        ref = a.float() @ b.float()
        assert torch.isfinite(c).all(), "unwritten (NaN) or non-finite outputs"
        err = float((c.float() - ref).norm() / ref.norm())
        assert err < 1e-2, f"relative error {err:.3e}"
    problem = next(iter(gapi._problems.values()))
    launch = next(iter(problem.bound.values()))
    prepared = getattr(launch, "bound", None) or launch.__self__
    assert prepared.path == launch_path, prepared.path_reason


def test_a_failed_bound_launch_raises_the_same_error_on_either_path(launch_path):
    """A block of 2048 threads: refused before the driver sees it (``LaunchConfig.make``: the same
    ``ValueError`` naming the block on either path, where the driver's answer was a bare
    CUDA_ERROR_INVALID_VALUE); the context stays usable."""
    from pathlib import Path

    from tileorch import runtime
    from tileorch.runtime.launch import BoundLaunch

    module = runtime.Module.from_file(Path(__file__).with_name("runtime_kernels.ptx"))
    out = runtime.DeviceBuffer(8 * 64)
    with pytest.raises(ValueError, match=r"block \(2048, 1, 1\) is not one CUDA launches \(at most 1024 threads"):
        BoundLaunch(module.kernel("axpb"), 1, 2048, [out, 64, 3, 1])
    bound = BoundLaunch(module.kernel("axpb"), 1, 64, [out, 64, 3, 1])
    assert bound.path == launch_path, bound.path_reason
    ok = bound.launcher()
    out.fill_bytes(0)
    ok(0)
    import numpy as np

    assert out.download(np.uint64).tolist() == [1] * 64
