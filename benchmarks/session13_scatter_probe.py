"""Session 13 probe: host time per ``tileorch.cutile.launch`` call and GPU time per kernel of the 64 MB row
scatter and gather (memory_bound.py's programs), to tell a host-bound measurement from a slower kernel.
Run on the GPU machine: python3 benchmarks/session13_scatter_probe.py"""

from __future__ import annotations

import time

import torch

import tileorch.cutile
from tileorch.testing.memory_programs import gather_rows, scatter_rows


def main() -> None:
    rows = 8188
    stream = torch.cuda.current_stream()
    src = torch.randn(rows, 1024, device="cuda")
    perm = torch.randperm(rows, device="cuda").to(torch.int32)
    out = torch.empty_like(src)
    table = torch.randn(2 * rows, 1024, device="cuda")
    idx = torch.randint(0, 2 * rows, (rows,), device="cuda", dtype=torch.int32)
    cases = {"scatter": (scatter_rows, (src, perm, out, 4, 1024)), "gather": (gather_rows, (table, idx, out, 4, 1024))}
    for name, (kernel, args) in cases.items():
        grid = ((rows + 3) // 4, 1, 1)
        tileorch.cutile.launch(stream, grid, kernel, args)
        torch.cuda.synchronize()
        n = 2000
        t0 = time.perf_counter()
        for _ in range(n):
            tileorch.cutile.launch(stream, grid, kernel, args)
        host = (time.perf_counter() - t0) / n * 1e6
        torch.cuda.synchronize()
        gpu = (time.perf_counter() - t0) / n * 1e6
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        for _ in range(200):
            tileorch.cutile.launch(stream, grid, kernel, args)
        e1.record()
        e1.synchronize()
        print(f"{name}: host {host:.2f} us/call (enqueue only), wall incl. GPU {gpu:.2f} us/call, "
              f"events {e0.elapsed_time(e1) / 200 * 1000:.2f} us/kernel")


if __name__ == "__main__":
    main()
