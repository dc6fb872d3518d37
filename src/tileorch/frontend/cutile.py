"""Compile cuTile programs (CUDA Tile IR, text or ``.tileirbc`` bytecode) with tileorch.

:func:`front_passes` is the pass list that takes a ``cuda_tile`` module to the ``cutlass``
orchestration tier, where :func:`tileorch.backend.compile.compile_module` continues:

``convert-cudatile-to-tileaa`` -> ``tileas-tier`` -> ``convert-nv-tileas-to-cutlass{schedule=...}``.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from tileorch.frontend.cuda_tile_bytecode import MAGIC, BytecodeError, read_bytecode

SCHEDULES = ("persistent", "streamk", "dp")


def is_cuda_tile_input(data: bytes) -> bool:
    """Bytecode (by its magic number) or text holding a ``cuda_tile.module``."""
    return data[:8] == MAGIC or b"cuda_tile.module" in data[:1 << 20]


def front_passes(arch: str = "sm_90a", schedule: str = "persistent") -> str:
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {', '.join(SCHEDULES)}, got {schedule!r}")
    return (f"convert-cudatile-to-tileaa{{compute_capability={arch}}},tileas-tier,"
            f"convert-nv-tileas-to-cutlass{{schedule={schedule}}}")


def load(data: bytes, name: str, ctx: Context) -> ModuleOp:
    """Read a cuTile program: bytecode or ``cuda_tile`` text (parse errors are located)."""
    if data[:8] == MAGIC:
        return read_bytecode(data, name)
    from tileorch.diagnostics import decode_source, parse_module

    return parse_module(ctx, decode_source(data, name), name)


def lower_to_cutlass(module: ModuleOp, ctx: Context, arch: str = "sm_90a", schedule: str = "persistent") -> None:
    """Run :func:`front_passes` on ``module`` in place."""
    from tileorch.backend.pipeline import parse_pipeline

    from tileorch.diagnostics import LocatedError
    from tileorch.dialects.nv_tileaa import FuncOp

    for p in parse_pipeline(front_passes(arch, schedule)):
        p.apply(ctx, module)
    for f in module.walk():
        if isinstance(f, FuncOp):
            raise LocatedError(f, f"kernel @{f.sym_name.data} is not supported yet: the tile tier compiles only "
                                  "GEMM-shaped kernels (K loop of tiled loads and a dot, one tiled store) so far")


__all__ = ["BytecodeError", "front_passes", "is_cuda_tile_input", "load", "lower_to_cutlass"]


def compile_cli(args, data: bytes, name: str) -> int:
    """``tileorch compile`` for a cuTile program (called by the CLI when the input is one)."""
    import sys
    from pathlib import Path

    from tileorch.backend.compile import CompileError, compile_module
    from tileorch.diagnostics import SourceError, format_exception
    from tileorch.registry import make_context
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    ctx = make_context()
    arch = args.arch or "sm_90a"
    schedule = getattr(args, "schedule", None) or "persistent"
    try:
        module = load(data, name, ctx)
        lower_to_cutlass(module, ctx, arch, schedule)
        result = compile_module(module, ctx, arch=arch, ptx_version=args.ptx_version, emit=args.emit,
                                ptxas=not args.no_ptxas and args.emit == "ptx", extra_pipeline=args.pipeline,
                                isolate=True)
    except BytecodeError as exc:
        print(f"{name}: error: invalid CUDA Tile IR bytecode at {exc}", file=sys.stderr)
        return 1
    except SourceError as exc:
        print(exc.format("tileorch compile"), file=sys.stderr)
        return 1
    except CompileError as exc:
        for line in exc.lines:
            print(line, file=sys.stderr)
        return 1
    except (ParseError, DiagnosticException, ValueError) as exc:
        for line in format_exception(exc):
            print(line, file=sys.stderr)
        return 1
    out = {"mlir": result.mlir, "llvm": result.llvm_ir, "ptx": result.ptx}[args.emit]
    if args.output == "-":
        sys.stdout.write(out)
    else:
        try:
            Path(args.output).write_text(out)
        except OSError as exc:
            print(f"tileorch compile: error: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        checked = f", accepted by ptxas -arch={result.arch}" if result.ptxas is not None else ""
        print(f"{name}: wrote {args.output} ({out.count(chr(10))} lines of {args.emit}{checked}; cuTile program, "
              f"{schedule} schedule)", file=sys.stderr)
    return 0
