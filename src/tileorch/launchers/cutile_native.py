"""Repeated ``tileorch.cutile.launch`` calls through cuTile's own C++ launcher (opt-in,
``TILEORCH_CUTILE_NATIVE=1``; issue 22: host time per launch <= ``cuda.tile.launch``'s).

``cuda.tile.launch`` reads its arguments, finds its compiled program and enqueues it in C++; a
Python launcher cannot read two torch tensors as fast (measured without a GPU against a stand-in
libcuda: ~0.5 us per ``cuda.tile.launch`` against ~1.1-1.4 us per repeated
``tileorch.cutile.launch``; on an H200 host 5.53 against 6.66 us).  This route hands cuTile's
launcher tileorch's program instead of tileiras's:

* each kernel gets a second kernel object (:func:`shadow`: ``kernel.replace_hints()``, the same
  function and options) whose ``_compile(signature, context, compute_capability)`` -- what
  cuTile's launcher calls for a signature it has not compiled -- exports the bytecode for
  cuTile's signature (the shape and stride divisibility it assumes relaxed to none, and a
  constant stride of 1 stated as non-negative, as ``tileorch.cutile`` states them) and compiles
  it with tileorch (through the on-disk cache), returning the cubin and its entry's name;
* ``cuda.tile._cext.launch_extended(stream, grid, (threads,), shadow, args)`` (private, cuTile
  1.7) launches it: cuTile packs the entry's parameters (the calling convention of the signature,
  the same ABI as the bytecode's entry that tileorch compiled) and keeps the program per
  signature as it keeps its own.  A program is reused for exactly the calls cuTile reuses its own
  programs for.

Only plain SIMT programs qualify (a ``simt`` program without dynamic shared memory, warp
programs or a cluster split: launched on the cuTile grid with one block size); anything else
(GEMM and chained programs, another target) raises :class:`Refused` inside the launch, and the
kernel takes tileorch's own path from then on (:data:`refused` says why); a call cuTile's
launcher raises for otherwise (an argument it refuses) takes tileorch's path (which raises its own
error, or launches), and after :data:`FAILURES_MAX` such calls in a row the kernel stays there.
A relaunch in a new process reads the program by the kernel's source identity (no bytecode
export, as ``tileorch.cutile``'s own path does).  The block size is a launch argument, not part of cuTile's
signature, so a shadow serves one block size (:data:`_shadows` by kernel and threads): a
signature whose program needs another raises :class:`Rethread` and the call is retried on that
block size's shadow.

Not for ``sync=True``, another ``arch``/``schedule``/``tiles`` than the defaults, or a grid that
is not a tuple of ints (tileorch's path takes those).  Nothing here runs at import.
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any

ENV = "TILEORCH_CUTILE_NATIVE"
enabled = [os.environ.get(ENV, "0").strip() == "1"]  # read at import; set_enabled() changes it

# kernel -> (cuTile's launch_extended, its shadow now, (threads,)), or None for a kernel that takes
# tileorch's path (refused says why): what tileorch.cutile.launch looks up first
routes: dict[Any, tuple[Any, Any, tuple[int]] | None] = {}
refused: dict[Any, str] = {}
failures: dict[Any, int] = {}  # calls in a row that cuTile's launcher raised for (not Refused)
FAILURES_MAX = 3  # then the kernel takes tileorch's path for good
_shadows: dict[tuple[Any, int | None], Any] = {}
_programs: dict[tuple[Any, str], Any] = {}  # (kernel, repr of cuTile's signature) -> program or Refused


class Refused(Exception):
    """The program of a signature cannot be launched by cuTile's launcher (the reason)."""


class Rethread(Exception):
    """The program of a signature needs another block size (``threads``)."""

    def __init__(self, threads: int):
        super().__init__(f"the program needs {threads} threads per block")
        self.threads = threads


def set_enabled(on: bool) -> None:
    enabled[0] = bool(on)


def forget() -> None:
    routes.clear()
    refused.clear()
    failures.clear()
    _shadows.clear()
    _programs.clear()


def _relaxed(signature: Any) -> Any:
    """cuTile's signature with the shape and stride divisibility it assumes relaxed to 1 and a
    constant unit stride stated as non-negative (what ``tileorch.cutile`` compiles for the same
    arguments, so that the bytecode and its cached program are usually the same)."""
    from cuda.tile import compilation

    params = []
    for c in signature.parameters:
        if isinstance(c, compilation.ArrayConstraint):
            nd = c.ndim
            lower = tuple(0 if k == 1 else b for k, b in zip(c.stride_constant, c.stride_lower_bound_incl))
            c = compilation.ArrayConstraint(
                c.dtype, nd, index_dtype=c.index_dtype, stride_lower_bound_incl=lower, alias_groups=c.alias_groups,
                may_alias_internally=c.may_alias_internally, stride_constant=c.stride_constant,
                shape_constant=c.shape_constant, stride_divisible_by=(1,) * nd, shape_divisible_by=(1,) * nd,
                base_addr_divisible_by=c.base_addr_divisible_by)
        params.append(c)
    return compilation.KernelSignature(params, signature.calling_convention)


def program_for(kernel: Any, signature: Any, compute_capability: Any = None) -> Any:
    """tileorch's program of ``kernel`` for cuTile's ``signature`` (memoised per signature), or
    raises :class:`Refused`."""
    key = (kernel, repr(signature))
    found = _programs.get(key)
    if found is None:
        try:
            found = _compile(kernel, signature, compute_capability)
        except Refused as exc:
            found = exc
        except Exception as exc:  # noqa: BLE001 - tileorch cannot compile this signature: its own path may
            found = Refused(f"compiling cuTile's signature: {type(exc).__name__}: {exc}")
        _programs[key] = found
    if isinstance(found, Refused):
        raise found
    return found


def _compile(kernel: Any, signature: Any, compute_capability: Any) -> Any:
    """tileorch's program for cuTile's ``signature``: read by the kernel's source identity when an
    earlier process stored it (no bytecode export, :func:`tileorch.launchers.cutile_programs.source_cache_key`),
    else exported (the signature relaxed, :func:`_relaxed`) and compiled through the on-disk cache."""
    from tileorch.launchers import cutile_programs as rc
    from tileorch.launchers.cutile_source_key import note_exported

    if compute_capability is not None and tuple(compute_capability) not in rc.ARCHS.values():
        raise Refused(f"compute capability {tuple(compute_capability)} (tileorch compiles for "
                      f"{', '.join(rc.ARCHS)})")
    relaxed = _relaxed(signature)
    source_key, _why = rc.source_cache_key(kernel, ("cuTile signature", repr(relaxed)), "sm_90a", "persistent", "")
    program = rc._read_indexed(source_key) if source_key is not None else None
    if program is None:
        from cuda.tile import compilation

        buf = io.BytesIO()
        compilation.export_kernel(kernel, [relaxed], buf, gpu_code=None, output_format="tileir_bytecode",
                                  bytecode_version=rc.BYTECODE_VERSION)
        note_exported(kernel)
        data = buf.getvalue()
        program = rc._compile_program(data, f"<cuTile kernel {rc.kernel_name(kernel)}>", "sm_90a", "persistent")
        if source_key is not None:
            rc._write_index(source_key, data, "sm_90a", "persistent", "")
    extras = {name: getattr(program, name, 0) for name in ("smem", "warp_programs", "cluster_split", "cta_programs")}
    if program.kind != "simt" or any(extras.values()):
        raise Refused(f"a {program.kind} program" + "".join(f", {k} {v}" for k, v in extras.items() if v)
                      + ": launched with another grid, block or parameters than cuTile's")
    if not isinstance(program.threads, int) or program.threads < 1:
        raise Refused(f"no block size ({program.threads!r})")
    image = program.cubin if program.cubin is not None else program.ptx.encode() + b"\0"
    return program, image


def shadow(kernel: Any, threads: int | None) -> Any:
    """The kernel object cuTile's launcher runs for ``kernel``'s calls with ``threads`` threads per
    block (None: not known yet)."""
    found = _shadows.get((kernel, threads))
    if found is not None:
        return found
    other = kernel.replace_hints()  # the same function and options, its own cache of programs

    def compile_with_tileorch(signature: Any, context: Any, compute_capability: Any = None) -> tuple:
        program, image = program_for(kernel, signature, compute_capability)
        if program.threads != threads:
            raise Rethread(program.threads)
        return image, program.kernel, None, ()

    other._compile = compile_with_tileorch
    _shadows[(kernel, threads)] = other
    return other


def launch(stream: Any, grid: tuple, kernel: Any, args: Any) -> bool:
    """Launch through cuTile's launcher (a kernel's first call on the route, or the call after a
    failed attempt): True when launched, False when the kernel takes tileorch's path from now on
    (:data:`refused` says why; nothing was launched)."""
    why = available()
    if why:
        return _refuse(kernel, why)
    from cuda.tile._cext import launch_extended

    route = routes.get(kernel)
    for _ in range(3):  # a Rethread moves to that block size's shadow
        try:
            if route is None:  # (1,): never launched, its shadow's _compile raises Rethread
                route = (launch_extended, shadow(kernel, None), (1,))
            launch_extended(stream, grid, route[2], route[1], args)
        except Rethread as exc:
            route = (launch_extended, shadow(kernel, exc.threads), (exc.threads,))
            continue
        except (Refused, ImportError, AttributeError, OSError) as exc:  # the program, not a cuTile kernel, no libcuda
            return _refuse(kernel, f"{type(exc).__name__}: {exc}")
        except Exception as exc:  # noqa: BLE001 - e.g. an argument cuTile's launcher refuses: this call
            # takes tileorch's path (which raises its own error or launches); the kernel keeps the
            # route unless its calls keep failing
            failures[kernel] = failures.get(kernel, 0) + 1
            if failures[kernel] >= FAILURES_MAX:
                return _refuse(kernel, f"{FAILURES_MAX} calls failed in cuTile's launcher, the last: "
                                       f"{type(exc).__name__}: {exc}")
            return False
        routes[kernel] = route
        failures.pop(kernel, None)
        return True
    return _refuse(kernel, "the block size did not settle")


def _refuse(kernel: Any, why: str) -> bool:
    """Take ``kernel`` off the route asked for by ``TILEORCH_CUTILE_NATIVE=1`` (its calls go through
    tileorch's own launcher from now on) and say so once, as a ``PerformanceWarning``."""
    import warnings

    from tileorch.diagnostics import PerformanceWarning, user_stacklevel

    first = kernel not in refused
    refused[kernel] = why
    routes[kernel] = None
    failures.pop(kernel, None)
    if first:
        from tileorch.launchers.cutile_programs import kernel_location

        name = getattr(getattr(kernel, "_annotated_function", None), "pyfunc", kernel)
        warnings.warn(f"{kernel_location(kernel)}: warning: cuTile kernel {getattr(name, '__name__', name)}: "
                      f"TILEORCH_CUTILE_NATIVE=1 not applied: {why} "
                      "(launched by tileorch's own launcher)", PerformanceWarning, stacklevel=user_stacklevel())
    return False


def available() -> str:
    """'' when cuTile's launcher can be used here, else why not."""
    ct = sys.modules.get("cuda.tile")
    cext = getattr(ct, "_cext", None) if ct is not None else None
    if cext is None:
        try:
            from cuda.tile import _cext as cext
        except ImportError as exc:
            return f"cuTile's launcher cannot be imported ({exc})"
    if not hasattr(cext, "launch_extended"):
        return "cuda.tile._cext.launch_extended is not there (cuTile 1.7's private launcher)"
    try:
        import cuda.tile._load_libcuda  # noqa: F401 - cuTile's launcher opens libcuda.so.1 through it
    except (ImportError, OSError) as exc:
        return f"cuTile's launcher cannot load libcuda ({type(exc).__name__}: {exc})"
    return ""


__all__ = ["ENV", "Refused", "Rethread", "enabled", "forget", "launch", "program_for", "refused", "routes",
           "set_enabled", "shadow"]
