"""Session 33's K-ahead A/B in one process: the attention zoo's q-k RMSNorm program
(``z32_qk_rmsnorm``) under ``TILEORCH_ATTN_K_AHEAD=0`` and ``=1``, alternating (ka0, ka1, ka0, ka1)
so the noise is visible, each compiled under its own switch (the switches are part of the compile
cache key) and launched beside SDPA flash (benchmarks/attnzoo32.py's ``run_one``).  Prints one line
per run: the variant, whether the compiled kernel's record says ``k_ahead`` (its remark), error,
ms, TFLOP/s; then the zoo's textbook-shaped control (``z32_keys_last_tile_first``, no K prologue:
K_AHEAD must not apply, its remark absent) under both.

Run on the device: ``python3 benchmarks/session33_kahead.py [--iters 20]``."""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

KA_REMARK = "on tile j+1 while tile j's first dot runs"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--only", default="z32_qk_rmsnorm,z32_keys_last_tile_first")
    ap.add_argument("--rounds", type=int, default=2)
    ns = ap.parse_args(argv)
    import torch

    import attnzoo32
    from tileorch.launchers import cutile as rc
    from tileorch.testing.attnzoo32_programs import PROGRAMS

    cases = attnzoo32._cases(torch)
    for name in ns.only.split(","):
        for rnd in range(ns.rounds if name == "z32_qk_rmsnorm" else 1):
            for ka in ("0", "1"):
                os.environ["TILEORCH_ATTN_K_AHEAD"] = ka
                try:
                    row = attnzoo32.run_one(torch, name, cases[name], ns.iters)
                    c = cases[name]()
                    kernel = PROGRAMS[name].kernel
                    prog = rc.compiled(kernel, rc.describe_arguments(kernel, tuple(c["args"])), "sm_90a",
                                       "persistent").program
                    row["k_ahead_remark"] = any(KA_REMARK in r for r in (getattr(prog, "remarks", None) or []))
                except Exception as exc:  # noqa: BLE001 - a failed run is a line
                    row = {"program": name, "error": f"{type(exc).__name__}: {exc}"[:300]}
                print(f"[K_AHEAD={ka} round {rnd}] {name} path {row.get('tileorch_path')} k_ahead_remark "
                      f"{row.get('k_ahead_remark')} unwritten {row.get('unwritten')} err {row.get('tileorch_err')} "
                      f"ms {row.get('tileorch_ms')} TF {row.get('tileorch_tflops')} | sdpa TF "
                      f"{row.get('sdpa_flash_tflops')} {row.get('error', '')}", flush=True)
                print(json.dumps({"k_ahead": ka, "round": rnd, **row}), file=sys.stderr, flush=True)
                torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
