"""``tileorch compile FILE.mlir [--arch sm_90a] [-o OUT] [--emit=mlir|llvm|ptx] [--no-ptxas] [-p PIPELINE]``

Tile programs (``nv_tileaa`` text such as ``examples/tile_gemm.mlir``, cuTile's ``cuda_tile``
text or ``.tileirbc`` bytecode) first go through the tile tier (``--schedule``); every module
then runs the full lowering pipeline (``tileorch.backend.pipeline.PIPELINE``, then ``-p``),
translates to LLVM IR, generates PTX with LLVM's NVPTX backend and, unless
``--no-ptxas``, assembles it with ``ptxas -arch=ARCH`` so errors show at compile time.
Errors are printed as ``file:line:col: error: message`` (or ``tileorch compile: error: ...``
when there is no source position) and the exit status is 1; a bad option exits with 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tileorch.backend.ptx import DEFAULT_PTX_VERSION, SUPPORTED_PTX_VERSIONS  # stdlib only: no xDSL

# what --emit can stop after (tileorch.backend.compile.STAGES, which imports xDSL: the compiler is
# loaded only when the command runs)
EMIT_STAGES = ("mlir", "llvm", "ptx")

from tileorch.backend.ptx import SUPPORTED_ARCHS  # noqa: E402  (standard library only)


def _arch(text: str) -> str:
    if text not in SUPPORTED_ARCHS:
        hint = f" (for an {text} GPU: --arch {text}a, or tileiras's spelling --gpu-name {text})" \
            if f"{text}a" in SUPPORTED_ARCHS else ""
        raise argparse.ArgumentTypeError(
            f"unsupported target {text!r}; tileorch generates code for {' and '.join(SUPPORTED_ARCHS)}{hint}")
    return text


GPU_NAMES = {"sm_90": "sm_90a", "sm_90a": "sm_90a", "sm_100": "sm_100a", "sm_100a": "sm_100a"}
"""``--gpu-name`` (tileiras's option) -> tileorch's target: tileiras compiles sm_90 and sm_100 for
their arch-specific targets sm_90a and sm_100a, the only ones tileorch has."""


def _gpu_name(text: str) -> str:
    if text not in GPU_NAMES:
        raise argparse.ArgumentTypeError(
            f"unsupported target {text!r}; tileorch generates code for sm_90a (--gpu-name sm_90) and "
            "sm_100a (--gpu-name sm_100) only")
    return GPU_NAMES[text]


def _opt_level(text: str) -> str:
    if text != "3":
        raise argparse.ArgumentTypeError(
            f"-O{text}: tileorch compiles at one optimization level, tileiras's default -O3 (LLVM's NVPTX back "
            "end at its default level, ptxas at -O3); drop the option")
    return text


def _ptx_version(text: str) -> int:
    try:
        version = int(text)
    except ValueError:
        version = None
    if version not in SUPPORTED_PTX_VERSIONS:
        raise argparse.ArgumentTypeError(
            f"unsupported PTX version {text!r}; choose one of {', '.join(map(str, SUPPORTED_PTX_VERSIONS))}")
    return version


def _debug_timeout(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 2**32 - 1:
        raise argparse.ArgumentTypeError(f"expected a number of polls in [0, {2**32 - 1}] (0 = off), got {text!r}")
    return value


def register(subparsers) -> None:
    p = subparsers.add_parser("compile", help="compile a .mlir module or a cuTile .tileirbc to PTX (checked by ptxas)",
                              description="Compile a module to PTX and check it with ptxas: cutlass/nvvm/llvm MLIR, "
                                          "an nv_tileaa tile program (through the tile tier) or cuTile's CUDA Tile "
                                          "IR (cuda_tile text or .tileirbc bytecode).  Errors read "
                                          "file:line:col: error: ...")
    p.add_argument("file", help="input .mlir or .tileirbc file ('-' for stdin)")
    p.add_argument("--arch", type=_arch, default=None,
                   help=f"target, one of {', '.join(SUPPORTED_ARCHS)} (default: the module's cutlass.target, "
                        "else sm_90a)")
    p.add_argument("--gpu-name", type=_gpu_name, default=None, metavar="SM",
                   help="tileiras's spelling of the target: sm_90 or sm_90a (= --arch sm_90a), sm_100 or sm_100a "
                        "(= --arch sm_100a)")
    p.add_argument("-O", dest="opt_level", type=_opt_level, default=None, metavar="3",
                   help="tileiras's optimization level: only 3 (its default, which cuTile passes), the one level "
                        "tileorch has")
    p.add_argument("-g", dest="debug_info", action="store_true",
                   help="tileiras's debug information: accepted with a warning, none is generated")
    p.add_argument("--lineinfo", action="store_true",
                   help="tileiras's line information: accepted with a warning, none is generated")
    p.add_argument("--ptx-version", type=_ptx_version, default=DEFAULT_PTX_VERSION,
                   help="PTX ISA version x10 (default 86)")
    p.add_argument("-o", "--output", default="-",
                   help="output file (default: stdout); a name ending in .cubin gets ptxas's cubin")
    p.add_argument("--emit", choices=EMIT_STAGES, default="ptx", help="stop after this stage (default: ptx)")
    p.add_argument("--no-ptxas", action="store_true", help="do not assemble the PTX with ptxas")
    p.add_argument("--cubin", default=None, metavar="FILE", help="also write ptxas's cubin to FILE")
    p.add_argument("--no-cache", action="store_true",
                   help="do not use the compiled-kernel cache ($TILEORCH_CACHE_DIR, ~/.cache/tileorch)")
    p.add_argument("-p", "--pipeline", default="", help="extra passes run after the lowering pipeline")
    p.add_argument("--schedule", choices=("persistent", "streamk", "dp", "simt"), default=None,
                   help="tile scheduler of a GEMM-shaped tile program (nv_tileaa, or cuTile's CUDA Tile IR) "
                        "(default: persistent); simt compiles any tile program through the SIMT lowering; "
                        "an error for other modules, whose scheduler is in their IR")
    p.add_argument("--debug-timeout", type=_debug_timeout, default=0, metavar="N",
                   help="debug build: every mbarrier wait and spin loop of the kernel traps after N unsuccessful "
                        "polls, printing what it waited on (barrier, stage, phase, block, thread); 0 (default) = off")
    p.add_argument("--remarks", action="store_true",
                   help="print every decision: the path each kernel took and why, the configuration chosen, "
                        "and registers, spills and stack per kernel from ptxas (tileiras's --remarks=all too)")
    p.add_argument("--timings", action="store_true",
                   help="print the wall time of each phase and pass (read, parse, verify, each pass of each "
                        "pipeline, LLVM translation, llvmlite code generation, ptxas) to stderr, as mlir-opt "
                        "--mlir-timing does")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """``--emit=ptx`` goes through :func:`tileorch.api.compile` (and its cache); ``mlir`` and
    ``llvm`` stop the same pipeline early.  ``--timings`` prints the report after the output
    (also when the compile fails: the phases up to the failure).  The garbage collector is
    deferred for all of it (:mod:`tileorch.gc_deferral`), the imports of the compiler included."""
    from tileorch import timing
    from tileorch.gc_deferral import gc_deferred

    with timing.collect() as timer, gc_deferred():  # the compiler's imports too (~8% of their time)
        try:
            status = _run(args)
        finally:  # (a code generation child no compile took: called in a process that goes on)
            from tileorch.backend.ptx import release_preforked

            release_preforked()
    if getattr(args, "timings", False):
        print(timing.format_report(timer.as_dict()), file=sys.stderr, end="")
    return status


def tileiras_argv(argv: list[str]) -> list[str]:
    """``tileorch compile``'s command line with tileiras's ``--remarks=all`` spelt ``--remarks``
    (argparse takes no value for a flag); every other word as it is."""
    return ["--remarks" if word == "--remarks=all" else word for word in argv]


def _settle_options(args: argparse.Namespace) -> int | None:
    """Resolve tileiras's spellings and check the outputs before anything is compiled: ``--gpu-name``
    becomes ``--arch`` (an error when both name different targets), ``-g`` / ``--lineinfo`` print
    their warning, ``-o F.cubin`` becomes ``--cubin F.cubin`` with no PTX written, and an output
    whose directory does not exist (or that is a directory) is refused.  The exit status of a
    refusal (printed), else None."""
    if args.gpu_name is not None:
        if args.arch is not None and args.arch != args.gpu_name:
            print(f"tileorch compile: error: --arch {args.arch} and --gpu-name name different targets "
                  f"({args.gpu_name}); give one", file=sys.stderr)
            return 2
        args.arch = args.gpu_name
    for given, flag, what in ((args.debug_info, "-g", "debug information"),
                              (args.lineinfo, "--lineinfo", "line information")):
        if given:
            print(f"tileorch compile: warning: {flag} is not applied: tileorch generates no {what} (the PTX has "
                  "no .loc directives, so a fault on the GPU names no source line)", file=sys.stderr)
    if args.output != "-" and args.output.lower().endswith(".cubin"):
        if args.emit != "ptx" or args.no_ptxas:
            what = "PTX without ptxas (--no-ptxas)" if args.emit == "ptx" else f"--emit={args.emit}'s text"
            suffix = {"ptx": ".ptx", "mlir": ".mlir", "llvm": ".ll"}[args.emit]
            print(f"tileorch compile: error: -o {args.output} names a cubin, which ptxas makes, but this command "
                  f"writes {what}: name the output {suffix}", file=sys.stderr)
            return 2
        if args.cubin is not None and args.cubin != args.output:
            print(f"tileorch compile: error: -o {args.output} and --cubin {args.cubin} both ask for the cubin; "
                  "give one", file=sys.stderr)
            return 2
        args.cubin, args.output = args.output, None  # the cubin only (as tileiras -o F.cubin writes it)
    for path in (args.output, args.cubin):
        problem = _unwritable(path)
        if problem is not None:
            print(f"tileorch compile: error: cannot write {path}: {problem}", file=sys.stderr)
            return 1
    return None


def _unwritable(path: str | None) -> str | None:
    """Why ``path`` cannot be an output file before compiling (a directory; a directory that does
    not exist: tileorch creates none), else None (``-`` and None: nothing to check)."""
    if path is None or path == "-":
        return None
    if os.path.isdir(path):
        return "it is a directory (give a file name)"
    parent = os.path.dirname(path) or "."
    if not os.path.isdir(parent):
        return f"No such file or directory (the directory {parent} does not exist; tileorch creates no directories)"
    return None


def _run(args: argparse.Namespace) -> int:
    from tileorch import timing

    status = _settle_options(args)
    if status is not None:
        return status
    if args.emit == "ptx":  # LLVM loads in a code generation child meanwhile (tileorch.backend.ptx.prefork_codegen)
        from tileorch.backend.ptx import prefetch_llvm, prefork_codegen

        if not prefork_codegen():  # no fork: a thread of this process loads it
            prefetch_llvm()
    with timing.timed("import"):  # the compiler's modules (xDSL, the dialects)
        from tileorch.backend.compile import CompileError
        from tileorch.diagnostics import SourceError, read_source
        from tileorch.driver import compile_text

    name = "<stdin>" if args.file == "-" else args.file
    clobbered = _output_is_input(args)
    if clobbered is not None:
        print(f"tileorch compile: error: {clobbered} names the input file: writing the output there would "
              "overwrite the source; choose another file", file=sys.stderr)
        return 2
    try:  # the file or standard input, whatever it holds: cuTile programs are bytecode (by magic) or text
        with timing.timed("read"):
            data = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
    except OSError:
        data = None  # read_source says why, below
    from tileorch.api import bytecode_input_error, python_source_error

    if data is not None:
        problem = bytecode_input_error(data, name)
        if problem is not None:  # an empty .tileirbc, a truncated magic number
            print(problem, file=sys.stderr)
            return 1
        with timing.timed("import"):
            from tileorch.frontend.cutile import is_cuda_tile_input

        if is_cuda_tile_input(data):
            if not _cubin_request_ok(args):
                return 2
            return _compile_cutile(args, data, name)
    try:
        with timing.timed("read"):
            if data is None:
                text = read_source(args.file)
            else:
                from tileorch.diagnostics import decode_source

                text = decode_source(data, name)
    except SourceError as exc:
        print(exc.format("tileorch compile"), file=sys.stderr)
        return 1

    python = python_source_error(args.file) if args.file != "-" else None
    if python is not None:  # a cuTile kernel's .py: what the command reads instead, and how to get it
        print(python, file=sys.stderr)
        return 1
    if not _cubin_request_ok(args):
        return 2
    try:
        if args.emit == "ptx":
            import warnings

            from tileorch import api

            with warnings.catch_warnings():  # (api.compile's no-kernel warning: its remark is printed below)
                warnings.simplefilter("ignore", UserWarning)
                kernel = api.compile(text, args.arch, name=name, ptx_version=args.ptx_version,
                                 ptxas=not args.no_ptxas, extra_pipeline=args.pipeline,
                                     cache=False if args.no_cache else None, isolate=True, schedule=args.schedule,
                                     debug_timeout=args.debug_timeout)
            out, arch, remarks, cubin = kernel.ptx, kernel.arch, list(kernel.remarks), kernel.cubin
            messages = kernel.ptxas_messages if not args.no_ptxas else None
            remarks += kernel.ptxas_remarks if not args.no_ptxas else []
        else:
            result = compile_text(text, name, arch=args.arch, ptx_version=args.ptx_version, emit=args.emit,
                                  ptxas=False, extra_pipeline=args.pipeline, isolate=True, schedule=args.schedule,
                                  debug_timeout=args.debug_timeout)
            out, arch, messages, cubin = (result.mlir if args.emit == "mlir" else result.llvm_ir), result.arch, None, None
            remarks = result.remarks
    except CompileError as exc:
        for line in exc.lines:
            print(line, file=sys.stderr)
        return 1
    for line in remarks:  # a tile program: what the tier refused, a --schedule it did not apply; spills
        if "refused" in line or "not applied" in line or _is_warning(line) or args.remarks:
            print(f"{name}: {line}" if line.startswith(("remark:", "warning:")) else line, file=sys.stderr)
    if not _write_outputs(args, out, cubin):
        return 1
    if messages is not None:
        for line in messages:
            print(f"{name}: ptxas: {line}", file=sys.stderr)
    checked = f", accepted by ptxas -arch={arch}" if messages is not None else ""
    _say_written(args, name, out, cubin, arch, checked, "")
    return 0


def _write_outputs(args: argparse.Namespace, out: str, cubin: bytes | None) -> bool:
    """Write the output text (unless ``-o F.cubin`` asked for the cubin alone) and the cubin
    (``--cubin``); False, with the error printed, when one cannot be written."""
    if args.output is not None and not _write_output(args.output, out):
        return False
    return args.cubin is None or _write_output(args.cubin, cubin or b"")


def _say_written(args: argparse.Namespace, name: str, out: str, cubin: bytes | None, arch: str, checked: str,
                 what: str) -> None:
    """The ``NAME: wrote FILE (...)`` line on stderr for a file output (none for standard output)."""
    if args.output is None:
        print(f"{name}: wrote {args.cubin} ({len(cubin or b'')} bytes of cubin from ptxas -arch={arch}"
              f"{what})", file=sys.stderr)
    elif args.output != "-":
        print(f"{name}: wrote {args.output} ({out.count(chr(10))} lines of {args.emit}{checked}{what})",
              file=sys.stderr)


def _is_warning(line: str) -> bool:
    """A warning remark (``warning: ...`` or a located ``FILE:L:C: warning: ...``): always printed."""
    return line.startswith("warning:") or " warning: " in line.split("[", 1)[0][:400]


def _cubin_request_ok(args: argparse.Namespace) -> bool:
    """``--cubin`` asks for ptxas's output: False, with the error printed, when ``--emit`` stops
    before PTX or ``--no-ptxas`` leaves ptxas out (for every input kind, cuTile programs too)."""
    if args.cubin is not None and (args.emit != "ptx" or args.no_ptxas):
        print("tileorch compile: error: --cubin needs --emit=ptx and ptxas", file=sys.stderr)
        return False
    return True


def _output_is_input(args: argparse.Namespace) -> str | None:
    """``-o FILE`` or ``--cubin FILE`` when FILE is the input file (``tileorch compile k.mlir -o
    k.mlir`` replaced the source with its PTX), else None."""
    if args.file == "-":
        return None
    for flag, path in (("-o", args.output), ("--cubin", args.cubin)):
        if path is None or path == "-":
            continue
        try:
            if os.path.samefile(args.file, path):
                return f"{flag} {path}"
        except OSError:  # either does not exist (yet): not the same file
            continue
    return None


def _write_output(path: str, data: str | bytes) -> bool:
    """Write ``data`` to ``path`` (text to standard output for ``-``); False, with the error
    printed, when the file cannot be written."""
    if path == "-" and isinstance(data, str):
        sys.stdout.write(data)
        return True
    try:
        if isinstance(data, str):
            Path(path).write_text(data)
        else:
            Path(path).write_bytes(data)
    except OSError as exc:
        print(f"tileorch compile: error: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return False
    return True


def _compile_cutile(args: argparse.Namespace, data: bytes, name: str) -> int:
    """``tileorch compile`` for a cuTile program (bytecode or ``cuda_tile`` text; the CLI's timing
    scope records its phases), with the garbage collector deferred for all of it (the bytecode's
    load and the tile program's lowering too: :mod:`tileorch.gc_deferral`)."""
    from tileorch.gc_deferral import gc_deferred

    with gc_deferred():
        return _compile_cutile_deferred(args, data, name)


def _compile_cutile_deferred(args: argparse.Namespace, data: bytes, name: str) -> int:
    from tileorch import timing
    from tileorch.driver import compile_module, lower_program
    from tileorch.frontend.cutile import load, print_compile_error
    from tileorch.registry import make_context

    ctx = make_context()
    arch = args.arch or "sm_90a"
    schedule = getattr(args, "schedule", None) or "persistent"
    try:
        module = load(data, name, ctx)
        remarks: list[str] = []
        with timing.timed("tile-program"):
            kind, module = lower_program(module, ctx, arch, schedule, remarks=remarks)
        if getattr(args, "schedule", None) not in (None, "simt") and kind == "simt":
            remarks.append(f"remark: --schedule {schedule} not applied: the kernel has no GEMM the TileAS tier "
                           "compiles, so the SIMT path compiled it")
        if kind == "simt":  # what the SIMT lowering recorded on the kernel (as compile_program reports it)
            from xdsl.dialects import func

            from tileorch.driver import simt_kernel_remarks

            kernel = next((op for op in module.walk() if isinstance(op, func.FuncOp) and "nvvm.kernel" in op.attributes),
                          None)
            remarks.extend(simt_kernel_remarks(kernel))
        show = getattr(args, "remarks", False)
        for line in remarks:  # unlocated ones named by the file, as for every other input
            if "refused" in line or "not applied" in line or _is_warning(line) or show:
                print(f"{name}: {line}" if line.startswith(("remark:", "warning:")) else line, file=sys.stderr)
        result = compile_module(module, ctx, arch=arch, ptx_version=args.ptx_version, emit=args.emit,
                                ptxas=not args.no_ptxas and args.emit == "ptx", extra_pipeline=args.pipeline,
                                isolate=True, kind=kind, debug_timeout=getattr(args, "debug_timeout", 0))
        for line in result.remarks:  # the backend's own (a dropped occupancy hint; no kernel at all)
            if show or _is_warning(line):
                print(line if line.startswith(name) else f"{name}: {line}", file=sys.stderr)
        if result.ptxas is not None:
            from tileorch.backend.ptxas import resource_remarks

            for line in resource_remarks(result.ptxas.resources):  # spills always; the summary on request
                if line.startswith("warning:") or show:
                    print(f"{name}: {line}", file=sys.stderr)
    except Exception as exc:  # noqa: BLE001 - the user's errors are printed; anything else propagates
        return print_compile_error(exc, name)
    out = {"mlir": result.mlir, "llvm": result.llvm_ir, "ptx": result.ptx}[args.emit]
    cubin = result.ptxas.cubin if result.ptxas is not None else None
    if not _write_outputs(args, out, cubin):
        return 1
    checked = f", accepted by ptxas -arch={result.arch}" if result.ptxas is not None else ""
    if not any(_is_warning(line) and "nothing to compile" in line for line in result.remarks):
        what = ("; cuTile program, " + (f"gemm {schedule} schedule" if kind == "gemm" else
                                        "chained-dots WGMMA kernel" if kind == "chained" else "SIMT kernel"))
    else:
        what = "; no kernel"
    _say_written(args, name, out, cubin, result.arch, checked, what)
    return 0
