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

import os

from tileorch.cache import CACHE_DIR_ENV, CACHE_SWITCH_ENV, cache_root, compiler_fingerprint  # noqa: F401
from tileorch.cache import enabled as cache_enabled


_KERNEL_FIELDS = ("ptx", "cubin", "arch", "entries", "llvm_ir", "ptxas_messages", "key", "from_cache", "timings",
                  "remarks", "ptxas_resources", "pdl")
""":class:`Kernel`'s fields in constructor order (``_module`` is not one: not compared, not shown)."""
_KERNEL_REPR = ("arch", "entries", "ptxas_messages", "key", "from_cache", "timings", "remarks", "ptxas_resources",
                "pdl")


class Kernel:
    """A compiled module: its PTX, cubin (``b""`` when compiled without ptxas) and kernels.

    ``Kernel(ptx, cubin, arch, entries, llvm_ir="", ptxas_messages=[], key="", from_cache=False,
    timings={}, remarks=[], ptxas_resources={}, pdl=[])`` (positional or by name); equal when the fields
    are; its repr leaves out the PTX, cubin and LLVM IR (``llvm_ir`` may be given as a function
    returning the text, called on first read: a cache hit's).  A plain class, not a dataclass: a cache
    hit in a new process imports this module, and ``dataclasses`` costs ``inspect``/``ast`` (a
    third of a relaunch's import).

    ``timings``: wall seconds per phase and per pass of this compile, ``total`` last
    (:mod:`tileorch.timing`; a cache hit shows ``read``, ``cache`` and ``total``).  ``remarks``: how
    a tile program was compiled (TileAS tier GEMM or SIMT path, refusals, a schedule not applied).
    ``ptxas_resources``: per function: registers, spill_stores, spill_loads, stack, smem (``ptxas -v``).
    ``pdl``: the kernels compiled for programmatic dependent launch (``TILEORCH_PDL=1``: each waits,
    ``griddepcontrol.wait``, before its first global access, as ``verify-gdc-wait`` proved); :meth:`launch` launches
    those with the programmatic stream serialization attribute, every other kernel without."""

    __slots__ = (*(f for f in _KERNEL_FIELDS if f != "llvm_ir"), "_llvm_ir", "_module")

    def __init__(self, ptx: str, cubin: bytes, arch: str, entries: list[str], llvm_ir: str = "",
                 ptxas_messages: list[str] | None = None, key: str = "", from_cache: bool = False,
                 timings: dict[str, float] | None = None, remarks: list[str] | None = None,
                 ptxas_resources: dict | None = None, pdl: list[str] | None = None):
        self.ptx, self.cubin, self.arch, self.entries, self.llvm_ir = ptx, cubin, arch, entries, llvm_ir
        self.ptxas_messages = [] if ptxas_messages is None else ptxas_messages
        self.key, self.from_cache = key, from_cache
        self.timings = {} if timings is None else timings
        self.remarks = [] if remarks is None else remarks
        self.ptxas_resources = {} if ptxas_resources is None else ptxas_resources
        self.pdl = [] if pdl is None else pdl
        self._module = None

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in _KERNEL_FIELDS)

    __hash__ = None  # (mutable, as the dataclass was)

    def __reduce__(self):
        """Pickled (and copied) by its fields, the LLVM IR read (a cache hit's deferred read is a
        function), the loaded module left out (loaded again on use)."""
        return Kernel, tuple(getattr(self, f) for f in _KERNEL_FIELDS)

    def __repr__(self) -> str:
        return f"Kernel({', '.join(f'{f}={getattr(self, f)!r}' for f in _KERNEL_REPR)})"

    @property
    def llvm_ir(self) -> str:
        """The LLVM IR the PTX was generated from.  A cache hit reads it from the entry on first
        use (:meth:`tileorch.cache.Entry.deferred_text`: a GEMM's is a megabyte that a relaunch
        does not need)."""
        text = self._llvm_ir
        if text.__class__ is not str:  # the deferred read of a cache hit
            text = self._llvm_ir = text()
        return text

    @llvm_ir.setter
    def llvm_ir(self, text: str) -> None:
        self._llvm_ir = text

    @property
    def ptxas_remarks(self) -> list[str]:
        """``remark: ptxas: ...`` with each kernel's registers/spills/stack, and one ``warning:`` per
        kernel that spills."""
        from tileorch.backend.ptxas import resource_remarks

        return resource_remarks(self.ptxas_resources)

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
        kernel.pdl = name in self.pdl  # (the attribute only for a kernel that waits: runtime/module.py, Kernel.pdl)
        return launch(kernel, grid, block, args, cluster=cluster, smem=smem, stream=stream,
                      timeout_s=timeout_s, wait=wait)


SOURCE_SUFFIXES = (".mlir", ".tileirbc", ".bc")
"""A string ending in one of these (or naming an existing file) is a path, not MLIR text."""


def _looks_like_path(source: str) -> bool:
    """A one-line string that ends in a source suffix (any case), names an existing file, or is
    made of path characters only with a ``/`` or a ``.`` in it (``kernels/k.mlir``, ``k.txt``: a
    mistyped path reads 'cannot read', not as MLIR text's 'Operation kernels is not registered')."""
    if "\n" in source:
        return False
    text = source.strip()
    # ``re.fullmatch(r"[\w.~/\\:+-]+", text)`` without ``re`` (a tenth of a relaunch's import, with
    # ``enum``): ``\w`` of a str pattern is str.isalnum() or ``_``
    return (text.lower().endswith(SOURCE_SUFFIXES) or os.path.exists(source)
            or (text != "" and all(c.isalnum() or c in _PATH_PUNCTUATION for c in text)
                and ("/" in text or "." in text.lstrip("."))))


_PATH_PUNCTUATION = frozenset("_.~/\\:+-")


TILE_IR_MAGIC = b"\x7fTileIR\x00"
"""The first bytes of CUDA Tile IR bytecode (``tileorch.frontend.cuda_tile_bytecode.MAGIC``)."""


BYTECODE_SUFFIXES = (".tileirbc", ".bytecode")
"""Names of CUDA Tile IR bytecode files (cuTile's export; its own dumps end in ``.bytecode``)."""


def bytecode_input_error(data: bytes, name: str, bytecode: bool = False) -> str | None:
    """The located error for input that stands for CUDA Tile IR bytecode without being it: an
    empty file named ``.tileirbc`` / ``.bytecode`` or empty ``bytes`` given as the program
    (``bytecode``; an export that failed), the first bytes of the bytecode's magic number alone
    (a truncated file), or a file so named that is neither bytecode nor UTF-8 text (random bytes, a
    different binary); else None."""
    base = os.path.basename(name)
    if not data and (bytecode or name.lower().endswith(BYTECODE_SUFFIXES)):
        return (f"{name}:1:1: error: {base} is empty: CUDA Tile IR bytecode starts with the 8-byte magic number "
                "\\x7fTileIR\\x00 (cuda.tile.compilation.export_kernel(..., output_format='tileir_bytecode') writes it)")
    if 0 < len(data) < len(TILE_IR_MAGIC) and TILE_IR_MAGIC.startswith(data):
        return (f"{name}:1:1: error: {base} is truncated CUDA Tile IR bytecode: {len(data)} byte(s), not even the "
                "8-byte magic number")
    if name.lower().endswith(BYTECODE_SUFFIXES) and data[:len(TILE_IR_MAGIC)] != TILE_IR_MAGIC and not _is_utf8(data):
        return (f"{name}:1:1: error: {base} is not CUDA Tile IR bytecode: it starts with {data[:8].hex(' ')}, not the "
                "8-byte magic number \\x7fTileIR\\x00, and it is not UTF-8 text (MLIR) either")
    return None


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


PYTHON_SUFFIXES = (".py", ".pyw")


def python_source_error(path: str) -> str | None:
    """The located error for a Python file given where MLIR or CUDA Tile IR is read (a cuTile
    kernel's source, the commonest first mistake), or None for any other path."""
    if os.path.splitext(path)[1] not in PYTHON_SUFFIXES:
        return None
    return (f"{path}:1:1: error: {os.path.basename(path)} is Python source; tileorch compiles MLIR text or CUDA "
            "Tile IR (cuda_tile text, .tileirbc bytecode). Run a cuTile kernel with "
            "tileorch.cutile.launch(stream, grid, kernel, args), or write its bytecode with "
            "cuda.tile.compilation.export_kernel (tileorch.testing.export.export_cutile describes the arguments "
            "for it) and compile that file")


def _read(source) -> tuple[str | bytes, str]:
    """(MLIR text, or the bytes of a file or of bytecode; name for diagnostics) of ``source``,
    without importing the compiler (a cache hit needs none of it).  A path that cannot be read,
    or a Python file, raises :class:`CompileError`."""
    if isinstance(source, os.PathLike) or (isinstance(source, str) and _looks_like_path(source)):
        path = os.fspath(source)
        python = python_source_error(path)
        if python is not None:
            from tileorch.backend.compile import CompileError

            raise CompileError([python])
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            from tileorch.backend.compile import CompileError

            raise CompileError([f"tileorch.compile: error: cannot read {path}: {exc.strerror or exc}"]) from None
        problem = bytecode_input_error(data, path)
        if problem is not None:
            from tileorch.backend.compile import CompileError

            raise CompileError([problem])
        return data, path
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        problem = bytecode_input_error(data, "<bytes>", bytecode=True)
        if problem is not None:  # b"": an export that wrote nothing
            from tileorch.backend.compile import CompileError

            raise CompileError([problem])
        return data, "<bytes>"
    if isinstance(source, str):
        return source, "<string>"
    from xdsl.dialects.builtin import ModuleOp

    if isinstance(source, ModuleOp):
        from tileorch.backend.compile import print_module

        return print_module(source, generic=True), "<module>"
    raise TypeError(f"tileorch.compile takes MLIR text, a .mlir path or a ModuleOp, or CUDA Tile IR (a .tileirbc "
                    f"path or bytecode bytes), not {type(source).__name__}")


def _decoded(payload: str | bytes, name: str) -> str | bytes:
    """MLIR text or CUDA Tile IR bytecode: the bytes of a file that is not bytecode are decoded
    as UTF-8 (a bad byte raises a located :class:`CompileError`)."""
    if isinstance(payload, str) or payload[:8] == TILE_IR_MAGIC:
        return payload
    from tileorch.backend.compile import CompileError
    from tileorch.diagnostics import SourceError, decode_source

    try:
        return decode_source(payload, name)
    except SourceError as exc:
        raise CompileError([exc.format("tileorch.compile")]) from None


def cache_key(text: str | bytes, arch: str | None, ptx_version: int, ptxas: bool, extra_pipeline: str,
              schedule: str | None = None, debug_timeout: int = 0) -> str:
    from tileorch import cache

    parts = [text, arch, ptx_version, extra_pipeline, f"schedule {schedule}"]
    if debug_timeout:  # (absent when off: the keys of release builds stay what they were)
        parts.append(f"debug-timeout {debug_timeout}")
    return cache.make_key("kernel", *parts, ptxas=ptxas)


def _load_cached(key: str) -> Kernel | None:
    from tileorch import cache

    entry = cache.load(key, defer=("kernel.ll",))  # the LLVM IR only when Kernel.llvm_ir is read
    if entry is None or entry.meta.get("kind") != "kernel":
        return None
    meta = entry.meta
    try:
        return Kernel(entry.text("kernel.ptx"), entry.files.get("kernel.cubin", b""), meta["arch"],
                      list(meta["entries"]), lambda: entry.deferred_text("kernel.ll"),
                      list(meta.get("ptxas_messages", [])), key,
                      from_cache=True, remarks=list(meta.get("remarks", [])),
                      ptxas_resources=dict(meta.get("ptxas_resources", {})), pdl=list(meta.get("pdl", [])))
    except (KeyError, TypeError, ValueError) as exc:  # a record without what this reader needs
        cache.discard(key, f"its kernel record: {type(exc).__name__}: {exc}")
        return None


def _store(kernel: Kernel) -> None:
    from tileorch import cache

    files: dict[str, str | bytes] = {"kernel.ptx": kernel.ptx, "kernel.ll": kernel.llvm_ir}
    if kernel.cubin:
        files["kernel.cubin"] = kernel.cubin
    cache.store(kernel.key, {"kind": "kernel", "arch": kernel.arch, "entries": kernel.entries,
                             "ptxas_messages": kernel.ptxas_messages, "remarks": kernel.remarks,
                             "ptxas_resources": kernel.ptxas_resources, "pdl": kernel.pdl}, files)


def compile(source, arch: str | None = "sm_90a", *, name: str | None = None, ptx_version: int | None = None,
            ptxas: bool = True, extra_pipeline: str = "", cache: bool | None = None,
            isolate: bool = False, schedule: str | None = None, timings: bool = False,
            debug_timeout: int = 0) -> Kernel:
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
    --timings``, :func:`tileorch.timing.format_report`).

    ``debug_timeout`` > 0 is a debug build (``tileorch compile --debug-timeout N``): every mbarrier
    wait and spin loop in the kernel, whichever path emitted it, counts its polls and after that
    many unsuccessful ones prints what it waited on (barrier, stage, phase, block, thread) and
    traps, so a hang becomes a ``KernelFault`` with a message instead of a kernel that never ends."""
    import sys

    from tileorch import timing

    _check_options(arch, name, ptx_version, ptxas, extra_pipeline, cache, isolate, schedule, timings)
    _check_debug_timeout(debug_timeout)
    with timing.collect() as timer:
        found = _lookup(source, arch, name, ptx_version, ptxas, extra_pipeline, cache, schedule, debug_timeout)
        if isinstance(found, Kernel):  # a cache hit: nothing of the compiler imported
            kernel = found
        else:
            from tileorch.dataclass_code import reading
            from tileorch.gc_deferral import gc_deferred

            # the compiler's imports on a first compile too: collector deferred, dataclass code kept
            with gc_deferred(), reading():
                kernel = _build(*found, ptxas, extra_pipeline, isolate, schedule, debug_timeout)
    kernel.timings = timer.as_dict()
    if not kernel.entries:  # an empty module compiles, but not silently (the remark says where)
        import warnings

        warnings.warn(f"tileorch.compile: {name or 'the input'}: nothing to compile: it defines no kernel, so the "
                      "PTX has no entry point to launch", UserWarning, stacklevel=2)
    if timings:
        print(timing.format_report(kernel.timings), file=sys.stderr, end="")
    return kernel


COMPILE_SCHEDULES = ("persistent", "streamk", "dp", "simt")
"""``schedule`` values of :func:`compile` (``tileorch compile --schedule``)."""


def _check_options(arch, name, ptx_version, ptxas, extra_pipeline, cache, isolate, schedule, timings) -> None:
    """Raise ``TypeError``/``ValueError`` naming the argument for an option :func:`compile` cannot
    take (before anything is read: a string for a flag would be taken as true, a string PTX
    version reported as 'unsupported PTX version 80' beside the list that has 80)."""
    from tileorch.backend.target_versions import SUPPORTED_ARCHS, SUPPORTED_PTX_VERSIONS  # (no other import)

    if arch is not None and not isinstance(arch, str):
        raise TypeError(f"arch must be a target name such as 'sm_90a' (or None: the module's), got {arch!r}")
    if arch is not None and arch not in SUPPORTED_ARCHS:
        hint = f"; for an {arch} GPU: arch='{arch}a'" if f"{arch}a" in SUPPORTED_ARCHS else ""
        raise ValueError(f"arch {arch!r} is not a target tileorch generates code for: use one of "
                         f"{', '.join(SUPPORTED_ARCHS)} (or None: the module's){hint}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name (the file name diagnostics show) must be a str, got {type(name).__name__}")
    if ptx_version is not None and (isinstance(ptx_version, bool) or not isinstance(ptx_version, int)):
        raise TypeError(f"ptx_version must be an int such as 86, got {ptx_version!r}")
    if ptx_version is not None and ptx_version not in SUPPORTED_PTX_VERSIONS:
        raise ValueError(f"ptx_version {ptx_version} is not supported; use one of "
                         f"{', '.join(map(str, SUPPORTED_PTX_VERSIONS))}")
    if not isinstance(extra_pipeline, str):
        raise TypeError(f"extra_pipeline must be a pass pipeline string, got {type(extra_pipeline).__name__}")
    if schedule is not None and (not isinstance(schedule, str) or schedule not in COMPILE_SCHEDULES):
        raise ValueError(f"schedule must be one of {', '.join(COMPILE_SCHEDULES)} (or None), got {schedule!r}")
    for flag, value in (("ptxas", ptxas), ("isolate", isolate), ("timings", timings), ("cache", cache)):
        if flag == "cache" and value is None:
            continue
        if not isinstance(value, bool) and not (type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_")):
            raise TypeError(f"{flag} must be True or False, got {value!r}"
                            + (" (a non-empty string is true)" if isinstance(value, str) else ""))


def _check_debug_timeout(value) -> None:
    """TypeError / ValueError naming ``debug_timeout`` (polls, 0 = off, at most 2**32 - 1)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"debug_timeout must be an int (polls before a wait traps; 0 = off), got {value!r}")
    if not 0 <= value <= 2**32 - 1:
        raise ValueError(f"debug_timeout must be in [0, {2**32 - 1}] polls (0 = off; counted in 32 bits), got {value}")


def _lookup(source, arch, name, ptx_version, ptxas, extra_pipeline, cache, schedule, debug_timeout: int = 0):
    """The cached :class:`Kernel` of ``source`` compiled with these options, or what
    :func:`_build` takes to compile it: ``(payload, name, arch, ptx_version, key, use_cache)``.
    Imports nothing of the compiler (a relaunch in a new process ends here)."""
    from tileorch import timing
    from tileorch.backend.target_versions import DEFAULT_PTX_VERSION  # (no other import)

    with timing.timed("read"):
        payload, default_name = _read(source)
    name = name or default_name
    ptx_version = ptx_version or DEFAULT_PTX_VERSION
    use_cache = cache_enabled() if cache is None else cache
    if use_cache:
        with timing.timed("cache"):
            key = cache_key(payload, arch, ptx_version, ptxas, extra_pipeline, schedule, debug_timeout)
            hit = _load_cached(key)
            if hit is not None:
                return hit
    else:
        with timing.timed("cache"):  # the key still names the kernel (Kernel.key)
            key = cache_key(payload, arch, ptx_version, ptxas, extra_pipeline, schedule, debug_timeout)
    return payload, name, arch, ptx_version, key, use_cache


def _build(payload, name, arch, ptx_version, key, use_cache, ptxas, extra_pipeline, isolate, schedule,
           debug_timeout: int = 0) -> Kernel:
    """Compile what :func:`_lookup` found missing (and store it when ``use_cache``)."""
    from tileorch import timing

    with timing.timed("import"):  # the compiler's modules, on the first compile of a process (not on a hit)
        from tileorch.backend.compile import CompileError
        from tileorch.driver import compile_module, compile_text
        from tileorch.backend.ptx_names import ptx_entries  # (not tileorch.runtime: no CUDA runtime imported)

    with timing.timed("read"):
        payload = _decoded(payload, name)
    options = dict(arch=arch, ptx_version=ptx_version, emit="ptx", ptxas=ptxas, extra_pipeline=extra_pipeline,
                   isolate=isolate, schedule=schedule, debug_timeout=debug_timeout)
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
        pdl=list(getattr(result, "pdl", None) or []),
    )
    if use_cache:
        with timing.timed("cache"):
            _store(kernel)
    return kernel
