"""Bound launches through the compiled C launcher (:mod:`tileorch.runtime.c_launch`), the default
path of :mod:`tileorch.runtime.direct_launch`, against the stand-in libcuda of real C function
pointers (``tests/fake_libcuda.py``): what the driver reads (grid, block, shared memory, stream,
cluster attribute, parameter bytes) is what the cuda-python path passes, for bound, re-pointed and
pointer launches; errors, a poisoned context, wrong pointers, threads, and why the launcher is not
there.  No GPU; skipped where the launcher does not build (its reason printed)."""

from __future__ import annotations

import struct
import threading

import pytest
from fake_libcuda import FakeLibcuda, cuda_python_launch, handle

from tileorch import runtime
from tileorch.runtime import c_launch
from tileorch.runtime import device as rt_device
from tileorch.runtime import direct_launch as dl
from tileorch.runtime.driver import use_api

from test_runtime import PTX, FakeDriver  # noqa: E402  (tests/unit is on sys.path under pytest)

def _built() -> str:
    """'' where the C launcher builds here (TILEORCH_LAUNCH_C=1 asked for the check), else why not."""
    from tileorch import settings

    with settings.overridden(c_launch.ENV, "1"):
        return c_launch.why_not()


pytestmark = pytest.mark.skipif(bool(_built()), reason=f"no C launcher: {_built()}")


class HandleDriver(FakeDriver):
    def cuModuleGetFunction(self, mod, name):
        err, fn = super().cuModuleGetFunction(mod, name)
        return err, (handle(fn) if fn is not None else None)


@pytest.fixture
def drv(monkeypatch):
    monkeypatch.delenv(dl.ENV, raising=False)  # unset: the C launcher (asked for: opt-in)
    monkeypatch.setenv(c_launch.ENV, "1")
    d = HandleDriver()
    rt_device.forget_devices()
    with use_api(d):
        yield d
    rt_device.forget_devices()


@pytest.fixture
def lib(drv):
    fake = FakeLibcuda(lambda name: drv.params[name])
    with dl.use_library(fake):
        yield fake


def _launches(kernel, out, other, streams, **options):
    """Bound to (out, 7, 2.5) on each of ``streams``, re-pointed to ``other`` on 7, then the pointer
    launcher on 3 with ``other`` and ``out``."""
    from tileorch.runtime.launch import BoundLaunch

    bound = BoundLaunch(kernel, (4, 2), 64, [out, 7, 2.5], **options)
    launch = bound.launcher()
    for s in streams:
        launch(s)
    bound.repointer([0])((other.ptr,))(7)
    go = bound.pointer_launcher([0])
    go(3, (other.ptr,))
    go(3, [out.ptr])
    return bound, launch, go


@pytest.mark.parametrize("options", [dict(cluster=(2, 1)), dict(smem=200_000), dict()])
def test_the_c_launcher_passes_the_driver_what_the_cuda_python_path_passes(drv, options, monkeypatch):
    kernel = runtime.Module(PTX).kernel("fill")
    out, other = runtime.DeviceBuffer(4 * 8), runtime.DeviceBuffer(4 * 8)
    streams = (5, 9, 0, 5, (1 << 63) + 16)
    monkeypatch.setenv(dl.ENV, "0")
    bound, launch, go = _launches(kernel, out, other, streams, **options)
    assert launch.path == go.path == bound.path == "cuda-python"
    expected = [cuda_python_launch(x["config"], x["fn"], x["params"]) for x in drv.launches]
    monkeypatch.delenv(dl.ENV)
    fake = FakeLibcuda(lambda name: drv.params[name])
    with dl.use_library(fake):
        bound, launch, go = _launches(kernel, out, other, streams, **options)
        assert launch.path == go.path == bound.path == "c" and launch.path_reason == bound.path_reason == ""
        assert type(launch).__name__ == "Launcher" and launch.bound is bound and go.bound is bound
    assert fake.launches == expected
    first = fake.launches[0]
    assert first["grid"] == (4, 2, 1) and first["block"] == (64, 1, 1) and first["extra"] is None
    assert first["smem"] == options.get("smem", 0)
    assert [x["stream"] for x in fake.launches] == [5, 9, 0, 5, (1 << 63) + 16, 7, 3, 3]
    assert first["attrs"] == ([(4, (2, 1, 1))] if "cluster" in options else [])
    assert first["params"] == [struct.pack("<Q", out.ptr), struct.pack("<i", 7), struct.pack("<f", 2.5)]
    assert fake.launches[-3]["params"] == fake.launches[-2]["params"] == [struct.pack("<Q", other.ptr)] + \
        first["params"][1:]
    assert fake.launches[-1]["params"] == first["params"]


def test_a_failed_launch_raises_as_the_ctypes_path_does(lib, monkeypatch):
    from tileorch.runtime.launch import BoundLaunch

    kernel = runtime.Module(PTX).kernel("fill")
    out = runtime.DeviceBuffer(32)
    lib.result = 700
    errors = []
    for switch in ("1", None):  # ctypes, then the C launcher
        if switch:
            monkeypatch.setenv(dl.ENV, switch)
        else:
            monkeypatch.delenv(dl.ENV)
        bound = BoundLaunch(kernel, (4, 2), 64, [out, 7, 2.5], cluster=(2, 1))
        for launch in (bound.launcher(), lambda s, go=bound.pointer_launcher([0]): go(s, (out.ptr,))):
            with pytest.raises(runtime.CudaError) as caught:
                launch(5)
            errors.append(str(caught.value))
    assert bound.path == "c" and len(set(errors)) == 1
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in errors[0] and "cuLaunchKernelEx('fill', grid=(4, 2, 1)" in errors[0]
    lib.result = 12345
    with pytest.raises(runtime.CudaError, match=r"CUresult 12345 \(12345\): unknown error code"):
        bound.launcher()(5)


def test_a_poisoned_context_raises_before_the_driver_is_asked(lib):
    from tileorch.runtime.launch import BoundLaunch

    kernel = runtime.Module(PTX).kernel("fill")
    out = runtime.DeviceBuffer(32)
    bound = BoundLaunch(kernel, 4, 64, [out, 7, 2.5])
    launch, go = bound.launcher(), bound.pointer_launcher([0])
    assert launch.path == "c"
    kernel.module.device.poisoned_by = "an earlier hang"
    try:
        with pytest.raises(runtime.ContextPoisoned, match="an earlier hang"):
            launch(5)
        with pytest.raises(runtime.ContextPoisoned, match="an earlier hang"):
            go(5, (out.ptr,))
    finally:
        kernel.module.device.poisoned_by = None
    assert lib.launches == []
    launch()  # stream 0 by default
    assert [x["stream"] for x in lib.launches] == [0]


def test_wrong_pointers_and_streams_are_refused_before_the_driver_is_asked(lib):
    from tileorch.runtime.launch import BoundLaunch

    kernel = runtime.Module(PTX).kernel("fill")
    out = runtime.DeviceBuffer(32)
    bound = BoundLaunch(kernel, 4, 64, [out, 7, 2.5])
    launch, go = bound.launcher(), bound.pointer_launcher([0])
    with pytest.raises(ValueError, match="1 pointers expected, got 2"):
        go(3, (out.ptr, out.ptr))
    with pytest.raises(TypeError):
        go(3, (2.5,))
    with pytest.raises(OverflowError):
        go(3, (-1,))
    with pytest.raises(TypeError, match="stream must be an int"):
        launch("0")
    with pytest.raises(OverflowError):
        launch(-1)
    with pytest.raises(TypeError, match=r"takes \(stream=0\)"):
        launch(3, (out.ptr,))
    with pytest.raises(TypeError, match="by position"):
        launch(stream=3)
    with pytest.raises(ValueError, match="has 4 bytes, not a pointer's 8"):
        bound.pointer_launcher([1])
    assert lib.launches == []


def test_threads_launching_through_one_pointer_launcher_each_pass_their_own_pointers(lib):
    """The table and the pointers live on each call's stack (the GIL is released around the
    driver call): concurrent calls never see another call's pointers."""
    from tileorch.runtime.launch import BoundLaunch

    kernel = runtime.Module(PTX).kernel("fill")
    out = runtime.DeviceBuffer(32)
    go = BoundLaunch(kernel, 4, 64, [out, 7, 2.5]).pointer_launcher([0])
    asked: list[int] = []

    def work(t: int) -> None:
        for i in range(50):
            ptr = 0x7F0000000000 + (t << 24) + 256 * i
            asked.append(ptr)
            go(t, (ptr,))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seen = [(x["stream"], struct.unpack("<Q", x["params"][0])[0]) for x in lib.launches]
    assert sorted(p for _, p in seen) == sorted(asked) and len(seen) == 200
    assert all((p - 0x7F0000000000) >> 24 == s for s, p in seen)  # each on its own thread's stream
    assert all(x["params"][1:] == [struct.pack("<i", 7), struct.pack("<f", 2.5)] for x in lib.launches)


def test_why_the_launcher_is_not_there(tmp_path, monkeypatch):
    """A compiler that fails or is missing, and the switch, each give a reason (the process's own
    decision is left as it was)."""
    monkeypatch.setenv("CC", "false")
    path, why = c_launch.build(str(tmp_path))
    assert path is None and "did not build" in why and "false exit 1" in why
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    path, why = c_launch.build(str(tmp_path))
    assert path is None and "could not run" in why
    for off in ("0", ""):  # off, and unset (the default until a GPU run measures it)
        monkeypatch.setenv(c_launch.ENV, off)
        assert c_launch.module() is None and c_launch.why_not().startswith("TILEORCH_LAUNCH_C is not 1")
    assert list(tmp_path.iterdir()) == []  # nothing left behind


def test_asked_for_and_not_built_says_so_once(monkeypatch):
    """``TILEORCH_LAUNCH_C=1`` and no launcher: a PerformanceWarning names the reason and the path taken
    (cuda-python's binding), once per process, never a silent slower path."""
    import warnings

    from tileorch.diagnostics import PerformanceWarning

    monkeypatch.setenv(c_launch.ENV, "1")
    monkeypatch.setattr(c_launch, "build", lambda *a, **k: (None, "no compiler here"))
    c_launch.reset()
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            assert c_launch.module() is None and c_launch.module() is None
        said = [str(w.message) for w in seen if issubclass(w.category, PerformanceWarning)]
        assert len(said) == 1 and "no compiler here" in said[0] and "cuda-python" in said[0]
    finally:
        c_launch.reset()
