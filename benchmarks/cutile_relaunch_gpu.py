"""A cached relaunch of a cuTile program in a fresh process, on the GPU (issue 22: < 100 ms).

Usage::

    python benchmarks/cutile_relaunch_gpu.py [--programs softmax_f16,gemm_f16] [--out build/cutile_relaunch]

For each program, with one new cache directory (``TILEORCH_CACHE_DIR``, and cuTile's own
``CUDA_TILE_CACHE_DIR``), two child processes run the same script: the first fills the caches
(compiles), the second is the relaunch.  Each child times, from its start: ``import_s`` (torch,
cuda.tile, tileorch.cutile), ``setup_s`` (the kernel's module and the arguments on the GPU: CUDA
initialisation, the user's part), ``first_launch_s`` (``tileorch.cutile.launch`` until the kernel
finished: the cache lookups, the module load, tensor maps, the launch) and ``second_launch_s``;
the parent adds the process's wall time (``wall_s``, interpreter start-up included).  With
``--cutile`` the same with ``cuda.tile.launch`` (tileiras and its cache) for comparison.

Programs: ``softmax_f16`` (a SIMT program, grid 4096) and the GEMM family's entries of
:data:`tileorch.testing.dot_programs.PROGRAMS` (``gemm_f16``: the TileAS tier, tensor maps),
at 1024 x 512 x 384.  JSON: ``cutile_relaunch.json`` under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def child(name: str, launcher: str) -> dict:
    t0 = time.perf_counter()
    import torch

    import cuda.tile as ct
    import tileorch.cutile

    t1 = time.perf_counter()
    if name == "softmax_f16":
        sys.path.insert(0, str(HERE))
        import compile_time as bench

        kernel, _spec, _ = bench._cutile_programs()[name]
        x = torch.randn((4096, 1024), dtype=torch.float16, device="cuda")
        args, grid = (x, torch.empty_like(x), 1024), (4096,)
    else:
        from tileorch.testing import dot_programs as dp

        kernel, args, grid, *_ = dp.build(name, 1024, 512, 384)
    torch.cuda.synchronize()
    stream = torch.cuda.current_stream()
    launch = tileorch.cutile.launch if launcher == "tileorch" else ct.launch
    t2 = time.perf_counter()
    launch(stream, tuple(grid), kernel, tuple(args))
    torch.cuda.synchronize()
    t3 = time.perf_counter()
    launch(stream, tuple(grid), kernel, tuple(args))
    torch.cuda.synchronize()
    t4 = time.perf_counter()
    out = {"import_s": t1 - t0, "setup_s": t2 - t1, "first_launch_s": t3 - t2, "second_launch_s": t4 - t3,
           "cutile_compiler_imported": "cuda.tile._compile" in sys.modules, "xdsl_imported": "xdsl" in sys.modules}
    if launcher == "tileorch":
        from tileorch.launchers import cutile as rc

        out["found"] = sorted({getattr(e, "source_key_remark", "") for e in rc._programs.values()})
    return out


def run(name: str, launcher: str, env: dict) -> dict:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, __file__, "--child", name, "--launcher", launcher], env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        return {"error": (proc.stderr or proc.stdout).strip().splitlines()[-3:], "wall_s": wall}
    return {"wall_s": wall, **json.loads(proc.stdout.strip().splitlines()[-1])}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", default="softmax_f16,gemm_f16")
    parser.add_argument("--cutile", action="store_true", help="also cuda.tile.launch (needs tileiras)")
    parser.add_argument("--out", default="build/cutile_relaunch")
    parser.add_argument("--child", default="", help=argparse.SUPPRESS)
    parser.add_argument("--launcher", default="tileorch", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.launcher)))
        return 0
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"])
    record: dict = {"python_startup_s": time.perf_counter() - start, "programs": {}}
    for name in args.programs.split(","):
        for launcher in ("tileorch", "cutile") if args.cutile else ("tileorch",):
            with tempfile.TemporaryDirectory(prefix="relaunch-") as tmp:
                env = dict(os.environ, TILEORCH_CACHE_DIR=f"{tmp}/tileorch", CUDA_TILE_CACHE_DIR=f"{tmp}/cutile")
                env.pop("TILEORCH_CACHE", None)
                cold, warm = run(name, launcher, env), run(name, launcher, env)
            record["programs"][f"{name} {launcher}"] = {"cold": cold, "relaunch": warm}
            r = warm
            print(f"{name:14s} {launcher:8s} relaunch: wall {r.get('wall_s', 0):.3f}s = import {r.get('import_s', 0):.3f} "
                  f"+ setup {r.get('setup_s', 0):.3f} + first launch {r.get('first_launch_s', 0):.3f} (+ interpreter); "
                  f"cold first launch {cold.get('first_launch_s', float('nan')):.3f}s; "
                  f"cuTile's compiler imported: {r.get('cutile_compiler_imported')}; {r.get('error', '')}", flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "cutile_relaunch.json").write_text(json.dumps(record, indent=1))
    print(f"wrote {out / 'cutile_relaunch.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
