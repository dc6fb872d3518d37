"""The chained-dots kernel's switches on the cuTile FlashAttention program, in one process.

Each variant is a set of ``TILEORCH_*`` environment switches (read at compile time, part of the
compile cache key); for every case the program is compiled and launched under each variant, its
output checked against SDPA flash (max abs error) and timed with
:func:`tileorch.testing.timing.bench_ms`, beside SDPA cuDNN as the same-process baseline.  Prints
TFLOP/s per variant and the ratio to the first variant; writes ``attention_variants.json``.

    python3 benchmarks/attention_variants.py [--dims 64,128] [--seqs 1024,4096,16384] [--causal both]
        [--variants 'default:;pingpong:TILEORCH_ATTN_OVERLAP=0,TILEORCH_ATTN_PINGPONG=1'] [--flash]

A variant may name its own tiles with the pseudo-setting ``TILES=64x128`` (the program's ``TILE_M x TILE_N``
constants and the grid; not an environment variable), e.g. ``t64:TILES=64x128,TILEORCH_ATTN_STAGES=3``.
``--flash`` times SDPA's flash backend beside cuDNN.  The last column is the largest max-abs error of any variant
against SDPA flash (NaN: a variant failed, its ``_error`` is in the JSON row).
"""

from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path

from tileorch.testing.timing import bench_ms

DEFAULT_VARIANTS = ("default:;pingpong:TILEORCH_ATTN_OVERLAP=0,TILEORCH_ATTN_PINGPONG=1;"
                    "plain:TILEORCH_ATTN_OVERLAP=0")


def parse_variants(spec: str) -> list[tuple[str, dict[str, str]]]:
    """``name:K=V,K=V;name:...`` -> [(name, {K: V})]."""
    out = []
    for part in (p for p in spec.split(";") if p.strip()):
        name, _, env = part.partition(":")
        out.append((name.strip(), dict(kv.split("=", 1) for kv in env.split(",") if kv.strip())))
    return out


def run_case(bh: int, seq: int, d: int, causal: bool, tiles: tuple[int, int], iters: int,
             variants: list[tuple[str, dict[str, str]]], flash: bool = False) -> dict:
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    import tileorch.cutile
    from tileorch.launchers import cutile as launcher
    from tileorch.testing.attention_programs import LOG2E, attention_fwd

    tm, tn = tiles
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(bh, seq, d, device="cuda", generator=g, dtype=torch.float16) for _ in range(3))
    q4, k4, v4 = q.unsqueeze(0), k.unsqueeze(0), v.unsqueeze(0)
    flops = 4.0 * bh * seq * seq * d / (2 if causal else 1)
    row: dict = {"bh": bh, "seq": seq, "d": d, "causal": causal, "tiles": f"{tm}x{tn}"}
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        ref = F.scaled_dot_product_attention(q4, k4, v4, is_causal=causal)[0]
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        row["sdpa_cudnn_tflops"] = round(flops / bench_ms(
            lambda: F.scaled_dot_product_attention(q4, k4, v4, is_causal=causal), iters) / 1e9, 1)
    if flash:
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            row["sdpa_flash_tflops"] = round(flops / bench_ms(
                lambda: F.scaled_dot_product_attention(q4, k4, v4, is_causal=causal), iters) / 1e9, 1)
    stream = torch.cuda.current_stream()
    for name, env in variants:
        env = dict(env)
        vm, vn = (int(x) for x in env.pop("TILES").split("x")) if "TILES" in env else (tm, tn)
        if (vm, vn) != (tm, tn):
            row[f"{name}_tiles"] = f"{vm}x{vn}"
        grid = ((seq + vm - 1) // vm, bh, 1)
        args_of = lambda out, vm=vm, vn=vn: (q, k, v, out, 1.0 / math.sqrt(d) * LOG2E, seq, vm, vn, d,  # noqa: E731
                                             causal)
        saved = {key: os.environ.get(key) for key in env}
        os.environ.update(env)
        launcher.clear_caches()
        try:
            out = torch.full_like(q, float("nan"))
            tileorch.cutile.launch(stream, grid, attention_fwd, args_of(out))
            torch.cuda.synchronize()
            row[f"{name}_err"] = float((out.float() - ref.float()).abs().max().item())
            ms = bench_ms(lambda: tileorch.cutile.launch(stream, grid, attention_fwd, args_of(out)), iters)
            row[f"{name}_tflops"] = round(flops / ms / 1e9, 1)
            entry = launcher.compiled(attention_fwd, launcher.describe_arguments(attention_fwd, args_of(out)),
                                      "sm_90a", "persistent")
            if entry.launch_remarks:  # a persistent kernel's CTA count and why (launchers/cutile.py chained_ctas)
                row[f"{name}_launch"] = next(iter(entry.launch_remarks.values()))
        except Exception as exc:  # noqa: BLE001 - a variant that cannot run this case is a row entry
            row[f"{name}_error"] = f"{type(exc).__name__}: {exc}"[:300]
        finally:
            for key, old in saved.items():
                if old is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = old
            launcher.clear_caches()
    return row


def _worst_error(row: dict, names: list[str]) -> float:
    """The largest max-abs error of the variants against SDPA flash; NaN if any variant has none."""
    errs = [row.get(f"{n}_err") for n in names]
    return float("nan") if any(e is None or e != e for e in errs) else max(errs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dims", default="64,128")
    ap.add_argument("--seqs", default="1024,4096,16384")
    ap.add_argument("--causal", choices=("no", "yes", "both"), default="both")
    ap.add_argument("--tokens", type=int, default=262144, help="batch*heads = tokens / seq")
    ap.add_argument("--tiles", default="128x128")
    ap.add_argument("--variants", default=DEFAULT_VARIANTS)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--flash", action="store_true", help="time SDPA's flash backend too (column 'flash')")
    ap.add_argument("--out", default="build/attention_variants")
    ns = ap.parse_args(argv)
    import torch

    variants = parse_variants(ns.variants)
    tiles = tuple(int(x) for x in ns.tiles.split("x"))
    out = Path(ns.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for d in (int(x) for x in ns.dims.split(",")):
        for seq in (int(x) for x in ns.seqs.split(",")):
            for causal in {"no": [False], "yes": [True], "both": [False, True]}[ns.causal]:
                row = run_case(max(1, ns.tokens // seq), seq, d, causal, tiles, ns.iters, variants, ns.flash)
                rows.append(row)
                print(json.dumps(row), flush=True)
                # after every case: a run cut by its time limit keeps the cases it finished
                (out / "attention_variants.json").write_text(json.dumps(
                    {"device": torch.cuda.get_device_name(), "variants": ns.variants, "rows": rows}, indent=1))
    names = [n for n, _ in variants]
    print(f"{'d':>4s} {'seq':>6s} {'causal':>6s} " + " ".join(f"{n:>12s}" for n in names) + f" {'cudnn':>7s}"
          + (f" {'flash':>7s}" if ns.flash else "") + f" {'max err':>8s}")
    for r in rows:
        base = r.get(f"{names[0]}_tflops")
        cells = []
        for n in names:
            t = r.get(f"{n}_tflops")
            cells.append(f"{t:6.1f}" + (f"/{t / base:.3f}" if t and base else "") if t else f"{'err':>12s}")
        print(f"{r['d']:4d} {r['seq']:6d} {str(r['causal']):>6s} " + " ".join(f"{c:>12s}" for c in cells)
              + f" {r['sdpa_cudnn_tflops']:7.1f}"
              + (f" {r.get('sdpa_flash_tflops', float('nan')):7.1f}" if ns.flash else "")
              + f" {_worst_error(r, names):8.1e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
