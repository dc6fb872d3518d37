#!/usr/bin/env python3
"""Fuzz the cuTile front door in process (run outside CI; needs cuda-tile):

    python tools/fuzz_cutile.py [--inputs N] [--seed S] [--out DIR]

Exports the cuTile test programs of tests/unit/test_cuda_tile_bytecode.py (KERNELS and
MORE_KERNELS) to bytecode, prints each as ``cuda_tile`` text, mutates the texts with
:class:`tileorch.tools.fuzz.Mutator` and compiles every mutant with
:func:`tileorch.driver.compile_program` (both paths: GEMM tier and SIMT lowering; no
ptxas).  The property: the compile succeeds or raises a located tileorch error; any other
exception (a traceback), an unlocated message or a compile over 60 s is a finding, saved under
``--out``.  Prints the outcome counts; exit status 1 if anything was found.
"""

from __future__ import annotations

import argparse
import random
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "unit"))
sys.path.insert(0, str(ROOT / "tests"))  # tool_forkserver, which test_cuda_tile_bytecode imports


class _Timeout(Exception):
    pass


def seeds(tmp: Path) -> list[str]:
    from test_cuda_tile_bytecode import KERNELS, MORE_KERNELS

    from tileorch.frontend.cuda_tile_bytecode import read_bytecode

    for name, source in (("kernels.py", KERNELS), ("more.py", MORE_KERNELS)):
        (tmp / name).write_text(source)
        subprocess.run([sys.executable, str(tmp / name), str(tmp)], check=True, capture_output=True, timeout=600)
    return [str(read_bytecode(f.read_bytes(), f.name)) for f in sorted(tmp.glob("*.tileirbc"))]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("fuzz-cutile-findings"))
    ns = ap.parse_args(argv)

    from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

    from tileorch.backend.compile import CompileError
    from tileorch.diagnostics import LocatedError, SourceError
    from tileorch.driver import compile_program
    from tileorch.tools.fuzz import Mutator

    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        texts = seeds(Path(tmp))
    print(f"fuzz-cutile: {len(texts)} seeds exported in {time.monotonic() - start:.0f} s", flush=True)
    start = time.monotonic()
    rng = random.Random(ns.seed)
    mutator = Mutator(rng)
    counts: dict[str, int] = {}

    def alarm(*_):
        raise _Timeout()

    signal.signal(signal.SIGALRM, alarm)
    findings = 0
    for i in range(ns.inputs):
        text, _ = mutator.mutate(rng.choice(texts), rng.randint(1, 3))
        name = f"mutant{i}.mlir"
        signal.alarm(60)
        kind = "ok"
        try:
            compile_program(text.encode(), name, ptxas=False)
        except (LocatedError, SourceError, CompileError, ParseError, DiagnosticException, VerifyException) as exc:
            message = "\n".join(exc.lines) if isinstance(exc, CompileError) else str(exc)
            kind = "located" if f"{name}:" in message or message.startswith(name) else "finding:unlocated"
        except _Timeout:
            kind = "finding:timeout"
        except Exception:  # noqa: BLE001 - a traceback is what we look for
            kind = "finding:traceback"
            message = traceback.format_exc()
        finally:
            signal.alarm(0)
        counts[kind] = counts.get(kind, 0) + 1
        if (i + 1) % 100 == 0:
            print(f"fuzz-cutile: {i + 1} inputs in {time.monotonic() - start:.0f} s, outcomes {counts}", flush=True)
        if kind.startswith("finding"):
            findings += 1
            ns.out.mkdir(parents=True, exist_ok=True)
            (ns.out / name).write_text(text)
            (ns.out / f"{name}.txt").write_text(kind + "\n" + (message if kind != "finding:timeout" else ""))
            print(f"{name}: {kind}", flush=True)
    print(f"fuzz-cutile: {ns.inputs} inputs, outcomes {counts}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
