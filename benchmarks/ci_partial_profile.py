"""Where the test suite's CPU goes, from one or more pytest runs that were stopped early (Ctrl-C):
per test file, per kind of work, and, per file, how much of it is the compiler.

A whole-suite profile takes 20 minutes of two idle cores; on a shared machine it runs for hours,
and an interrupted run still prints its tables for the tests it finished.  Run the suite with
the conftest's measuring options, stop it when it has run long enough, then run the rest of the
files (``--ignore`` the finished ones) the same way; this script adds the runs up::

    python -m pytest -q -n 2 tests --cpu-durations=0 --cpu-categories=DIR1 > run1.txt  # Ctrl-C
    python -m pytest -q -n 2 tests --ignore=... --cpu-durations=0 --cpu-categories=DIR2 > run2.txt
    python benchmarks/ci_partial_profile.py run1.txt:DIR1 run2.txt:DIR2 [--json OUT]

Each argument is the run's output and its ``--cpu-categories`` directory.  Read from them: the
``CPU seconds per test file`` table (tests/conftest.py ``--cpu-durations``), the ``CPU seconds by
kind of work`` rows (tests/cpu_categories.py) and the compile log (``DIR/*.inputs.jsonl``: each
top-level ``compile_program`` / ``lower_program`` / ``compile_lowered`` call's CPU and test).  A
file's "compiles" column is the CPU of the compiler calls its tests made (the rest is the test
itself: emulators, interpreters, references, subprocesses such as lit's tools).  Files cut short
by the interrupt appear with what they finished."""

from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import re

FILE_ROW = re.compile(r"^\s*([\d.]+) cpu\s+[\d.]+ wall\s+(\S+)$", re.M)
KIND_ROW = re.compile(r"^\s*([\d.]+) s \(.*?\)\s+\d+ calls\s+([^:\n]+)", re.M)
PASSED = re.compile(r"(\d+) passed")


def read_run(output: str, directory: str) -> tuple[dict, dict, dict, int]:
    """(CPU per file, CPU per kind of work, compiler CPU per file, tests passed) of one run."""
    if "CPU seconds per test file" not in output:
        raise SystemExit("no 'CPU seconds per test file' table: run pytest with --cpu-durations=0")
    block = output.split("CPU seconds per test file", 1)[1].split("CPU seconds per xdist worker", 1)[0]
    files = {m.group(2): float(m.group(1)) for m in FILE_ROW.finditer(block)}
    kinds = {}
    if "CPU seconds by kind of work" in output:
        for m in KIND_ROW.finditer(output.split("CPU seconds by kind of work", 1)[1]):
            kinds[m.group(2).strip()] = float(m.group(1))
    compiles: dict[str, float] = collections.defaultdict(float)
    for path in glob.glob(os.path.join(directory, "*.inputs.jsonl")):
        with open(path) as f:
            for line in f:
                row = json.loads(line)
                compiles[row["test"].split("::", 1)[0]] += row["cpu"]
    passed = PASSED.search(output)
    return files, kinds, dict(compiles), int(passed.group(1)) if passed else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", metavar="OUTPUT:DIR")
    ap.add_argument("--json", help="write the merged tables here")
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args()
    files: dict[str, float] = collections.defaultdict(float)
    kinds: dict[str, float] = collections.defaultdict(float)
    compiles: dict[str, float] = collections.defaultdict(float)
    passed = 0
    for run in args.runs:
        output, _, directory = run.partition(":")
        with open(output) as f:
            f_cpu, k_cpu, c_cpu, n = read_run(f.read(), directory)
        for table, part in ((files, f_cpu), (kinds, k_cpu), (compiles, c_cpu)):
            for name, s in part.items():
                table[name] += s
        passed += n
    total = sum(files.values())
    print(f"{total:.1f} CPU s in {len(files)} test files, {passed} tests passed")
    print("by kind of work:")
    for name, s in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"  {s:8.1f}  {name}")
    print("per file: CPU, of which compiles, the rest")
    ranked = sorted(files.items(), key=lambda kv: -kv[1])
    for name, s in ranked[:args.top]:
        c = compiles.get(name, 0.0)
        print(f"  {s:8.1f} {c:8.1f} {s - c:8.1f}  {name}")
    compiled = sum(compiles.get(name, 0.0) for name in files)
    print(f"compiles: {compiled:.1f} of {total:.1f} CPU s ({100 * compiled / max(total, 1e-9):.0f}%)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"total_cpu_s": round(total, 1), "tests_passed": passed,
                       "kinds_cpu_s": {k: round(v, 1) for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])},
                       "files_cpu_s": {k: [round(v, 2), round(compiles.get(k, 0.0), 2)] for k, v in ranked}},
                      f, indent=1)


if __name__ == "__main__":
    main()
