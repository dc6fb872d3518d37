"""CPU of a cuTile program's first ``tileorch.cutile.launch`` in a fresh process, less the GPU (issue 22).

Usage::

    python benchmarks/cutile_cold_launch.py [--tree SRC ...] [--programs softmax_f16 ...] [--repeat 9]
        [--tileiras PATH] [--out J.json] [--profile DIR] [--importtime DIR]

What ``tileorch.cutile.launch`` runs before its module load, in a fresh process with ``TILEORCH_CACHE=0``:
``import cuda.tile`` and the launcher (``import``), the kernels' module (``define``), the arguments described
(fake device arrays), then ``rc.compiled`` (cuTile's bytecode export and tileorch's compile to a cubin, with
``ptxas``: ``compile``, the export split out as ``export``).  Per phase: CPU seconds (``time.process_time`` of
the process, plus ``RUSAGE_CHILDREN`` for the code generation child and ptxas), and the whole process's CPU
(interpreter start-up included) as the parent sees it.  The trees (``--tree``, default this checkout's ``src``)
are alternated per round, so a load change hits each alike; the min and median of the rounds are printed.

``--tileiras PATH`` also runs ``tileiras --gpu-name=sm_90`` on the program's bytecode in the same rounds (the
bytecode exported once here; ``PATH/../lib`` on ``LD_LIBRARY_PATH``): cuTile's own compile of the same program.
Printed then: ``compile`` over tileiras (the compilers alone), and import + export + compile over import + export +
tileiras (what ``cuda.tile.launch``'s first launch runs on the CPU, less the module load: an estimate; the process's
start-up and exit, the same for both, left out: the exit's teardown of the modules and the IR is ~0.25 s of ``cpu``).
``--without ml_dtypes`` runs the children as if a module were not installed (cuTile's extension imports
``ml_dtypes`` at its first export when it is: 0.55 s CPU with numpy 2.4.6 on the 2-core machine; tileorch's
``test`` extra installs it, cuTile does not need it).  ``--profile DIR`` writes one cProfile of the child per tree and program (``python -m pstats``); ``--importtime
DIR`` the ``-X importtime`` log of one run.

Write ``.pyc`` files (``PYTHONDONTWRITEBYTECODE`` unset) or every run pays for compiling the sources.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

KERNELS = '''
import cuda.tile as ct


@ct.kernel
def softmax_rows(x, y, tn: ct.Constant[int]):
    row = ct.load(x, index=(ct.bid(0), 0), shape=(1, tn)).astype(ct.float32)
    e = ct.exp(row - ct.max(row, axis=1, keepdims=True))
    ct.store(y, index=(ct.bid(0), 0), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(y.dtype))


@ct.kernel
def layernorm_rows(x, w, b, y, tn: ct.Constant[int]):
    row = ct.load(x, index=(ct.bid(0), 0), shape=(1, tn)).astype(ct.float32)
    mean = ct.sum(row, axis=1, keepdims=True) / tn
    d = row - mean
    rstd = ct.rsqrt(ct.sum(d * d, axis=1, keepdims=True) / tn + 1e-5)
    gw = ct.load(w, index=(0,), shape=(tn,)).astype(ct.float32)
    gb = ct.load(b, index=(0,), shape=(tn,)).astype(ct.float32)
    ct.store(y, index=(ct.bid(0), 0), tile=(d * rstd * gw[None, :] + gb[None, :]).astype(y.dtype))


@ct.kernel
def row_sum(x, y, tm: ct.Constant[int], tn: ct.Constant[int]):
    acc = ct.zeros((tm,), dtype=ct.float32)
    for j in range(ct.num_tiles(x, axis=1, shape=(tm, tn))):
        acc = acc + ct.sum(ct.load(x, index=(ct.bid(0), j), shape=(tm, tn)).astype(ct.float32), axis=1)
    ct.store(y, index=(ct.bid(0),), tile=acc)


ROWS, COLS = 4096, 1024
PROGRAMS = {
    "softmax_f16": (softmax_rows, [((ROWS, COLS), "float16"), ((ROWS, COLS), "float16"), COLS]),
    "layernorm_bf16": (layernorm_rows, [((ROWS, COLS), "bfloat16"), ((COLS,), "bfloat16"), ((COLS,), "bfloat16"),
                                        ((ROWS, COLS), "bfloat16"), COLS]),
    "row_sum_f32": (row_sum, [((ROWS, 8 * COLS), "float32"), ((ROWS,), "float32"), 16, 256]),
}
'''
"""The kernels (the SIMT set of ``benchmarks/compile_time.py``), written to a module file: cuTile reads a
kernel's source from its file."""

CHILD = r'''
import sys, time, resource
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + r.ru_utime + r.ru_stime
marks = [("start", cpu())]
name, kdir, out = sys.argv[1], sys.argv[2], sys.argv[3]
for blocked in sys.argv[4:]:  # --without: an installation without these modules (an import of one fails)
    sys.modules[blocked] = None
import cuda.tile
from tileorch.launchers import cutile as rc
marks.append(("import", cpu()))
sys.path.insert(0, kdir)
import cold_kernels
marks.append(("define", cpu()))
from tileorch.testing.export import described_arguments
kernel, spec = cold_kernels.PROGRAMS[name]
arguments = described_arguments(kernel, spec)
marks.append(("describe", cpu()))
exported = []
real_export = rc.export_bytecode
def export(*a, **k):
    c = cpu()
    data = real_export(*a, **k)
    exported.append(cpu() - c)
    return data
rc.export_bytecode = export
entry = rc.compiled(kernel, arguments, "sm_90a", "auto")
marks.append(("compile", cpu()))
assert entry.program.cubin, "no cubin"
open(out, "wb").write(entry.program.ptx.encode() if isinstance(entry.program.ptx, str) else entry.program.ptx)
phases = {b[0]: round(b[1] - a[1], 4) for a, b in zip(marks, marks[1:])}
phases["export"] = round(exported[0], 4) if exported else 0.0
phases["compile"] = round(phases["compile"] - phases["export"], 4)
phases["in_process"] = round(marks[-1][1], 4)
print("PHASES", phases)
print("TIMINGS", {k: round(v, 4) for k, v in (getattr(entry.program, "timings", None) or {}).items()})
print("MODULES", len(sys.modules))
'''


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


WITHOUT: list[str] = []
"""Modules the children act as if not installed (``--without``)."""


def one_run(tree: str, name: str, kdir: Path, out: Path, profile: Path | None = None,
            importtime: Path | None = None) -> dict:
    """One fresh process's first-launch CPU for ``name`` with ``tree`` on ``PYTHONPATH``."""
    env = {**os.environ, "TILEORCH_CACHE": "0", "PYTHONPATH": tree}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [sys.executable]
    if importtime is not None:
        cmd += ["-X", "importtime"]
    if profile is not None:
        cmd += ["-m", "cProfile", "-o", str(profile)]
    cmd += ["-c", CHILD, name, str(kdir), str(out), *WITHOUT] if profile is None else ["/dev/stdin"]
    c0, t0 = _children_cpu(), time.perf_counter()
    if profile is None:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    else:  # cProfile runs a script file: the child's text through a temporary file
        script = kdir / "cold_child.py"
        script.write_text(CHILD)
        cmd[-1] = str(script)
        proc = subprocess.run(cmd + [name, str(kdir), str(out), *WITHOUT], capture_output=True, text=True, env=env)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - c0
    if proc.returncode != 0:
        raise SystemExit(f"{name} with {tree} failed:\n{proc.stderr[-3000:]}")
    if importtime is not None:
        importtime.write_text(proc.stderr)
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("PHASES "))
    phases = eval(line[len("PHASES "):])  # noqa: S307 - our own child's dict literal
    return {"wall": round(wall, 4), "cpu": round(cpu, 4), **phases}


def _startup() -> float:
    """CPU seconds of ``python -c pass`` (the interpreter's start-up)."""
    c0 = _children_cpu()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return _children_cpu() - c0


def tileiras_run(tileiras: str, bytecode: Path, out: Path) -> dict:
    lib = str(Path(tileiras).resolve().parent.parent / "lib")
    env = {**os.environ, "LD_LIBRARY_PATH": lib + ":" + os.environ.get("LD_LIBRARY_PATH", ""),
           "PATH": str(Path(tileiras).parent) + ":" + os.environ.get("PATH", "")}
    c0, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run([tileiras, "--gpu-name=sm_90", "-o", str(out), str(bytecode)], capture_output=True,
                          text=True, env=env)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - c0
    if proc.returncode != 0:
        raise SystemExit(f"tileiras failed on {bytecode}:\n{proc.stderr[-2000:]}")
    return {"wall": round(wall, 4), "cpu": round(cpu, 4)}


def export_once(name: str, kdir: Path, path: Path) -> None:
    """The program's bytecode (for tileiras), exported by this process."""
    sys.path.insert(0, str(kdir))
    import cold_kernels

    from tileorch.testing.export import cutile_bytecode

    kernel, spec = cold_kernels.PROGRAMS[name]
    path.write_bytes(cutile_bytecode(kernel, spec))


def summary(runs: list[dict]) -> dict:
    keys = [k for k in runs[0] if isinstance(runs[0][k], float)]
    out = {}
    for k in keys:
        vals = [r[k] for r in runs]
        out[k] = {"min": round(min(vals), 4), "median": round(statistics.median(vals), 4)}
    out["cpu_runs"] = [r["cpu"] for r in runs]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", default=None, help="a src directory (repeatable; default ours)")
    ap.add_argument("--programs", nargs="*", default=["softmax_f16", "layernorm_bf16", "row_sum_f32"])
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--tileiras", default=None)
    ap.add_argument("--out", default=None)
    ap.add_argument("--profile", default=None, help="directory for one cProfile per tree and program")
    ap.add_argument("--importtime", default=None, help="directory for one -X importtime log per tree and program")
    ap.add_argument("--without", nargs="*", default=[], help="modules the children act as if not installed "
                    "(e.g. ml_dtypes: cuTile imports it at its first export when it is)")
    args = ap.parse_args(argv)
    WITHOUT[:] = args.without
    trees = args.tree or [str(HERE.parent / "src")]
    work = Path(tempfile.mkdtemp(prefix="tileorch-cold-launch-"))
    (work / "cold_kernels.py").write_text(KERNELS)
    load0 = os.getloadavg()
    rows: dict = {p: {t: [] for t in trees} for p in args.programs}
    tis: dict = {p: [] for p in args.programs}
    if args.tileiras:
        for p in args.programs:
            export_once(p, work, work / f"{p}.tileirbc")
    for p in args.programs:  # one warm-up run per tree (.pyc, the dataclass-code table)
        for t in trees:
            one_run(t, p, work, work / "warm.ptx")
    if args.profile or args.importtime:
        for i, t in enumerate(trees):
            for p in args.programs:
                if args.profile:
                    Path(args.profile).mkdir(parents=True, exist_ok=True)
                    one_run(t, p, work, work / "p.ptx", profile=Path(args.profile) / f"{p}.tree{i}.prof")
                if args.importtime:
                    Path(args.importtime).mkdir(parents=True, exist_ok=True)
                    one_run(t, p, work, work / "p.ptx", importtime=Path(args.importtime) / f"{p}.tree{i}.txt")
        if not args.repeat:
            return 0
    for r in range(args.repeat):
        for p in args.programs:
            ptx = []
            for i, t in enumerate(trees if r % 2 == 0 else trees[::-1]):
                run = one_run(t, p, work, work / f"{p}.{i}.ptx")
                rows[p][t].append(run)
                ptx.append((work / f"{p}.{i}.ptx").read_bytes())
            if len(set(ptx)) != 1:
                raise SystemExit(f"{p}: the trees' PTX differ (round {r})")
            if args.tileiras:
                tis[p].append(tileiras_run(args.tileiras, work / f"{p}.tileirbc", work / f"{p}.cubin"))
    startup = min(_startup() for _ in range(5))
    record = {"command": " ".join([sys.executable, *sys.argv]), "load_start": load0, "load_end": os.getloadavg(),
              "without": args.without, "trees": trees, "repeat": args.repeat, "python_startup_cpu": round(startup, 4), "results": {}}
    for p in args.programs:
        res = record["results"][p] = {}
        for i, t in enumerate(trees):
            s = res[f"tree{i}"] = summary(rows[p][t])
            print(f"{p:16} tree{i}: cpu min {s['cpu']['min']:.3f} median {s['cpu']['median']:.3f}  "
                  + " ".join(f"{k} {s[k]['median']:.3f}" for k in ("import", "define", "describe", "export",
                                                                       "compile")))
        if tis[p]:
            s = res["tileiras"] = summary(tis[p])
            print(f"{p:16} tileiras: cpu min {s['cpu']['min']:.3f} median {s['cpu']['median']:.3f}")
            for i in range(len(trees)):
                t = res[f"tree{i}"]
                front = sum(t[k]["median"] for k in ("import", "define", "describe", "export"))
                res[f"tree{i}_compile_over_tileiras_median"] = round(t["compile"]["median"] / s["cpu"]["median"], 3)
                res[f"tree{i}_first_launch_over_cutile_median"] = round(
                    (front + t["compile"]["median"]) / (front + s["cpu"]["median"]), 3)
                print(f"{p:16} tree{i}: compile/tileiras CPU median {res[f'tree{i}_compile_over_tileiras_median']:.2f}; "
                      f"(import + export + compile) / (import + export + tileiras: cuTile's first launch less its load) "
                      f"{res[f'tree{i}_first_launch_over_cutile_median']:.2f}")
    print(f"load {load0} -> {os.getloadavg()}")
    if args.out:
        Path(args.out).write_text(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
