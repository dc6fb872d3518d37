"""Where the textbook attention kernel's time goes at seq 1k: per kernel, per round of instances, per tail.

The persistent chained kernel runs ``bh * ceil(seq / 128)`` instances on at most one CTA per SM, instance ``w`` on
CTA ``w mod G``, so a launch takes ``ceil(instances / G)`` rounds.  At seq 1k and bh 256 (issue 20's shape: 2048
instances, 132 SMs) that is 16 rounds for 15.52 rounds of work.  Timing the same program at seq 1k for several bh
(whole rounds and the issue's shape) fits ``time = K0 + rounds * R`` by least squares over the whole-round points:
``K0`` is what a launch costs once (start, the first loads from memory, the last round's drain), ``R`` one round of
instances (8 key tiles and the instance boundary).  From the fit, for bh 256: the measured TFLOP/s, what the kernel
would reach with no tail (15.52 rounds, not 16) and with neither tail nor K0 (its steady rate).  SDPA cuDNN on the
same shapes is fitted the same way (same process; its own instance count and grid are its business: the fit then
only splits its time into a constant and a part growing with bh).

    python3 benchmarks/session36_rounds.py [--dims 64,128] [--bhs 66,132,256,264,528] [--iters 20] [--out DIR]

Prints one line per case and one ``[fit]`` line per head dim; writes ``rounds.json`` after every case.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from attention_variants import run_case  # noqa: E402

SMS = 132  # H100 SXM


def fit(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least squares ``y = a + b x`` over ``(x, y)`` points: ``(a, b)``."""
    n = len(points)
    sx = sum(x for x, _ in points)
    sy = sum(y for _, y in points)
    sxx = sum(x * x for x, _ in points)
    sxy = sum(x * y for x, y in points)
    b = (n * sxy - sx * sy) / (n * sxx - sx * sx)
    return (sy - b * sx) / n, b


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dims", default="64,128")
    ap.add_argument("--bhs", default="66,132,256,264,528")
    ap.add_argument("--seq", type=int, default=1024)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--sms", type=int, default=SMS)
    ap.add_argument("--out", default="build/session36_rounds")
    ns = ap.parse_args(argv)
    out = Path(ns.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for d in (int(x) for x in ns.dims.split(",")):
        pts, cud = [], []
        for bh in (int(x) for x in ns.bhs.split(",")):
            row = run_case(bh, ns.seq, d, False, (128, 128), ns.iters, [("default", {})])
            flops = 4.0 * bh * ns.seq * ns.seq * d
            inst = bh * math.ceil(ns.seq / 128)
            row["instances"], row["rounds"], row["work_rounds"] = inst, math.ceil(inst / ns.sms), inst / ns.sms
            for key in ("default_tflops", "sdpa_cudnn_tflops"):
                if row.get(key):
                    row[key.replace("tflops", "us")] = round(flops / row[key] / 1e6, 2)
            rows.append(row)
            (out / "rounds.json").write_text(json.dumps(rows, indent=1))
            print(f"[rounds] d{d} bh {bh} instances {inst} rounds {row['rounds']} ({inst / ns.sms:.2f} of work): "
                  f"tileorch {row.get('default_tflops')} TFLOP/s {row.get('default_us')} us | cudnn "
                  f"{row.get('sdpa_cudnn_tflops')} TFLOP/s {row.get('sdpa_cudnn_us')} us | err {row.get('default_err')}"
                  + (f" | ERROR {row['default_error'][:120]}" if "default_error" in row else ""), flush=True)
            if inst % ns.sms == 0 and row.get("default_us"):
                pts.append((row["rounds"], row["default_us"]))
            if row.get("sdpa_cudnn_us"):
                cud.append((inst / ns.sms, row["sdpa_cudnn_us"]))
        if len(pts) >= 2:
            k0, r = fit(pts)
            msg = f"[fit] d{d} tileorch: K0 {k0:.1f} us per launch, R {r:.2f} us per round (whole-round bh only)"
            at = [x for x in rows if x["d"] == d and x["bh"] == 256 and x.get("default_us")]
            if at:
                x = at[0]
                flops = 4.0 * 256 * ns.seq * ns.seq * d
                pred = k0 + x["rounds"] * r
                no_tail = k0 + x["work_rounds"] * r
                steady = x["work_rounds"] * r
                msg += (f"; bh 256: measured {x['default_us']} us ({x['default_tflops']} TFLOP/s), fit {pred:.1f} us, "
                        f"no tail {flops / no_tail / 1e6:.1f} TFLOP/s, no tail and no K0 {flops / steady / 1e6:.1f}")
            print(msg, flush=True)
        if len(cud) >= 2:
            k0, r = fit(cud)
            print(f"[fit] d{d} cudnn: {k0:.1f} us + {r:.2f} us per 132 instances of 128 rows", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
