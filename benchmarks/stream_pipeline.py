"""Streaming benchmark: a warp-specialized TMA-style pipeline (producer warp, ``cp.async.bulk``
into an N-stage mbarrier ring, consumer warp groups copy each stage out) against torch's
device-to-device copy in the same process, counting bytes read + written.

    python benchmarks/stream_pipeline.py build   # here (needs tileorch + ptxas): cubins + manifest
    python benchmarks/stream_pipeline.py run     # on the GPU: sweep, table, results file
    python benchmarks/stream_pipeline.py report benchmarks/results/stream_pipeline.json

``build`` writes ``build/gpu/stream/manifest.json``: one entry per variant (the tileorch-compiled
kernel from ``stream_kernel.py`` and the hand-written PTX baseline from ``stream_reference.py``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build" / "gpu" / "stream"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).parent))

STAGES = (2, 3, 4, 6, 8)
TILES = (8192, 16384, 32768)
SIZES_MIB = (32, 128, 512, 2048)


def _ptxas(ptx: str, stem: Path) -> Path:
    stem.with_suffix(".ptx").write_text(ptx)
    cubin = stem.with_suffix(".cubin")
    subprocess.run(["ptxas", "-arch=sm_90a", str(stem.with_suffix(".ptx")), "-o", str(cubin)], check=True)
    return cubin


def build(out: Path, with_tileorch: bool) -> None:
    from stream_reference import reference_ptx, smem_bytes

    out.mkdir(parents=True, exist_ok=True)
    variants = []
    for stages in STAGES:
        for tile in TILES:
            for wgs in (1, 2):
                if smem_bytes(stages, tile) > 227 * 1024:
                    continue
                name = f"ref_s{stages}_t{tile // 1024}k_wg{wgs}"
                cubin = _ptxas(reference_ptx(stages, tile, wgs), out / name)
                variants.append(dict(name=name, impl="ptx-reference", cubin=cubin.name, kernel="stream_ref",
                                     stages=stages, tile=tile, wgs=wgs, block=32 + 128 * wgs,
                                     smem=smem_bytes(stages, tile)))
    if with_tileorch:
        from stream_kernel import compile_stream_kernel

        for stages in STAGES:
            for tile in TILES:
                for wgs in (1, 2):
                    name = f"tileorch_s{stages}_t{tile // 1024}k_wg{wgs}"
                    info = compile_stream_kernel(stages, tile, wgs)
                    if info["smem"] > 227 * 1024:
                        continue
                    cubin = _ptxas(info["ptx"], out / name)
                    variants.append(dict(name=name, impl="tileorch", cubin=cubin.name, kernel=info["kernel"],
                                         stages=stages, tile=tile, wgs=wgs, block=info["block"],
                                         smem=info["smem"]))
    (out / "manifest.json").write_text(json.dumps(variants, indent=1))
    print(f"built {len(variants)} variants into {out}")


def _median_ms(fn, reps: int) -> float:
    times = [fn() for _ in range(reps)]
    return statistics.median(times)


def run(src: Path, out: Path, reps: int, only: str | None) -> None:
    import torch

    from tileorch import runtime

    variants = json.loads((src / "manifest.json").read_text())
    if only:
        variants = [v for v in variants if only in v["name"]]
    dev = runtime.current_device()
    sms = dev.sm_count
    sizes = [m * 1024 * 1024 for m in SIZES_MIB]
    big = max(sizes)
    base = torch.randint(-(1 << 31), 1 << 31, (big // 4,), dtype=torch.int32, device="cuda")
    dst = torch.empty_like(base)

    def torch_copy_ms(n: int) -> float:
        s, d = base[: n // 4], dst[: n // 4]
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

        def once() -> float:
            start.record()
            d.copy_(s)
            end.record()
            end.synchronize()
            return start.elapsed_time(end)

        once()
        return _median_ms(once, reps)

    copy_ms = {n: torch_copy_ms(n) for n in sizes}
    kernels = {v["name"]: runtime.Module.from_file(src / v["cubin"]).kernel(v["kernel"]) for v in variants}

    def measure(v: dict, n: int) -> dict:
        kern, tiles = kernels[v["name"]], n // v["tile"]
        grid = min(tiles, sms * max(1, (228 * 1024) // (v["smem"] + 1024)))
        s, d = base[: n // 4], dst[: n // 4]
        d.fill_(-1)
        runtime.launch(kern, grid, v["block"], [s, d, tiles], smem=v["smem"], timeout_s=20)
        ok = bool(torch.equal(s, d))
        ms = _median_ms(lambda: runtime.launch(kern, grid, v["block"], [s, d, tiles], smem=v["smem"],
                                               timeout_s=20).elapsed_ms(), reps)
        return dict(v, bytes=n, grid=grid, ms=ms, gbs=2 * n / ms / 1e6, ok=ok, ratio=copy_ms[n] / ms,
                    copy_gbs=2 * n / copy_ms[n] / 1e6)

    rows = [measure(v, big) for v in variants]  # every variant at the large size
    for impl in sorted({v["impl"] for v in variants}):  # the best of each over the size sweep
        best = max((r for r in rows if r["impl"] == impl and r["ok"]), key=lambda r: r["ratio"], default=None)
        if best is not None:
            v = next(v for v in variants if v["name"] == best["name"])
            rows += [measure(v, n) for n in sizes if n != big]
    _report(rows, copy_ms, dev, out)


def _report(rows: list[dict], copy_ms: dict[int, float], dev, out: Path) -> None:
    import torch

    drv = dev.driver_version
    meta = dict(date=dt.date.today().isoformat(), device=dev.name, sms=dev.sm_count,
                cuda_driver=f"{drv // 1000}.{drv % 1000 // 10}", torch=torch.__version__,
                copy_gbs={str(n >> 20): 2 * n / ms / 1e6 for n, ms in sorted(copy_ms.items())})
    out.mkdir(parents=True, exist_ok=True)
    (out / "stream_pipeline.json").write_text(json.dumps(dict(meta=meta, rows=rows), indent=1))
    report(out / "stream_pipeline.json")


def report(path: Path) -> None:
    """Write ``stream_pipeline.md`` beside the run's JSON (meta + rows) and print it."""
    data = json.loads(path.read_text())
    meta, rows = data["meta"], data["rows"]
    largest = max(r["bytes"] for r in rows)
    lines = [
        f"# Streaming pipeline benchmark ({meta['date']})",
        "",
        f"Device: {meta['device']} ({meta['sms']} SMs), CUDA driver {meta['cuda_driver']}, torch {meta['torch']}. "
        "Bandwidth = (bytes read + bytes written) / median kernel time (20 launches); ratio = torch "
        "device-to-device copy time / kernel time at the same size, measured in the same process.",
        "",
        "| size MiB | torch copy GB/s |",
        "|---:|---:|",
        *[f"| {mib} | {gbs:.0f} |" for mib, gbs in meta["copy_gbs"].items()],
        "",
        "| variant | impl | stages | tile KiB | consumer WGs | grid | size MiB | GB/s | ratio | exact |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in sorted(rows, key=lambda r: (r["impl"], r["bytes"], r["stages"], r["tile"], r["wgs"])):
        lines.append(f"| {r['name']} | {r['impl']} | {r['stages']} | {r['tile'] // 1024} | {r['wgs']} | "
                     f"{r['grid']} | {r['bytes'] >> 20} | {r['gbs']:.0f} | {r['ratio']:.3f} | "
                     f"{'yes' if r['ok'] else 'NO'} |")
    for impl in sorted({r["impl"] for r in rows}):
        at_large = [r for r in rows if r["impl"] == impl and r["ok"] and r["bytes"] == largest]
        if at_large:
            best, worst = max(at_large, key=lambda r: r["ratio"]), min(at_large, key=lambda r: r["ratio"])
            lines.append(f"\nAt {largest >> 20} MiB, {impl}: best {best['name']} ratio {best['ratio']:.3f} "
                         f"({best['gbs']:.0f} GB/s vs copy {best['copy_gbs']:.0f} GB/s); worst {worst['name']} "
                         f"ratio {worst['ratio']:.3f}.")
    text = "\n".join(lines) + "\n"
    path.with_suffix(".md").write_text(text)
    print(text)


def check(src: Path, name: str, mib: int) -> int:
    """Launch one variant once on ``mib`` MiB and compare (for compute-sanitizer runs)."""
    import numpy as np

    from tileorch import runtime

    v = next(v for v in json.loads((src / "manifest.json").read_text()) if v["name"] == name)
    kern = runtime.Module.from_file(src / v["cubin"]).kernel(v["kernel"])
    host = np.random.default_rng(0).integers(0, 1 << 32, mib << 18, dtype=np.uint32)
    s, d = runtime.DeviceBuffer.from_array(host), runtime.DeviceBuffer(host.nbytes)
    tiles = host.nbytes // v["tile"]
    runtime.launch(kern, min(tiles, 8), v["block"], [s, d, tiles], smem=v["smem"], timeout_s=120)
    ok = np.array_equal(d.download(np.uint32), host)
    print(f"{name}: {'exact' if ok else 'MISMATCH'}")
    return 0 if ok else 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", type=Path, default=BUILD)
    b.add_argument("--reference-only", action="store_true", help="skip the tileorch-compiled kernels")
    r = sub.add_parser("run")
    r.add_argument("--src", type=Path, default=BUILD)
    r.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    r.add_argument("--reps", type=int, default=20)
    r.add_argument("--only", default=None, help="run variants whose name contains this")
    rp = sub.add_parser("report", help="rewrite stream_pipeline.md from a run's JSON")
    rp.add_argument("json", type=Path)
    c = sub.add_parser("check")
    c.add_argument("name")
    c.add_argument("--src", type=Path, default=BUILD)
    c.add_argument("--mib", type=int, default=4)
    args = ap.parse_args()
    if args.cmd == "build":
        build(args.out, not args.reference_only)
    elif args.cmd == "report":
        report(args.json)
    elif args.cmd == "check":
        sys.exit(check(args.src, args.name, args.mib))
    else:
        run(args.src, args.out, args.reps, args.only)


if __name__ == "__main__":
    main()
