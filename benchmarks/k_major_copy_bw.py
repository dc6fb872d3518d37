"""Bandwidth of the launcher's K-major copy (``tileorch.launchers.k_major_copy``) on the GPU: tileorch's copy
program (a cuTile transpose the SIMT path compiles) against torch's transposed copy (``buf.copy_(x.t())``, what
the launcher ran before session 43), per dtype at ``--rows x --cols``; each checked bit-exact against torch's
transpose first (outputs pre-filled).  GB/s counts the bytes read and written (2 x the array).

    python benchmarks/k_major_copy_bw.py [--rows 4096] [--cols 4096] [--iters 30] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import sys


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--cols", type=int, default=4096)
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--json", default="")
    opts = ap.parse_args()
    import torch

    import tileorch.cutile
    from tileorch.launchers import k_major_copy as kc
    from tileorch.testing.timing import bench_ms

    stream = torch.cuda.current_stream()
    rows = []
    for name, dtype in (("f32", torch.float32), ("fp8_e4m3", torch.float8_e4m3fn), ("int8", torch.int8)):
        x = torch.randint(-100, 100, (opts.rows, opts.cols), device="cuda", dtype=torch.int32).to(torch.float32)
        x = x.to(dtype)
        y = torch.empty((opts.cols, opts.rows), device="cuda", dtype=dtype)
        y.view(torch.uint8).fill_(0xFF) if y.element_size() == 1 else y.fill_(float("nan"))
        kernel, grid, args = kc.plan(x.data_ptr(), tuple(x.shape), tuple(x.stride()), x.element_size(), y.data_ptr())
        tileorch.cutile.launch(stream, grid, kernel, args)
        torch.cuda.synchronize()
        ok = torch.equal(y.view(torch.uint8) if y.element_size() == 1 else y,
                         x.t().contiguous().view(torch.uint8) if y.element_size() == 1 else x.t().contiguous())
        nbytes = 2 * x.numel() * x.element_size()
        ours = bench_ms(lambda: tileorch.cutile.launch(stream, grid, kernel, args), opts.iters)
        theirs = bench_ms(lambda: y.copy_(x.t()), opts.iters)
        row = {"dtype": name, "rows": opts.rows, "cols": opts.cols, "exact": bool(ok), "tileorch_ms": round(ours, 4),
               "tileorch_gbps": round(nbytes / ours / 1e6, 1), "torch_ms": round(theirs, 4),
               "torch_gbps": round(nbytes / theirs / 1e6, 1), "tiles": kc.TILES[x.element_size()]}
        rows.append(row)
        print(f"[s43 nmajor] copy {name} {opts.rows}x{opts.cols}: exact={ok} tileorch {row['tileorch_gbps']} GB/s "
              f"({ours * 1e3:.1f} us), torch copy_ {row['torch_gbps']} GB/s ({theirs * 1e3:.1f} us)", flush=True)
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"rows": rows, "device": torch.cuda.get_device_name()}, f, indent=1)
    return 0 if all(r["exact"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
