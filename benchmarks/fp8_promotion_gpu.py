"""Two-level fp8 accumulation on the GPU (session 39, ``TILEORCH_FP8_PROMOTE_INTERVAL``): one process per setting
(benchmarks/session39_fp8acc.sh runs it with the variable 0, 1 and 2: the compile caches key on it, and a process
sees one value).  Prints ``[s39 fp8acc] ...`` lines and writes one JSON.

1. sweep 29's four fp8 GEMMs (their specs: K = 128, one K tile) on normal-valued operands (session 37's draw; scales
   1), outputs NaN-prefilled (tests/gpu/sweep_harness.py): the error against torch fp32 (TF32 off) of the dequantized
   operands, and the elements over an f32-tight tolerance (``|d| > 1e-3 + 1e-4 |ref|``) for the f32 outputs.
   (K = 128 is one K tile: promotion every K tile leaves their sums as they were; expected equal bits both ways.)
2. fp8_promotion_programs' long-K GEMM (e4m3, e5m2; f32 out) at 1024 x 1024 x K (K = 4096 and 4000: a tail) on
   positive-mean (post-ReLU-like) and zero-mean operands: tileorch's error against float64 (torch on the GPU),
   ``torch._scaled_mm`` (cuBLAS) with fast accumulation on and off beside it on the same operands, and tileiras
   (cuTile's own launch of the same program; ``use_fast_acc`` off and on) where the device has it.
3. 4096^3 e4m3 -> f32: TFLOP/s of tileorch's launch of the same program, ``torch._scaled_mm`` fast and not fast, and
   tileiras (both accumulation modes), median of event-timed launches, all in this process.

    python benchmarks/fp8_promotion_gpu.py --json OUT.json   (TILEORCH_FP8_PROMOTE_INTERVAL set by the caller)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for sub in ("tests/unit", "tests/gpu"):
    if str(ROOT / sub) not in sys.path:
        sys.path.append(str(ROOT / sub))

P = os.environ.get("TILEORCH_FP8_PROMOTE_INTERVAL", "(default)")
TAG = f"[s39 fp8acc] P={P}"


def say(text: str) -> None:
    print(f"{TAG} {text}", flush=True)


def sweep29(record: dict) -> None:
    import ml_dtypes
    import sweep_harness
    import torch

    from tileorch.testing.user_programs29 import PROGRAMS

    cases = {  # name -> (A, B positions, the scale inputs set to 1, C's position, fp8 type)
        "fp8_e4m3_gemm_tensor_scales_from_arrays_bf16": ({2: np.ones(1, np.float32), 3: np.ones(1, np.float32)}, 4,
                                                         ml_dtypes.float8_e4m3fn),
        "fp8_e5m2_gemm_row_scales_f32": ({2: np.ones(130, np.float32)}, 3, ml_dtypes.float8_e5m2),
        "fp8_e4m3_gemm_scale_from_0d_array_f16": ({2: np.ones((), np.float32)}, 3, ml_dtypes.float8_e4m3fn),
        "fp8_e4m3_gemm_rows_of_32": ({}, 2, ml_dtypes.float8_e4m3fn),
    }
    rng = np.random.default_rng(3801)
    for name, (scales, out, t) in cases.items():
        spec = PROGRAMS[name].spec
        (m, k), (_, n) = spec[0][0], spec[1][0]
        a = rng.standard_normal((m, k)).astype(np.float32).astype(t)
        b = (rng.standard_normal((k, n)) * 0.5).astype(np.float32).astype(t)
        try:
            got = sweep_harness.gpu_run(PROGRAMS, name, {0: a.view(np.uint8), 1: b.view(np.uint8), **scales})[out]
        except Exception as exc:  # noqa: BLE001 - recorded, the run goes on
            record[name] = {"error": f"{type(exc).__name__}: {exc}"[:400]}
            say(f"sweep29 {name}: ERROR {record[name]['error'][:200]}")
            continue
        got = np.asarray(got, np.float64)
        ta = torch.from_numpy(a.astype(np.float32)).cuda()
        tb = torch.from_numpy(b.astype(np.float32)).cuda()
        ref = (ta @ tb).double().cpu().numpy()
        d = np.abs(got - ref)
        over = int((d > 1e-3 + 1e-4 * np.abs(ref)).sum())
        record[name] = {"nan": int(np.isnan(got).sum()), "max_abs": float(np.nanmax(d)), "over_f32_tol": over,
                        "size": int(ref.size), "out": spec[out][1],
                        "sha1": hashlib.sha1(np.ascontiguousarray(got).tobytes()).hexdigest()[:12]}
        say(f"sweep29 {name} ({spec[out][1]} out): NaN {record[name]['nan']}, max |C - C32| {float(np.nanmax(d)):.3e}, "
            f"over 1e-3 + 1e-4|C|: {over} of {ref.size}; bits sha1 {record[name]['sha1']}")


def _tileiras_launch():
    """cuTile's own launch (tileiras) or None where the device cannot run it."""
    try:
        import cuda.tile as ct

        return ct.launch
    except Exception:  # noqa: BLE001
        return None


def long_k(record: dict, timing: dict, iters: int) -> None:
    import torch

    import tileorch.cutile
    from tileorch.testing import fp8_promotion_programs as fp
    from tileorch.testing.timing import bench_ms

    stream = torch.cuda.current_stream()
    ct_launch = _tileiras_launch()
    kernels = {"promoted-or-not": fp.fp8_long_k_f32_out, "fast_acc": fp.fp8_long_k_fast_acc}
    cases = [("e4m3", 1024, 1024, 4096, 1.0), ("e4m3", 1024, 1024, 4000, 1.0), ("e4m3", 1024, 1024, 4096, 0.0),
             ("e5m2", 1024, 1024, 4096, 1.0), ("e4m3", 4096, 4096, 4096, 1.0)]
    for fmt, m, n, k, mean in cases:
        tdt = torch.float8_e4m3fn if fmt == "e4m3" else torch.float8_e5m2
        g = torch.Generator(device="cuda").manual_seed(m + k)
        a = (torch.randn((m, k), device="cuda", generator=g) + mean).to(tdt)
        bt = (torch.randn((n, k), device="cuda", generator=g) + mean).to(tdt)
        ref = a.double() @ bt.double().t()
        top = float(ref.abs().max())
        key = f"{fmt}_{m}x{n}x{k}_mean{mean}"
        row = record.setdefault(key, {})

        def err(c):
            if bool(torch.isnan(c).any()):
                return {"nan": int(torch.isnan(c).sum())}
            d = (c.double() - ref).abs()
            big = ref.abs() > 0.01 * top
            rel = float((d[big] / ref.abs()[big]).max())
            over = int((d > 1e-3 * ref.abs() + 1e-3 * top).sum())
            return {"max_rel_over_1pct": rel, "over_rtol1e-3": over, "size": ref.numel()}

        grid = (m // 128, n // 128, 1)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)

        def ours():
            tileorch.cutile.launch(stream, grid, fp.fp8_long_k_f32_out, (a, bt, c, 128, 128, 128))

        try:
            ours()
            torch.cuda.synchronize()
            row["tileorch"] = err(c)
            if m == 4096:
                timing["tileorch_ms"] = bench_ms(ours, iters)
        except Exception as exc:  # noqa: BLE001
            row["tileorch"] = {"error": f"{type(exc).__name__}: {exc}"[:400]}
            traceback.print_exc()
        one = torch.ones((), device="cuda")
        for fast in (False, True):
            label = f"scaled_mm_fast{int(fast)}"
            try:
                def theirs(fast=fast):
                    out = torch._scaled_mm(a, bt.t(), scale_a=one, scale_b=one, out_dtype=torch.float32,
                                           use_fast_accum=fast)
                    return out[0] if isinstance(out, tuple) else out
                row[label] = err(theirs())
                if m == 4096:
                    timing[label + "_ms"] = bench_ms(theirs, iters)
            except Exception as exc:  # noqa: BLE001
                row[label] = {"error": f"{type(exc).__name__}: {exc}"[:200]}
        if ct_launch is not None and P in ("1", "(default)"):  # (tileiras does not read our setting: run it once)
            for label, kern in (("tileiras", kernels["promoted-or-not"]), ("tileiras_fast_acc", kernels["fast_acc"])):
                c2 = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
                try:
                    def native(kern=kern, c2=c2):
                        ct_launch(stream, grid, kern, (a, bt, c2, 128, 128, 128))
                    native()
                    torch.cuda.synchronize()
                    row[label] = err(c2)
                    if m == 4096:
                        timing[label + "_ms"] = bench_ms(native, iters)
                except Exception as exc:  # noqa: BLE001
                    row[label] = {"error": f"{type(exc).__name__}: {exc}"[:200]}
        say(f"{key}: " + "; ".join(f"{who} " + (f"max rel {v['max_rel_over_1pct']:.1e}, {v['over_rtol1e-3']} over"
                                                if "max_rel_over_1pct" in v else str(v)[:120])
                                   for who, v in row.items()))
    flops = 2.0 * 4096 ** 3
    tf = {k[:-3]: flops / v / 1e9 for k, v in timing.items() if k.endswith("_ms")}
    timing["tflops"] = tf
    say("4096^3 e4m3 -> f32 TFLOP/s: " + ", ".join(f"{k} {v:.0f}" for k, v in tf.items()))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path, required=True)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--parts", default="sweep29,long_k", help="comma-separated: sweep29, long_k")
    args = ap.parse_args()
    parts = args.parts.split(",")
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    record = {"device": torch.cuda.get_device_name(), "interval": P, "torch": torch.__version__,
              "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "sweep29": {}, "long_k": {}, "timing": {}}
    say(f"device {record['device']}")
    for part, fn in (("sweep29", lambda: sweep29(record["sweep29"])),
                     ("long_k", lambda: long_k(record["long_k"], record["timing"], args.iters))):
        if part not in parts:
            continue
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - the other part still runs
            record[part]["error"] = f"{type(exc).__name__}: {exc}"[:400]
            say(f"{part} ERROR {record[part]['error'][:300]}")
            traceback.print_exc()
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(record, indent=1))  # (after each part: a timeout keeps the parts done)
    return 0


if __name__ == "__main__":
    sys.exit(main())
