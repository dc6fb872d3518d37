"""Bound launches through ctypes straight into libcuda (:mod:`tileorch.runtime.direct_launch`)
against a stand-in libcuda whose entry points are real C function pointers
(``tests/fake_libcuda.py``): the grid, block, shared memory, stream, cluster attribute and
parameter bytes the driver reads are those the cuda-python path passes; errors, a poisoned
context and the choice of path (and why) as documented.  No GPU."""

from __future__ import annotations

import ctypes
import struct

import pytest
from fake_libcuda import FakeLibcuda, cuda_python_launch, handle

from tileorch import runtime
from tileorch.runtime import c_launch
from tileorch.runtime import device as rt_device
from tileorch.runtime import direct_launch as dl
from tileorch.runtime import driver as rt_driver
from tileorch.runtime.driver import use_api

from test_runtime import PTX, FakeDriver  # noqa: E402  (tests/unit is on sys.path under pytest)


class HandleDriver(FakeDriver):
    """The runtime's stand-in driver with functions that have integer handles."""

    def cuModuleGetFunction(self, mod, name):
        err, fn = super().cuModuleGetFunction(mod, name)
        return err, (handle(fn) if fn is not None else None)


@pytest.fixture
def drv(monkeypatch):
    monkeypatch.setenv(dl.ENV, "1")
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


def u64(v):
    return struct.pack("<Q", v)


def test_the_structures_have_the_layout_of_cuda_h():
    """cuda.h on a 64-bit host: seven unsigned ints (28 bytes), the stream pointer aligned to 32,
    the attributes pointer at 40, numAttrs at 48, 56 bytes in all; an attribute is a 4-byte id,
    4 bytes of padding and a 64-byte value (72 bytes), the cluster dimensions at its start."""
    c, a = dl.LaunchConfigStruct, dl.LaunchAttributeStruct
    assert ctypes.sizeof(c) == 56 and ctypes.sizeof(a) == 72
    assert [getattr(c, f).offset for f in ("gridDimX", "blockDimX", "sharedMemBytes", "hStream", "attrs",
                                           "numAttrs")] == [0, 12, 24, 32, 40, 48]
    assert a.value.offset == 8 and dl.CLUSTER_DIMENSION == 4
    config = dl.config_struct((4, 2, 1), (64, 1, 1), 1024, (2, 1, 1), 0x99)
    raw = ctypes.string_at(ctypes.addressof(config), 56)
    assert struct.unpack_from("<7I4xQ", raw) == (4, 2, 1, 64, 1, 1, 1024, 0x99)
    attrs, n = struct.unpack_from("<QI", raw, 40)
    assert n == 1 and struct.unpack("<i4x3I", ctypes.string_at(attrs, 20)) == (4, 2, 1, 1)


def _bound_launches(kernel, out, streams, **options):
    """Launch ``fill`` bound to (out, 7, 2.5) on each of ``streams``, then re-pointed to ``out2``."""
    from tileorch.runtime.launch import BoundLaunch

    bound = BoundLaunch(kernel, (4, 2), 64, [out, 7, 2.5], **options)
    launch = bound.launcher()
    for s in streams:
        launch(s)
    return bound, launch


@pytest.mark.parametrize("options", [dict(cluster=(2, 1)), dict(smem=200_000), dict()])
def test_a_bound_launch_passes_the_driver_what_the_cuda_python_path_passes(drv, options):
    kernel = runtime.Module(PTX).kernel("fill")
    out, other = runtime.DeviceBuffer(4 * 8), runtime.DeviceBuffer(4 * 8)
    streams = (5, 9, 0, 5)
    # the cuda-python path (no library handed in: the stand-in driver is not the loaded one)
    bound, launch = _bound_launches(kernel, out, streams, **options)
    assert launch.path == bound.path == "cuda-python" and "not the cuda.bindings.driver" in launch.path_reason
    bound.repointer([0])((other.ptr,))(7)
    go = bound.pointer_launcher([0])  # the same launch through a pooled parameter buffer
    assert go.path == "cuda-python"
    go(3, (other.ptr,))
    go(3, (out.ptr,))
    expected = [cuda_python_launch(x["config"], x["fn"], x["params"]) for x in drv.launches]
    fake = FakeLibcuda(lambda name: drv.params[name])
    with dl.use_library(fake):
        bound, launch = _bound_launches(kernel, out, streams, **options)
        assert launch.path == bound.path == "ctypes" and launch.path_reason == bound.path_reason == ""
        moved = bound.repointer([0])((other.ptr,))
        assert moved.path == "ctypes"
        moved(7)
        go = bound.pointer_launcher([0])
        assert go.path == "ctypes"
        go(3, (other.ptr,))
        go(3, (out.ptr,))
        assert len(go.pool) == 1  # one buffer, reused
    assert fake.launches == expected
    first = fake.launches[0]  # and what that is, by hand
    assert first["grid"] == (4, 2, 1) and first["block"] == (64, 1, 1)
    assert first["smem"] == options.get("smem", 0) and [x["stream"] for x in fake.launches] == [5, 9, 0, 5, 7, 3, 3]
    assert first["attrs"] == ([(4, (2, 1, 1))] if "cluster" in options else [])
    assert first["params"] == [u64(out.ptr), struct.pack("<i", 7), struct.pack("<f", 2.5)]
    assert fake.launches[-3]["params"] == [u64(other.ptr)] + first["params"][1:]
    assert fake.launches[-2]["params"] == fake.launches[-3]["params"] and fake.launches[-1]["params"] == first["params"]


def test_streams_share_one_configuration_each_across_re_pointed_launches(lib, monkeypatch):
    from tileorch.runtime.launch import BoundLaunch

    made = []
    real = dl.config_struct
    monkeypatch.setattr(dl, "config_struct", lambda *a, **k: made.append(a[-1]) or real(*a, **k))
    kernel = runtime.Module(PTX).kernel("fill")
    out = runtime.DeviceBuffer(32)
    bound = BoundLaunch(kernel, 4, 64, [out, 7, 2.5])
    launch, repoint = bound.launcher(), bound.repointer([0])
    for s in (5, 9, 5):
        launch(s)
        repoint((out.ptr + 16,))(s)
    assert made == [5, 9]
    monkeypatch.setattr(dl, "STREAMS_MAX", 2)
    launch(11)  # a third stream: the configurations are made anew
    launch(5)
    assert made == [5, 9, 11, 5] and [x["stream"] for x in lib.launches[-2:]] == [11, 5]


def test_a_failed_launch_raises_as_the_cuda_python_path_does(drv, lib, monkeypatch):
    from tileorch.runtime.launch import BoundLaunch

    kernel = runtime.Module(PTX).kernel("fill")
    out = runtime.DeviceBuffer(32)
    launch = BoundLaunch(kernel, (4, 2), 64, [out, 7, 2.5], cluster=(2, 1)).launcher()
    lib.result = 1
    with pytest.raises(runtime.CudaError) as ctypes_error:
        launch(5)
    assert ctypes_error.value.code == 1 and ctypes_error.value.name == "CUDA_ERROR_INVALID_VALUE"
    monkeypatch.setenv(dl.ENV, "0")  # the same launch through cuda-python's binding
    monkeypatch.setattr(drv, "cuLaunchKernelEx", lambda *a: (1,))
    with pytest.raises(runtime.CudaError) as binding_error:
        BoundLaunch(kernel, (4, 2), 64, [out, 7, 2.5], cluster=(2, 1)).launcher()(5)
    assert str(ctypes_error.value) == str(binding_error.value)
    assert "cuLaunchKernelEx('fill', grid=(4, 2, 1) block=(64, 1, 1) cluster=(2, 1, 1)" in str(ctypes_error.value)
    lib.result = 12345  # a code the library has no name for
    with pytest.raises(runtime.CudaError, match=r"CUresult 12345 \(12345\): unknown error code"):
        launch(5)


def test_a_poisoned_context_raises_before_the_driver_is_asked(lib):
    from tileorch.runtime.launch import BoundLaunch

    kernel = runtime.Module(PTX).kernel("fill")
    out = runtime.DeviceBuffer(32)
    launch = BoundLaunch(kernel, 4, 64, [out, 7, 2.5]).launcher()
    kernel.module.device.poisoned_by = "an earlier hang"
    try:
        with pytest.raises(runtime.ContextPoisoned, match="an earlier hang"):
            launch(5)
    finally:
        kernel.module.device.poisoned_by = None
    assert lib.launches == []


def test_the_path_and_why(drv, monkeypatch):
    """ctypes when the driver in use is the one the runtime loaded and libcuda loads (or a
    library was handed in); cuda-python, with the reason, otherwise."""
    from tileorch.runtime.launch import BoundLaunch

    kernel = runtime.Module(PTX).kernel("fill")
    out = runtime.DeviceBuffer(32)

    def path():
        bound = BoundLaunch(kernel, 4, 64, [out, 7, 2.5])
        launch = bound.launcher()
        assert (launch.path, launch.path_reason) == (bound.path, bound.path_reason)
        return launch.path, launch.path_reason

    assert path() == ("cuda-python", "the driver module in use is not the cuda.bindings.driver the runtime loaded")
    monkeypatch.setattr(rt_driver, "_loaded", drv)  # as if api() had loaded this module
    monkeypatch.setattr(dl, "_loaded", None)
    fake = FakeLibcuda(lambda name: drv.params[name])
    opened = []
    monkeypatch.setattr(dl.ctypes, "CDLL", lambda name: opened.append(name) or fake)
    assert path() == ("ctypes", "") and path() == ("ctypes", "") and opened == ["libcuda.so.1"]  # loaded once
    monkeypatch.setenv(dl.ENV, "0")
    assert path() == ("cuda-python", "TILEORCH_LAUNCH_CTYPES=0")
    monkeypatch.delenv(dl.ENV)  # unset: the compiled C launcher (TILEORCH_LAUNCH_C unset: on) where it builds
    for switch in ("", "1"):
        monkeypatch.setenv(c_launch.ENV, switch)
        c_launch.wait()
        assert path() == (("c", "") if not c_launch.why_not() else ("cuda-python",
                                                                      dl._no_c_reason(c_launch.why_not())))
    with monkeypatch.context() as m:  # (a machine where it did not build: the reason, whatever this one has)
        m.setattr(c_launch, "_state", [None, "no C compiler here"])
        m.delenv(c_launch.ENV)
        assert path() == ("cuda-python", "the C launcher is not taken (no C compiler here); cuda-python's binding "
                                         "(measured cheaper than ctypes; TILEORCH_LAUNCH_CTYPES=1: ctypes)")
    monkeypatch.setenv(c_launch.ENV, "0")  # off: cuda-python's binding
    assert path() == ("cuda-python", "the C launcher is not taken (TILEORCH_LAUNCH_C=0); cuda-python's binding "
                                     "(measured cheaper than ctypes; TILEORCH_LAUNCH_CTYPES=1: ctypes)")
    monkeypatch.delenv(c_launch.ENV)
    monkeypatch.setenv(dl.ENV, "0")
    with dl.use_library(fake):
        assert path() == ("cuda-python", "TILEORCH_LAUNCH_CTYPES=0")  # the switch wins over a library handed in
    monkeypatch.setenv(dl.ENV, "1")
    for value in ("1", "0"):
        monkeypatch.setenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", value)
        assert path()[0] == "cuda-python" and "per-thread default stream" in path()[1]
    monkeypatch.delenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM")

    def no_libcuda(name):
        raise OSError("libcuda.so.1: cannot open shared object file")

    monkeypatch.setattr(dl, "_loaded", None)
    monkeypatch.setattr(dl.ctypes, "CDLL", no_libcuda)
    assert path() == ("cuda-python", "libcuda could not be loaded through ctypes (OSError: libcuda.so.1: cannot "
                                     "open shared object file)")
    monkeypatch.setattr(dl, "_loaded", None)
    monkeypatch.setattr(dl.ctypes, "CDLL", lambda name: object())  # no cuLaunchKernelEx
    assert path()[0] == "cuda-python" and "AttributeError" in path()[1]


def test_a_function_without_a_raw_handle_takes_the_cuda_python_path(lib):
    from tileorch.runtime.launch import BoundLaunch

    kernel = runtime.Module(PTX).kernel("fill")
    kernel.function = "fill"  # a plain name: int() has nothing to give
    out = runtime.DeviceBuffer(32)
    bound = BoundLaunch(kernel, 4, 64, [out, 7, 2.5])
    assert bound.path == "cuda-python" and bound.path_reason == "the function 'fill' has no raw CUfunction handle"
    bound.launcher()(3)
    assert lib.launches == []


def test_the_default_path_says_it_is_the_default(monkeypatch):
    """Unset, the switches take the default (the C launcher where it builds, else cuda-python's binding
    with the reason) and say so, not '=0'; TILEORCH_LAUNCH_C=0 says so; TILEORCH_LAUNCH_CTYPES=0 opens no
    libcuda."""
    from fake_libcuda import FakeLibcuda

    monkeypatch.delenv(dl.ENV, raising=False)
    monkeypatch.delenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", raising=False)
    monkeypatch.delenv(c_launch.ENV, raising=False)
    path, why = dl.planned_path(load=lambda: FakeLibcuda(lambda name: []))
    if c_launch.module() is not None:  # the C launcher, with the switches that turn it off
        assert path == "c" and f"{dl.ENV}=0" in why and f"{c_launch.ENV}=0" in why and f"{dl.ENV}=1" in why
    else:
        assert path == "cuda-python" and "not taken" in why and c_launch.why_not() in why
    with monkeypatch.context() as m:  # where it does not build: cuda-python's binding, saying why
        m.setattr(c_launch, "_state", [None, "no C compiler here"])
        path, why = dl.planned_path(load=lambda: FakeLibcuda(lambda name: []))
        assert path == "cuda-python" and "not taken (no C compiler here)" in why and f"{dl.ENV}=1" in why
    monkeypatch.setenv(c_launch.ENV, "0")
    path, why = dl.planned_path(load=lambda: FakeLibcuda(lambda name: []))
    assert path == "cuda-python" and f"not taken ({c_launch.ENV}=0)" in why
    monkeypatch.setenv(dl.ENV, "0")
    assert dl.planned_path(load=lambda: (_ for _ in ()).throw(AssertionError("libcuda must not be opened"))) == \
        ("cuda-python", f"{dl.ENV}=0")


def test_a_re_pointed_ctypes_launch_outlives_its_bound_launch(drv):
    """A re-pointed launch reads its other parameters in place from the bound launch's buffer:
    it keeps that buffer alive once the bound launch and its re-pointer are gone (on the ctypes
    path nothing else holds the bound launch), and passes the pointer asked for, the rest as bound."""
    import gc

    from tileorch.runtime.launch import BoundLaunch

    # what lives now is frozen (gc.freeze, as tests/conftest.py does after the collection): the full
    # collection below then walks the objects made from here on, the bound launch's among them, and not
    # the whole heap of an xdist worker (its memos and kept IR: 11.9 CPU s of the 2026-12-06 run)
    gc.freeze()
    kernel = runtime.Module(PTX).kernel("fill")
    out, other = runtime.DeviceBuffer(4 * 8), runtime.DeviceBuffer(4 * 8)
    fake = FakeLibcuda(lambda name: drv.params[name])
    with dl.use_library(fake):
        bound = BoundLaunch(kernel, (4, 2), 64, [out, 7, 2.5])
        moved = bound.repointer([0])((other.ptr,))
        size = ctypes.sizeof(bound._blob)
        del bound
        gc.collect()
        junk = [(ctypes.c_char * size).from_buffer_copy(b"\xff" * size) for _ in range(256)]  # takes freed memory
        moved(3)
        del junk
    assert fake.launches[-1]["params"] == [struct.pack("<Q", other.ptr), struct.pack("<i", 7), struct.pack("<f", 2.5)]
