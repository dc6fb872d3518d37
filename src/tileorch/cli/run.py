"""``tileorch run FILE --kernel NAME --grid X,Y,Z --block X,Y,Z [--cluster X,Y,Z] [--args ...]``:
compile (``.mlir``) or load (``.ptx``, ``.cubin``) a module and launch one kernel once.

Arguments (``--args``, in kernel-parameter order):
``i8|i16|i32|i64|u8|u16|u32|u64|f32|f64:VALUE`` a scalar; ``buf:DTYPE:N[:zeros|iota|VALUE]`` a
device buffer of N elements (zero-filled by default), printed after the run and written to
``--dump DIR`` as ``argK.npy``; ``npy:FILE`` a device buffer holding that array.
Without a GPU it says so and fails (exit status 1), nothing having run; with ``--simulate`` it
runs ``tileorch simulate FILE`` (the orchestration on the CPU) instead.
Loading a ``.ptx`` / ``.cubin`` needs only numpy and cuda-python: xDSL and the compiler are
imported only to compile a ``.mlir`` file.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any

import numpy as np

SCALAR_TYPES = {
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f32": np.float32, "f64": np.float64,
}


class ArgError(ValueError):
    """A malformed ``--args`` entry."""


@dataclass
class BufferSpec:
    """A device buffer to create: its host contents before the run."""

    initial: np.ndarray


def parse_dims(text: str) -> tuple[int, int, int]:
    try:
        dims = tuple(int(v) for v in text.replace("x", ",").split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected X[,Y[,Z]] with integers, got {text!r}") from None
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise argparse.ArgumentTypeError(f"expected 1 to 3 positive extents, got {text!r}")
    return (dims + (1, 1))[:3]  # type: ignore[return-value]


def _bytes(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative number of bytes, got {text!r}")
    return value


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):  # inf turned the watchdog off: a hang waited for ever
        raise argparse.ArgumentTypeError(f"expected a positive, finite number of seconds, got {text!r}")
    return value


def parse_arg(text: str) -> np.generic | BufferSpec:
    """One ``--args`` entry -> a numpy scalar or a :class:`BufferSpec`."""
    kind, _, rest = text.partition(":")
    if kind in SCALAR_TYPES:
        try:
            return SCALAR_TYPES[kind](float(rest) if kind.startswith("f") else int(rest, 0))
        except (ValueError, OverflowError):
            raise ArgError(f"bad {kind} value in {text!r}") from None
    if kind == "buf":
        parts = rest.split(":")
        if len(parts) not in (2, 3) or parts[0] not in SCALAR_TYPES:
            raise ArgError(f"expected buf:DTYPE:N[:zeros|iota|VALUE], got {text!r}")
        dtype = SCALAR_TYPES[parts[0]]
        try:
            n = int(parts[1], 0)
            if n < 1:
                raise ValueError
        except ValueError:
            raise ArgError(f"bad element count in {text!r} (expected a positive integer)") from None
        fill = parts[2] if len(parts) == 3 else "zeros"
        try:
            if fill == "zeros":
                return BufferSpec(np.zeros(n, dtype))
            if fill == "iota":
                return BufferSpec(np.arange(n).astype(dtype))
            try:
                return BufferSpec(np.full(n, float(fill) if parts[0].startswith("f") else int(fill, 0), dtype))
            except (ValueError, OverflowError):
                raise ArgError(f"bad fill value in {text!r}") from None
        except MemoryError:
            raise ArgError(f"cannot allocate {n} elements of {parts[0]} on the host for {text!r}") from None
    if kind == "npy":
        try:
            return BufferSpec(np.load(rest))
        except (OSError, ValueError) as exc:
            raise ArgError(f"cannot read {rest!r}: {exc}") from None
    raise ArgError(f"unknown argument kind {kind!r} in {text!r} (scalar type, buf: or npy:)")


def compile_mlir(text: str, name: str, debug_timeout: int = 0, isolate: bool = False) -> str:
    """PTX (not assembled) of an MLIR module, by :func:`tileorch.driver.compile_module`.
    ``debug_timeout`` > 0 is a debug build (:func:`tileorch.driver.compile_module`: every mbarrier
    wait and spin loop prints what it waits on and traps after that many polls).  ``isolate`` runs
    LLVM in a child process (for untrusted input).  Raises ``CompileError`` with located lines."""
    from tileorch.backend.compile import parse_text
    from tileorch.driver import compile_module
    from tileorch.registry import make_context

    ctx = make_context()
    module = parse_text(ctx, text, name)
    return compile_module(module, ctx, ptxas=False, isolate=isolate, debug_timeout=debug_timeout).ptx


def check_kernel_arguments(path: Path, kernel: str, specs: list | None) -> str | None:
    """An error line when the ``.mlir`` module at ``path`` has no kernel ``kernel`` (a
    ``func.func``/``llvm.func`` with ``nvvm.kernel``), or ``specs`` (None: not checked; ``--simulate``
    runs the orchestration without them) do not fit its parameters
    (their number; a buffer for each pointer, a scalar of the parameter's width for each integer
    or float); None when they fit, and for tile programs (``nv_tileaa``/``cuda_tile``: their entry's
    parameters are expanded when compiled; the driver checks those) and modules that do not parse
    (the compile reports them)."""
    from xdsl.dialects.builtin import AnyFloat, IntegerType

    from tileorch.diagnostics import SourceError, format_error, parse_module, read_source
    from tileorch.registry import make_context

    try:
        module = parse_module(make_context(), read_source(str(path)), str(path))
    except (SourceError, Exception):  # noqa: BLE001 - reported, located, by the compile
        return None
    kernels = {}
    for op in module.walk():
        if op.name.startswith(("nv_tileaa.", "cuda_tile.")):
            return None
        if op.name in ("func.func", "llvm.func") and "nvvm.kernel" in op.attributes:
            kernels[op.sym_name.data] = op
    op = kernels.get(kernel)
    if op is None:
        return (f"tileorch run: error: {path} has no kernel named '{kernel}' "
                f"(kernels: {', '.join(sorted(kernels)) or 'none'}); nothing was run")
    if specs is None:
        return None
    ftype = op.function_type
    params = list(ftype.inputs.data)
    if len(specs) != len(params):
        return format_error(op, f"kernel '{kernel}' takes {len(params)} argument(s) "
                                f"({', '.join(map(str, params))}), --args gives {len(specs)}; nothing was run")
    for i, (param, spec) in enumerate(zip(params, specs)):
        if param.name == "llvm.ptr":
            if not isinstance(spec, BufferSpec):
                return format_error(op, f"argument {i} of kernel '{kernel}' is a pointer ({param}): pass a buffer "
                                        f"(buf:DTYPE:N or npy:FILE), not a scalar; nothing was run")
            continue
        if isinstance(spec, BufferSpec):
            return format_error(op, f"argument {i} of kernel '{kernel}' is a {param}, not a pointer: pass a scalar "
                                    "(e.g. i32:VALUE); nothing was run")
        width = param.width.data if isinstance(param, IntegerType) else param.bitwidth if isinstance(param, AnyFloat) \
            else None
        if width is not None and (np.dtype(type(spec)).itemsize * 8 != width
                                  or isinstance(param, AnyFloat) != np.issubdtype(type(spec), np.floating)):
            return format_error(op, f"argument {i} of kernel '{kernel}' is a {param}, --args gives a "
                                    f"{np.dtype(type(spec)).name}; nothing was run")
    return None


def _no_gpu(args: argparse.Namespace, reason: str) -> int:
    """No GPU: an error, unless ``--simulate`` asked for the CPU simulator instead."""
    if not args.simulate:
        print(f"tileorch run: error: no GPU: {reason}; nothing was run (to simulate the kernel's orchestration "
              f"on the CPU instead: `tileorch run ... --simulate` or `tileorch simulate {args.file}`)",
              file=sys.stderr)
        return 1
    print(f"tileorch run: no GPU: {reason}", file=sys.stderr)
    if Path(args.file).suffix != ".mlir":
        print("tileorch run: only .mlir files can be simulated; nothing was run", file=sys.stderr)
        return 1
    try:
        simulate = import_module("tileorch.cli.simulate")
    except ImportError:
        print("tileorch run: `tileorch simulate` is not available either; nothing was run", file=sys.stderr)
        return 1
    argv = ["simulate", args.file, "--kernel", args.kernel]
    print(f"tileorch run: --simulate: running `tileorch {' '.join(argv)}` instead", file=sys.stderr)
    parser = argparse.ArgumentParser(prog="tileorch")
    simulate.register(parser.add_subparsers(dest="command"))
    sim_args = parser.parse_args(argv)
    return int(sim_args.func(sim_args) or 0)


def _show(index: int, host: np.ndarray, dump: Path | None) -> None:
    head = np.array2string(host[:16], threshold=16, max_line_width=120)
    print(f"arg {index}: {host.dtype}[{host.size}] {head}{' ...' if host.size > 16 else ''}")
    if dump is not None:
        dump.mkdir(parents=True, exist_ok=True)
        np.save(dump / f"arg{index}.npy", host)


def run(args: argparse.Namespace) -> int:
    from tileorch import runtime

    path = Path(args.file)
    if not path.is_file():
        print(f"tileorch run: error: no such file: {path}", file=sys.stderr)
        return 2
    try:
        specs = [parse_arg(a) for a in args.args]
    except ArgError as exc:
        print(f"tileorch run: error: {exc}", file=sys.stderr)
        return 2
    if path.suffix != ".mlir" and path.read_bytes()[:8] == b"\x7fTileIR\x00":  # not for the driver as it is
        print(f"{path}:1:1: error: {path.name} is CUDA Tile IR bytecode: tileorch run loads a .mlir module "
              "(cuda_tile text included), PTX or a cubin; run a cuTile kernel with tileorch.cutile.launch(stream, grid, kernel, args) "
              "(it packs the entry's pointer, shape and stride parameters and takes GEMMs to their host side), or "
              "compile it first: tileorch compile FILE -o FILE.ptx", file=sys.stderr)
        return 1
    if not args.simulate:  # a configuration no launch takes, before the GPU is needed (was the driver's bare
        from tileorch.runtime.launch import LaunchConfig  # CUDA_ERROR_INVALID_VALUE, or 'no GPU' without one)

        try:
            LaunchConfig.make(args.grid, args.block, args.cluster, args.smem)
        except ValueError as exc:
            print(f"tileorch run: error: {exc}; nothing was run", file=sys.stderr)
            return 2
    if path.suffix == ".mlir":  # the kernel and its arguments (not for the simulator), before the GPU is needed
        problem = check_kernel_arguments(path, args.kernel, None if args.simulate else specs)
        if problem is not None:
            print(problem, file=sys.stderr)
            return 1
    ok, reason = runtime.gpu_status()
    if not ok:
        return _no_gpu(args, reason)
    if path.suffix == ".mlir":
        from tileorch.backend.compile import CompileError
        from tileorch.diagnostics import SourceError, read_source

        try:
            image: str | bytes = compile_mlir(read_source(str(path)), str(path), debug_timeout=args.debug_timeout,
                                              isolate=True)
        except SourceError as exc:
            print(exc.format("tileorch run"), file=sys.stderr)
            return 1
        except CompileError as exc:
            print(str(exc), file=sys.stderr)
            return 1
    else:
        image = path.read_bytes()
    try:
        module = runtime.Module(image, label=str(path))
        kernel = module.kernel(args.kernel)
        values: list[Any] = [
            runtime.DeviceBuffer.from_array(s.initial) if isinstance(s, BufferSpec) else s for s in specs
        ]
        done = runtime.launch(
            kernel, args.grid, args.block, values, cluster=args.cluster, smem=args.smem,
            timeout_s=args.timeout,
        )
        print(f"kernel {args.kernel} ran in {done.elapsed_ms():.3f} ms on {module.device.name} "
              f"({done.config.describe()})")
        for i, (spec, value) in enumerate(zip(specs, values)):
            if isinstance(spec, BufferSpec):
                _show(i, value.download(spec.initial.dtype, spec.initial.size), args.dump)
    except (runtime.CudaError, runtime.KernelHang, runtime.KernelFault, TypeError, ValueError) as exc:
        print(f"tileorch run: error: {exc}", file=sys.stderr)
        return 1
    return 0


def _debug_polls(text: str) -> int:
    from tileorch.cli.compile import _debug_timeout

    return _debug_timeout(text)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("run", help="launch one kernel on the GPU", description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help=".mlir (compiled by tileorch), .ptx or .cubin")
    p.add_argument("--kernel", required=True, help="kernel (entry) name")
    p.add_argument("--grid", type=parse_dims, default=(1, 1, 1), help="X[,Y[,Z]] CTAs")
    p.add_argument("--block", type=parse_dims, required=True, help="X[,Y[,Z]] threads per CTA")
    p.add_argument("--cluster", type=parse_dims, default=(1, 1, 1), help="X[,Y[,Z]] CTAs per cluster")
    p.add_argument("--smem", type=_bytes, default=0, help="dynamic shared memory bytes per CTA")
    p.add_argument("--args", nargs="*", default=[], help="kernel arguments (see above)")
    p.add_argument("--timeout", type=_positive_seconds, default=10.0, help="watchdog seconds (default 10)")
    p.add_argument("--debug-timeout", type=_debug_polls, default=0, metavar="N",
                   help="(.mlir input) compile a debug build: every mbarrier wait and spin loop traps after N "
                        "unsuccessful polls, printing the barrier, stage and phase it waited on; 0 (default) = off")
    p.add_argument("--dump", type=Path, default=None, help="write buffers as argK.npy here")
    p.add_argument("--simulate", action="store_true",
                   help="without a GPU, simulate the orchestration on the CPU (tileorch simulate) instead of "
                        "failing")
    p.set_defaults(func=run)
