"""Cold compile time of two source trees, alternated (issue 22: before/after a compile-time change).

Usage::

    python benchmarks/compile_cold_ab.py BEFORE_SRC AFTER_SRC FILE.tileirbc ... [--repeat 3] [--out AB.json]

``BEFORE_SRC``/``AFTER_SRC`` are ``src`` directories (``git archive REV src | tar -x -C DIR`` gives
one of another revision).  Each input is compiled by a fresh ``tileorch compile FILE -o OUT.ptx
--timings`` process per tree with ``TILEORCH_CACHE=0`` and ``PYTHONPATH`` set to the tree, the two
trees alternated ``--repeat`` times (on a shared machine, load changes hit both alike).  Per tree:
the minimum wall seconds, the minimum CPU seconds (user + system of the process and its children:
the code generation child, ptxas) and the ``--timings`` phases of the fastest run; every run's
wall and CPU seconds and the median CPU (``wall_runs``, ``cpu_runs``, ``cpu_median``).  The PTX of
the two trees is compared on every round (a difference stops the run).  Write ``.pyc`` files
(``PYTHONDONTWRITEBYTECODE`` unset) or every run pays for compiling the sources.

``--gemm MxNxK`` (repeatable) adds ``tileorch gemm M N K --compile`` (the TMA + WGMMA GEMM the
API would choose, compiled in a fresh process; its own ``seconds:`` line gives the phases, the
cubins of the two trees are compared each round) to the inputs.

``--tileiras PATH`` also runs ``tileiras --gpu-name=sm_90 -o OUT.cubin FILE`` on each
``.tileirbc`` input in the same rounds (after the two trees; ``PATH/../lib`` joins
``LD_LIBRARY_PATH`` and ``PATH``'s directory joins ``PATH``, for its libraries and ptxas), so the
three are compared under the same load: its row is ``tileiras``, and ``after/tileiras`` is
printed for wall and CPU.

``--after-env VAR=VALUE`` (repeatable) runs the ``after`` tree's compiles (the files' and ``--gemm``'s) with
these settings: a switch's A/B (``BEFORE_SRC`` and ``AFTER_SRC`` may then be the same tree; the ``before`` runs
take the caller's environment).  Its PTX differs by design, so the PTX and cubin comparisons are skipped (the
record's ``after_env`` says so).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PHASES = ("import", "parse", "tile-program", "lower", "translate", "codegen", "codegen/verify", "ptxas", "total")


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def cold_run(tree: str, path: Path, out: Path, extra_env: dict[str, str] | None = None
             ) -> tuple[float, float, dict[str, float]]:
    """(wall, CPU, --timings phases) of one cold compile of ``path`` with ``tree`` on PYTHONPATH
    (and ``extra_env`` set)."""
    from tileorch import timing

    env = {**os.environ, "TILEORCH_CACHE": "0", "PYTHONPATH": tree, **(extra_env or {})}
    c0, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "tileorch", "compile", str(path), "-o", str(out), "--timings"],
                          capture_output=True, text=True, env=env)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - c0
    if proc.returncode != 0:
        raise SystemExit(f"{path} with {tree} failed:\n{proc.stderr[-2000:]}")
    return wall, cpu, timing.parse_report(proc.stderr)


def gemm_run(tree: str, shape: str, cache: Path, extra_env: dict[str, str] | None = None
             ) -> tuple[float, float, dict[str, float], bytes]:
    """(wall, CPU, phases, cubin) of one cold ``tileorch gemm M N K --compile`` with ``tree`` (and ``extra_env``
    set)."""
    import re

    env = {**os.environ, "TILEORCH_CACHE_DIR": str(cache), "PYTHONPATH": tree, **(extra_env or {})}
    c0, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "tileorch", "gemm", *shape.split("x"), "--compile"],
                          capture_output=True, text=True, env=env)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - c0
    match = re.search(r"-> (\S+); seconds: (.*)$", proc.stdout, re.M)
    if proc.returncode != 0 or match is None:
        raise SystemExit(f"gemm {shape} with {tree} failed:\n{proc.stdout[-1000:]}{proc.stderr[-2000:]}")
    phases = {k: float(v) for k, v in (item.split() for item in match.group(2).split(", "))}
    return wall, cpu, phases, Path(match.group(1)).read_bytes()


def tileiras_run(tileiras: str, path: Path, out: Path) -> tuple[float, float]:
    """(wall, CPU) of one ``tileiras`` compile of ``path``."""
    bindir = Path(tileiras).resolve().parent
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
           "LD_LIBRARY_PATH": f"{bindir.parent / 'lib'}{os.pathsep}{os.environ.get('LD_LIBRARY_PATH', '')}"}
    c0, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run([tileiras, "--gpu-name=sm_90", "-o", str(out), str(path)], capture_output=True, text=True,
                          env=env)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - c0
    if proc.returncode != 0:
        raise SystemExit(f"tileiras failed on {path}:\n{proc.stderr[-2000:]}")
    return wall, cpu


def _note_run(best: dict, wall: float, cpu: float) -> None:
    """One run's wall and CPU seconds into a tree's record: the minimum CPU (``cpu``), every run
    (``wall_runs``, ``cpu_runs``) and the median CPU (``cpu_median``)."""
    import statistics

    best["cpu"] = min(best["cpu"], cpu)
    best.setdefault("wall_runs", []).append(round(wall, 4))
    best.setdefault("cpu_runs", []).append(round(cpu, 4))
    best["cpu_median"] = statistics.median(best["cpu_runs"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--gemm", action="append", default=[], metavar="MxNxK",
                    help="also `tileorch gemm M N K --compile` (repeatable)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tileiras", default=None, metavar="PATH",
                    help="also time tileiras on each .tileirbc input in the same rounds")
    ap.add_argument("--out", type=Path, default=None, help="JSON record")
    ap.add_argument("--after-env", action="append", default=[], metavar="VAR=VALUE",
                    help="settings of the after tree's compiles (FILES and --gemm; repeatable): a switch's A/B; "
                         "no PTX or cubin comparison")
    args = ap.parse_args(argv)
    after_env = dict(item.split("=", 1) for item in args.after_env)
    trees = {"before": str(Path(args.before).resolve()), "after": str(Path(args.after).resolve())}
    results: dict[str, dict] = {}
    print(f"load average {os.getloadavg()[0]:.1f}; min of {args.repeat} cold runs per tree, trees alternated")
    print(f"{'program':22s} {'tree':8s} {'wall':>6s} {'cpu':>6s} " + " ".join(f"{p.split('/')[-1][:8]:>8s}" for p in PHASES))
    with tempfile.TemporaryDirectory(prefix="tileorch-ab-") as tmp:
        for path in args.files:
            best = {t: {"wall": float("inf"), "cpu": float("inf"), "phases": {}} for t in trees}
            with_tileiras = args.tileiras and path.suffix == ".tileirbc"
            if with_tileiras:
                best["tileiras"] = {"wall": float("inf"), "cpu": float("inf"), "phases": {}}
            for _ in range(args.repeat):
                ptx = {}
                for t, tree in trees.items():
                    out = Path(tmp) / f"{t}.ptx"
                    wall, cpu, phases = cold_run(tree, path, out, after_env if t == "after" else None)
                    _note_run(best[t], wall, cpu)
                    if wall < best[t]["wall"]:
                        best[t].update(wall=wall, phases=phases)
                    ptx[t] = out.read_text()
                if ptx["before"] != ptx["after"] and not after_env:
                    raise SystemExit(f"{path}: the PTX differs between the trees")
                if with_tileiras:
                    wall, cpu = tileiras_run(args.tileiras, path, Path(tmp) / "tileiras.cubin")
                    _note_run(best["tileiras"], wall, cpu)
                    best["tileiras"]["wall"] = min(best["tileiras"]["wall"], wall)
            results[path.stem] = best
            for t, b in best.items():
                print(f"{path.stem:22s} {t:8s} {b['wall']:6.2f} {b['cpu']:6.2f} "
                      + " ".join(f"{b['phases'].get(p, 0.0):8.3f}" for p in PHASES), flush=True)
            if with_tileiras:
                ti, af = best["tileiras"], best["after"]
                print(f"{path.stem:22s} after/tileiras: wall {af['wall'] / ti['wall']:.2f}x, "
                      f"cpu {af['cpu'] / ti['cpu']:.2f}x (medians: cpu {af['cpu_median'] / ti['cpu_median']:.2f}x)",
                      flush=True)
            print(f"{path.stem:22s} median cpu: " + ", ".join(f"{t} {b['cpu_median']:.3f}" for t, b in best.items()),
                  flush=True)
        for shape in args.gemm:
            best = {t: {"wall": float("inf"), "cpu": float("inf"), "phases": {}} for t in trees}
            for _ in range(args.repeat):
                cubins = {}
                for t, tree in trees.items():
                    wall, cpu, phases, cubins[t] = gemm_run(tree, shape, Path(tmp) / f"cache-{t}",
                                                            after_env if t == "after" else None)
                    _note_run(best[t], wall, cpu)
                    if wall < best[t]["wall"]:
                        best[t].update(wall=wall, phases=phases)
                if cubins["before"] != cubins["after"] and not after_env:
                    raise SystemExit(f"gemm {shape}: the cubin differs between the trees")
            results[f"gemm_cli_{shape}"] = best
            for t, b in best.items():
                print(f"{'gemm ' + shape:22s} {t:8s} {b['wall']:6.2f} {b['cpu']:6.2f} "
                      + " ".join(f"{k} {v:.3f}" for k, v in b["phases"].items()), flush=True)
    if args.out:
        args.out.write_text(json.dumps({"load": os.getloadavg(), "repeat": args.repeat, "trees": trees,
                                        "after_env": after_env, "ptx_compared": not after_env,
                                        "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
