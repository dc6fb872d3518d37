"""The compiled programs of the cuTile launcher: compiling exported bytecode through the on-disk
cache (:func:`_compile_program`, :class:`CachedProgram` read back without importing the compiler),
and the index entries that name a compiled program by the kernel's source identity and signature
(:func:`source_cache_key`), so that a relaunch in a new process needs no bytecode export.  Shared
by :mod:`tileorch.launchers.cutile` and its native route (:mod:`tileorch.launchers.cutile_native`);
nothing here imports cuda.tile, xDSL or touches a GPU at import time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tileorch.launchers.cutile_source_key import source_identity

ARCHS = {"sm_90a": (9, 0)}
BYTECODE_VERSION = "13.4"


def kernel_name(kernel: Any) -> str:
    return kernel._annotated_function.pyfunc.__name__


def kernel_location(kernel: Any) -> str:
    """``file:line:col`` of the kernel's ``def`` in the user's source (the line after its decorators: the first line
    from ``co_firstlineno`` that starts a ``def``; its column 1-based), where the launcher's warnings about the whole
    launch point (a launch-time fallback, staged operands, an option not applied); ``co_firstlineno`` (column 1) where
    the source cannot be read, ``<unknown>:0:0`` for an object with no Python function."""
    import linecache

    fn = getattr(getattr(kernel, "_annotated_function", None), "pyfunc", kernel)
    code = getattr(fn, "__code__", None)
    if code is None:
        return "<unknown>:0:0"
    first = code.co_firstlineno
    for line in range(first, first + 64):  # (past the decorators: a few lines, however they are written)
        text = linecache.getline(code.co_filename, line)
        if not text:
            break
        stripped = text.lstrip()
        if stripped.startswith(("def ", "async def ")):
            return f"{code.co_filename}:{line}:{len(text) - len(stripped) + 1}"
    return f"{code.co_filename}:{first}:1"


def kernel_warning(kernel: Any) -> str:
    """The head of a launcher warning about ``kernel``: ``file:line:col: warning: cuTile kernel NAME``
    (:func:`kernel_location`)."""
    return f"{kernel_location(kernel)}: warning: cuTile kernel {kernel_name(kernel)}"


@dataclass
class CachedProgram:
    """A compiled cuTile program read back from the disk cache (the fields of
    ``tileorch.driver.CutileProgram`` that launching needs; no xDSL import)."""

    kind: str
    ptx: str
    cubin: bytes | None
    kernel: str
    threads: int
    gemm_config: Any = None
    gemm_args: tuple | None = None
    seconds: float = 0.0
    epilogue_ops: bool = False
    retile_safe: bool = True
    remarks: list | None = None
    chained: dict | None = None
    smem: int = 0
    single_tile: dict | None = None
    grid_axes: dict | None = None
    operand_views: dict | None = None
    c_view: dict | None = None
    warp_programs: int = 0
    cluster_split: int = 0
    programs_per_warp: int = 1
    deferred: bool = False
    row_cache: list | None = None
    cta_programs: int = 0
    pdl: bool = False
    written: list | None = None
    read: list | None = None


LOWERED_ONLY = "#lowered-only"
"""Appended to a compile's ``config`` (the tile override) by the launcher's first compile of a
program: a GEMM program stops after the tier (``CutileProgram.deferred``: the launcher then
compiles the tiles it chooses, so the program's own tiles are not generated and assembled for
nothing); the suffix keeps the deferred program apart from the full one in every cache key."""


def program_cache_key(data: bytes, arch: str, schedule: str, config: str, ptxas: bool = True) -> str:
    """The key of the compiled program for this bytecode and these options in :mod:`tileorch.cache`
    (content-addressed: the bytecode, the options, the compiler's sources, ptxas)."""
    from tileorch import cache

    return cache.make_key("cutile", data, arch, schedule, config, ptxas=ptxas)


_RECORD_FIELDS = ("kind", "kernel", "threads", "seconds", "epilogue_ops", "retile_safe", "remarks", "chained",
                  "smem", "single_tile", "grid_axes", "operand_views", "c_view", "warp_programs", "cluster_split",
                  "programs_per_warp", "row_cache", "pdl")
_OPTIONAL_FIELDS = ("written", "read")  # (a record without one reads as None)


def _read_cached(key: str) -> CachedProgram | None:
    from tileorch import cache

    entry = cache.load(key)
    if entry is None or entry.meta.get("kind") != "cutile":
        return None
    try:
        record = entry.meta["program"]
        cfg = record.get("gemm_config")
        if cfg is not None:
            from tileorch.kernels.gemm.config import GemmConfig

            cfg = GemmConfig(**cfg)
        args = record.get("gemm_args")
        return CachedProgram(gemm_config=cfg, gemm_args=tuple(args) if args is not None else None,
                             ptx=entry.text("kernel.ptx"), cubin=entry.files.get("kernel.cubin"),
                             deferred=bool(record.get("deferred", False)),
                             cta_programs=int(record.get("cta_programs", 0) or 0),
                             **{k: record[k] for k in _RECORD_FIELDS},
                             **{k: record.get(k) for k in _OPTIONAL_FIELDS})
    except (KeyError, TypeError, ValueError) as exc:  # a record without what this reader needs
        cache.discard(key, f"its program record: {type(exc).__name__}: {exc}")
        return None


def _write_cached(key: str, program: Any) -> None:
    from dataclasses import asdict

    from tileorch import cache

    cfg = program.gemm_config
    record = {"kind": program.kind, "kernel": program.kernel, "threads": program.threads,
              "gemm_config": asdict(cfg) if cfg is not None else None,
              "gemm_args": list(program.gemm_args) if program.gemm_args is not None else None,
              "seconds": program.seconds, "epilogue_ops": bool(getattr(program, "epilogue_ops", False)),
              "retile_safe": bool(getattr(program, "retile_safe", True)),
              "remarks": list(getattr(program, "remarks", None) or []),
              "chained": getattr(program, "chained", None), "smem": int(getattr(program, "smem", 0) or 0),
              "single_tile": getattr(program, "single_tile", None),
              "grid_axes": getattr(program, "grid_axes", None),
              "operand_views": getattr(program, "operand_views", None),
              "c_view": getattr(program, "c_view", None),
              "warp_programs": int(getattr(program, "warp_programs", 0) or 0),
              "cluster_split": int(getattr(program, "cluster_split", 0) or 0),
              "programs_per_warp": int(getattr(program, "programs_per_warp", 1) or 1),
              "row_cache": getattr(program, "row_cache", None),
              "cta_programs": int(getattr(program, "cta_programs", 0) or 0),
              "deferred": bool(getattr(program, "deferred", False)),
              "pdl": bool(getattr(program, "pdl", False)),
              "written": getattr(program, "written", None), "read": getattr(program, "read", None)}  # (the cubin waits: launch it with PDL)
    files: dict[str, str | bytes] = {"kernel.ptx": program.ptx}
    if program.cubin is not None:
        files["kernel.cubin"] = program.cubin
    cache.store(key, {"kind": "cutile", "program": record}, files)


def _compile_program(data: bytes, name: str, arch: str, schedule: str, config: str = "", resume: Any = None) -> Any:
    """compile_program, through the content-addressed disk cache (:mod:`tileorch.cache`;
    ``TILEORCH_CACHE=0`` turns it off): a relaunch in a new process reads the cubin, no compiler
    import.  Without ptxas the PTX is kept (not cached) and the driver JIT-compiles it on load.
    ``resume``: the deferred program of the same bytecode, schedule and ``config`` (compiled with
    :data:`LOWERED_ONLY`): on a miss its kept tier output is compiled in full
    (``tileorch.driver.compile_deferred``: the bytecode is not loaded and lowered again) when it
    has one."""
    from tileorch import cache

    # the key's ptxas (memoised on disk); the compile asks backend.ptxas itself on a miss
    key = program_cache_key(data, arch, schedule, config, bool(cache.ptxas_path())) if cache.enabled() else None
    if key is not None:
        hit = _read_cached(key)
        if hit is not None:
            return hit
    from tileorch.dataclass_code import reading

    lowered_only = config.endswith(LOWERED_ONLY)
    with reading():  # the compiler's dataclasses on a first compile (tileorch.dataclass_code)
        from tileorch.driver import compile_program

        override = config[:-len(LOWERED_ONLY)] if lowered_only else config
        extra = {"config": override} if override else {}
        if lowered_only:
            extra["codegen"] = False
        missing = ptxas_missing()
        program = None
        if resume is not None and not lowered_only:
            from tileorch.driver import compile_deferred

            program = compile_deferred(resume, arch, ptxas=not missing)
        if program is None:
            program = compile_program(data, name, arch=arch, schedule=schedule, ptxas=not missing, **extra)
    if missing and not getattr(program, "deferred", False):  # said once per program (a PerformanceWarning at its first launch, _warn_slow_path)
        program.remarks = [*(program.remarks or []),
                           f"warning: {missing}: the CUDA driver JIT-compiles the PTX when the program is loaded "
                           "(its errors and register use are not checked before), in every new process (a "
                           "program without a cubin is not kept in the on-disk cache)"]
    if key is not None and (program.cubin is not None or getattr(program, "deferred", False)):
        _write_cached(key, program)
    return program


def ptxas_missing() -> str:
    """Why the launcher compiles without ptxas ('' when ptxas is found): none found, or
    ``TILEORCH_PTXAS`` naming no executable file."""
    from tileorch.backend.ptx import BackendError
    from tileorch.backend.ptxas import NOT_FOUND, find_ptxas

    try:
        return "" if find_ptxas() is not None else NOT_FOUND.split(":")[0]
    except BackendError as exc:
        return str(exc)


def source_cache_key(kernel: Any, sig: tuple, arch: str, schedule: str, config: str) -> tuple[str | None, str]:
    """(the on-disk cache key of the index entry naming the compiled program of ``kernel`` for
    this signature and these options, ''), or (None, why there is none): the cache is off, or the
    kernel's source identity cannot be stated exactly
    (:func:`tileorch.launchers.cutile_source_key.source_identity`).  The key holds the identity,
    the signature, the target, schedule and tile override, the bytecode version asked of cuTile,
    and what every key of :mod:`tileorch.cache` holds (the compiler's fingerprint, the compile
    switches, ptxas)."""
    from tileorch import cache

    if not cache.enabled():
        return None, "the on-disk cache is off"
    identity, why = source_identity(kernel)
    if identity is None:
        return None, why
    return cache.make_key("cutile-source", identity, repr(sig), arch, schedule, config, BYTECODE_VERSION,
                          ptxas=bool(cache.ptxas_path())), ""


def _read_indexed(source_key: str) -> CachedProgram | None:
    """The compiled program the index entry ``source_key`` names, or None (no index, or its
    program's entry is gone)."""
    from tileorch import cache

    entry = cache.load(source_key)
    if entry is None or entry.meta.get("kind") != "cutile-index" or not isinstance(entry.meta.get("program"), str):
        return None
    return _read_cached(entry.meta["program"])


def _write_index(source_key: str, data: bytes, arch: str, schedule: str, config: str) -> None:
    """Name, under ``source_key``, the cache entry of the program compiled from ``data`` (when
    there is one: a program compiled without ptxas is not stored)."""
    from tileorch import cache

    program_key = program_cache_key(data, arch, schedule, config, bool(cache.ptxas_path()))
    if cache.has_entry(program_key):
        cache.store(source_key, {"kind": "cutile-index", "program": program_key}, {})
