"""The Python API: ``tileorch.compile(source, arch="sm_90a") -> Kernel``.

>>> k = tileorch.compile(open("kernel.mlir").read())                # doctest: +SKIP
>>> k.ptx, len(k.cubin), k.entries                                   # doctest: +SKIP
>>> k.launch((132, 1, 1), (384, 1, 1), 1, out_ptr, n, smem=200_000)  # doctest: +SKIP

``source`` is MLIR text, a path to a ``.mlir`` (or cuTile ``.tileirbc``) file, an xDSL
``ModuleOp`` or CUDA Tile IR bytecode (``bytes``); it is lowered by the same pipeline as
``tileorch compile`` (which is built on this module), turned into PTX by
LLVM's NVPTX backend and assembled by ``ptxas`` (found as :mod:`tileorch.backend.ptxas` says).
A failure raises :class:`tileorch.backend.compile.CompileError`, whose ``lines`` read
``file:line:col: error: ...``.

Results are cached on disk, content-addressed: the key hashes the source text, the options,
tileorch's compiler sources, the xDSL and llvmlite versions and the ptxas version, so an edit to
any of them misses.  The cache lives in ``$TILEORCH_CACHE_DIR/kernels`` (default
``~/.cache/tileorch/kernels``); ``TILEORCH_CACHE=0`` or ``cache=False`` turns it off.  A cache
entry that cannot be read or written is ignored (compiling is never blocked by the cache).

Launching needs cuda-python and a GPU (``pip install 'tileorch[gpu]'``); without them
:meth:`Kernel.launch` raises :class:`tileorch.runtime.GpuUnavailable` saying why, after the
kernel has compiled.  The runtime loads the cubin (or, compiled without ptxas, the PTX).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CACHE_DIR_ENV = "TILEORCH_CACHE_DIR"
CACHE_SWITCH_ENV = "TILEORCH_CACHE"
CACHE_FORMAT = 1


def cache_root() -> Path:
    """``$TILEORCH_CACHE_DIR/kernels``, default ``~/.cache/tileorch/kernels``."""
    base = os.environ.get(CACHE_DIR_ENV) or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "tileorch")
    return Path(base) / "kernels"


def cache_enabled() -> bool:
    return os.environ.get(CACHE_SWITCH_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


_FINGERPRINT: str | None = None


def compiler_fingerprint() -> str:
    """Hash of what decides the output besides the input: tileorch's compiler sources and the
    versions of xDSL, llvmlite and ptxas."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        import importlib.metadata as md

        root = Path(__file__).resolve().parent
        h = hashlib.sha256(f"format {CACHE_FORMAT}".encode())
        for sub in ("dialects", "transforms", "backend", "schedulers", "kernels"):
            for f in sorted((root / sub).rglob("*.py")):
                h.update(f.relative_to(root).as_posix().encode())
                h.update(f.read_bytes())
        for dist in ("xdsl", "llvmlite"):
            try:
                h.update(f"{dist} {md.version(dist)}".encode())
            except md.PackageNotFoundError:
                pass
        _FINGERPRINT = h.hexdigest()
    return _FINGERPRINT


def _ptxas_identity() -> str:
    """Path and version of the ptxas that would run ('' when there is none)."""
    from tileorch.backend.ptx import BackendError
    from tileorch.backend.ptxas import find_ptxas, ptxas_version

    try:
        loc = find_ptxas()
    except BackendError:
        return ""
    return f"{loc.path} {ptxas_version(loc.path)}" if loc else ""


@dataclass
class Kernel:
    """A compiled module: its PTX, cubin (``b""`` when compiled without ptxas) and kernels."""

    ptx: str = field(repr=False)
    cubin: bytes = field(repr=False)
    arch: str
    entries: list[str]
    llvm_ir: str = field(default="", repr=False)
    ptxas_messages: list[str] = field(default_factory=list)
    key: str = ""  # cache key (sha256)
    from_cache: bool = False
    timings: dict[str, float] = field(default_factory=dict)
    """Wall seconds per phase and per pass of this compile, ``total`` last (:mod:`tileorch.timing`;
    a cache hit shows ``read``, ``cache`` and ``total``)."""
    remarks: list[str] = field(default_factory=list)
    ptxas_resources: dict = field(default_factory=dict)
    """Per function: registers, spill_stores, spill_loads, stack, smem (``ptxas -v``)."""

    @property
    def ptxas_remarks(self) -> list[str]:
        """``remark: ptxas: ...`` with each kernel's registers/spills/stack, and one ``warning:`` per
        kernel that spills."""
        from tileorch.backend.ptxas import resource_remarks

        return resource_remarks(self.ptxas_resources)
    """How a tile program was compiled (TileAS tier GEMM or SIMT path, refusals, a schedule not applied)."""
    _module: Any = field(default=None, repr=False, compare=False)

    @property
    def name(self) -> str:
        """The kernel's name when the module has exactly one."""
        if len(self.entries) != 1:
            raise ValueError(f"the module has {len(self.entries)} kernels ({', '.join(self.entries) or 'none'}); "
                             "pass name=... to launch()")
        return self.entries[0]

    def load(self):
        """The loaded CUDA module (:class:`tileorch.runtime.Module`); raises
        :class:`tileorch.runtime.GpuUnavailable` without a GPU."""
        if self._module is None:
            from tileorch.runtime import Module

            self._module = Module(self.cubin or self.ptx, label=f"tileorch kernel {self.key[:12]}")
        return self._module

    def launch(self, grid, block, cluster=1, *args, smem: int = 0, stream: int = 0,
               timeout_s: float = 10.0, wait: bool = True, name: str | None = None):
        """Launch kernel ``name`` (default: the only one) on ``grid`` x ``block`` CTAs in clusters
        of ``cluster`` (ints or up to 3-tuples), with ``smem`` bytes of dynamic shared memory and
        ``args`` in parameter order (ints, numpy scalars, device pointers / arrays).  Returns the
        :class:`tileorch.runtime.Launch` (``.elapsed_ms()``); with ``wait`` it has finished."""
        from tileorch.runtime import launch

        name = name or self.name
        if name not in self.entries:
            raise ValueError(f"no kernel named {name!r}; kernels: {', '.join(self.entries)}")
        kernel = self.load().kernel(name)
        return launch(kernel, grid, block, args, cluster=cluster, smem=smem, stream=stream,
                      timeout_s=timeout_s, wait=wait)


SOURCE_SUFFIXES = (".mlir", ".tileirbc", ".bc")
"""A string ending in one of these (or naming an existing file) is a path, not MLIR text."""


def _looks_like_path(source: str) -> bool:
    return "\n" not in source and (source.strip().endswith(SOURCE_SUFFIXES) or os.path.exists(source))


def _source(source) -> tuple[str | bytes, str]:
    """(MLIR text or CUDA Tile IR bytecode, name for diagnostics) of ``source``; a path that
    cannot be read or a file that is not UTF-8 text (nor bytecode) raises :class:`CompileError`."""
    from tileorch.backend.compile import CompileError
    from tileorch.diagnostics import SourceError, decode_source
    from tileorch.frontend.cuda_tile_bytecode import MAGIC

    if isinstance(source, os.PathLike) or (isinstance(source, str) and _looks_like_path(source)):
        path = os.fspath(source)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise CompileError([f"tileorch.compile: error: cannot read {path}: {exc.strerror or exc}"]) from None
        name = path
    elif isinstance(source, (bytes, bytearray, memoryview)):
        data, name = bytes(source), "<bytes>"
    elif isinstance(source, str):
        return source, "<string>"
    else:
        from xdsl.dialects.builtin import ModuleOp

        if isinstance(source, ModuleOp):
            from tileorch.backend.compile import print_module

            return print_module(source, generic=True), "<module>"
        raise TypeError(f"tileorch.compile takes MLIR text, a .mlir path or a ModuleOp, or CUDA Tile IR (a .tileirbc "
                        f"path or bytecode bytes), not {type(source).__name__}")
    if data[:8] == MAGIC:
        return data, name
    try:
        return decode_source(data, name), name
    except SourceError as exc:
        raise CompileError([exc.format("tileorch.compile")]) from None


def cache_key(text: str | bytes, arch: str | None, ptx_version: int, ptxas: bool, extra_pipeline: str,
              schedule: str | None = None) -> str:
    h = hashlib.sha256()
    for part in (compiler_fingerprint(), _ptxas_identity() if ptxas else "no ptxas", str(arch),
                 str(ptx_version), extra_pipeline, f"schedule {schedule}", text):
        h.update(part if isinstance(part, bytes) else part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _load_cached(directory: Path, key: str) -> Kernel | None:
    try:
        meta = json.loads((directory / "meta.json").read_text())
        if meta.get("key") != key:
            return None
        ptx = (directory / "kernel.ptx").read_text()
        cubin_path = directory / "kernel.cubin"
        cubin = cubin_path.read_bytes() if cubin_path.exists() else b""
        llvm_ir = (directory / "kernel.ll").read_text() if (directory / "kernel.ll").exists() else ""
    except (OSError, ValueError):
        return None
    return Kernel(ptx, cubin, meta["arch"], list(meta["entries"]), llvm_ir,
                  list(meta.get("ptxas_messages", [])), key, from_cache=True, remarks=list(meta.get("remarks", [])),
                  ptxas_resources=dict(meta.get("ptxas_resources", {})))


def _store(directory: Path, kernel: Kernel) -> None:
    """Write the entry into a temporary directory, then rename it into place (readers never see
    half an entry; of two concurrent writers one wins)."""
    try:
        directory.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{kernel.key[:16]}-", dir=directory.parent))
        (tmp / "kernel.ptx").write_text(kernel.ptx)
        if kernel.cubin:
            (tmp / "kernel.cubin").write_bytes(kernel.cubin)
        (tmp / "kernel.ll").write_text(kernel.llvm_ir)
        (tmp / "meta.json").write_text(json.dumps({
            "key": kernel.key, "arch": kernel.arch, "entries": kernel.entries,
            "ptxas_messages": kernel.ptxas_messages, "remarks": kernel.remarks,
            "ptxas_resources": kernel.ptxas_resources, "format": CACHE_FORMAT}))
        try:
            os.replace(tmp, directory)
        except OSError:  # another process stored it first
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
    except OSError:
        pass


def compile(source, arch: str | None = "sm_90a", *, name: str | None = None, ptx_version: int | None = None,
            ptxas: bool = True, extra_pipeline: str = "", cache: bool | None = None,
            isolate: bool = False, schedule: str | None = None, timings: bool = False) -> Kernel:
    """Compile ``source`` to a :class:`Kernel` for ``arch`` (``None``: the module's
    ``cutlass.target``, else sm_90a).

    ``source`` is MLIR text, a path (a ``str`` that ends in ``.mlir``/``.tileirbc``/``.bc`` or
    names an existing file, or an ``os.PathLike``), a ``ModuleOp``, or CUDA Tile IR bytecode
    (``bytes``); a path that cannot be read raises :class:`CompileError` ("cannot read PATH").
    Tile programs (``nv_tileaa``, cuTile's ``cuda_tile`` text or bytecode) compile as
    ``tileorch compile`` compiles them: GEMM-shaped kernels through the TileAS tier with
    ``schedule`` (persistent, streamk, dp; simt forces the SIMT path), others through the SIMT
    lowering; ``Kernel.remarks`` says which.  ``schedule`` on any other module is an error.

    ``ptxas=False`` stops at PTX (no cubin); ``isolate`` runs LLVM code generation in a child
    process, so that an LLVM abort becomes a :class:`CompileError`.  ``cache=None`` follows
    ``TILEORCH_CACHE``; ``name`` is the file name diagnostics show (default: the path,
    ``<string>`` or ``<bytes>``).  ``Kernel.timings`` holds the wall time of each phase and pass
    (always); ``timings=True`` also prints it to stderr as a table (``tileorch compile
    --timings``, :func:`tileorch.timing.format_report`)."""
    import sys

    from tileorch import timing

    with timing.collect() as timer:
        kernel = _compile(source, arch, name, ptx_version, ptxas, extra_pipeline, cache, isolate, schedule)
    kernel.timings = timer.as_dict()
    if timings:
        print(timing.format_report(kernel.timings), file=sys.stderr, end="")
    return kernel


def _compile(source, arch, name, ptx_version, ptxas, extra_pipeline, cache, isolate, schedule) -> Kernel:
    from tileorch import timing

    with timing.timed("import"):  # the compiler's modules, on the first compile of a process
        from tileorch.backend.compile import CompileError, compile_module, compile_text
        from tileorch.backend.ptx import DEFAULT_PTX_VERSION
        from tileorch.runtime.module import ptx_entries

    with timing.timed("read"):
        payload, default_name = _source(source)
    name = name or default_name
    ptx_version = ptx_version or DEFAULT_PTX_VERSION
    use_cache = cache_enabled() if cache is None else cache
    if use_cache:
        with timing.timed("cache"):
            key = cache_key(payload, arch, ptx_version, ptxas, extra_pipeline, schedule)
            directory = cache_root() / key[:2] / key
            hit = _load_cached(directory, key)
            if hit is not None:
                return hit
            if directory.exists():  # an unreadable (partial, corrupt) entry: replace it
                import shutil

                shutil.rmtree(directory, ignore_errors=True)
    else:
        with timing.timed("cache"):  # the key still names the kernel (Kernel.key)
            key = cache_key(payload, arch, ptx_version, ptxas, extra_pipeline, schedule)
    options = dict(arch=arch, ptx_version=ptx_version, emit="ptx", ptxas=ptxas, extra_pipeline=extra_pipeline,
                   isolate=isolate, schedule=schedule)
    if isinstance(payload, bytes):  # CUDA Tile IR bytecode
        from xdsl.utils.exceptions import DiagnosticException, ParseError

        from tileorch.diagnostics import format_exception
        from tileorch.frontend.cuda_tile_bytecode import BytecodeError, read_bytecode
        from tileorch.registry import make_context

        ctx = make_context()
        try:
            with timing.timed("parse"):
                module = read_bytecode(payload, name)
        except BytecodeError as exc:
            raise CompileError([f"{name}: error: invalid CUDA Tile IR bytecode at {exc}"]) from None
        except (ParseError, DiagnosticException, ValueError) as exc:
            raise CompileError(format_exception(exc)) from None
        result = compile_module(module, ctx, **options)
    else:
        result = compile_text(payload, name, **options)
    kernel = Kernel(
        ptx=result.ptx,
        cubin=result.ptxas.cubin if result.ptxas is not None else b"",
        arch=result.arch,
        entries=ptx_entries(result.ptx),
        llvm_ir=result.llvm_ir,
        ptxas_messages=list(result.ptxas.messages) if result.ptxas is not None else [],
        ptxas_resources=dict(result.ptxas.resources) if result.ptxas is not None else {},
        key=key,
        timings=dict(result.timings),
        remarks=list(result.remarks),
    )
    if use_cache:
        with timing.timed("cache"):
            _store(directory, kernel)
    return kernel
