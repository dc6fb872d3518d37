"""FlashAttention forward from one cuTile program: tileorch vs tileiras vs torch SDPA (flash, cuDNN).

The program is ``tileorch.testing.attention_programs.attention_fwd`` (online softmax with exp2 and
the scale folded in, the ragged last key tile and the causal mask written in the program), launched
through ``tileorch.cutile.launch`` (tileorch) and ``cuda.tile.launch`` (tileiras, skipped with the
reason when cuTile cannot find it), beside ``F.scaled_dot_product_attention`` with the flash and
the cuDNN backends, in one process, fp16, [batch*heads, seq, head dim] tensors.  Timing:
:func:`tileorch.testing.timing.bench_ms` (CUDA events behind a GPU sleep, median).  TFLOP/s =
4 * BH * S^2 * D, halved for causal.  Each compiler's output is checked against SDPA's (max abs
error).  Writes ``attention.json`` and ``attention.png`` under ``--out``.  Needs a Hopper GPU.

``--program branchy`` runs ``attention_fwd_branchy`` instead: the same math written as NVIDIA's
cuTile samples write it ([1, heads, seq, d] tensors, K through a view order, the masks in a branch
inside the loop that only the boundary tiles take); ``both`` runs each case with both programs.
Head dim 256 runs with ``--tiles-256`` (default 128x64: two K/V stages fit shared memory beside
the 128x256 Q tile; 128x128 runs on one stage) over ``--seqs-256`` (default 1k and 4k: issue 20's
d256 rows; it is in the default sweep since session 20, fp16, causal and not).

    python3 benchmarks/attention.py [--dims 64,128,256] [--seqs 1024,4096,16384] [--seqs-256 1024,4096]
        [--causal both] [--program textbook|branchy|both]

``--set2 NAMES|all`` times the second attention set's programs instead
(``tileorch.testing.attention_programs2`` at model sizes: ``benchmarks/attention_set2.py``), each
beside SDPA on plain attention of the same sizes; rows in the same JSON.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from tileorch.testing.timing import bench_ms


def _inputs(bh: int, seq: int, d: int, seed: int = 0):
    import torch

    g = torch.Generator(device="cuda").manual_seed(seed)
    q, k, v = (torch.randn(bh, seq, d, device="cuda", generator=g, dtype=torch.float16) for _ in range(3))
    return q, k, v


def run_one(bh: int, seq: int, d: int, causal: bool, tiles: tuple[int, int], iters: int,
            program: str = "textbook") -> dict:
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    import tileorch.cutile
    from tileorch.testing.attention_programs import LOG2E, attention_fwd, attention_fwd_branchy

    tm, tn = tiles
    q, k, v = _inputs(bh, seq, d)
    grid = ((seq + tm - 1) // tm, bh, 1)
    scale = 1.0 / math.sqrt(d)
    flops = 4.0 * bh * seq * seq * d / (2 if causal else 1)
    row: dict = {"bh": bh, "seq": seq, "d": d, "causal": causal, "tiles": f"{tm}x{tn}", "program": program}
    q4, k4, v4 = q.unsqueeze(0), k.unsqueeze(0), v.unsqueeze(0)
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        ref = F.scaled_dot_product_attention(q4, k4, v4, is_causal=causal)[0]
    stream = torch.cuda.current_stream()

    def run_compiler(name, launch):
        if program == "branchy":  # [1, heads, seq, d] views of the same tensors
            kernel, out4 = attention_fwd_branchy, torch.full_like(q4, float("nan"))
            args = (q4, k4, v4, out4, scale, 0, d, bh, tm, tn, 1, causal, seq % tn == 0)
            out = out4[0]
        else:
            kernel, out = attention_fwd, torch.full_like(q, float("nan"))
            args = (q, k, v, out, scale * LOG2E, seq, tm, tn, d, causal)
        try:
            launch(stream, grid, kernel, args)
            torch.cuda.synchronize()
            row[f"{name}_err"] = float((out.float() - ref.float()).abs().max().item())
            row[f"{name}_ms"] = bench_ms(lambda: launch(stream, grid, kernel, args), iters)
        except Exception as exc:  # noqa: BLE001 - a compiler that cannot run this case is a row entry
            row[f"{name}_error"] = f"{type(exc).__name__}: {exc}"[:300]

    run_compiler("tileorch", tileorch.cutile.launch)
    try:
        import cuda.tile as ct

        run_compiler("tileiras", ct.launch)
    except ImportError as exc:
        row["tileiras_error"] = f"cuda.tile not importable: {exc}"
    for name, backend in (("sdpa_flash", SDPBackend.FLASH_ATTENTION), ("sdpa_cudnn", SDPBackend.CUDNN_ATTENTION)):
        try:
            with sdpa_kernel(backend):
                row[f"{name}_ms"] = bench_ms(lambda: F.scaled_dot_product_attention(q4, k4, v4, is_causal=causal),
                                             iters)
        except Exception as exc:  # noqa: BLE001
            row[f"{name}_error"] = f"{type(exc).__name__}: {exc}"[:300]
    for key in ("tileorch", "tileiras", "sdpa_flash", "sdpa_cudnn"):
        if f"{key}_ms" in row:
            row[f"{key}_tflops"] = round(flops / row[f"{key}_ms"] / 1e9, 1)
    for key in ("tileiras", "sdpa_flash", "sdpa_cudnn"):
        if f"{key}_ms" in row and "tileorch_ms" in row:
            row[f"vs_{key}"] = round(row[f"{key}_ms"] / row["tileorch_ms"], 3)
    return row


def plot(rows: list[dict], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    keys = ("tileorch", "tileiras", "sdpa_flash", "sdpa_cudnn")
    labels = [f"d{r['d']} S{r['seq']}{' c' if r['causal'] else ''}\n{r['tiles']}{' br' if r.get('program') == 'branchy' else ''}"
              for r in rows]
    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(rows)), 4))
    width = 0.2
    for i, key in enumerate(keys):
        ax.bar([x + (i - 1.5) * width for x in range(len(rows))], [r.get(f"{key}_tflops", 0) for r in rows],
               width, label=key)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("TFLOP/s")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dims", default="64,128,256")
    ap.add_argument("--seqs", default="1024,4096,16384")
    ap.add_argument("--seqs-256", default="1024,4096", help="sequence lengths of head dim 256 (comma-separated)")
    ap.add_argument("--causal", choices=("no", "yes", "both"), default="both")
    ap.add_argument("--tokens", type=int, default=262144, help="batch*heads = tokens / seq")
    ap.add_argument("--tiles", default="128x128", help="TILE_M x TILE_N of the program, comma-separated")
    ap.add_argument("--tiles-256", default="128x64", help="TILE_M x TILE_N for head dim 256, comma-separated")
    ap.add_argument("--program", choices=("textbook", "branchy", "both"), default="textbook")
    ap.add_argument("--set2", default="", help="programs of attention_programs2 (comma-separated, or 'all') "
                    "instead of the textbook sweep")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--out", default="build/attention")
    ns = ap.parse_args(argv)
    import torch

    out = Path(ns.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    causals = {"no": [False], "yes": [True], "both": [False, True]}[ns.causal]
    programs = ["textbook", "branchy"] if ns.program == "both" else [ns.program]

    if ns.set2:
        import sys

        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import attention_set2

        for name in (list(attention_set2.CASES) if ns.set2 == "all" else ns.set2.split(",")):
            try:
                row = attention_set2.run_one(name, ns.iters)
            except Exception as exc:  # noqa: BLE001 - one failure does not hide the rest
                row = {"program": name, "set2": True, "error": f"{type(exc).__name__}: {exc}"[:300]}
            rows.append(row)
            print(json.dumps(row), flush=True)
        (out / "attention.json").write_text(json.dumps({"device": torch.cuda.get_device_name(), "rows": rows},
                                                       indent=1))
        print(f"{'program':>32s} {'path':>8s} {'tileorch':>9s} {'tileiras':>9s} {'flash':>7s} {'cudnn':>7s} "
              f"{'/tileiras':>9s} {'err':>8s}")
        for r in rows:
            print(f"{r['program']:>32s} {r.get('tileorch_path', '?'):>8s} "
                  f"{r.get('tileorch_tflops', float('nan')):9.1f} "
                  f"{r.get('tileiras_tflops', float('nan')):9.1f} {r.get('sdpa_flash_tflops', float('nan')):7.1f} "
                  f"{r.get('sdpa_cudnn_tflops', float('nan')):7.1f} {r.get('vs_tileiras', float('nan')):9.3f} "
                  f"{r.get('tileorch_err', float('nan')):8.1e}")
        return 0

    def tiles_of(spec: str) -> list[tuple[int, int]]:
        return [tuple(int(x) for x in t.split("x")) for t in spec.split(",") if t]

    for d in (int(x) for x in ns.dims.split(",")):
        for seq in (int(x) for x in (ns.seqs_256 if d == 256 else ns.seqs).split(",")):
            for causal in causals:
                for tiles in tiles_of(ns.tiles_256 if d == 256 else ns.tiles):
                    for program in programs:
                        bh = max(1, ns.tokens // seq)
                        try:
                            row = run_one(bh, seq, d, causal, tiles, ns.iters, program)
                        except Exception as exc:  # noqa: BLE001 - one failure does not hide the rest
                            row = {"bh": bh, "seq": seq, "d": d, "causal": causal, "program": program,
                                   "error": f"{type(exc).__name__}: {exc}"}
                        rows.append(row)
                        print(json.dumps(row), flush=True)
    summary = {"device": torch.cuda.get_device_name(), "rows": rows}
    (out / "attention.json").write_text(json.dumps(summary, indent=1))
    plot([r for r in rows if "tileorch_tflops" in r], out / "attention.png")
    print(f"{'d':>4s} {'seq':>6s} {'causal':>6s} {'tiles':>8s} {'program':>8s} {'tileorch':>9s} {'tileiras':>9s} {'flash':>7s} "
          f"{'cudnn':>7s} {'/tileiras':>9s}")
    for r in rows:
        print(f"{r['d']:4d} {r['seq']:6d} {str(r['causal']):>6s} {r.get('tiles', ''):>8s} {r.get('program', ''):>8s} "
              f"{r.get('tileorch_tflops', float('nan')):9.1f} {r.get('tileiras_tflops', float('nan')):9.1f} "
              f"{r.get('sdpa_flash_tflops', float('nan')):7.1f} {r.get('sdpa_cudnn_tflops', float('nan')):7.1f} "
              f"{r.get('vs_tileiras', float('nan')):9.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
