"""Run ``examples/ws_stream_copy.mlir`` on a GPU and check the copy bit-exactly.

    python benchmarks/run_example.py build   # here (tileorch + ptxas): build/example/ws_stream_copy.ptx
    python3 benchmarks/run_example.py run    # on the GPU: numpy + cuda-python, no xDSL needed

``run`` loads the PTX (driver JIT) with :mod:`tileorch.runtime`, copies random words for several
(tiles, grid) shapes -- no tiles, fewer tiles than CTAs, many laps of the 4-stage ring per CTA,
a ragged last round, 1 GiB on a full grid -- and checks that ``dst`` equals ``src`` word for
word and that the guard words after the copied range still hold their sentinel.  The 1 GiB case
is also timed (median of 10 launches) against torch's device-to-device copy when torch is there.
Exit status 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

EXAMPLE = ROOT / "examples" / "ws_stream_copy.mlir"
PTX = ROOT / "build" / "example" / "ws_stream_copy.ptx"
KERNEL = "ws_stream_copy"
TILE_BYTES = 16384          # the example's tile (= its pipeline transaction size)
STAGES = 4
BLOCK = 288                 # 1 producer warp + 2 consumer warp groups
SMEM = STAGES * TILE_BYTES  # dynamic shared memory: the stage ring
GUARD_WORDS = 4096          # sentinel words after the copied range
SENTINEL = 0xDEADBEEF
CTAS_PER_SM = 3             # 3 x 64 KiB rings fit the 227 KiB an SM offers


def build(out: Path) -> None:
    from tileorch.driver import compile_text

    result = compile_text(EXAMPLE.read_text(), str(EXAMPLE), ptxas=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(result.ptx)
    print(f"wrote {out} ({result.ptx.count(chr(10))} lines, accepted by ptxas -arch={result.arch})")


def copy_once(kernel, ntiles: int, grid: int, rng: np.random.Generator) -> tuple[bool, float]:
    """Copy ``ntiles`` random tiles with ``grid`` CTAs; (exact and guard intact, kernel ms)."""
    from tileorch import runtime

    words = ntiles * TILE_BYTES // 4
    host = rng.integers(0, 1 << 32, words + GUARD_WORDS, dtype=np.uint32)
    src = runtime.DeviceBuffer.from_array(host)
    dst = runtime.DeviceBuffer.from_array(np.full(words + GUARD_WORDS, SENTINEL, np.uint32))
    done = runtime.launch(kernel, grid, BLOCK, [src, dst, np.int32(ntiles)], smem=SMEM, timeout_s=20)
    out = dst.download(np.uint32)
    ok = np.array_equal(out[:words], host[:words]) and bool((out[words:] == SENTINEL).all())
    return ok, done.elapsed_ms()


def timed(kernel, ntiles: int, grid: int, reps: int) -> dict:
    """Median kernel time over ``reps`` launches on 1 buffer pair, and torch's copy if present."""
    from tileorch import runtime

    nbytes = ntiles * TILE_BYTES
    src, dst = runtime.DeviceBuffer(nbytes), runtime.DeviceBuffer(nbytes)
    args = [src, dst, np.int32(ntiles)]
    runtime.launch(kernel, grid, BLOCK, args, smem=SMEM, timeout_s=20)
    ms = statistics.median(
        runtime.launch(kernel, grid, BLOCK, args, smem=SMEM, timeout_s=20).elapsed_ms() for _ in range(reps))
    row = dict(bytes=nbytes, grid=grid, ms=ms, gbs=2 * nbytes / ms / 1e6)
    try:
        import torch
    except ImportError:
        return row
    s = torch.empty(nbytes // 4, dtype=torch.int32, device="cuda")
    d = torch.empty_like(s)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def once() -> float:
        start.record()
        d.copy_(s)
        end.record()
        end.synchronize()
        return start.elapsed_time(end)

    once()
    copy_ms = statistics.median(once() for _ in range(reps))
    row.update(copy_gbs=2 * nbytes / copy_ms / 1e6, ratio=copy_ms / ms)
    return row


def run(ptx: Path, out: Path | None) -> int:
    from tileorch import runtime

    dev = runtime.current_device()
    kernel = runtime.Module.from_file(ptx).kernel(KERNEL)
    full = dev.sm_count * CTAS_PER_SM
    big = (1 << 30) // TILE_BYTES
    shapes = [(0, 4), (3, 8), (256, 8), (1000, full), (big, full)]
    rng = np.random.default_rng(0)
    print(f"{dev.name} ({dev.sm_count} SMs), {KERNEL}: block {BLOCK}, smem {SMEM}, tile {TILE_BYTES} B")
    rows, failed = [], 0
    for ntiles, grid in shapes:
        ok, ms = copy_once(kernel, ntiles, grid, rng)
        failed += not ok
        rows.append(dict(ntiles=ntiles, grid=grid, exact=ok, ms=ms))
        print(f"  {ntiles:6d} tiles ({ntiles * TILE_BYTES / 2**20:7.2f} MiB), grid {grid:4d}: "
              f"{'exact' if ok else 'MISMATCH'} ({ms:.3f} ms)")
    perf = timed(kernel, big, full, reps=10)
    line = f"  1 GiB, grid {perf['grid']}: {perf['ms']:.3f} ms, {perf['gbs']:.0f} GB/s (read + write)"
    if "ratio" in perf:
        line += f"; torch copy {perf['copy_gbs']:.0f} GB/s; ratio {perf['ratio']:.3f}"
    print(line)
    print("all exact" if not failed else f"{failed} shape(s) WRONG")
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "run_example.json").write_text(json.dumps(dict(device=dev.name, rows=rows, perf=perf), indent=1))
    return 1 if failed else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="compile the example to PTX (needs tileorch's compiler)")
    b.add_argument("--out", type=Path, default=PTX)
    r = sub.add_parser("run", help="run the PTX on the GPU and check it")
    r.add_argument("--ptx", type=Path, default=PTX)
    r.add_argument("--out", type=Path, default=None, help="write run_example.json here")
    args = ap.parse_args()
    if args.cmd == "build":
        build(args.out)
    else:
        from tileorch.runtime import GpuUnavailable

        try:
            sys.exit(run(args.ptx, args.out))
        except GpuUnavailable as exc:
            print(f"run_example: no GPU: {exc}", file=sys.stderr)
            sys.exit(2)


if __name__ == "__main__":
    main()
