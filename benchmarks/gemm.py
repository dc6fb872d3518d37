"""tileorch GEMM vs cuBLAS (torch.matmul) in one process, same inputs, timed identically.

    python benchmarks/gemm.py build [--configs default|all]     # CPU: compile into the cache
    python benchmarks/gemm.py check                             # GPU: correctness vs torch fp32
    python benchmarks/gemm.py run [--shapes suite|8192] [--out DIR]   # GPU: ratios, JSON, plot

Timing: for each library, 3 warm-up calls, then a ~20 ms GPU sleep (torch.cuda._sleep) with
>= 50 launches queued behind it, each between its own pair of CUDA events; the median event
time is the kernel time (host launch cost is hidden behind the sleep for both libraries).
Inputs: bf16 randn (not zeros), A [M,K] row-major, B stored [N,K] and passed as its transpose
(K-major, what torch.nn.Linear stores), C bf16; `--row-major-b` adds tileorch.gemm (auto) vs torch.matmul
on B stored [K, N].  The cubins come from the disk cache
(``TILEORCH_CACHE_DIR``, default here ``build/gemm_cache``), built on a CPU machine by ``build``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
os.environ.setdefault("TILEORCH_CACHE_DIR", str(ROOT / "build" / "gemm_cache"))

from tileorch.kernels.gemm.config import GemmConfig  # noqa: E402

SUITE = ROOT / "benchmarks" / "gemm_shape_suite.json"
SMS = 132


def suite_shapes() -> list[tuple[int, int, int]]:
    return [tuple(s) for s in json.loads(SUITE.read_text())["shapes"]]


def variants() -> dict[str, GemmConfig]:
    """Named configurations the benchmark and the tests use (the first is the default)."""
    base = GemmConfig()
    return {
        "persistent": base,
        "streamk": replace(base, schedule="streamk"),
        "dp": replace(base, schedule="dp"),
        "persistent_c1": replace(base, cluster_m=1),
        "persistent_n128": replace(base, tile_n=128, stages=6),
        "persistent_sw2": replace(base, max_swizzle=2),
        "persistent_sw4": replace(base, max_swizzle=4),
        "persistent_sw8": replace(base, max_swizzle=8),
        "persistent_n192": replace(base, tile_n=192, stages=4),
        "persistent_s3": replace(base, stages=3),
        "bn_persistent": replace(base, b_major="n"),
        "bn_streamk": replace(base, b_major="n", schedule="streamk"),
        "f16_persistent": replace(base, dtype="f16", out_dtype="f16"),
        "f16_streamk": replace(base, dtype="f16", out_dtype="f16", schedule="streamk"),
        "c1_streamk": replace(base, cluster_m=1, schedule="streamk"),
        "persistent_direct": replace(base, epilogue="direct"),
        "streamk_direct": replace(base, schedule="streamk", epilogue="direct"),
        "f32out_direct": replace(base, out_dtype="f32", epilogue="direct"),
        "streamk_n128": replace(base, tile_n=128, stages=6, schedule="streamk"),
        "bn_dp": replace(base, b_major="n", schedule="dp"),
        "n128_persistent_f16": replace(base, tile_n=128, stages=6, dtype="f16", out_dtype="f16"),
        "n128_bn": replace(base, tile_n=128, stages=6, b_major="n"),
        "direct_c1": replace(base, epilogue="direct", cluster_m=1),
        "streamk_n192": replace(base, tile_n=192, stages=4, schedule="streamk"),
        "dp_n192": replace(base, tile_n=192, stages=4, schedule="dp"),
    }


def build(names: list[str]) -> None:
    from tileorch.launchers.gemm_host import compile_gemm
    from tileorch.progress import Progress

    progress = Progress("gemm build", total=len(names), unit="variants")
    for name in names:
        cfg = variants()[name]
        t0 = time.perf_counter()
        try:
            r = compile_gemm(cfg)
        except Exception as exc:  # noqa: BLE001 - report and go on with the other variants
            print(f"{name:18s} FAILED: {exc}", flush=True)
            progress.step(ok=False)
            continue
        print(f"{name:18s} {cfg.name}: {len(r.cubin)} B cubin, {time.perf_counter() - t0:.2f} s {r.seconds}", flush=True)
        progress.step()
    progress.finish()


# --------------------------------------------------------------------------- GPU side


def _inputs(m, n, k, dtype, b_major, seed=0):
    import torch

    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn((m, k), device="cuda", dtype=dtype, generator=g)
    if b_major == "k":
        b = torch.randn((n, k), device="cuda", dtype=dtype, generator=g).t()
    else:
        b = torch.randn((k, n), device="cuda", dtype=dtype, generator=g)
    return a, b


def check_one(m, n, k, cfg: GemmConfig, seed=0) -> tuple[float, bool]:
    """Relative Frobenius error of tileorch vs torch fp32 on fresh random inputs; out pre-filled with NaN."""
    import torch

    import tileorch.launchers.gemm as api

    dt = torch.bfloat16 if cfg.dtype == "bf16" else torch.float16
    a, b = _inputs(m, n, k, dt, cfg.b_major, seed)
    out_dt = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[cfg.out_dtype]
    out = torch.full((m, n), float("nan"), device="cuda", dtype=out_dt)
    api.gemm(a, b, out, config=cfg)
    torch.cuda.synchronize()
    ref = a.float() @ b.float()
    finite = bool(torch.isfinite(out).all())
    err = float((out.float() - ref).norm() / ref.norm().clamp_min(1e-30)) if finite else float("inf")
    return err, finite


from tileorch.testing.timing import bench_ms  # noqa: E402 - one timing method for every benchmark


def run(shapes, names, out_dir: Path, iters: int, row_major_b: bool = False) -> dict:
    import torch

    import tileorch.launchers.gemm as api

    from tileorch.progress import Progress

    dev = torch.cuda.get_device_name()
    rows = []
    progress = Progress("gemm benchmark", total=len(shapes), unit="shapes")
    for (m, n, k) in shapes:
        a, b = _inputs(m, n, k, torch.bfloat16, "k")
        c = torch.empty((m, n), device="cuda", dtype=torch.bfloat16)
        flops = 2.0 * m * n * k
        t_cublas = bench_ms(lambda: torch.matmul(a, b), iters)
        row = {"m": m, "n": n, "k": k, "cublas_ms": t_cublas, "cublas_tflops": flops / t_cublas / 1e9}
        for name in names:
            cfg = variants()[name]
            try:
                t = bench_ms(lambda: api.gemm(a, b, c, config=cfg), iters)
                row[name] = {"ms": t, "tflops": flops / t / 1e9, "ratio": t_cublas / t}
            except Exception as exc:  # noqa: BLE001 - recorded, the run goes on
                row[name] = {"error": f"{type(exc).__name__}: {exc}"}
        auto_cfg = api.default_config(m, n, k, "bf16", "bf16", "k", "auto", SMS)
        try:
            t_auto = bench_ms(lambda: api.gemm(a, b, c, schedule="auto"), iters)
            row["auto"] = {"schedule": auto_cfg.schedule, "ms": t_auto, "tflops": flops / t_auto / 1e9,
                           "ratio": t_cublas / t_auto}
        except Exception as exc:  # noqa: BLE001
            row["auto"] = {"schedule": auto_cfg.schedule, "error": f"{type(exc).__name__}: {exc}"}
        if row_major_b:  # B stored [K, N] (N-major): torch.matmul and tileorch.gemm's default on the same tensors
            a_n, b_n = _inputs(m, n, k, torch.bfloat16, "n", seed=1)
            t_cublas_n = bench_ms(lambda: torch.matmul(a_n, b_n), iters)
            try:
                t_n = bench_ms(lambda: api.gemm(a_n, b_n, c, schedule="auto"), iters)
                row["auto_row_major_b"] = {"cublas_ms": t_cublas_n, "ms": t_n, "tflops": flops / t_n / 1e9,
                                           "ratio": t_cublas_n / t_n}
            except Exception as exc:  # noqa: BLE001
                row["auto_row_major_b"] = {"error": f"{type(exc).__name__}: {exc}"}
        best = max((v["ratio"], kname) for kname, v in row.items()
                   if isinstance(v, dict) and "ratio" in v and kname != "auto_row_major_b")
        row["best"] = {"name": best[1], "ratio": best[0]}
        rows.append(row)
        print(f"{m:6d} {n:6d} {k:6d}  cuBLAS {row['cublas_tflops']:6.1f} TF/s  "
              + "  ".join(f"{nm}={row[nm]['ratio']:.3f}" if "ratio" in row[nm] else f"{nm}=ERR"
                     for nm in names + ["auto"] + (["auto_row_major_b"] if row_major_b else []))
              + f"  best={best[1]}:{best[0]:.3f}", flush=True)
        progress.step(ok=all("ratio" in row[nm] for nm in names + ["auto"]))
    progress.finish()
    try:
        mac = api.kernel_for(variants()[(names or ["persistent"])[0]]).max_active_clusters()
    except Exception as exc:  # noqa: BLE001
        mac = f"{type(exc).__name__}: {exc}"
    print(f"max active 2x1 clusters ({(names or ['persistent'])[0]}): {mac}")
    record = {"device": dev, "torch": torch.__version__, "max_active_clusters": mac, "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "iters": iters, "rows": rows, "summary": summarize(rows, names + ["auto", "best"] + (["auto_row_major_b"] if row_major_b else []))}
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "gemm_bench.json").write_text(json.dumps(record, indent=1))
    print(json.dumps(record["summary"], indent=1))
    plot(rows, names + ["auto"], out_dir / "gemm_bench.png")
    return record


def _geo(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def summarize(rows, names) -> dict:
    suite = suite_shapes()
    wave = set(suite[:16])
    out = {}
    for name in names:
        r = {(x["m"], x["n"], x["k"]): x[name]["ratio"] for x in rows if "ratio" in x.get(name, {})}
        out[name] = {
            "geomean_all": _geo(r.values()),
            "geomean_wave_quantised": _geo([v for s, v in r.items() if s in wave]),
            "min": min(r.values()) if r else None,
            "at_8192": r.get((8192, 8192, 8192)),
        }
    return out


def plot(rows, names, path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(12, 4))
    labels = [f"{r['m']}x{r['n']}x{r['k']}" for r in rows]
    width = 0.8 / max(len(names), 1)
    for i, name in enumerate(names):
        ax.bar([j + i * width for j in range(len(rows))], [r[name].get("ratio", 0) for r in rows], width, label=name)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xticks([j + 0.4 for j in range(len(rows))], labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("speed vs cuBLAS (torch.matmul)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["build", "check", "run"])
    ap.add_argument("--variants", default="persistent,streamk")
    ap.add_argument("--shapes", default="suite", help="suite | 8192 | M,N,K;M,N,K")
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--row-major-b", action="store_true",
                    help="also time tileorch.gemm (auto) against torch.matmul with B stored [K, N] (row-major)")
    ap.add_argument("--out", default=os.environ.get("OUT", str(ROOT / "benchmarks" / "results")))
    args = ap.parse_args(argv)
    names = [n for n in args.variants.split(",") if n] if args.variants != "all" else list(variants())  # "": auto only
    if args.mode == "build":
        build(names)
        return 0
    if args.shapes == "suite":
        shapes = suite_shapes()
    else:
        shapes = [(8192, 8192, 8192) if s == "8192" else tuple(int(x) for x in s.split(","))
                  for s in args.shapes.split(";")]
    if args.mode == "check":
        bad = 0
        for name in names:
            cfg = variants()[name]
            for (m, n, k) in shapes:
                err, finite = check_one(m, n, k, cfg)
                ok = finite and err < 1e-2
                bad += not ok
                print(f"{'ok ' if ok else 'BAD'} {name:16s} {m}x{n}x{k}: rel err {err:.2e}", flush=True)
        print(f"check: {bad} failures")
        return 1 if bad else 0
    run(shapes, names, Path(args.out), args.iters, args.row_major_b)
    return 0


if __name__ == "__main__":
    sys.exit(main())
