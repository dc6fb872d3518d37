"""Session 33 (issue 22 item 3): host time per launch, same process, several cuTile programs.

For each program, in alternating rounds (``launch_overhead.compared_us``: ROUNDS rounds, the
stream synchronised every SYNC_EVERY calls outside the timed calls), microseconds per call of

* ``tileorch``: ``tileorch.cutile.launch`` bound with ``TILEORCH_LAUNCH_C=1`` (opt-in: the
  compiled C launcher where it builds, repeats checked in C; its ``path`` printed),
* ``tileorch_s32``: the same as before session 33, today's default (another kernel object of the
  same function, bound with ``TILEORCH_LAUNCH_CTYPES=0 TILEORCH_LAUNCH_C=0``: cuda-python's
  binding, the repeated call's key checked in Python),
* ``cuda_tile``: ``cuda.tile.launch`` (needs tileiras; else skipped with the reason),
* ``bare_c``: the bound launch's C launcher called alone (the driver call and nothing else; the
  default path's repeated call is ``Memo`` (the key checked in C) then this),
* ``bare_cuda_python``: cuda-python's ``cuLaunchKernelEx`` alone with the bound launch's objects,
* ``torch``: a torch op of the same kind (an elementwise op on the same tensors),

and the kernel's output checked against torch (NaN-prefilled).  Programs: ``scale_1m`` (1M floats,
1024 CTAs), ``scale_small`` (1024 floats, one CTA: GPU time below the host time, so the queue
never backs up), ``add_2d`` (three 2-D arrays, 2-D grid), ``axpy_4`` (four arguments after
three arrays).  One line per program and launcher: ``[s33] PROGRAM LAUNCHER  X.XX us median``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import launch_overhead as lo  # noqa: E402

CALLS = int(os.environ.get("S33_CALLS", "2000"))


def main() -> int:
    import cuda.tile as ct
    import torch

    import tileorch.cutile
    from tileorch.launchers import cutile_bound as cb
    from tileorch.runtime import c_launch

    globals()["ct"] = ct

    @ct.kernel
    def scale(x, y, alpha, tile: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(tile,)) * alpha)

    @ct.kernel
    def add_2d(x, y, z, tm: ct.Constant[int], tn: ct.Constant[int]):
        i = ct.bid(0)
        j = ct.bid(1)
        a = ct.load(x, index=(i, j), shape=(tm, tn))
        b = ct.load(y, index=(i, j), shape=(tm, tn))
        ct.store(z, index=(i, j), tile=a + b)

    @ct.kernel
    def axpy(x, y, z, a, b, tile: ct.Constant[int]):
        i = ct.bid(0)
        u = ct.load(x, index=(i,), shape=(tile,))
        v = ct.load(y, index=(i,), shape=(tile,))
        ct.store(z, index=(i,), tile=u * a + v * b)

    launch = tileorch.cutile.launch
    stream = torch.cuda.current_stream()
    sync = torch.cuda.synchronize
    nan = float("nan")
    x1, x1b = torch.randn(1 << 20, device="cuda"), torch.randn(1 << 20, device="cuda")
    xs = torch.randn(1024, device="cuda")
    a2, b2 = torch.randn(512, 512, device="cuda"), torch.randn(512, 512, device="cuda")
    programs = {
        "scale_1m": (scale, (1024,), (x1, torch.full_like(x1, nan), 2.0, 1024),
                     lambda a: torch.mul(a[0], a[2], out=a[1]), lambda a: a[0] * 2.0, 1),
        "scale_small": (scale, (1,), (xs, torch.full_like(xs, nan), 3.0, 1024),
                        lambda a: torch.mul(a[0], a[2], out=a[1]), lambda a: a[0] * 3.0, 1),
        "add_2d": (add_2d, (8, 8), (a2, b2, torch.full_like(a2, nan), 64, 64),
                   lambda a: torch.add(a[0], a[1], out=a[2]), lambda a: a[0] + a[1], 2),
        "axpy_4": (axpy, (1024,), (x1, x1b, torch.full_like(x1, nan), 0.5, -2.0, 1024),
                   lambda a: torch.add(a[0], a[1], alpha=a[4], out=a[2]), lambda a: a[0] * 0.5 + a[1] * -2.0, 2),
    }
    record: dict = {"device": torch.cuda.get_device_name(), "calls": CALLS, "c_launcher": c_launch.why_not() or "built",
                    "programs": {}}
    print(f"[s33] {record['device']}; C launcher: {record['c_launcher']}; {CALLS} calls per launcher, "
          f"{lo.ROUNDS} alternating rounds, sync every {lo.SYNC_EVERY}", flush=True)
    for name, program in programs.items():
        try:
            measure(name, program, record, launch, stream, sync, ct, torch, cb)
        except Exception as exc:  # noqa: BLE001 - one program's failure is reported, the others still run
            record["programs"][name] = {"failed": f"{type(exc).__name__}: {exc}"}
            print(f"[s33] {name:12s} FAILED: {type(exc).__name__}: {str(exc)[:300]}", flush=True)
    path = Path(os.environ.get("S33_JSON", "build/session33_launch.json"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1))
    return 0


def measure(name, program, record, launch, stream, sync, ct, torch, cb) -> None:
    """One program: outputs checked, then the launchers timed in alternating rounds (see the module's doc)."""
    nan = float("nan")
    kernel, grid, args, torch_op, expect, out_index = program
    own = ct.kernel(kernel._annotated_function.pyfunc)  # separate kernel objects: separate bound launches
    cp = ct.kernel(kernel._annotated_function.pyfunc)
    out = args[out_index]
    saved_c = os.environ.get("TILEORCH_LAUNCH_C")
    os.environ["TILEORCH_LAUNCH_C"] = "1"  # the C launcher and the C check of repeats (opt-in): bound and learnt now
    try:
        launch(stream, grid, own, args)
    finally:
        if saved_c is None:
            del os.environ["TILEORCH_LAUNCH_C"]
        else:
            os.environ["TILEORCH_LAUNCH_C"] = saved_c
    sync()
    ok = bool(torch.allclose(out, expect(args), rtol=1e-5, atol=1e-5))
    out.fill_(nan)
    saved = {k: os.environ.get(k) for k in ("TILEORCH_LAUNCH_CTYPES", "TILEORCH_LAUNCH_C")}
    os.environ.update({k: "0" for k in saved})
    try:
        launch(stream, grid, cp, args)
    finally:
        for k, v in saved.items():
            if v is None:
                del os.environ[k]
            else:
                os.environ[k] = v
    sync()
    ok_cp = bool(torch.allclose(out, expect(args), rtol=1e-5, atol=1e-5))
    key = cb.reader(own)(own, grid, args, "sm_90a", "auto", "auto")
    bound_c = cb.bound_launches.get(key)
    bound_cp = cb.bound_launches.get(cb.reader(cp)(cp, grid, args, "sm_90a", "auto", "auto"))
    fns = {"tileorch": lambda: launch(stream, grid, own, args),  # noqa: B023 - called in this iteration
           "tileorch_s32": lambda: launch(stream, grid, cp, args),
           "cuda_tile": lambda: ct.launch(stream, grid, kernel, args),
           "torch": lambda: torch_op(args)}
    handle = stream.cuda_stream
    if bound_c is not None:
        fns["bare_c"] = lambda: bound_c(handle)
    b = getattr(bound_cp, "bound", None)
    if b is not None and hasattr(b, "stream_config"):
        from tileorch.runtime.driver import api

        drv, cfg, fn, params = api(), b.stream_config(handle), b._function, b._params
        fns["bare_cuda_python"] = lambda: drv.cuLaunchKernelEx(cfg, fn, params, 0)
    timed = lo.compared_us(fns, CALLS, sync)
    sync()
    out.fill_(nan)
    launch(stream, grid, own, args)
    sync()
    ok_after = bool(torch.allclose(out, expect(args), rtol=1e-5, atol=1e-5))
    paths = [getattr(bound_c, "path", None), getattr(bound_cp, "path", None),
             type(cb.hot_launchers.get(own)).__name__, type(cb.hot_launchers.get(cp)).__name__]
    record["programs"][name] = {"paths": paths, "output_ok": [ok, ok_cp, ok_after], **timed}
    print(f"[s33] {name:12s} paths tileorch={paths[0]} (hot launcher {paths[2]}) tileorch_s32={paths[1]} "
          f"(hot launcher {paths[3]}); output ok "
          f"{ok and ok_cp and ok_after}", flush=True)
    for which in ("tileorch", "cuda_tile", "tileorch_s32", "bare_c", "bare_cuda_python", "torch"):
        if which in timed:
            r = timed[which]
            print(f"[s33] {name:12s} {which:22s} {r['median_us']:6.2f} us median (p10 {r['p10_us']:.2f}, "
                  f"p90 {r['p90_us']:.2f})", flush=True)
        elif which + "_skipped" in timed:
            print(f"[s33] {name:12s} {which:22s} skipped: {timed[which + '_skipped'][:140]}", flush=True)
    if "tileorch" in timed and "cuda_tile" in timed:
        t, c = timed["tileorch"]["median_us"], timed["cuda_tile"]["median_us"]
        print(f"[s33] {name:12s} tileorch / cuda.tile.launch = {t / c:.3f} ({'met' if t <= c else 'NOT met'})",
              flush=True)


if __name__ == "__main__":
    t0 = time.perf_counter()
    rc = main()
    print(f"[s33] done in {time.perf_counter() - t0:.1f} s")
    sys.exit(rc)
