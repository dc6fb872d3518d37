"""LLVM IR -> PTX through the C entry points of llvmlite's shared library, without importing
``llvmlite.binding`` (issue 22: a code generation child's cold start).

``import llvmlite.binding`` costs some 30 ms of CPU before LLVM does any work: it locates its
library through ``importlib.resources`` (which imports ``zipfile``, ``tempfile``, ``shutil``, the
compression modules ...), imports about twenty modules and gives several hundred C functions
their ctypes prototypes.  A code generation child (:func:`tileorch.backend.ptx.prefork_codegen`)
needs twelve of them: this module loads the same ``libllvmlite`` with :mod:`ctypes` (~7 ms, most
of it the dynamic loader) and calls those with the prototypes ``llvmlite.binding`` declares for
them, in the order ``llvmlite.binding``'s ``parse_assembly``, ``ModuleRef.verify``,
``Target.from_triple``, ``Target.create_target_machine``, ``TargetMachine.target_data``,
``ModuleRef.data_layout`` and ``TargetMachine.emit_assembly`` make the calls, so the PTX is the
same, byte for byte, and so are the messages of a module LLVM rejects.

These entry points are llvmlite's own C API, not a published one: :func:`load` answers only for
the llvmlite versions in :data:`KNOWN_VERSIONS` (the one ``pyproject.toml`` pins), on Linux, and
where the library has every entry point; otherwise None, and the caller imports
``llvmlite.binding`` as before.  The library state is process-wide and nothing here is locked:
use it where one thread generates code (the code generation child).
"""

from __future__ import annotations

import ctypes
import os
import sys
from ctypes import POINTER, byref, c_bool, c_char_p, c_int, c_size_t, c_void_p

KNOWN_VERSIONS = ("0.50.0",)
"""llvmlite versions whose C entry points :data:`_PROTOTYPES` describes (checked against the
prototypes in their ``llvmlite/binding/*.py``)."""

TRIPLE = "nvptx64-nvidia-cuda"

_PROTOTYPES: dict[str, tuple[object, tuple[object, ...]]] = {
    # name: (restype, argtypes), as llvmlite.binding declares them (pointers to LLVM objects as void*)
    "LLVMPY_InitializeAllTargetInfos": (None, ()),
    "LLVMPY_InitializeAllTargets": (None, ()),
    "LLVMPY_InitializeAllTargetMCs": (None, ()),
    "LLVMPY_InitializeAllAsmPrinters": (None, ()),
    "LLVMPY_SetCommandLine": (None, (c_char_p, c_char_p)),
    "LLVMPY_GetGlobalContext": (c_void_p, ()),
    "LLVMPY_ParseAssembly": (c_void_p, (c_void_p, c_char_p, POINTER(c_char_p))),
    "LLVMPY_VerifyModule": (c_bool, (c_void_p, POINTER(c_char_p))),
    "LLVMPY_DisposeModule": (None, (c_void_p,)),
    "LLVMPY_SetDataLayout": (None, (c_void_p, c_char_p)),
    "LLVMPY_GetTargetFromTriple": (c_void_p, (c_char_p, POINTER(c_char_p))),
    "LLVMPY_CreateTargetMachine": (c_void_p, (c_void_p, c_char_p, c_char_p, c_char_p, c_int, c_char_p, c_char_p,
                                              c_int, c_int, c_char_p)),
    "LLVMPY_DisposeTargetMachine": (None, (c_void_p,)),
    "LLVMPY_CreateTargetMachineData": (c_void_p, (c_void_p,)),
    "LLVMPY_CopyStringRepOfTargetData": (None, (c_void_p, POINTER(c_char_p))),
    "LLVMPY_DisposeTargetData": (None, (c_void_p,)),
    "LLVMPY_TargetMachineEmitToMemory": (c_void_p, (c_void_p, c_void_p, c_int, POINTER(c_char_p))),
    "LLVMPY_GetBufferStart": (c_void_p, (c_void_p,)),
    "LLVMPY_GetBufferSize": (c_size_t, (c_void_p,)),
    "LLVMPY_DisposeMemoryBuffer": (None, (c_void_p,)),
    "LLVMPY_DisposeString": (None, (c_char_p,)),
}


class Library:
    """The loaded ``libllvmlite`` with its targets and assembly printers initialised (as
    ``llvmlite.binding.initialize_all_targets()`` and ``initialize_all_asmprinters()`` do)."""

    def __init__(self, handle: ctypes.CDLL):
        self._fn = {}
        for name, (restype, argtypes) in _PROTOTYPES.items():
            fn = getattr(handle, name)  # AttributeError: not the library this module knows
            fn.restype, fn.argtypes = restype, list(argtypes)
            self._fn[name] = fn
        for name in ("LLVMPY_InitializeAllTargetInfos", "LLVMPY_InitializeAllTargets",
                     "LLVMPY_InitializeAllTargetMCs", "LLVMPY_InitializeAllAsmPrinters"):
            self._fn[name]()

    def _taken(self, out: c_char_p) -> str:
        """The text LLVM wrote to ``out`` (llvmlite's ``OutputString``), freed."""
        text = out.value.decode("utf-8") if out.value is not None else ""
        self._fn["LLVMPY_DisposeString"](out)
        return text

    def set_option(self, name: str, option: str) -> None:
        """``llvmlite.binding.set_option``: an LLVM command-line option."""
        self._fn["LLVMPY_SetCommandLine"](name.encode("utf-8"), option.encode("utf-8"))

    def parse_verified(self, llvm_ir: str) -> int:
        """The module of ``llvm_ir`` (a handle for :meth:`emit_assembly`, which frees it), parsed
        and verified; RuntimeError with llvmlite's message where LLVM rejects it."""
        fn = self._fn
        err = c_char_p(None)
        module = fn["LLVMPY_ParseAssembly"](fn["LLVMPY_GetGlobalContext"](), c_char_p(llvm_ir.encode("utf-8")),
                                            byref(err))
        if err:
            message = self._taken(err)
            if module:
                fn["LLVMPY_DisposeModule"](module)
            raise RuntimeError(f"LLVM IR parsing error\n{message}")
        out = c_char_p(None)
        failed = fn["LLVMPY_VerifyModule"](module, byref(out))
        message = self._taken(out) if out else ""
        if failed:
            fn["LLVMPY_DisposeModule"](module)
            raise RuntimeError(message)
        return module

    def emit_assembly(self, module: int, cpu: str, features: str, opt: int) -> str:
        """The PTX of ``module`` (from :meth:`parse_verified`; freed here) for ``cpu`` with
        ``features`` at LLVM's ``opt`` level, under the target machine's data layout;
        RuntimeError with LLVM's message if it cannot be generated."""
        fn = self._fn
        try:
            err = c_char_p(None)
            target = fn["LLVMPY_GetTargetFromTriple"](TRIPLE.encode("utf-8"), byref(err))
            if not target:
                raise RuntimeError(self._taken(err))
            if err:
                self._taken(err)
            machine = fn["LLVMPY_CreateTargetMachine"](target, TRIPLE.encode("utf-8"), cpu.encode("utf-8"),
                                                       features.encode("utf-8"), opt, b"default", b"jitdefault",
                                                       0, 0, b"")
            if not machine:
                raise RuntimeError("Cannot create target machine")
            try:
                return self._emit(module, machine)
            finally:
                fn["LLVMPY_DisposeTargetMachine"](machine)
        finally:
            fn["LLVMPY_DisposeModule"](module)

    def _emit(self, module: int, machine: int) -> str:
        fn = self._fn
        data = fn["LLVMPY_CreateTargetMachineData"](machine)
        try:
            layout = c_char_p(None)
            fn["LLVMPY_CopyStringRepOfTargetData"](data, byref(layout))
            fn["LLVMPY_SetDataLayout"](module, self._taken(layout).encode("utf-8"))
        finally:
            fn["LLVMPY_DisposeTargetData"](data)
        err = c_char_p(None)
        buffer = fn["LLVMPY_TargetMachineEmitToMemory"](machine, module, 0, byref(err))
        if not buffer:
            raise RuntimeError(self._taken(err))
        if err:
            self._taken(err)
        try:
            return ctypes.string_at(fn["LLVMPY_GetBufferStart"](buffer), fn["LLVMPY_GetBufferSize"](buffer)).decode(
                "utf-8")
        finally:
            fn["LLVMPY_DisposeMemoryBuffer"](buffer)


def library_path() -> str | None:
    """Where llvmlite keeps ``libllvmlite.so`` (beside ``llvmlite/binding``), if its version is one
    of :data:`KNOWN_VERSIONS` and this is Linux; else None.  Imports only the ``llvmlite``
    package (its version), not ``llvmlite.binding``."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import llvmlite
    except ImportError:
        return None
    if getattr(llvmlite, "__version__", None) not in KNOWN_VERSIONS:
        return None
    path = os.path.join(os.path.dirname(llvmlite.__file__), "binding", "libllvmlite.so")
    return path if os.path.isfile(path) else None


def load() -> Library | None:
    """:class:`Library` over llvmlite's shared library, or None where :func:`library_path` has
    none or the library lacks an entry point (the caller then uses ``llvmlite.binding``)."""
    path = library_path()
    if path is None:
        return None
    try:
        return Library(ctypes.CDLL(path))
    except (OSError, AttributeError):
        return None
