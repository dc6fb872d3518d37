"""Memory-bound cuTile programs (issue 21): tileorch (``tileorch.cutile.launch``) beside cuTile's
own tileiras (``ct.launch``) and the torch call, in one process, against a same-run
device-to-device copy.  Prints achieved TB/s (bytes read + written once / time) and the ratios;
writes JSON (and a PNG bar chart when matplotlib is present).

    python benchmarks/memory_bound.py [--out DIR] [--iters N] [--only NAME ...] [--small]
                                      [--no-tileiras] [--env VAR=VALUE[,VAR=VALUE...] ...]

``--env`` (repeatable) runs the chosen cases once per setting of tileorch's compile switches, in
one process (tileorch's in-process caches cleared between settings; the disk cache keys the
switches), each row named ``case[setting]``; ``--env default`` (or ``""``) is the defaults.
E.g. the issue-21 probe, the old lowering against the new::

    python benchmarks/memory_bound.py --no-tileiras --only argmax_f32 argmax_f32_x512 col_sum_f32 \
        row_sum_bf16_12000x10000 softmax_f16_rows_x1024 rmsnorm_f16 layernorm_f16 \
        --env TILEORCH_PREFETCH_UNROLL=0,TILEORCH_PROGRAMS_PER_WARP=1 --env default \
        --env TILEORCH_PROGRAMS_PER_WARP=4 --env TILEORCH_CLUSTER_SPLIT_MAX=16

Needs a GPU, torch and cuda-tile.  Every output is checked against the torch result first
(a case whose output is wrong is reported as such, its timing not trusted).  The kernels are
the programs a user writes first (benchmarks/cutile_kernel_zoo.py has the same softmax,
layernorm and row sum at small sizes; these are sized 64 MB to 1 GB).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import cuda.tile as ct  # noqa: E402

from tileorch.testing.memory_programs import (argmax, axpby, col_sum, cumsum, layernorm, rmsnorm, row_sum,  # noqa: E402
                                              softmax, transpose)


def _cases(small: bool):
    """name -> (kernel, make() -> (inputs, outputs, consts), grid, torch_fn(inputs) -> output, tolerance)."""
    import torch

    k = 16 if small else 1  # --small: sizes / 16 (a quick check)
    f16, bf16, f32 = torch.float16, torch.bfloat16, torch.float32

    def randn(*shape, dtype=f32):
        return torch.randn(*shape, device="cuda", dtype=f32).to(dtype)

    def nan(*shape, dtype=f32):
        return torch.full(shape, float("nan"), device="cuda", dtype=dtype)

    n_vec = (64 << 20) // k  # 64 Mi elements: 256 MB per f32 operand
    rows = 65536 // k
    cases = {
        "axpby_f32": (axpby, lambda: ([randn(n_vec), randn(n_vec)], [nan(n_vec)], [1024]),
                      (math.ceil(n_vec / 1024), 1, 1), lambda i: 2.0 * i[0] - 3.0 * i[1], 1e-5),
        "axpby_bf16": (axpby, lambda: ([randn(n_vec, dtype=bf16), randn(n_vec, dtype=bf16)], [nan(n_vec, dtype=bf16)],
                                       [2048]), (math.ceil(n_vec / 2048), 1, 1),
                       # torch rounds 3y and the difference to bf16 separately, tileorch once at the store:
                       # one bf16 ulp apart at most (0.125 for |z| in [16, 32))
                       lambda i: 2.0 * i[0] - 3.0 * i[1], 0.13),
        "softmax_f16_4096x1000": (softmax, lambda: ([randn(4096, 1000, dtype=f16)], [nan(4096, 1000, dtype=f16)], [1024]),
                                  (4096, 1, 1), lambda i: torch.softmax(i[0], dim=1), 2e-3),
        "softmax_f16_rows_x1024": (softmax, lambda: ([randn(rows * 2, 1024, dtype=f16)], [nan(rows * 2, 1024, dtype=f16)],
                                                     [1024]), (rows * 2, 1, 1), lambda i: torch.softmax(i[0], dim=1), 2e-3),
        "layernorm_f16": (layernorm, lambda: ([randn(rows * 2, 1024, dtype=f16), randn(1024, dtype=f16),
                                               randn(1024, dtype=f16)], [nan(rows * 2, 1024, dtype=f16)], [1024]),
                          (rows * 2, 1, 1),
                          lambda i: torch.nn.functional.layer_norm(i[0], (1024,), i[1], i[2], 1e-5), 3e-2),
        "rmsnorm_f16": (rmsnorm, lambda: ([randn(rows * 2, 1024, dtype=f16), randn(1024, dtype=f16)],
                                          [nan(rows * 2, 1024, dtype=f16)], [1024]), (rows * 2, 1, 1),
                        lambda i: (i[0].float() * torch.rsqrt(i[0].float().pow(2).mean(1, keepdim=True) + 1e-6)
                                   * i[1].float()).half(), 3e-2),
        "row_sum_bf16_12000x10000": (row_sum, lambda: ([randn(12000 // k, 10000, dtype=bf16)], [nan(12000 // k)], [4, 1024]),
                                     (math.ceil(12000 // k / 4), 1, 1), lambda i: i[0].float().sum(1), 1e-1),
        "col_sum_f32": (col_sum, lambda: ([randn(rows, 1024)], [nan(1024)], [64, 128]), (8, 1, 1),
                        lambda i: i[0].sum(0), 1e-1),
        "argmax_f32": (argmax, lambda: ([randn(rows * 4, 256)], [torch.full((rows * 4,), -1, device="cuda",
                                                                            dtype=torch.int32)], [256]),
                       (rows * 4, 1, 1), lambda i: i[0].argmax(1).to(torch.int32), 0),
        # the same bytes in rows of 2 KiB (one program per warp loads 2 KiB already)
        "argmax_f32_x512": (argmax, lambda: ([randn(rows * 2, 512)], [torch.full((rows * 2,), -1, device="cuda",
                                                                                 dtype=torch.int32)], [512]),
                            (rows * 2, 1, 1), lambda i: i[0].argmax(1).to(torch.int32), 0),
        "cumsum_f32": (cumsum, lambda: ([randn(rows, 1024)], [nan(rows, 1024)], [1024]), (rows, 1, 1),
                       lambda i: i[0].cumsum(1), 1e-3),
        "transpose_f32": (transpose, lambda: ([randn(8192 // int(math.sqrt(k)), 8192)],
                                              [nan(8192, 8192 // int(math.sqrt(k)))], [32, 64]),
                          (math.ceil(8192 // int(math.sqrt(k)) / 32), 128, 1), lambda i: i[0].t().contiguous(), 0),
    }
    return cases


def _time_ms(fn, iters: int) -> float:
    import torch

    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    best = float("inf")
    for _ in range(3):
        start.record()
        for _ in range(iters):
            fn()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / iters)
    return best


def _run_cases(ns, setting: str | None, stream, copy_tbs: float) -> list[dict]:
    """Time the chosen cases under the compile switches ``setting`` (``VAR=VALUE,...``; None or
    empty: the environment as it is); the rows (named ``case[setting]`` under a setting)."""
    import torch

    import tileorch.cutile
    from tileorch.launchers.cutile import clear_caches

    saved = dict(os.environ)
    pairs = [kv.split("=", 1) for kv in (setting or "").split(",") if kv and kv != "default"]
    os.environ.update({k: v for k, v in pairs})
    clear_caches()  # programs compiled under another setting are not reused
    rows = []
    try:
        for name, (kernel, make, grid, torch_fn, tol) in _cases(ns.small).items():
            if ns.only and name not in ns.only:
                continue
            label = name if setting is None else f"{name}[{setting if pairs else 'default'}]"
            inputs, outputs, consts = make()
            args = tuple(inputs + outputs + consts)
            nbytes = sum(t.numel() * t.element_size() for t in inputs + outputs)
            row = {"case": label, "bytes": nbytes, "grid": grid}
            ref = torch_fn(inputs)
            try:
                tileorch.cutile.launch(stream, grid, kernel, args)
                torch.cuda.synchronize()
                got = outputs[0]
                err = (got.float() - ref.float()).abs().max().item() if got.dtype != torch.int32 else \
                    int((got != ref).sum().item())
                row["max_err"] = err
                row["correct"] = bool(err <= tol) and not bool(torch.isnan(got.float()).any())
                row["tileorch_ms"] = _time_ms(lambda: tileorch.cutile.launch(stream, grid, kernel, args), ns.iters)
            except Exception as exc:  # noqa: BLE001 - reported per case
                row["tileorch_error"] = f"{type(exc).__name__}: {exc}"[:300]
            try:
                if not ns.no_tileiras:
                    row["tileiras_ms"] = _time_ms(lambda: ct.launch(stream, grid, kernel, args), ns.iters)
            except Exception as exc:  # noqa: BLE001
                row["tileiras_error"] = f"{type(exc).__name__}: {exc}"[:300]
            row["torch_ms"] = _time_ms(lambda: torch_fn(inputs), ns.iters)
            for who in ("tileorch", "tileiras", "torch"):
                if f"{who}_ms" in row:
                    row[f"{who}_tbs"] = nbytes / row[f"{who}_ms"] / 1e9
            if "tileorch_ms" in row:
                row["vs_torch"] = row["torch_ms"] / row["tileorch_ms"]
                row["vs_copy"] = row["tileorch_tbs"] / copy_tbs
                if "tileiras_ms" in row:
                    row["vs_tileiras"] = row["tileiras_ms"] / row["tileorch_ms"]
            rows.append(row)
            fmt = lambda k: f"{row[k]:.2f}" if k in row else "  -- "  # noqa: E731
            print(f"{label:28s} {nbytes / 1e6:8.0f} MB  tileorch {fmt('tileorch_tbs')} TB/s  "
                  f"tileiras {fmt('tileiras_tbs')}  torch {fmt('torch_tbs')}  x torch {fmt('vs_torch')}  "
                  f"x tileiras {fmt('vs_tileiras')}  "
                  f"of copy {fmt('vs_copy')}  {'ok' if row.get('correct') else 'WRONG/FAILED'}")
            del inputs, outputs, args, ref
            torch.cuda.empty_cache()
    finally:
        os.environ.clear()
        os.environ.update(saved)
        clear_caches()
    return rows


def main(argv=None) -> int:
    import torch

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "memory_bound")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--small", action="store_true", help="sizes / 16 (a quick run)")
    ap.add_argument("--no-tileiras", action="store_true", help="skip cuTile's own compiler")
    ap.add_argument("--env", action="append", default=None,
                    help="VAR=VALUE[,VAR=VALUE...]: run the cases under these tileorch compile switches "
                         "(repeatable; 'default' = the defaults)")
    ns = ap.parse_args(argv)
    stream = torch.cuda.current_stream()
    copy_src = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    copy_dst = torch.empty_like(copy_src)
    copy_ms = _time_ms(lambda: copy_dst.copy_(copy_src), ns.iters)
    copy_tbs = 2 * copy_src.numel() / copy_ms / 1e9
    print(f"device copy (256 MB): {copy_tbs:.2f} TB/s")
    rows = []
    for setting in ns.env or [None]:
        rows += _run_cases(ns, setting, stream, copy_tbs)
    ns.out.mkdir(parents=True, exist_ok=True)
    result = {"device": torch.cuda.get_device_name(), "copy_tbs": copy_tbs, "cases": rows}
    (ns.out / "memory_bound.json").write_text(json.dumps(result, indent=1))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(12, 4))
        xs = range(len(rows))
        for off, who in ((-0.27, "tileorch"), (0, "tileiras"), (0.27, "torch")):
            ax.bar([x + off for x in xs], [r.get(f"{who}_tbs", 0) for r in rows], width=0.27, label=who)
        ax.axhline(copy_tbs, color="k", ls="--", label="device copy")
        ax.set_xticks(list(xs), [r["case"] for r in rows], rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("TB/s")
        ax.legend()
        fig.tight_layout()
        fig.savefig(ns.out / "memory_bound.png", dpi=120)
    except ImportError:
        pass
    print(f"wrote {ns.out / 'memory_bound.json'}")
    return 0 if all(r.get("correct") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
