"""Session 37 (issue 20): two of session 36's attention spellings before / after this session's rewrites of the
chained tier, each beside the textbook program at comparable tiles and SDPA, in one process
(``benchmarks/attnsweep36.py``'s cases, shapes and checks: B=4, H=16, S=4096, fp16; TFLOP/s of the two dots).

* ``--group exp``: ``s36_scale_in_exp`` (``p = exp((s - m) * sm_scale)``, causal d64 128x64) with
  ``TILEORCH_ATTN_SOFTMAX_EXP_SCALED=1`` (after: ex2.approx of ``(s - m) * (sm_scale log2 e)``) and ``=0`` (before: the
  spec's full-precision exp), the textbook causal program at the same tiles, Triton's tutorial spelling beside.
* ``--group plain``: ``s36_bn256_plain`` (d64, 64x256) and ``s36_d80_bn256`` (64x256, D=128), tiles too wide for the
  overlapped loop, with ``TILEORCH_ATTN_PLAIN_MASKS=1`` (after: interior key tiles without the mask's compare and
  select) and ``=0`` (before); the textbook 128x128 (d64) program beside (d80 128x64: session 37's sweep, 306.6).
* ``--group rescale``: ``s36_d160_cross_bn32`` (64x32 tiles, D=256: the accumulator's 128 FMUL per thread rescale
  every 32 keys, 144 of the tile's 339 SASS per warp) under the existing ``TILEORCH_ATTN_SKIP_RESCALE=1`` (the
  rescale skipped where no row max of the warp grew: 215 on that path) against the default ``0``; no new code,
  a measurement for the switch's default at wide accumulators and narrow key tiles.

One JSON row per run (``variant``: after / before / textbook; ``env``: the switches set); SDPA timed on the after
and textbook rows only.

    python3 benchmarks/session37_attnforms.py --group exp|plain|rescale [--iters 20]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

GROUPS = {
    "exp": [("s36_scale_in_exp", "after", {"TILEORCH_ATTN_SOFTMAX_EXP_SCALED": "1"}),
            ("s36_scale_in_exp", "before", {"TILEORCH_ATTN_SOFTMAX_EXP_SCALED": "0"}),
            ("tb_causal_d64_128x64", "textbook", {}),
            ("s36_triton_tutorial", "spelling", {})],
    "plain": [("s36_bn256_plain", "after", {"TILEORCH_ATTN_PLAIN_MASKS": "1"}),
              ("s36_bn256_plain", "before", {"TILEORCH_ATTN_PLAIN_MASKS": "0"}),
              ("s36_d80_bn256", "after", {"TILEORCH_ATTN_PLAIN_MASKS": "1"}),
              ("s36_d80_bn256", "before", {"TILEORCH_ATTN_PLAIN_MASKS": "0"}),
              ("tb_plain_d64_128x128", "textbook", {})],
    "rescale": [("s36_d160_cross_bn32", "skip", {"TILEORCH_ATTN_SKIP_RESCALE": "1"}),
                ("s36_d160_cross_bn32", "before", {"TILEORCH_ATTN_SKIP_RESCALE": "0"})],
}


def main(argv=None) -> int:
    import torch

    import attnsweep36 as sweep

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--group", choices=sorted(GROUPS), required=True)
    ap.add_argument("--iters", type=int, default=20)
    a = ap.parse_args(argv)
    cases = {**sweep._cases(torch), **sweep._cases(torch, textbook=True)}
    for name, variant, env in GROUPS[a.group]:
        for k, v in env.items():
            os.environ[k] = v
        build = cases[name]

        def no_sdpa(build=build):
            c = build()
            c["sdpa"] = lambda: (_ for _ in ()).throw(RuntimeError("not timed (before row)"))
            return c

        try:
            row = sweep.run_one(name, no_sdpa if variant == "before" else build, a.iters, torch)
        except Exception as exc:  # noqa: BLE001 - one run's failure is its row
            row = {"program": name, "error": f"{type(exc).__name__}: {exc}"[:400]}
        for k in env:
            del os.environ[k]
        row = {"variant": variant, "env": env, **row}
        print(json.dumps(row), flush=True)
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
