"""CPU time of LLVM's NVPTX code generation per LLVM pass, for one or more inputs (issue 22: where ``codegen`` goes).

Usage::

    PYTHONPATH=src python benchmarks/llvm_codegen_passes.py FILE [FILE ...] [--top 8] [--repeat 2]

``FILE``: an LLVM IR file (``.ll``, e.g. ``tileorch compile X --emit llvm -o X.ll``), or anything
``tileorch.compile`` takes (``.mlir``, ``.tileirbc``; ``tileorch gemm M N K --emit mlir > g.mlir``
gives the GEMM's kernel), whose LLVM IR is made first (cache off, no ptxas).  Code generation is
run as the backend runs it (:func:`tileorch.backend.ptx.codegen`: parse, verify, the NVPTX target
machine at ``opt=2``, ``emit_assembly``) ``--repeat`` times in this process with LLVM's pass
timers on; printed per input: the best ``emit_assembly`` CPU milliseconds and the ``--top``
passes of the last run with their share (LLVM's timers charge an analysis computed on demand to
the pass that asked for it first).  Measured on the 2-core machine (session 15): the
4096x4096x4096 GEMM kernel's code generation 178 ms, 121 ms of it charged to "Straight line
strength reduction" (SLSR, an IR pass of the NVPTX target before instruction selection;
``-scalar-evolution-*``/``-scev-*`` limits leave it unchanged, and its rewrites change the PTX:
without them 716 instead of 698 32-bit and 149 instead of 117 64-bit registers); cuTile's
``attention_fwd`` 101 ms, 60 ms charged to "Expand Atomic instructions"; softmax 26 ms, 41% in
instruction selection.  ``perf record`` of the GEMM's code generation (4 runs) puts ~30% of the
samples under LLVM's ``programUndefinedIfUndefOrPoison`` (ValueTracking: 8% self, with
``mustTriggerUB``'s walk over call operands, ``propagatesPoison``, ``isGuaranteedNotToBeUndefOrPoison``
and ``CallBase::paramHasAttr`` under it): the forward scans of poison reasoning over blocks that hold
the WGMMA calls (128 accumulator operands each) and their 513 ``extractvalue``-s; our IR has no
``nsw``/``nuw`` flags.  Session 16: those scans are SLSR's ``ScalarEvolution::canReuseInstruction``
calls (8229 of them, 222540 ``programUndefinedIfUndefOrPoison`` scans for the GEMM), behind LLVM's
``-enable-poison-reuse-guard``; the backend now turns the guard off for IR without
poison-generating flags (:func:`tileorch.backend.ptx.poison_reuse_guard_needed`), as this script
does by default (``--guard auto``; ``on``/``off`` force it): GEMM 181 -> 80 ms, ``attention_fwd``
124 -> 57 ms, PTX identical.  ``--ptx-out DIR`` writes each input's PTX (``DIR/<stem>.ptx``) to
compare two settings.
"""

from __future__ import annotations

import argparse
import re
import time


def llvm_ir_of(path: str) -> str:
    if path.endswith(".ll"):
        with open(path) as f:
            return f.read()
    import tileorch

    return tileorch.compile(path, None, cache=False, ptxas=False).llvm_ir


def codegen_timed(llvm_ir: str, repeat: int, guard: str = "auto") -> tuple[float, list[tuple[str, float]], str]:
    """(best CPU seconds of emit_assembly, [(pass, user+system seconds)] of the last run, the PTX)."""
    import llvmlite.binding as llvm

    from tileorch.backend.ptx import (DEFAULT_ARCH, DEFAULT_PTX_VERSION, _init_llvm, _set_poison_reuse_guard,
                                      poison_reuse_guard_needed, target_features)

    _init_llvm()
    _set_poison_reuse_guard(llvm, poison_reuse_guard_needed(llvm_ir) if guard == "auto" else guard == "on")
    best, report, ptx = float("inf"), "", ""
    llvm.set_time_passes(True)
    for _ in range(repeat):
        mod = llvm.parse_assembly(llvm_ir)
        mod.verify()
        machine = llvm.Target.from_triple("nvptx64-nvidia-cuda").create_target_machine(
            cpu=DEFAULT_ARCH, features=target_features(DEFAULT_PTX_VERSION), opt=2)
        mod.data_layout = str(machine.target_data)
        t0 = time.process_time()
        ptx = machine.emit_assembly(mod)
        best = min(best, time.process_time() - t0)
        report = llvm.report_and_reset_timings()
    llvm.set_time_passes(False)
    passes = []
    for line in report.splitlines():
        # "  user (%)  [system (%)]  user+system (%)  wall (%)  Name": LLVM leaves out a column that is
        # all zero (the system time, often), so user+system is the last but one column
        columns = re.findall(r"([\d.]+) \(\s*[\d.]+%\)", line)
        name = line.rsplit(")", 1)[-1].strip()
        if len(columns) >= 3 and name and name != "Total":
            passes.append((name, float(columns[-2])))
    return best, sorted(passes, key=lambda p: -p[1]), ptx


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--guard", choices=("auto", "on", "off"), default="auto",
                    help="LLVM's -enable-poison-reuse-guard: as the backend sets it (auto), or forced")
    ap.add_argument("--ptx-out", metavar="DIR", help="write each input's PTX to DIR/<stem>.ptx")
    args = ap.parse_args(argv)
    for path in args.files:
        best, passes, ptx = codegen_timed(llvm_ir_of(path), args.repeat, args.guard)
        print(f"{path}: emit_assembly {best * 1000:.1f} ms CPU (best of {args.repeat}, guard {args.guard})")
        if args.ptx_out:
            from pathlib import Path

            Path(args.ptx_out).mkdir(parents=True, exist_ok=True)
            (Path(args.ptx_out) / (Path(path).stem + ".ptx")).write_text(ptx)
        for name, seconds in passes[:args.top]:
            print(f"  {seconds * 1000:8.1f} ms  {100 * seconds / best if best else 0:5.1f}%  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
