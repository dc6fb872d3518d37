"""Stress probe: many processes sharing one GPU launch cuTile GEMM programs whose operand the
launcher copies K-major at each launch (tf32 / int8 / fp8 with an N-major B or an M-major A), beside
control programs that need no copy, with NaN-prefilled outputs.  Sessions 18 and 19 saw such
programs return an output that was entirely unwritten (no error) under 15 pytest-xdist workers
and pass alone; this script looks for it outside pytest and bisects the launcher's caches.

Usage: ``python benchmarks/stress_launch_copies.py --procs 15 --seconds 60 --variant base``
Variants: ``base``; ``sync_copy`` (synchronize the device after each launch-time copy);
``no_prepared`` (drop the bound-problem cache before each launch); ``noevict`` (the K-major copies never evicted); ``fresh_copy`` (a new copy buffer every launch);
``control`` (only programs without a launch-time copy); ``clear`` (drop every launcher
cache before each launch, as tests that call ``clear_caches`` do); ``private_cache`` (each process
its own on-disk cache).  ``--load N`` starts N processes that keep the GPU busy with torch matmuls.
Prints one JSON line per variant (launches, failures, the first failures' details)."""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import sys
import tempfile
import time
import traceback

SHAPES = [(1000, 520, 384), (129, 264, 72), (256, 256, 64), (333, 200, 700)]


def _programs():
    from tileorch.testing.dot_programs import KNOWN_REFUSED, PROGRAMS

    control_f16 = [n for n, p in PROGRAMS.items() if n not in KNOWN_REFUSED and p.dtype in ("f16", "bf16")
                   and ("linear" in n or "bt" in n)][:6]
    copies = [n for n, p in PROGRAMS.items() if n not in KNOWN_REFUSED
              and (p.dtype in ("tf32", "i8", "u8", "e4m3", "e5m2") or "major" in n or n.endswith("_at"))]
    control = [n for n, p in PROGRAMS.items() if n not in KNOWN_REFUSED and n not in copies
               and p.dtype in ("f16", "bf16")][:8]
    return copies, control_f16 + control


def _load(seconds: float) -> None:
    import torch

    a = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    end = time.time() + seconds
    keep = []
    while time.time() < end:
        a = (a @ a).clamp_(-1, 1)
        keep.append(torch.empty(random.randint(1, 64) << 20, dtype=torch.uint8, device="cuda"))
        if len(keep) > 20:
            keep.pop(random.randrange(len(keep)))
        torch.cuda.synchronize()


def _worker(rank: int, variant: str, seconds: float, out_q) -> None:
    try:
        import torch

        import tileorch.cutile
        from tileorch.launchers import cutile as rc
        from tileorch.launchers import launch_copies  # (the K-major copies' buffers: its pool "k_major")
        from tileorch.testing.dot_programs import PROGRAMS, build, unwritten

        original = rc._k_major_copy
        calls = []  # (source object, buffer pointer) of this launch's copies
        fresh = []
        snaps = []  # (buffer, its bytes after the copy, copy equal to the source)

        def recorded(obj, b, stream, *rest):
            if variant == "fresh_copy":  # a new buffer every launch (the last few kept alive)
                launch_copies.forget("k_major")
            got = original(obj, b, stream, *rest)  # (the copy's pointer, its bound launch or None, what made it)
            ptr = got[0]
            if variant == "fresh_copy":
                fresh.extend(launch_copies.held("k_major").values())
                del fresh[:-4]
            if variant in ("sync_copy", "snapshot"):
                torch.cuda.synchronize()
            if variant == "snapshot":  # the copy as it stands before the kernel runs
                buf = [t for t in dict.values(launch_copies.held("k_major")) if t.data_ptr() == ptr][0]
                src = obj.transpose(-1, -2).contiguous()
                snaps.append((buf, buf.clone(), bool(torch.equal(buf.view(torch.uint8), src.view(torch.uint8)))))
            calls.append((obj, ptr))
            return got

        rc._k_major_copy = recorded
        if variant == "noevict":
            launch_copies.LIMITS["k_major"] = 1 << 30  # the pool's eviction never runs
        copies, control = _programs()
        if variant == "control":
            copies = []
        by = {}
        rng = random.Random(rank * 7919 + 1)
        stats = {"rank": rank, "launches": 0, "copy_launches": 0, "failures": []}
        end = time.time() + seconds
        while time.time() < end:
            name = rng.choice(copies + control[:4]) if copies else rng.choice(control)
            m, n, k = rng.choice(SHAPES)
            if variant == "clear":
                rc.clear_caches()
            elif variant == "no_prepared":
                rc._prepared.clear()
            kernel, args, grid, out, ref, _lib = build(name, m, n, k, seed=rng.randrange(1 << 30))
            before = (len(rc._prepared), len(launch_copies.held("k_major")))
            prep_keys, copy_keys = set(rc._prepared), set(dict.keys(launch_copies.held("k_major")))
            calls.clear()
            snaps.clear()
            try:
                tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args, tiles=rng.choice(["auto", "program"]))
            except Exception as exc:  # noqa: BLE001  (refusals of a shape: counted, not failures)
                stats.setdefault("errors", []).append(f"{name} {m}x{n}x{k}: {type(exc).__name__}: {str(exc)[:200]}")
                continue
            torch.cuda.synchronize()
            stats["launches"] += 1
            stats["copy_launches"] += name in copies
            prep_miss = bool(rc._prepared) and next(reversed(rc._prepared)) not in prep_keys
            copy_miss = any(k not in copy_keys for k in dict.keys(launch_copies.held("k_major")))
            outs = out if isinstance(out, tuple) else (out,)
            bad = [float(unwritten(o).float().mean()) for o in outs]
            refs = ref if isinstance(ref, tuple) else (ref,)
            if not any(bad) and isinstance(refs[0], torch.Tensor) and refs[0].shape == outs[0].shape:
                r = refs[0].double()
                err = float((outs[0].double() - r).norm() / max(float(r.norm()), 1e-30))
                if err > 3e-2:  # finite but wrong (a stale operand whose bytes were not NaN)
                    bad = [-err]
            slot = by.setdefault(f"{name} prep_miss={prep_miss} copy_miss={copy_miss}", [0, 0])
            slot[0] += 1
            slot[1] += any(bad) > 0
            for buf, snap, copy_ok in snaps:
                changed = not torch.equal(buf.view(torch.uint8), snap.view(torch.uint8))
                kind = f"snapshot copy_ok={copy_ok} buffer_changed_by_kernel={changed} failed={any(bad) > 0}"
                by.setdefault(kind, [0, 0])[0] += 1
            if any(bad):
                detail = {"name": name, "shape": [m, n, k], "unwritten_fraction": bad, "cache_sizes_before": before,
                          "t": round(time.time() - (end - seconds), 2)}
                for key, buf in list(launch_copies.held("k_major").items())[-1:]:
                    detail["last_copy_buffer_nan"] = float(torch.isnan(buf.float()).float().mean())
                entry = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", "persistent")
                detail["kind"] = entry.program.kind
                detail["prep_miss"], detail["copy_miss"] = prep_miss, copy_miss
                for obj, ptr in calls:
                  try:
                    bufs = [t for t in dict.values(launch_copies.held("k_major")) if t.data_ptr() == ptr]
                    src = obj.transpose(-1, -2).contiguous()
                    detail.setdefault("copies", []).append({
                        "source_nan": float(torch.isnan(obj.float()).float().mean()),
                        "buffer_found": bool(bufs),
                        "buffer_nan": float(torch.isnan(bufs[0].float()).float().mean()) if bufs else None,
                        "buffer_equals_source": bool(torch.equal(bufs[0].view(torch.uint8), src.view(torch.uint8)))
                        if bufs else None})
                  except Exception as exc:  # noqa: BLE001
                    detail.setdefault("copies", []).append({"diagnostic_error": repr(exc)[:200]})
                o = outs[0]
                if o.dim() == 2:
                    u = unwritten(o)
                    detail["nan_cols_whole"] = int(u.all(0).sum())
                    detail["nan_rows_whole"] = int(u.all(1).sum())
                    detail["out_shape"] = list(o.shape)
                detail["cfg"] = getattr(getattr(entry.program, "gemm_config", None), "name", "")
                # the same launch again, now: does it write?
                for o in outs:
                    o.fill_(float("nan")) if o.dtype.is_floating_point else o.fill_(-2**31)
                tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
                torch.cuda.synchronize()
                detail["again_unwritten"] = [float(unwritten(o).float().mean()) for o in outs]
                stats["failures"].append(detail)
        stats["by"] = by
        out_q.put(stats)
    except Exception:  # noqa: BLE001
        out_q.put({"rank": rank, "crash": traceback.format_exc()[-2000:]})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--procs", type=int, default=15)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--variant", default="base")
    ap.add_argument("--load", type=int, default=2)
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    if a.variant != "private_cache":
        os.environ["TILEORCH_CACHE_DIR"] = os.environ.get("TILEORCH_CACHE_DIR") or tempfile.mkdtemp(prefix="stress-cache-")
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    loads = [ctx.Process(target=_load, args=(a.seconds + 30,)) for _ in range(a.load)]
    for p in loads:
        p.start()
    procs = []
    for r in range(a.procs):
        env_dir = tempfile.mkdtemp(prefix=f"stress-cache-{r}-") if a.variant == "private_cache" else None
        if env_dir:
            os.environ["TILEORCH_CACHE_DIR"] = env_dir
        p = ctx.Process(target=_worker, args=(r, a.variant, a.seconds, q))
        p.start()
        procs.append(p)
    results = [q.get(timeout=a.seconds + 600) for _ in procs]
    for p in procs + loads:
        p.join(timeout=60)
        if p.is_alive():
            p.kill()
    summary = {"variant": a.variant, "procs": a.procs, "seconds": a.seconds, "load": a.load,
               "launches": sum(r.get("launches", 0) for r in results),
               "copy_launches": sum(r.get("copy_launches", 0) for r in results),
               "failures": sum(len(r.get("failures", [])) for r in results),
               "crashes": [r["crash"] for r in results if "crash" in r][:2],
               "errors": sorted({e for r in results for e in r.get("errors", [])})[:10],
               "first_failures": [f for r in results for f in r.get("failures", [])][:10]}
    by = {}
    for r in results:
        for k, (n, f) in r.get("by", {}).items():
            slot = by.setdefault(k, [0, 0])
            slot[0] += n
            slot[1] += f
    summary["by"] = dict(sorted(by.items()))
    line = json.dumps(summary)
    print(line, flush=True)
    if a.json:
        with open(a.json, "a") as f:
            f.write(line + "\n")


if __name__ == "__main__":
    sys.exit(main())
