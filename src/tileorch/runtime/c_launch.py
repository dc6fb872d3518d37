"""Bound launches through a small compiled C launcher (issue 22: host time per launch).

A repeated launch's foreign call is the largest part of its host time that Python code can
change: cuda-python's ``cuLaunchKernelEx`` converts its four arguments and builds a result tuple
(~4.3k instructions a call, ``benchmarks/launch_paths_stub.py``), a ctypes call prepares libffi's
call each time (~4.8k).  Here a small CPython extension in C (``c_launch_build.SOURCE``, ~900 lines)
is built with the C compiler once per machine (kept in ``<cache base>/c_launch/``, named by the
digest of its source, :data:`DIGEST`, with the interpreter's extension suffix) and loaded; its
``Launcher`` objects are what a bound launch calls:

* ``Launcher(launch_ex, function, table, grid, block, smem, cluster, slots, n_params, device,
  fail, keep[, pdl])``: ``launch_ex`` the address of libcuda's ``cuLaunchKernelEx`` (or a stand-in's),
  ``function`` the raw ``CUfunction``, ``table`` the address of the parameters' address table
  (0: none), grid / block 3-tuples, ``smem`` bytes, ``cluster`` a 3-tuple (the cluster dimension
  attribute) or None, ``slots`` None or the parameters (8 bytes each) a pointer launch writes,
  ``n_params`` the table's entries, ``device`` None or the runtime's device (its ``poisoned_by``
  read at each call: a poisoned context calls ``device.require_healthy()``, which raises, before
  the driver is asked), ``fail(code)`` called with a non-zero CUresult (it raises the error), and
  ``keep`` held for the launcher's life (what owns the table and the parameters); ``pdl`` true: the
  launch also carries the programmatic stream serialization attribute (after the cluster's; a kernel
  compiled with ``griddepcontrol.wait`` only, ``Kernel.pdl``).
* ``launcher(stream=0)``: the launch on the stream handle ``stream`` (an int) with the table as
  bound; ``launcher(stream, pointers)`` (``slots`` given): with the slots' parameters holding
  ``pointers`` (a tuple or list of as many ints), the table and the pointers copied to the call's
  own stack, so that nothing is shared between calls (threads) and nothing is allocated.
* The ``CUlaunchConfig`` (cuda.h's layout: seven ``unsigned int``, the stream, the attributes
  pointer, their count; 56 bytes) is copied to the stack at each call and its stream set there.
  The GIL is released around the driver call, as cuda-python and ctypes release it (a launch that
  waits for room in a full queue must not stop the other Python threads).
* Instances take attributes (``path``, ``path_reason``, ``bound``), as the Python launchers do.

``Memo(types, kinds, stream_types)`` is a repeated ``tileorch.cutile.launch`` call's check in C
(:func:`tileorch.launchers.cutile_bound.learn` puts one in front of a kernel's generated hot
launcher where every argument is a torch tensor, an array with ``__cuda_array_interface__`` or a
Python ``float``/``int``/``bool``): the facts of the last call the Python launcher launched
through a bound launch (``memo.record(...)``); a call's facts read and compared in C (a tensor's
``data_ptr()``, ``shape``, ``stride()``, ``dtype``, ``device``; an array interface's pointer,
shape, strides and typestr; a float's bits; an int's or bool's value; the grid, an int or a tuple
of ints; the options), the stream an int or an object of a torch stream class of device 0; equal:
that launch, ``True``; equal but for the arrays' pointers, where the recorded call's layout has a
pointer launcher (``cutile_bound.keep_layout``): non-null pointers of the recorded alignments and
overlaps are launched through it, ``True``; otherwise (or on any exception) the Python launcher's
answer for the call.

``Front(python, last_hot, native_on, defaults)`` is ``tileorch.cutile.launch`` itself where the
extension is built when :mod:`tileorch.launchers.cutile` is imported (:func:`loaded_if_built`): a
call of four arguments by position whose kernel is the one launched last, with a ``Memo`` as its
hot launcher, goes to that ``Memo`` without the Python function's frame; anything else to the
Python function.

:func:`module` gives the loaded extension, or None; :func:`why_not` says why not: ``TILEORCH_LAUNCH_C=0``,
a build under way, no C compiler, no ``Python.h``, a failed build (its first lines), an unwritable
cache directory (then a private temporary one is used).  On by default (session 34, after the H100
run of session 33: 0.98-1.02x ``cuda.tile.launch``'s host time, cuda-python's path 1.2x).  The
first launch never waits long for the compiler: :func:`start` (called where a first launch begins
compiling its kernel) builds in a background thread, :func:`module` waits for that build at most
``TILEORCH_LAUNCH_C_WAIT_MS`` (500 ms) and otherwise answers None for now (launches bound meanwhile
take cuda-python's binding for their life); once built on a machine, later processes load the
file (a few ms).  Where it cannot be built, the default falls back silently (the reason in the
launches' ``path_reason`` and ``tileorch doctor``); an explicit ``TILEORCH_LAUNCH_C=1`` warns once
(PerformanceWarning).  Which path a bound launch takes is :mod:`tileorch.runtime.direct_launch`'s
choice.  Nothing here runs at import; this module imports little (a relaunch's first bound launch
loads the built file without ``subprocess``, ``tempfile``, ``hashlib`` or ``sysconfig``, which only
:mod:`tileorch.runtime.c_launch_build` imports, for a build)."""

from __future__ import annotations

import os
import time
from typing import Any

from tileorch import settings
from tileorch.runtime.c_launch_trust import trusted, trusted_folder  # noqa: F401  (the load rule; re-exported)

ENV = "TILEORCH_LAUNCH_C"
DIGEST = "4597793a4a41c893"  # c_launch_build.digest() of its SOURCE (a test keeps them equal: edit both)
PENDING = "the C launcher is being built in the background"

_state: list[Any] = []  # [module or None, why not]: decided once per process (reset() forgets it)
# the background build of this process: {"pid", "thread", "result": (path, why) once done}
_building: dict[str, Any] = {}


def reset() -> None:
    """Forget the decision and any build of this process (tests); a build still running finishes unread."""
    _state.clear()
    _building.clear()


def name() -> str:
    """The extension module's name (its file: this name and the interpreter's extension suffix)."""
    return f"_tileorch_launch_{DIGEST}"


def _places(directory: str | None) -> list[str]:
    if directory:
        return [directory]
    from tileorch.cache import _base

    import tempfile  # (only where nothing is built in the cache directory)

    # the fallback: a folder of this user's own in the temporary directory (never the shared directory itself:
    # another user could put a library of this name there), made private by the build
    return [os.path.join(_base(), "c_launch"), os.path.join(tempfile.gettempdir(), f"tileorch-{_uid()}-c_launch")]


def _uid() -> int:
    return os.getuid() if hasattr(os, "getuid") else 0


def _suffix() -> str:
    import _imp

    return _imp.extension_suffixes()[0]


def built(directory: str | None = None) -> str | None:
    """The path of the extension built already (by this or an earlier process), or None: no compiler run."""
    from tileorch.cache import _base

    first = os.path.join(directory or os.path.join(_base(), "c_launch"), name() + _suffix())
    if os.path.isfile(first):
        return first if trusted(first) else None
    for where in _places(directory)[1:]:
        path = os.path.join(where, name() + _suffix())
        if os.path.isfile(path):
            return path if trusted(path) else None
    return None


def build(directory: str | None = None) -> tuple[str | None, str]:
    """(the path of the built extension, '') or (None, why not): built into ``directory`` (default
    ``<cache base>/c_launch``, else the temporary directory) unless it is there already
    (:func:`tileorch.runtime.c_launch_build.build`; blocks for the compiler, at most 120 s)."""
    from tileorch.runtime import c_launch_build

    return c_launch_build.build(_places(directory), name(), _suffix())


def _load(path: str) -> Any:
    """The extension at ``path`` loaded (``_imp``: no importlib.util on a relaunch's path)."""
    import _imp

    class Spec:
        def __init__(self, name: str, origin: str):
            self.name, self.origin = name, origin

    mod = _imp.create_dynamic(Spec(os.path.basename(path).split(".")[0], path))
    _imp.exec_dynamic(mod)
    return mod


def enabled() -> bool:
    """The switch is not ``0`` (unset: on)."""
    return settings.value(ENV) != "0"


def start() -> None:
    """Have the extension built in the background if it is on, not decided in this process and not
    built on the machine (the compile step of a first launch calls this, so that the build runs while
    the kernel compiles); returns at once."""
    if _state or not enabled() or _building.get("pid") == os.getpid():
        return
    path = built()
    if path is not None:
        _building.clear()
        _building.update(pid=os.getpid(), thread=None, result=(path, ""))
        return
    import threading

    thread = threading.Thread(target=_build_into, args=(os.getpid(),), name="tileorch-c-launch-build", daemon=True)
    _building.clear()
    _building.update(pid=os.getpid(), thread=thread, result=None)
    thread.start()


def _build_into(pid: int) -> None:
    try:
        result = build()
    except Exception as exc:  # noqa: BLE001 - any failure is a reason, never an exception in a thread
        result = (None, f"the C launcher's build failed ({type(exc).__name__}: {exc})")
    if _building.get("pid") == pid:
        _building["result"] = result


def _wait_s() -> float:
    return (settings.integer("TILEORCH_LAUNCH_C_WAIT_MS") or 0) / 1000


def wait(timeout: float | None = None) -> Any | None:
    """:func:`module`, waiting up to ``timeout`` seconds (None: until done) for a build under way
    (``tileorch doctor``, tests, benchmarks)."""
    return module(timeout=-1.0 if timeout is None else timeout)


def loaded_if_built() -> Any | None:
    """The module where it is on and built on the machine already (loaded now, decided for the
    process), else None with nothing started (an import's question: never a compiler run)."""
    if not enabled():
        return None
    if _state:
        return _state[0]
    if built() is None:
        return None
    return module()


def module(timeout: float | None = None) -> Any | None:
    """The compiled launcher module, or None (:func:`why_not` says why).  Where it is not built on
    the machine yet, the build is started (:func:`start`) and waited for at most ``timeout``
    seconds (None: what is left of ``TILEORCH_LAUNCH_C_WAIT_MS``, default 0.5 s, a budget of the
    process that every call's wait spends, so a first launch asking several times waits at most that
    in all; negative: until done); a build
    still running then gives None for now (launches bound meanwhile keep cuda-python's binding) and
    a later call finds it done.  Once built or failed the answer holds for the process.  A failure
    warns (PerformanceWarning, once) only where ``TILEORCH_LAUNCH_C=1`` was set explicitly; the
    default's fallback is said by ``path_reason`` and ``tileorch doctor``."""
    if not enabled():
        return None
    if _state:
        return _state[0]
    start()
    result = _building.get("result")
    if result is None:
        thread = _building.get("thread")
        if thread is None:  # (reset() meanwhile)
            return None
        if timeout is None:  # the bound is the process's: the calls of one first launch share it
            waited = _building.get("waited", 0.0)
            timeout = max(0.0, _wait_s() - waited)
        if timeout != 0.0:
            t0 = time.perf_counter()
            thread.join(None if timeout < 0 else timeout)
            _building["waited"] = _building.get("waited", 0.0) + time.perf_counter() - t0
        result = _building.get("result") if _building.get("thread") is thread else None
        if result is None:
            return None
    path, why = result
    mod = None
    if path is not None:
        try:
            mod = _load(path)
            layout = mod.layout()
            if layout != (56, 32, 40, 72):  # cuda.h's layout on a 64-bit host
                mod, why = None, f"the C launcher's CUlaunchConfig layout {layout} is not cuda.h's 64-bit one"
        except Exception as exc:  # (any failure of a foreign library's init: never the caller's import)
            mod, why = None, f"the C launcher did not load ({type(exc).__name__}: {exc})"
    if _state:  # (another thread decided meanwhile)
        return _state[0]
    _state[:] = [mod, why]
    if mod is None and settings.asked(ENV) == "1":  # asked for and not there: said once (the default: no warning)
        import warnings

        from tileorch.diagnostics import PerformanceWarning

        warnings.warn(PerformanceWarning(f"{ENV}=1: {why}; bound launches call cuLaunchKernelEx through "
                                         "cuda-python's binding instead"), stacklevel=2)
    return mod


def why_not() -> str:
    """Why :func:`module` gives None now ('' when it gives the module): ``TILEORCH_LAUNCH_C=0``, a
    build under way (:data:`PENDING`), no C compiler, no ``Python.h``, a failed build or load."""
    if not enabled():
        return f"{ENV}=0"
    if module() is not None:
        return ""
    return _state[1] if _state else f"{PENDING} (launches bound until it is ready take cuda-python's binding)"


__all__ = ["DIGEST", "ENV", "PENDING", "build", "built", "enabled", "loaded_if_built", "module", "name", "reset",
           "start", "wait", "why_not"]
