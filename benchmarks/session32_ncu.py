"""Session 32: one profiled launch per case, for Nsight Compute (``ncu --profile-from-start off``).

Each case is compiled and launched once (warm), then launched once more between
``cudaProfilerStart`` / ``cudaProfilerStop``, so ncu sees exactly one kernel per case:
attention (the textbook program of benchmarks/attention.py; d64 / d128 at 1k and 4k) and the
memory-bound rows of benchmarks/memory_bound.py named on the command line.

    ncu --clock-control none --profile-from-start off --section SpeedOfLight ... \
        python3 benchmarks/session32_ncu.py attn:64:1024 attn:128:1024 mb:cross_entropy_bf16_v4096
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _profiled(label: str, fn) -> None:
    import torch

    fn()
    torch.cuda.synchronize()
    print(f"== {label}", flush=True)
    torch.cuda.cudart().cudaProfilerStart()
    fn()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


def attn(d: int, seq: int, causal: bool = False, tokens: int = 262144) -> None:
    import torch

    import tileorch.cutile
    from tileorch.testing.attention_programs import LOG2E, attention_fwd

    bh, tm, tn = tokens // seq, 128, (128 if d <= 128 else 64)
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(bh, seq, d, device="cuda", generator=g, dtype=torch.float16) for _ in range(3))
    out = torch.full_like(q, float("nan"))
    args = (q, k, v, out, LOG2E / math.sqrt(d), seq, tm, tn, d, causal)
    stream = torch.cuda.current_stream()
    _profiled(f"attn d{d} S{seq}{' causal' if causal else ''}",
              lambda: tileorch.cutile.launch(stream, ((seq + tm - 1) // tm, bh, 1), attention_fwd, args))


def memory_bound(name: str) -> None:
    import torch

    import memory_bound as mb
    import tileorch.cutile

    kernel, make, grid, *_ = mb._cases(1.0)[name]
    inputs, outputs, consts = make()
    args = tuple(inputs + outputs + consts)
    stream = torch.cuda.current_stream()
    _profiled(f"mb {name}", lambda: tileorch.cutile.launch(stream, grid, kernel, args))


def main(argv: list[str]) -> int:
    for spec in argv:
        kind, *rest = spec.split(":")
        if kind == "attn":
            attn(int(rest[0]), int(rest[1]), len(rest) > 2 and rest[2] == "causal")
        elif kind == "mb":
            memory_bound(rest[0])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
