"""One cuTile GEMM program, compiled by tileiras (launched through cuTile) and by tileorch, and
cuBLAS, in one process over the shape suite, timed identically.

    python benchmarks/cutile_vs_tileiras.py build          # CPU: cuTile -> bytecode -> tileorch cubins
    python benchmarks/cutile_vs_tileiras.py run [--out D]  # GPU: correctness, ratios, JSON, plot

The program is the textbook cuTile GEMM (``matmul`` in ``benchmarks/cutile_kernel_zoo.py``: 128x128x64 tiles, fp16 in, fp32
accumulate, fp16 out, A [M,K] and B [K,N] row-major).  ``build`` exports its Tile IR bytecode
with ``cuda.tile.compilation.export_kernel`` and compiles it with
:func:`tileorch.driver.compile_program` once per tile scheduler (persistent, Stream-K,
data-parallel), recording tileorch's compile time; the cubins go to the GEMM cache
(``TILEORCH_CACHE_DIR``, default ``build/gemm_cache``) and the configurations to
``build/cutile_bench/manifest.json``.  ``run`` (no xDSL needed) launches, per shape: cuTile
(``ct.launch``, its own tileiras compile), tileorch (the cached cubin of the scheduler chosen
for the shape by :func:`tileorch.launchers.gemm.choose_schedule`), and ``torch.matmul``.
Timing is :func:`tileorch.testing.timing.bench_ms` for all three (CUDA events around launches queued
behind a GPU sleep, median).  Outputs are checked against torch fp32 first (NaN-prefilled).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("TILEORCH_CACHE_DIR", str(ROOT / "build" / "gemm_cache"))

BUILD = ROOT / "build" / "cutile_bench"
SCHEDULES = ("persistent", "streamk", "dp")
TM, TN, TK = 128, 128, 64
SMS = 132



def _kernel():
    from cutile_kernel_zoo import matmul

    return matmul


def suite_shapes() -> list[tuple[int, int, int]]:
    data = json.loads((ROOT / "benchmarks" / "gemm_shape_suite.json").read_text())
    shapes = data["shapes"] if isinstance(data, dict) else data
    return [tuple(s[k] for k in ("m", "n", "k")) if isinstance(s, dict) else tuple(s) for s in shapes]


def build() -> int:
    import cuda.tile as ct
    from cuda.tile.compilation import ArrayConstraint, CallingConvention, KernelSignature, export_kernel

    from tileorch.driver import compile_program
    from tileorch.launchers.gemm_host import compile_gemm

    BUILD.mkdir(parents=True, exist_ok=True)
    arr = ArrayConstraint(ct.float16, 2, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=(),
                          may_alias_internally=False, stride_constant=(None, 1), stride_divisible_by=(1, 1),
                          shape_divisible_by=(1, 1), base_addr_divisible_by=16)
    path = BUILD / "matmul.tileirbc"
    export_kernel(_kernel(), [KernelSignature([arr, arr, arr, TM, TN, TK], CallingConvention.cutile_python_v1())],
                  str(path), gpu_code=None, output_format="tileir_bytecode", bytecode_version="13.4")
    data = path.read_bytes()
    manifest = {"tile": [TM, TN, TK], "bytecode_bytes": len(data), "schedules": {}}
    for schedule in SCHEDULES:
        start = time.perf_counter()
        prog = compile_program(data, str(path), schedule=schedule)
        seconds = time.perf_counter() - start
        if prog.kind != "gemm":
            print(f"{schedule}: the program did not lower to the GEMM tier ({prog.kind})", file=sys.stderr)
            return 1
        compile_gemm(prog.gemm_config)  # the same kernel, into the cubin cache the runner reads
        manifest["schedules"][schedule] = {"config": prog.gemm_config.__dict__, "compile_s": round(seconds, 2),
                                           "kernel": prog.kernel}
        print(f"{schedule:10s} {prog.gemm_config.name}  tileorch compile {seconds:.1f} s")
    # tileorch's own tile choice for the recognised GEMM (tileorch.gemm's heuristic, per shape)
    from tileorch.launchers.gemm import default_config

    manifest["auto"] = {}
    for (m, n, k) in suite_shapes():
        cfg = default_config(m, n, k, "f16", "f16", "n", "auto", SMS)
        compile_gemm(cfg)
        manifest["auto"][f"{m}x{n}x{k}"] = cfg.__dict__
    print(f"auto tiles: {len({json.dumps(v, sort_keys=True) for v in manifest['auto'].values()})} configurations")
    (BUILD / "manifest.json").write_text(json.dumps(manifest, indent=1))
    print(f"wrote {BUILD / 'manifest.json'}")
    return 0


def _geo(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def run(out_dir: Path, iters: int, limit: int | None) -> int:
    import torch

    import cuda.tile as ct
    import tileorch.launchers.gemm as api
    from tileorch.testing.timing import bench_ms
    from tileorch.kernels.gemm.config import GemmConfig

    manifest = json.loads((BUILD / "manifest.json").read_text())
    configs = {s: GemmConfig(**v["config"]) for s, v in manifest["schedules"].items()}
    kernel = _kernel()
    stream = torch.cuda.current_stream()
    shapes = suite_shapes()[:limit] if limit else suite_shapes()
    rows = []
    first_launch_s = None
    for i, (m, n, k) in enumerate(shapes):
        g = torch.Generator(device="cuda").manual_seed(i)
        a = torch.randn((m, k), device="cuda", dtype=torch.float16, generator=g)
        b = torch.randn((k, n), device="cuda", dtype=torch.float16, generator=g)
        ref = a.float() @ b.float()
        grid = (math.ceil(m / TM), math.ceil(n / TN), 1)

        def tileiras(c):
            ct.launch(stream, grid, kernel, (a, b, c, TM, TN, TK))

        schedule = api.choose_schedule(m, n, k, configs["persistent"], SMS)
        cfg = configs[schedule]

        def tileorch(c):
            api.gemm(a, b, c, config=cfg)

        auto_cfg = GemmConfig(**manifest["auto"][f"{m}x{n}x{k}"])

        def tileorch_auto(c):
            api.gemm(a, b, c, config=auto_cfg)

        row = {"m": m, "n": n, "k": k, "tileorch_schedule": schedule, "tileorch_auto_config": auto_cfg.name}
        for name, fn in (("tileiras", tileiras), ("tileorch", tileorch), ("tileorch_auto", tileorch_auto)):
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
            start = time.perf_counter()
            try:
                fn(c)
                torch.cuda.synchronize()
            except Exception as exc:  # noqa: BLE001 - recorded, the run goes on
                row[name] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
                continue
            if name == "tileiras" and first_launch_s is None:
                first_launch_s = time.perf_counter() - start
            finite = bool(torch.isfinite(c).all())
            err = float((c.float() - ref).norm() / ref.norm()) if finite else float("inf")
            row[name] = {"rel_err": err, "ok": finite and err < 1e-2}
            row[name]["ms"] = bench_ms(lambda: fn(c), iters)
        row["cublas_ms"] = bench_ms(lambda: torch.matmul(a, b), iters)
        flops = 2.0 * m * n * k
        for name in ("tileiras", "tileorch", "tileorch_auto"):
            if "ms" in row.get(name, {}):
                row[name]["tflops"] = flops / row[name]["ms"] / 1e9
                row[name]["vs_cublas"] = row["cublas_ms"] / row[name]["ms"]
        if "ms" in row.get("tileiras", {}) and "ms" in row.get("tileorch", {}):
            row["tileorch_vs_tileiras"] = row["tileiras"]["ms"] / row["tileorch"]["ms"]
            if "ms" in row.get("tileorch_auto", {}):
                row["tileorch_auto_vs_tileiras"] = row["tileiras"]["ms"] / row["tileorch_auto"]["ms"]
        rows.append(row)
        fmt = lambda name: (f"{row[name]['vs_cublas']:.3f}x cuBLAS (err {row[name]['rel_err']:.1e})"  # noqa: E731
                            if "vs_cublas" in row.get(name, {}) else str(row.get(name, {}).get("error", "-"))[:80])
        print(f"{m:6d} {n:6d} {k:6d}  tileiras {fmt('tileiras')}  tileorch[{schedule}] {fmt('tileorch')}  "
              f"tileorch[auto: {auto_cfg.tile_n} {auto_cfg.schedule}] {fmt('tileorch_auto')}  "
              f"tileorch/tileiras {row.get('tileorch_vs_tileiras', float('nan')):.3f}", flush=True)
    wave = set(suite_shapes()[:16])
    summary = {
        "tileorch_vs_tileiras_geomean_all": _geo([r.get("tileorch_vs_tileiras") for r in rows]),
        "tileorch_vs_tileiras_geomean_wave": _geo([r.get("tileorch_vs_tileiras") for r in rows
                                                   if (r["m"], r["n"], r["k"]) in wave]),
        "tileorch_vs_cublas_geomean_all": _geo([r.get("tileorch", {}).get("vs_cublas") for r in rows]),
        "tileorch_auto_vs_cublas_geomean_all": _geo([r.get("tileorch_auto", {}).get("vs_cublas") for r in rows]),
        "tileorch_auto_vs_cublas_geomean_wave": _geo([r.get("tileorch_auto", {}).get("vs_cublas") for r in rows
                                                      if (r["m"], r["n"], r["k"]) in wave]),
        "tileorch_vs_cublas_geomean_wave": _geo([r.get("tileorch", {}).get("vs_cublas") for r in rows
                                                 if (r["m"], r["n"], r["k"]) in wave]),
        "tileiras_vs_cublas_geomean_wave": _geo([r.get("tileiras", {}).get("vs_cublas") for r in rows
                                                 if (r["m"], r["n"], r["k"]) in wave]),
        "tileorch_auto_vs_tileiras_geomean_all": _geo([r.get("tileorch_auto_vs_tileiras") for r in rows]),
        "tileorch_auto_vs_tileiras_geomean_wave": _geo([r.get("tileorch_auto_vs_tileiras") for r in rows
                                                        if (r["m"], r["n"], r["k"]) in wave]),
        "tileiras_vs_cublas_geomean_all": _geo([r.get("tileiras", {}).get("vs_cublas") for r in rows]),
        "shapes_tileorch_ge_tileiras": sum(1 for r in rows if r.get("tileorch_vs_tileiras", 0) >= 1.0),
        "shapes": len(rows),
        "all_correct": all(r.get(x, {}).get("ok") for r in rows for x in ("tileiras", "tileorch", "tileorch_auto")),
        "tileorch_compile_s": {s: v["compile_s"] for s, v in manifest["schedules"].items()},
        "cutile_first_launch_s (tileiras compile + launch)": first_launch_s,
    }
    record = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "iters": iters,
              "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rows": rows, "summary": summary}
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "cutile_vs_tileiras.json").write_text(json.dumps(record, indent=1))
    print(json.dumps(summary, indent=1))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        labels = [f"{r['m']}x{r['n']}x{r['k']}" for r in rows]
        fig, ax = plt.subplots(figsize=(max(8, len(rows) * 0.6), 4))
        xs = range(len(rows))
        for off, name in ((-0.27, "tileiras"), (0.0, "tileorch"), (0.27, "tileorch_auto")):
            ax.bar([x + off for x in xs], [r.get(name, {}).get("vs_cublas", 0) for r in rows], 0.27, label=name)
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_xticks(list(xs), labels, rotation=70, fontsize=7)
        ax.set_ylabel("speed vs cuBLAS")
        ax.set_title("one cuTile GEMM program: tileiras vs tileorch")
        ax.legend()
        fig.tight_layout()
        fig.savefig(out_dir / "cutile_vs_tileiras.png", dpi=120)
    except ImportError:
        pass
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("build")
    r = sub.add_parser("run")
    r.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    r.add_argument("--iters", type=int, default=50)
    r.add_argument("--limit", type=int, default=None)
    ns = ap.parse_args(argv)
    return build() if ns.cmd == "build" else run(ns.out, ns.iters, ns.limit)


if __name__ == "__main__":
    sys.exit(main())
