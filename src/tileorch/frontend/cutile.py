"""Compile cuTile programs (CUDA Tile IR, text or ``.tileirbc`` bytecode) with tileorch.

:func:`front_passes` is the pass list that takes a ``cuda_tile`` module to the ``cutlass``
orchestration tier, where :func:`tileorch.backend.compile.compile_module` continues:

``convert-cudatile-to-tileaa`` -> ``tileas-tier`` -> ``convert-nv-tileas-to-cutlass{schedule=...}``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr

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
    """Run :func:`front_passes` on ``module`` in place (GEMM-shaped kernels only)."""
    from tileorch.backend.pipeline import parse_pipeline

    from tileorch.diagnostics import LocatedError
    from tileorch.dialects.nv_tileaa import FuncOp

    for p in parse_pipeline(front_passes(arch, schedule)):
        p.apply(ctx, module)
    for f in module.walk():
        if isinstance(f, FuncOp):
            raise LocatedError(f, f"kernel @{f.sym_name.data} is not supported yet: the tile tier compiles only "
                                  "GEMM-shaped kernels (K loop of tiled loads and a dot, one tiled store) so far")


def lower_program(module: ModuleOp, ctx: Context, arch: str = "sm_90a", schedule: str = "persistent",
                  config: str = "", remarks: list[str] | None = None) -> tuple[str, ModuleOp]:
    """Lower a ``cuda_tile`` module to the tier the backend compiles; returns (kind, module).

    ``"gemm"``: the kernel has a dot and goes through the TileAS tier to the warp-specialized
    TMA/WGMMA kernel (``convert-nv-tileas-to-cutlass``, the program's epilogue compiled in the
    accumulator's registers; ``config`` retiles it, see that pass); ``"simt"``: any other kernel
    goes through ``convert-nv-tileaa-to-simt``.  A dot kernel the tensor-core lowering refuses
    also takes the SIMT path, and the refusal (a located error) is appended to ``remarks`` (and
    printed by the CLI), never dropped.  ``schedule="simt"`` forces the SIMT path.  Errors of
    ``convert-cudatile-to-tileaa`` and of the SIMT lowering propagate (located)."""
    from tileorch.backend.pipeline import parse_pipeline
    from tileorch.diagnostics import LocatedError
    from tileorch.dialects.nv_tileaa import FuncOp
    from tileorch.transforms.tileaa_to_simt import ConvertNvTileaaToSimt

    from tileorch.backend.compile import CompileError
    from tileorch.diagnostics import verify_located

    remarks = remarks if remarks is not None else []
    for p in parse_pipeline(f"convert-cudatile-to-tileaa{{compute_capability={arch}}}"):
        p.apply(ctx, module)
    errors = verify_located(module)
    if errors:
        raise CompileError([f"{e} (after convert-cudatile-to-tileaa)" for e in errors])
    fallback = module.clone()
    has_dot = any(op.name == "nv_tileaa.dot" for op in module.walk())
    hopper = arch.startswith("sm_90") and schedule != "simt"  # the tier's GEMM is TMA + WGMMA: sm_90a only
    if has_dot and not hopper:
        remarks.append(f"remark: dot kernel compiled by the SIMT path: "
                       f"{'asked for (schedule=simt)' if schedule == 'simt' else f'the WGMMA lowering targets sm_90a, not {arch}'}")
    if has_dot and hopper:
        _choose_clusters(module)
        opts = f"schedule={schedule}" + (f' config="{config}"' if config else "")
        try:
            for p in parse_pipeline(f"tileas-tier,convert-nv-tileas-to-cutlass{{{opts}}}"):
                p.apply(ctx, module)
            if not any(isinstance(f, FuncOp) for f in module.walk()):
                remarks.append("remark: dot kernel compiled through the TileAS tier to the warp-specialized "
                               "TMA/WGMMA kernel")
                return "gemm", module
            remarks.append("remark: the TileAS tier left a kernel unlowered; the SIMT path compiles it")
        except LocatedError as exc:
            if config:
                raise
            remarks.append(f"{exc} [the tensor-core path refused this kernel: the SIMT path compiles it, slowly]")
    ConvertNvTileaaToSimt().apply(ctx, fallback)
    fallback.attributes["cutlass.target"] = StringAttr(arch)
    return "simt", fallback


HOPPER_GEMM_CLUSTER = 2
"""CTAs per cluster tileorch picks for a GEMM-shaped kernel that leaves it to the compiler on
sm_90 (CUTLASS's usual 2x1: B is multicast to both CTAs, halving its L2 traffic)."""


def _choose_clusters(module: ModuleOp) -> None:
    from tileorch.dialects.nv_tileaa import FuncOp, KernelSpecAttr
    from tileorch.transforms.cudatile_to_tileaa import NUM_CTAS_AUTO

    for f in module.walk():
        if isinstance(f, FuncOp) and NUM_CTAS_AUTO in f.attributes:
            spec = f.kernel_spec()
            warps = spec.num_worker_warps.data if spec is not None else 4
            f.attributes["nv_tileaa.kernel_spec"] = KernelSpecAttr(HOPPER_GEMM_CLUSTER, warps)


@dataclass
class CutileProgram:
    """A compiled cuTile program.  ``kind == "simt"``: the kernel's parameters are the cuTile
    entry's, in order; block = (threads, 1, 1), grid = the tile grid.  ``kind == "gemm"``: launch
    with :mod:`tileorch.kernels.gemm.host` (``gemm_config``); ``gemm_args`` are the indices of
    the A, B, C array arguments of the cuTile kernel when the lowering reports them."""

    kind: str
    ptx: str
    cubin: bytes | None
    kernel: str
    threads: int
    gemm_config: object = None
    gemm_args: tuple[int, int, int] | None = None
    seconds: float = 0.0
    epilogue_ops: bool = False
    """The GEMM kernel runs the program's epilogue: it takes the cuTile entry's parameters after
    the GEMM's own (see ``convert-nv-tileas-to-cutlass``)."""
    retile_safe: bool = True
    remarks: list = None


def compile_program(data: bytes, name: str = "<cuTile program>", arch: str = "sm_90a",
                    schedule: str = "persistent", ptxas: bool = True, config: str = "") -> CutileProgram:
    """Compile cuTile bytecode (or ``cuda_tile`` text) to PTX and (with ``ptxas``) a cubin.
    Raises :class:`BytecodeError`, ``SourceError``/``LocatedError``/``CompileError`` on bad input."""
    import json
    import time

    from xdsl.dialects import func

    from tileorch.backend.compile import compile_module
    from tileorch.registry import make_context
    from tileorch.transforms.tileas.convert_to_cutlass import CONFIG_ATTR

    start = time.perf_counter()
    ctx = make_context()
    module = load(data, name, ctx)
    remarks: list[str] = []
    kind, lowered = lower_program(module, ctx, arch, schedule, config, remarks)
    kernels = [op for op in lowered.walk() if isinstance(op, func.FuncOp) and "nvvm.kernel" in op.attributes]
    gemm_config = gemm_args = None
    record: dict = {}
    if kind == "gemm":
        from tileorch.transforms.tileas.convert_to_cutlass import read_config

        fn = next(op for op in lowered.walk() if CONFIG_ATTR in op.attributes)
        gemm_config, record = read_config(fn)
        args = record.get("args")
        gemm_args = tuple(args) if args is not None else None
    kernel = kernels[0] if kernels else None
    threads = 0
    if kernel is not None and "nvvm.maxntid" in kernel.attributes:
        threads = int(list(kernel.attributes["nvvm.maxntid"].get_values())[0])
    result = compile_module(lowered, ctx, arch=arch, emit="ptx", ptxas=ptxas, isolate=True)
    return CutileProgram(kind, result.ptx, result.ptxas.cubin if result.ptxas is not None else None,
                         kernel.sym_name.data if kernel is not None else "", threads, gemm_config, gemm_args,
                         time.perf_counter() - start, bool(record.get("epilogue_ops", False)),
                         bool(record.get("retile_safe", True)), remarks)


__all__ = ["BytecodeError", "CutileProgram", "compile_program", "front_passes", "is_cuda_tile_input", "load",
           "lower_program", "lower_to_cutlass"]


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
        remarks: list[str] = []
        kind, module = lower_program(module, ctx, arch, schedule, remarks=remarks)
        for line in remarks:
            if "refused" in line or getattr(args, "remarks", False):
                print(line, file=sys.stderr)
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
              f"{kind + ' ' + schedule + ' schedule' if kind == 'gemm' else 'SIMT kernel'})", file=sys.stderr)
    return 0
