"""The CI job's wall and CPU seconds on a clean clone, with the suite's CPU per test file and per
xdist worker: the record ``benchmarks/results/test_suite_*.json``.

Usage::

    python benchmarks/ci_suite_record.py --repo . --clone /tmp/ci-clone --out benchmarks/results/test_suite_DATE.json

Clones ``--repo`` (its checked-out commit: ``git clone``, so only committed work counts) into
``--clone`` (a folder that must not exist; default a temporary one, removed afterwards) and runs ``bash .ci/run`` there (fresh venv, ``pip install '.[test]'``,
then the README's ``python -m pytest -q tests``) with ``PYTEST_ADDOPTS=--cpu-durations=0``, which
only adds tests/conftest.py's CPU tables to the end of the output.  Recorded: the wall seconds of
the whole job and of the suite (pytest's own ``in N s``), the CPU seconds (user + system of the
job and every process it waited for), the load averages before and after (the machine may be
shared: CPU seconds are then the comparable number, wall seconds are not), the suite's summary
line, the CPU seconds per test file and the slowest tests, and each xdist worker's share (CPU of
the tests it ran; the tool fork server's children are counted in the job's total only).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LINE = re.compile(r"^\s*([\d.]+) cpu\s+([\d.]+) wall\s+(\S.*)$")


def tables(output: str) -> dict[str, dict[str, tuple[float, float]]]:
    """The ``--cpu-durations`` tables of ``output``: section title -> {name: (cpu, wall)}."""
    out: dict[str, dict[str, tuple[float, float]]] = {}
    section = None
    for line in output.splitlines():
        if line.startswith("=") and "CPU seconds per" in line:
            section = line.strip("= ").split(";")[0]
            out[section] = {}
            continue
        if line.startswith("="):
            section = None
            continue
        m = LINE.match(line)
        if section is not None and m:
            out[section][m.group(3)] = (float(m.group(1)), float(m.group(2)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", default=".", help="the git checkout to clone (default: .)")
    parser.add_argument("--out", type=Path, required=True, help="JSON record to write")
    parser.add_argument("--clone", type=Path, default=None, help="clone here (must not exist; kept afterwards)")
    parser.add_argument("--log", type=Path, default=None, help="also keep the job's whole output here")
    parser.add_argument("--top", type=int, default=30, help="slowest tests kept in the record (default 30)")
    args = parser.parse_args(argv)
    repo = Path(args.repo).resolve()
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="tileorch-ci-") as tmp:
        clone = args.clone.resolve() if args.clone is not None else Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
        env = {**os.environ, "PYTEST_ADDOPTS": "--cpu-durations=0"}
        load_before = os.getloadavg()
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(["bash", ".ci/run"], cwd=clone, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        load_after = os.getloadavg()
    output = proc.stdout + proc.stderr
    if args.log is not None:
        args.log.write_text(output)
    summary = next((l.strip() for l in reversed(output.splitlines()) if re.search(r"\d+ passed", l)), "")
    suite_wall = re.search(r" in ([\d.]+)s", summary)
    t = tables(output)
    per_test = next((v for k, v in t.items() if k.startswith("CPU seconds per test (")), {})
    per_file = t.get("CPU seconds per test file", {})
    per_worker = t.get("CPU seconds per xdist worker", {})
    record = {
        "commit": commit,
        "command": "git clone REPO CLONE && cd CLONE && PYTEST_ADDOPTS=--cpu-durations=0 bash .ci/run",
        "exit_status": proc.returncode,
        "summary": summary,
        "job_wall_s": round(wall, 1),
        "suite_wall_s": float(suite_wall.group(1)) if suite_wall else None,
        "job_cpu_s": {"user": round(r1.ru_utime - r0.ru_utime, 1), "sys": round(r1.ru_stime - r0.ru_stime, 1),
                      "total": round(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime, 1)},
        "cpus": os.cpu_count(),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in load_after],
        "tests_cpu_s": round(sum(c for c, _ in per_test.values()), 1),
        "per_worker_cpu_wall_s": {k: list(v) for k, v in per_worker.items()},
        "per_file_cpu_s": {k: v[0] for k, v in per_file.items()},
        "slowest_tests_cpu_s": {k: v[0] for k, v in sorted(per_test.items(), key=lambda kv: -kv[1][0])[:args.top]},
    }
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps({k: v for k, v in record.items() if not k.startswith(("per_file", "slowest"))}, indent=1))
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
