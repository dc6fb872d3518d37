"""A cuTile program's first launch in a fresh process on the GPU, tileorch vs cuTile (issue 22: every program of the
set compiles cold in <= 1.0x tileiras's time, the median <= 0.5x).

Usage::

    python benchmarks/cutile_cold_launch_gpu.py [--programs softmax_f16 ...] [--repeat 5] [--out J.json]

Per round and program, two fresh processes, alternated (``tileorch.cutile.launch``, then ``cuda.tile.launch``; the
order flips every round), each with new, empty caches (``TILEORCH_CACHE_DIR``, cuTile's ``CUDA_TILE_CACHE_DIR``; tileorch's holding the
memos an installation's first compile leaves, as a user's cache base does, made by one seeding process, which
also writes the ``.pyc`` files and the dataclass table: ``PYTHONDONTWRITEBYTECODE`` is unset for the children):
``import`` (torch, cuda.tile, tileorch.cutile), ``setup`` (the kernels' module of
``benchmarks/cutile_cold_launch.py``, the tensors on the GPU: CUDA's initialisation), ``first`` (the first launch
until the kernel finished: bytecode export, the compile, the module load, the launch), ``second`` (a second launch,
synchronised).  Wall seconds, and CPU seconds of the process with its children (the code generation child, ptxas,
tileiras) for ``first``.  Outputs are NaN-prefilled and compared with torch (float32 math) after each first launch:
a wrong result stops the row.  Printed per program: min / median of ``first`` for both launchers and tileorch over
cuTile; ``probe`` prints what a first launch pays that is not a compiler's (``import ml_dtypes``: cuTile's extension
imports it when installed).
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

GRIDS = {"softmax_f16": (4096, 1, 1), "layernorm_bf16": (4096, 1, 1), "row_sum_f32": (4096 // 16, 1, 1)}


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + r.ru_utime + r.ru_stime


def child(name: str, launcher: str, kdir: str) -> dict:
    w0, c0 = time.perf_counter(), _cpu()
    import torch

    import cuda.tile as ct
    import tileorch.cutile

    w1 = time.perf_counter()
    sys.path.insert(0, kdir)
    import cold_kernels

    kernel, spec = cold_kernels.PROGRAMS[name]
    dt = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}
    args = []
    for s in spec:
        if isinstance(s, tuple):
            args.append(torch.randn(s[0], dtype=torch.float32, device="cuda").to(dt[s[1]]))
        else:
            args.append(s)
    out = args[3] if name == "layernorm_bf16" else args[1]
    out.fill_(float("nan"))
    torch.cuda.synchronize()
    stream = torch.cuda.current_stream()
    launch = tileorch.cutile.launch if launcher == "tileorch" else ct.launch
    w2, c2 = time.perf_counter(), _cpu()
    launch(stream, GRIDS[name], kernel, tuple(args))
    torch.cuda.synchronize()
    w3, c3 = time.perf_counter(), _cpu()
    ref = reference(name, args)
    err = float((out.float() - ref).abs().max())
    launch(stream, GRIDS[name], kernel, tuple(args))
    torch.cuda.synchronize()
    w4 = time.perf_counter()
    return {"import": w1 - w0, "setup": w2 - w1, "first": w3 - w2, "first_cpu": c3 - c2, "second": w4 - w3,
            "process_cpu_to_first_end": c3 - c0, "max_abs_err": err,
            "xdsl_imported": "xdsl" in sys.modules, "ml_dtypes_imported": "ml_dtypes" in sys.modules}


def reference(name: str, args: list):
    import torch

    if name == "softmax_f16":
        return torch.softmax(args[0].float(), dim=1)
    if name == "layernorm_bf16":
        x = args[0].float()
        return torch.nn.functional.layer_norm(x, (x.shape[1],), args[1].float(), args[2].float(), eps=1e-5)
    return args[0].float().sum(dim=1)


TOLERANCE = {"softmax_f16": 2e-3, "layernorm_bf16": 6e-2, "row_sum_f32": 1e-2}


SEED = Path(tempfile.mkdtemp(prefix="cold-gpu-seed-"))
"""A cache base whose ``fingerprints/`` (the compiler fingerprint's and ptxas's memos, :mod:`tileorch.cache`: made
once per installation, by the first process that ever compiles) every run's new cache base starts with."""


def run(name: str, launcher: str, kdir: Path) -> dict:
    import shutil

    with tempfile.TemporaryDirectory(prefix="cold-gpu-") as tmp:
        if (SEED / "fingerprints").is_dir():
            shutil.copytree(SEED / "fingerprints", f"{tmp}/tileorch/fingerprints")
        env = dict(os.environ, TILEORCH_CACHE_DIR=f"{tmp}/tileorch", CUDA_TILE_CACHE_DIR=f"{tmp}/cutile")
        env.pop("TILEORCH_CACHE", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installation has its .pyc (pip writes them)
        c0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        proc = subprocess.run([sys.executable, __file__, "--child", name, "--launcher", launcher, "--kdir", str(kdir)],
                              env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        return {"error": (proc.stderr or proc.stdout).strip().splitlines()[-3:]}
    rec = json.loads(proc.stdout.strip().splitlines()[-1])
    rec.update(wall=wall, cpu=(c1.ru_utime + c1.ru_stime) - (c0.ru_utime + c0.ru_stime))
    return rec


def probe() -> dict:
    code = ("import time, numpy; t = time.process_time()\n"
            "try:\n import ml_dtypes; v = ml_dtypes.__version__\nexcept ImportError: v = None\n"
            "print(v, numpy.__version__, time.process_time() - t)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    v, npv, cpu = (proc.stdout.split() + ["?", "?", "nan"])[:3]
    return {"ml_dtypes": v, "numpy": npv, "import_ml_dtypes_cpu_s": float(cpu)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", nargs="*", default=list(GRIDS))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default=None)
    ap.add_argument("--child", default="", help=argparse.SUPPRESS)
    ap.add_argument("--launcher", default="tileorch", help=argparse.SUPPRESS)
    ap.add_argument("--kdir", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.launcher, args.kdir)))
        return 0
    sys.path.insert(0, str(HERE))
    from cutile_cold_launch import KERNELS

    kdir = Path(tempfile.mkdtemp(prefix="cold-gpu-kernels-"))
    (kdir / "cold_kernels.py").write_text(KERNELS)
    p = probe()
    env = dict(os.environ, TILEORCH_CACHE_DIR=str(SEED), CUDA_TILE_CACHE_DIR=str(SEED / "cutile"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    seeded = subprocess.run([sys.executable, __file__, "--child", args.programs[0], "--launcher", "tileorch", "--kdir",
                             str(kdir)], env=env, capture_output=True, text=True)  # also: .pyc, the dataclass table
    print(f"[seed] a first process (the installation's first compile: memos, .pyc) rc={seeded.returncode} "
          f"{(seeded.stderr or '').strip().splitlines()[-1:] if seeded.returncode else ''}", flush=True)
    print(f"[probe] ml_dtypes {p['ml_dtypes']} (numpy {p['numpy']}): import {p['import_ml_dtypes_cpu_s']:.3f} s CPU "
          "(cuTile's extension imports it at its first export when installed: both launchers pay it)", flush=True)
    record: dict = {"probe": p, "load_start": os.getloadavg(), "repeat": args.repeat, "programs": {}}
    for name in args.programs:
        rows: dict = {"tileorch": [], "cutile": []}
        for r in range(args.repeat):
            for launcher in ("tileorch", "cutile") if r % 2 == 0 else ("cutile", "tileorch"):
                rec = run(name, launcher, kdir)
                if "error" in rec:
                    print(f"[cold] {name} {launcher}: ERROR {rec['error']}", flush=True)
                    continue
                if not rec["max_abs_err"] <= TOLERANCE[name]:
                    print(f"[cold] {name} {launcher}: WRONG RESULT max |err| {rec['max_abs_err']}", flush=True)
                    continue
                rows[launcher].append(rec)
        summary = {}
        for launcher, recs in rows.items():
            if recs:
                firsts, cpus = [x["first"] for x in recs], [x["first_cpu"] for x in recs]
                summary[launcher] = {"first_min": min(firsts), "first_median": statistics.median(firsts),
                                     "first_cpu_median": statistics.median(cpus),
                                     "wall_median": statistics.median([x["wall"] for x in recs]),
                                     "import_median": statistics.median([x["import"] for x in recs]),
                                     "runs": recs}
        record["programs"][name] = summary
        t, c = summary.get("tileorch"), summary.get("cutile")
        for launcher, s in summary.items():
            print(f"[cold] {name:15s} {launcher:8s} first launch min {s['first_min']:.3f} median {s['first_median']:.3f} s "
                  f"(CPU median {s['first_cpu_median']:.3f}); process wall median {s['wall_median']:.3f}, import "
                  f"{s['import_median']:.3f}", flush=True)
        if t and c:
            print(f"[cold] {name:15s} tileorch/cuTile first launch: median {t['first_median'] / c['first_median']:.2f}, "
                  f"min {t['first_min'] / c['first_min']:.2f}; CPU median "
                  f"{t['first_cpu_median'] / c['first_cpu_median']:.2f}", flush=True)
    record["load_end"] = os.getloadavg()
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
