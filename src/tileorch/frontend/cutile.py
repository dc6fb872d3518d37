"""Read cuTile programs (CUDA Tile IR: ``cuda_tile`` text or ``.tileirbc`` bytecode) into verified IR,
and tell the kinds of tile program apart.

This module only turns bytes into IR (:func:`load`) and answers questions about it; compiling is
the compile driver's job (:mod:`tileorch.driver`: the routes per input kind, the TileAS-tier / SIMT
decision, the cuTile compile).
"""

from __future__ import annotations

import sys

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

_BYTECODE = "tileorch.frontend.cuda_tile_bytecode"
"""The bytecode reader: imported when a program is read (not by a GEMM compile, which imports the
driver and with it this module: ~1.5 ms of a cold ``tileorch gemm --compile``)."""


def __getattr__(name: str):
    if name == "BytecodeError":  # re-exported (``__all__``), loaded on first use
        from tileorch.frontend.cuda_tile_bytecode import BytecodeError

        return BytecodeError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_cuda_tile_input(data: bytes) -> bool:
    """Bytecode (by its magic number) or text holding a ``cuda_tile.module``."""
    from tileorch.frontend.cuda_tile_bytecode import MAGIC

    return data[:8] == MAGIC or b"cuda_tile.module" in data[:1 << 20]


def load(data: bytes, name: str, ctx: Context) -> ModuleOp:
    """Read and verify a cuTile program: bytecode or ``cuda_tile`` text.  Parse errors are
    located; a program that does not verify raises ``CompileError`` with one located line per
    failing op (as MLIR verifies what it parses: the lowering may assume a verified program)."""
    from tileorch import timing
    from tileorch.diagnostics import CompileError, decode_source, parse_module, verify_located
    from tileorch.frontend.cuda_tile_bytecode import MAGIC, read_bytecode

    with timing.timed("parse"):
        if data[:8] == MAGIC:
            module = read_bytecode(data, name)
        else:
            module = parse_module(ctx, decode_source(data, name), name)
    with timing.timed("verify"):
        errors = verify_located(module)
    if errors:
        raise CompileError(errors)
    return module


def is_cuda_tile_module(module: ModuleOp) -> bool:
    """The module holds a CUDA Tile IR program (a ``cuda_tile.module``)."""
    return any(op.name == "cuda_tile.module" for op in module.walk())


def is_tileaa_module(module: ModuleOp) -> bool:
    """The module holds an ``nv_tileaa`` tile program (an ``nv_tileaa.func``)."""
    return any(op.name == "nv_tileaa.func" for op in module.walk())


def tile_program_kind(module: ModuleOp) -> str:
    """``"cuda_tile"`` where :func:`is_cuda_tile_module`, else ``"nv_tileaa"`` where
    :func:`is_tileaa_module`, else ``""``: both questions in one walk (a module that is neither,
    such as a lowered SIMT kernel of some 3000 ops, is walked once, not twice)."""
    tileaa = False
    for op in module.walk():
        name = op.name
        if name == "cuda_tile.module":
            return "cuda_tile"
        if name == "nv_tileaa.func":
            tileaa = True
    return "nv_tileaa" if tileaa else ""


def tile_program_arch(module: ModuleOp, default: str = "sm_90a") -> str:
    """The target an ``nv_tileaa`` program names (``nv_tileaa.compute_capability<90, 2>``:
    sm_90a), else ``default``."""
    from tileorch.dialects.nv_tileaa.attrs import ComputeCapabilityAttr

    for op in module.walk():
        cc = op.attributes.get("nv_tileaa.compute_capability")
        if isinstance(cc, ComputeCapabilityAttr):
            sm = cc.sm.data
            return f"sm_{sm}a" if sm in (90, 100) else f"sm_{sm}"  # the targets tileorch compiles for are sm_XXa
    return default


__all__ = ["BytecodeError", "compile_error_lines", "print_compile_error", "is_cuda_tile_input", "is_cuda_tile_module", "is_tileaa_module", "tile_program_kind",
           "load", "tile_program_arch"]


def compile_error_lines(exc: BaseException, name: str) -> list[str] | None:
    """The lines ``tileorch compile`` prints for an error of reading or compiling a cuTile program
    (bad bytecode, unreadable source, located diagnostics); None for any other exception."""
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    from tileorch.diagnostics import CompileError, SourceError, format_exception

    bytecode = sys.modules.get(_BYTECODE)  # (an exception of its type means it was imported)
    if bytecode is not None and isinstance(exc, bytecode.BytecodeError):
        return [f"{name}: error: invalid CUDA Tile IR bytecode at {exc}"]
    if isinstance(exc, SourceError):
        return [exc.format("tileorch compile")]
    if isinstance(exc, CompileError):
        return list(exc.lines)
    if isinstance(exc, (ParseError, DiagnosticException, ValueError)):
        return list(format_exception(exc))
    return None


def print_compile_error(exc: BaseException, name: str) -> int:
    """Print ``compile_error_lines(exc, name)`` on stderr and return the exit status 1; re-raises
    the exception being handled when it is not a user error (call it from an ``except`` block)."""
    import sys

    lines = compile_error_lines(exc, name)
    if lines is None:
        raise  # noqa: PLE0704 - called from the caller's except block
    for line in lines:
        print(line, file=sys.stderr)
    return 1

