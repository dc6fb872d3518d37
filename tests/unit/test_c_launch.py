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
    """'' where the C launcher builds here (its build waited for), else why not (asked for with =1, its
    warning where it does not build is not this check's)."""
    import warnings

    from tileorch import settings

    with settings.overridden(c_launch.ENV, "1"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c_launch.wait()
        return c_launch.why_not()


pytestmark = pytest.mark.skipif(bool(_built()), reason=f"no C launcher: {_built()}")


class HandleDriver(FakeDriver):
    def cuModuleGetFunction(self, mod, name):
        err, fn = super().cuModuleGetFunction(mod, name)
        return err, (handle(fn) if fn is not None else None)


@pytest.fixture
def drv(monkeypatch):
    monkeypatch.delenv(dl.ENV, raising=False)  # unset: the C launcher
    monkeypatch.delenv(c_launch.ENV, raising=False)  # unset: on (the default)
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
    decision is left as it was): off with =0, on unset (the default) and with =1."""
    monkeypatch.setenv("CC", "false")
    path, why = c_launch.build(str(tmp_path))
    assert path is None and "did not build" in why and "false exit 1" in why
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    path, why = c_launch.build(str(tmp_path))
    assert path is None and "could not run" in why
    assert list(tmp_path.iterdir()) == []  # nothing left behind
    monkeypatch.delenv("CC")
    monkeypatch.setenv(c_launch.ENV, "0")
    assert c_launch.module() is None and c_launch.why_not() == "TILEORCH_LAUNCH_C=0" and not c_launch.enabled()
    for on in ("", "1"):  # unset (the default since session 34), and asked for
        monkeypatch.setenv(c_launch.ENV, on)
        assert c_launch.enabled() and c_launch.module() is not None and c_launch.why_not() == ""


@pytest.fixture
def fresh(monkeypatch):
    """The process's decision forgotten for the test (and restored after it: the launcher already
    loaded stays in use by the other tests); the switch unset."""
    monkeypatch.delenv(c_launch.ENV, raising=False)
    saved = list(c_launch._state)
    c_launch.reset()
    yield
    c_launch.reset()
    c_launch._state[:] = saved


def _gated_build(monkeypatch, outcome):
    """``build`` replaced by one that blocks until the returned event is set, then gives ``outcome``;
    ``built`` by nothing on disk.  Returns (the event, the list of the builds started)."""
    import threading

    gate, started = threading.Event(), []

    def build(directory=None):
        started.append(threading.current_thread().name)
        gate.wait(30)
        return outcome

    monkeypatch.setattr(c_launch, "build", build)
    monkeypatch.setattr(c_launch, "built", lambda directory=None: None)
    return gate, started


def test_a_first_launch_waits_at_most_the_bound_for_the_build_then_takes_cuda_python(fresh, monkeypatch):
    """The build runs in a background thread (started once, by :func:`start` or the first :func:`module`);
    :func:`module` waits for it at most ``TILEORCH_LAUNCH_C_WAIT_MS`` in all (a first launch asks several
    times) and answers None meanwhile (why: the build is under way), then the module once the build is
    done, for the rest of the process."""
    import time

    real = c_launch.build()[0]  # the real launcher (built already: this module's skip condition)
    gate, started = _gated_build(monkeypatch, (real, ""))
    monkeypatch.setenv("TILEORCH_LAUNCH_C_WAIT_MS", "50")
    c_launch.start()
    c_launch.start()
    t0 = time.perf_counter()
    assert c_launch.module() is None
    waited = time.perf_counter() - t0
    assert 0.04 <= waited < 2.0, waited
    assert c_launch.why_not().startswith(c_launch.PENDING) and "cuda-python" in c_launch.why_not()
    t0 = time.perf_counter()  # the process's budget is spent: the other calls of a first launch do not wait
    assert c_launch.module() is None and c_launch.why_not().startswith(c_launch.PENDING)
    assert time.perf_counter() - t0 < 0.04
    assert started == ["tileorch-c-launch-build"]  # one build, in the background
    gate.set()
    assert c_launch.wait(30) is not None and c_launch.why_not() == ""
    assert c_launch.module() is c_launch.module() and started == ["tileorch-c-launch-build"]


def test_a_default_that_cannot_build_falls_back_without_a_warning(fresh, monkeypatch):
    """Unset (the default), a launcher that does not build is said by why_not (path_reason, doctor), never
    warned about at each user's first launch; asked for (=1), the PerformanceWarning of the next test."""
    import warnings

    gate, started = _gated_build(monkeypatch, (None, "no compiler here"))
    gate.set()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert c_launch.wait() is None and c_launch.module() is None
    assert [str(w.message) for w in seen] == []
    assert c_launch.why_not() == "no compiler here" and len(started) == 1


def test_a_built_launcher_is_loaded_without_a_thread(fresh, monkeypatch):
    """On a machine where it is built already, the first launch loads it at once (no build, no thread)."""
    monkeypatch.setattr(c_launch, "build", lambda directory=None: pytest.fail("no build where one is built"))
    monkeypatch.setenv("TILEORCH_LAUNCH_C_WAIT_MS", "0")
    assert c_launch.module() is not None and c_launch._building["thread"] is None


def test_asked_for_and_not_built_says_so_once(fresh, monkeypatch):
    """``TILEORCH_LAUNCH_C=1`` and no launcher: a PerformanceWarning names the reason and the path taken
    (cuda-python's binding), once per process, never a silent slower path."""
    import warnings

    from tileorch.diagnostics import PerformanceWarning

    monkeypatch.setenv(c_launch.ENV, "1")
    gate, _ = _gated_build(monkeypatch, (None, "no compiler here"))
    gate.set()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert c_launch.wait() is None and c_launch.module() is None
    said = [str(w.message) for w in seen if issubclass(w.category, PerformanceWarning)]
    assert len(said) == 1 and "no compiler here" in said[0] and "cuda-python" in said[0]


def test_a_new_process_finds_the_built_launcher_and_fronts_the_public_launch():
    """Where the launcher is built (here, in the run's cache directory), ``import tileorch.cutile`` loads it
    (without the build module: no compiler, no subprocess) and ``tileorch.cutile.launch`` is its ``Front``
    over the Python function (its name, doc and signature); with ``TILEORCH_LAUNCH_C=0`` the Python function
    (asked of ``_front`` here: one process is enough)."""
    import os
    import subprocess
    import sys

    assert c_launch.wait() is not None
    code = ("import inspect, sys, tileorch.cutile as t\n"
            "from tileorch.launchers import cutile as rc\n"
            "print(type(t.launch).__name__, t.launch.__name__, t.launch is rc.launch, "
            "'tileorch.runtime.c_launch_build' in sys.modules, list(inspect.signature(t.launch).parameters)[:4])\n")
    env = {k: v for k, v in os.environ.items() if k != c_launch.ENV}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0] == "Front launch True False ['stream', 'grid', 'kernel', 'args']", out.stdout

    from tileorch.launchers import cutile as rc

    python = getattr(rc.launch, "__wrapped__", rc.launch)
    assert type(rc._front(python)).__name__ == "Front"
    with pytest.MonkeyPatch.context() as m:
        m.setenv(c_launch.ENV, "0")
        assert rc._front(python) is python


def test_a_library_another_user_could_write_is_never_loaded(tmp_path, monkeypatch):
    """The C launcher is loaded only from a file and folder of this user's own that no other user may write:
    a library of the launcher's (public) name in the shared temporary directory, or a world-writable one in the
    cache, is not taken (a local user could otherwise run code in every tileorch process, or switch the
    launcher off for all); the fallback folder is a private one of this user's, not the temporary directory."""
    import os
    import stat

    from tileorch.runtime import c_launch

    cache = tmp_path / "cache"
    monkeypatch.setenv("TILEORCH_CACHE_DIR", str(cache))
    shared = tmp_path / "shared_tmp"
    shared.mkdir()
    monkeypatch.setenv("TMPDIR", str(shared))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    name = c_launch.name() + c_launch._suffix()
    (shared / name).write_bytes(b"not a library")  # the shared directory itself: never a place
    assert c_launch.built() is None
    places = c_launch._places(None)
    assert places[1] != str(shared) and os.path.basename(places[1]).startswith("tileorch-")
    mine = cache / "c_launch"
    mine.mkdir(parents=True)
    lib = mine / name
    lib.write_bytes(b"x")
    os.chmod(lib, 0o600)
    assert c_launch.built() == str(lib)
    os.chmod(lib, 0o666)  # world-writable: anyone could have replaced it
    assert c_launch.built() is None and not c_launch.trusted(str(lib))
    os.chmod(lib, 0o600)
    os.chmod(mine, 0o777)  # a folder anyone may write into
    assert not c_launch.trusted(str(lib))
    os.chmod(mine, 0o700)
    assert c_launch.trusted(str(lib))
    assert stat.S_ISREG(os.lstat(lib).st_mode)


@pytest.mark.parametrize("options", [dict(cluster=(2, 1)), dict()])
def test_a_pdl_kernel_gets_programmatic_stream_serialization_on_every_path(drv, options, monkeypatch):
    """A kernel compiled for programmatic dependent launch (``Kernel.pdl``, TILEORCH_PDL=1) carries the
    attribute (id 6, value 1; after the cluster's) through cuda-python's binding, ctypes and the C
    launcher alike, and through the unbound launch; the same kernel without ``pdl`` never does."""
    from tileorch.runtime.launch import launch as runtime_launch

    kernel = runtime.Module(PTX).kernel("fill")
    out, other = runtime.DeviceBuffer(4 * 8), runtime.DeviceBuffer(4 * 8)
    cluster = [(4, (2, 1, 1))] if options else []
    records = {}
    for pdl in (False, True):
        kernel.pdl = pdl
        want = cluster + ([(6, (1, 0, 0))] if pdl else [])
        monkeypatch.setenv(dl.ENV, "0")
        drv.launches.clear()
        _launches(kernel, out, other, (5,), **options)
        runtime_launch(kernel, (4, 2), 64, [out, 7, 2.5], wait=False, **options)
        paths = {"cuda-python": [cuda_python_launch(x["config"], x["fn"], x["params"])["attrs"]
                                 for x in drv.launches]}
        for switch in ("1", None):  # ctypes, then the C launcher
            if switch:
                monkeypatch.setenv(dl.ENV, switch)
            else:
                monkeypatch.delenv(dl.ENV)
            fake = FakeLibcuda(lambda name: drv.params[name])
            with dl.use_library(fake):
                bound, _, _ = _launches(kernel, out, other, (5,), **options)
            assert bound.path == ("ctypes" if switch else "c")
            paths[bound.path] = [x["attrs"] for x in fake.launches]
        for path, attrs in paths.items():
            assert attrs and all(a == want for a in attrs), (pdl, path, attrs)
        records[pdl] = paths
    assert records[False] != records[True]
