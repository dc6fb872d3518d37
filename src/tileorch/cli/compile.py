"""``tileorch compile FILE.mlir [--arch sm_90a] [-o OUT] [--emit=mlir|llvm|ptx] [--no-ptxas] [-p PIPELINE]``

Runs the full lowering pipeline (``tileorch.backend.pipeline.PIPELINE``, then ``-p``),
translates to LLVM IR, generates PTX with LLVM's NVPTX backend and, unless
``--no-ptxas``, assembles it with ``ptxas -arch=ARCH`` so errors show at compile time.
Errors are printed as ``file:line:col: error: message`` and the exit status is 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tileorch.backend.compile import STAGES, CompileError, compile_text
from tileorch.backend.ptx import DEFAULT_PTX_VERSION


def register(subparsers) -> None:
    p = subparsers.add_parser("compile", help="compile a .mlir module to PTX (checked by ptxas)")
    p.add_argument("file", help="input .mlir file ('-' for stdin)")
    p.add_argument("--arch", default=None, help="target (default: the module's cutlass.target, else sm_90a)")
    p.add_argument("--ptx-version", type=int, default=DEFAULT_PTX_VERSION, help="PTX ISA version x10 (default 86)")
    p.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    p.add_argument("--emit", choices=STAGES, default="ptx", help="stop after this stage (default: ptx)")
    p.add_argument("--no-ptxas", action="store_true", help="do not assemble the PTX with ptxas")
    p.add_argument("-p", "--pipeline", default="", help="extra passes run after the lowering pipeline")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    name = "<stdin>" if args.file == "-" else args.file
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
    except OSError as exc:
        print(f"tileorch compile: error: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 1
    try:
        result = compile_text(
            text,
            name,
            arch=args.arch,
            ptx_version=args.ptx_version,
            emit=args.emit,
            ptxas=not args.no_ptxas and args.emit == "ptx",
            extra_pipeline=args.pipeline,
            isolate=True,
        )
    except CompileError as exc:
        for line in exc.lines:
            print(line, file=sys.stderr)
        return 1
    out = {"mlir": result.mlir, "llvm": result.llvm_ir, "ptx": result.ptx}[args.emit]
    if args.output == "-":
        sys.stdout.write(out)
    else:
        Path(args.output).write_text(out)
    if result.ptxas is not None:
        for line in result.ptxas.messages:
            print(f"{name}: ptxas: {line}", file=sys.stderr)
    if args.output != "-":
        checked = f", accepted by ptxas -arch={result.arch}" if result.ptxas is not None else ""
        print(f"{name}: wrote {args.output} ({out.count(chr(10))} lines of {args.emit}{checked})",
              file=sys.stderr)
    return 0
