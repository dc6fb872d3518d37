"""Issue 21, session 20: the int64-id embedding gather of sweep 10 (``embedding_gather_int64_ids``: a
bf16 ``[V, 96]`` table, 16 tokens x 128 columns per program, the columns past 96 masked) at a
realistic size, tileorch under each setting of its compile switches beside torch's ``table[ids]``, in
one process (tileorch's in-process caches cleared between settings).  At the default 4 vector runs a
thread (64 threads) ptxas needs 53 registers where the resident-CTA hint allows 40, so the backend
assembles it again without the hint (a remark); ``TILEORCH_GATHER_RUNS=2`` (128 threads, 2 runs) fits
the hint at 35 registers (48 warps per SM) but has half the bytes in flight per thread.  Which is
faster is what this measures.  Output rows must equal torch's bit for bit.

    python benchmarks/embedding_gather_probe.py [--tokens N] [--vocab V] [--iters N]
        [--env VAR=VALUE[,VAR=VALUE...] ...]     (default: --env default --env TILEORCH_GATHER_RUNS=2)

Needs a GPU, torch and cuda-tile.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


def _time_us(fn, iters: int) -> float:
    """Microseconds per call, timed as benchmarks/memory_bound.py times (the best of 3 event-timed
    batches: :func:`tileorch.testing.timing.best_batch_ms`)."""
    from tileorch.testing.timing import best_batch_ms

    return best_batch_ms(fn, iters) * 1000


def main(argv: list[str]) -> int:
    import torch

    import tileorch.cutile
    from tileorch.launchers.cutile import clear_caches
    from tileorch.testing.user_programs10 import embedding_gather_int64_ids

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", type=int, default=262144)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--env", action="append", default=None)
    ns = ap.parse_args(argv)
    g = torch.Generator(device="cuda").manual_seed(0)
    table = torch.randn(ns.vocab, 96, device="cuda", generator=g).to(torch.bfloat16)
    ids = torch.randint(0, ns.vocab, (ns.tokens,), device="cuda", generator=g, dtype=torch.int64)
    ref = table[ids]
    moved = 2 * ref.numel() * ref.element_size() + ids.numel() * 8
    stream = torch.cuda.current_stream()
    torch_us = _time_us(lambda: table[ids], ns.iters)
    print(f"embedding gather: {ns.tokens} tokens, vocab {ns.vocab}, bf16 x 96; {moved / 1e6:.0f} MB moved; "
          f"torch {torch_us:.1f} us ({moved / torch_us / 1e6:.2f} TB/s)")
    for setting in ns.env or ["default", "TILEORCH_GATHER_RUNS=2"]:
        saved = dict(os.environ)
        os.environ.update(dict(kv.split("=", 1) for kv in setting.split(",") if kv and kv != "default"))
        clear_caches()
        try:
            out = torch.full((ns.tokens, 96), float("nan"), device="cuda", dtype=torch.bfloat16)
            args = (ids, table, out, 16, 128)
            grid = ((ns.tokens + 15) // 16, 1, 1)
            tileorch.cutile.launch(stream, grid, embedding_gather_int64_ids, args)
            torch.cuda.synchronize()
            ok = torch.equal(out, ref)
            us = _time_us(lambda: tileorch.cutile.launch(stream, grid, embedding_gather_int64_ids, args), ns.iters)
            print(f"  [{setting}] tileorch {us:.1f} us ({moved / us / 1e6:.2f} TB/s), x torch {torch_us / us:.3f}, "
                  f"{'ok' if ok else 'WRONG'}", flush=True)
        finally:
            os.environ.clear()
            os.environ.update(saved)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
