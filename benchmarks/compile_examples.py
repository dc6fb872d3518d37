"""Compile time and PTX size of every example, in process and through the CLI.

Usage: python benchmarks/compile_examples.py [examples/*.mlir]

For each file: in-process time of ``compile_text`` (parse + lowering + LLVM IR + PTX + ptxas,
best of 3) with its stage split, wall time of ``tileorch compile FILE -o OUT`` (one run,
including interpreter start-up), and the PTX line count.  The ratio column compares the CLI
to the in-process compile measured in the same run.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tileorch.driver import compile_text
from tileorch.progress import Progress

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> None:
    files = [Path(a) for a in argv] or sorted((ROOT / "examples").glob("*.mlir"))
    cli = str(Path(sys.executable).with_name("tileorch"))
    print(f"{'example':28s} {'in-process':>10s} {'lower':>7s} {'codegen':>8s} {'ptxas':>7s} "
          f"{'CLI':>7s} {'CLI/in':>7s} {'PTX lines':>9s} arch")
    progress = Progress("compile_examples", total=len(files), unit="examples")
    for path in files:
        text = path.read_text()
        best, result = float("inf"), None
        for _ in range(3):
            start = time.perf_counter()
            result = compile_text(text, str(path))
            best = min(best, time.perf_counter() - start)
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            subprocess.run([cli, "compile", str(path), "-o", f"{tmp}/out.ptx", "--no-cache"], check=True,
                           capture_output=True)
            cli_time = time.perf_counter() - start
        t = result.timings
        print(f"{path.name:28s} {best:9.2f}s {t['lower']:6.2f}s {t['codegen']:7.3f}s "
              f"{t.get('ptxas', 0):6.3f}s {cli_time:6.2f}s {cli_time / best:7.2f} "
              f"{result.ptx.count(chr(10)):9d} {result.arch}")
        progress.step()
    progress.finish()


if __name__ == "__main__":
    main(sys.argv[1:])
