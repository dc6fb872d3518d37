"""Session 34 (issue 22 item 3): host time per launch with the compiled C launcher ON BY DEFAULT, same process.

Parts (``python benchmarks/session34_launch.py PART``; ``benchmarks/session34_launch.sh`` runs them all):

* ``first``: the first ``tileorch.cutile.launch`` of a process on a machine where the C launcher is not built
  yet (a fresh ``TILEORCH_CACHE_DIR``: the kernel compiles too): wall seconds of the call, the seconds it
  waited inside ``c_launch.module`` (bounded by ``TILEORCH_LAUNCH_C_WAIT_MS``, 500 ms) and the path the
  launch was bound on; then the second and third calls' microseconds.  One line
  ``[first] MODE first call X.XX s (waited Y ms for the C build; bound path P) ...``.
* ``programs``: per program (scale 1M, scale on one CTA, a 2-D add, axpy with 3 arrays + 2 scalars),
  alternating rounds (``launch_overhead.compared_us``), microseconds per call of

  - ``tileorch``: the public ``tileorch.cutile.launch`` as a user gets it: with the launcher built when
    ``tileorch.cutile`` was imported, the C ``Front`` (the call checked by the kernel's C ``Memo`` and
    launched by the C launcher without a Python frame);
  - ``tileorch_s33``: the Python launch function behind it (``launch.__wrapped__``): session 33's opt-in
    path (``Memo`` + C launcher, one Python frame more);
  - ``tileorch_s32``: another kernel object bound with ``TILEORCH_LAUNCH_C=0 TILEORCH_LAUNCH_CTYPES=0``
    (cuda-python's binding, the repeat checked in Python), called through the public entry;
  - ``cuda_tile``: ``cuda.tile.launch`` (needs tileiras; else skipped with the reason);
  - ``bare_c``: the bound launch's C launcher alone; ``torch``: a torch op of the same kind;

  outputs checked against torch (NaN-prefilled), and ``tileorch / cuda.tile.launch`` with met / NOT met.
* ``gemm``: ``tileorch.gemm`` (default: the C launcher) vs ``torch.matmul(out=)`` vs ``tileorch.gemm`` bound
  through cuda-python (``TILEORCH_LAUNCH_C=0 TILEORCH_LAUNCH_CTYPES=0``, other tensors), same rounds.

JSON to ``$S34_JSON`` (default ``build/session34_launch_PART.json``).
"""

from __future__ import annotations

import json
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import launch_overhead as lo  # noqa: E402

CALLS = int(os.environ.get("S34_CALLS", "2000"))


@contextmanager
def env(**values):
    """Environment variables set inside the block (read when a launch is bound), restored after it."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def kernels(ct):
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

    return scale, add_2d, axpy


def first() -> dict:
    """The first launch of this process (run with a fresh TILEORCH_CACHE_DIR; see the module's doc)."""
    import cuda.tile as ct
    import torch

    globals()["ct"] = ct
    t_import = time.perf_counter()
    import tileorch.cutile
    from tileorch.launchers import cutile_bound as cb
    from tileorch.runtime import c_launch

    t_import = time.perf_counter() - t_import
    waited = [0.0]
    real = c_launch.module

    def timed_module(*a, **k):
        t0 = time.perf_counter()
        try:
            return real(*a, **k)
        finally:
            waited[0] += time.perf_counter() - t0

    c_launch.module = timed_module
    scale, _, _ = kernels(ct)
    x = torch.randn(1 << 20, device="cuda")
    y = torch.full_like(x, float("nan"))
    stream = torch.cuda.current_stream()
    torch.cuda.synchronize()
    launch = tileorch.cutile.launch
    t0 = time.perf_counter()
    launch(stream, (1024,), scale, (x, y, 2.0, 1024))
    first_s = time.perf_counter() - t0
    torch.cuda.synchronize()
    ok = bool(torch.allclose(y, x * 2.0))
    later = []
    for _ in range(2):
        t0 = time.perf_counter()
        launch(stream, (1024,), scale, (x, y, 2.0, 1024))
        later.append((time.perf_counter() - t0) * 1e6)
    torch.cuda.synchronize()
    bound = cb.bound_launches.get(cb.reader(scale)(scale, (1024,), (x, y, 2.0, 1024), "sm_90a", "auto", "auto"))
    building = c_launch._building.get("thread")
    if building is not None:
        building.join(60)
    record = {"mode": os.environ.get("S34_MODE", "default"), "import_s": t_import, "first_call_s": first_s,
              "waited_in_c_launch_module_s": waited[0], "bound_path": getattr(bound, "path", None),
              "path_reason": getattr(bound, "path_reason", None), "later_calls_us": later, "output_ok": ok,
              "front": type(launch).__name__, "c_launcher_after": c_launch.why_not() or "built"}
    print(f"[first] {record['mode']:8s} first call {first_s:6.2f} s (waited {waited[0] * 1e3:6.1f} ms for the C "
          f"build; bound path {record['bound_path']}); calls 2, 3: {later[0]:.1f}, {later[1]:.1f} us; output ok {ok}; "
          f"the C launcher once the build ended: {record['c_launcher_after']}", flush=True)
    if record["path_reason"]:
        print(f"[first] {record['mode']:8s} path_reason: {record['path_reason'][:200]}", flush=True)
    return record


def programs() -> dict:
    import cuda.tile as ct
    import torch

    import tileorch.cutile
    from tileorch.launchers import cutile_bound as cb
    from tileorch.runtime import c_launch

    globals()["ct"] = ct
    scale, add_2d, axpy = kernels(ct)
    launch = tileorch.cutile.launch
    python_launch = getattr(launch, "__wrapped__", launch)
    stream = torch.cuda.current_stream()
    sync = torch.cuda.synchronize
    nan = float("nan")
    x1, x1b = torch.randn(1 << 20, device="cuda"), torch.randn(1 << 20, device="cuda")
    xs = torch.randn(1024, device="cuda")
    a2, b2 = torch.randn(512, 512, device="cuda"), torch.randn(512, 512, device="cuda")
    table = {
        "scale_1m": (scale, (1024,), (x1, torch.full_like(x1, nan), 2.0, 1024),
                     lambda a: torch.mul(a[0], a[2], out=a[1]), lambda a: a[0] * 2.0, 1),
        "scale_small": (scale, (1,), (xs, torch.full_like(xs, nan), 3.0, 1024),
                        lambda a: torch.mul(a[0], a[2], out=a[1]), lambda a: a[0] * 3.0, 1),
        "add_2d": (add_2d, (8, 8), (a2, b2, torch.full_like(a2, nan), 64, 64),
                   lambda a: torch.add(a[0], a[1], out=a[2]), lambda a: a[0] + a[1], 2),
        "axpy_4": (axpy, (1024,), (x1, x1b, torch.full_like(x1, nan), 0.5, -2.0, 1024),
                   lambda a: torch.add(a[0], a[1], alpha=a[4], out=a[2]), lambda a: a[0] * 0.5 + a[1] * -2.0, 2),
    }
    record: dict = {"device": torch.cuda.get_device_name(), "calls": CALLS, "front": type(launch).__name__,
                    "c_launcher": c_launch.why_not() or "built", "programs": {}}
    print(f"[s34] {record['device']}; tileorch.cutile.launch is a {record['front']}; C launcher: "
          f"{record['c_launcher']}; {CALLS} calls per launcher, {lo.ROUNDS} alternating rounds, sync every "
          f"{lo.SYNC_EVERY}", flush=True)
    for name, program in table.items():
        try:
            measure(name, program, record, launch, python_launch, stream, sync, ct, torch, cb)
        except Exception as exc:  # noqa: BLE001 - one program's failure is reported, the others still run
            record["programs"][name] = {"failed": f"{type(exc).__name__}: {exc}"}
            print(f"[s34] {name:12s} FAILED: {type(exc).__name__}: {str(exc)[:300]}", flush=True)
    return record


def measure(name, program, record, launch, python_launch, stream, sync, ct, torch, cb) -> None:
    nan = float("nan")
    kernel, grid, args, torch_op, expect, out_index = program
    own = ct.kernel(kernel._annotated_function.pyfunc)  # separate kernel objects: separate bound launches
    cp = ct.kernel(kernel._annotated_function.pyfunc)
    out = args[out_index]
    launch(stream, grid, own, args)  # the default (bound, learnt: a Memo in front of the Python hot launcher)
    sync()
    ok = bool(torch.allclose(out, expect(args), rtol=1e-5, atol=1e-5))
    out.fill_(nan)
    with env(TILEORCH_LAUNCH_CTYPES="0", TILEORCH_LAUNCH_C="0"):
        launch(stream, grid, cp, args)
    sync()
    ok_cp = bool(torch.allclose(out, expect(args), rtol=1e-5, atol=1e-5))
    bound_c = cb.bound_launches.get(cb.reader(own)(own, grid, args, "sm_90a", "auto", "auto"))
    bound_cp = cb.bound_launches.get(cb.reader(cp)(cp, grid, args, "sm_90a", "auto", "auto"))
    fns = {"tileorch": lambda: launch(stream, grid, own, args),  # noqa: B023 - called in this iteration
           "cuda_tile": lambda: ct.launch(stream, grid, kernel, args),
           "tileorch_s33": lambda: python_launch(stream, grid, own, args),
           "tileorch_s32": lambda: launch(stream, grid, cp, args),
           "torch": lambda: torch_op(args)}
    handle = stream.cuda_stream
    if bound_c is not None and getattr(bound_c, "path", None) == "c":
        fns["bare_c"] = lambda: bound_c(handle)
    timed = lo.compared_us(fns, CALLS, sync)
    sync()
    out.fill_(nan)
    launch(stream, grid, own, args)
    sync()
    ok_after = bool(torch.allclose(out, expect(args), rtol=1e-5, atol=1e-5))
    paths = [getattr(bound_c, "path", None), getattr(bound_cp, "path", None),
             type(cb.hot_launchers.get(own)).__name__, type(cb.hot_launchers.get(cp)).__name__]
    record["programs"][name] = {"paths": paths, "output_ok": [ok, ok_cp, ok_after], **timed}
    print(f"[s34] {name:12s} paths tileorch={paths[0]} (hot launcher {paths[2]}) tileorch_s32={paths[1]} "
          f"(hot launcher {paths[3]}); output ok {ok and ok_cp and ok_after}", flush=True)
    for which in ("tileorch", "cuda_tile", "tileorch_s33", "tileorch_s32", "bare_c", "torch"):
        if which in timed:
            r = timed[which]
            print(f"[s34] {name:12s} {which:14s} {r['median_us']:6.2f} us median (p10 {r['p10_us']:.2f}, "
                  f"p90 {r['p90_us']:.2f})", flush=True)
        elif which + "_skipped" in timed:
            print(f"[s34] {name:12s} {which:14s} skipped: {timed[which + '_skipped'][:140]}", flush=True)
    if "tileorch" in timed and "cuda_tile" in timed:
        t, c = timed["tileorch"]["median_us"], timed["cuda_tile"]["median_us"]
        print(f"[s34] {name:12s} tileorch / cuda.tile.launch = {t / c:.3f} ({'met' if t <= c else 'NOT met'})",
              flush=True)


def gemm() -> dict:
    import torch

    import tileorch

    sync = torch.cuda.synchronize
    record: dict = {"device": torch.cuda.get_device_name(), "calls": CALLS, "shapes": {}}
    for m, n, k in ((256, 256, 256), (512, 1024, 512), (1024, 1024, 1024), (2048, 2048, 1024)):
        name = f"{m}x{n}x{k}"
        try:
            a = torch.randn((m, k), dtype=torch.float16, device="cuda")
            b = torch.randn((k, n), dtype=torch.float16, device="cuda")
            c = torch.full((m, n), float("nan"), dtype=torch.float16, device="cuda")
            a2, b2, c2 = a.clone(), b.clone(), torch.full_like(c, float("nan"))
            with env(TILEORCH_LAUNCH_CTYPES="0", TILEORCH_LAUNCH_C="0"):
                tileorch.gemm(a2, b2, c2)
            tileorch.gemm(a, b, c)
            sync()
            want = (a.float() @ b.float())
            ok = bool(torch.allclose(c.float(), want, rtol=2e-2, atol=2e-1)) and bool(
                torch.allclose(c2.float(), want, rtol=2e-2, atol=2e-1))
            paths = [lo._gemm_path(a, b, c)[0], lo._gemm_path(a2, b2, c2)[0]]
            timed = lo.compared_us({"gemm": lambda: tileorch.gemm(a, b, c),  # noqa: B023
                                    "torch_matmul": lambda: torch.matmul(a, b, out=c),  # noqa: B023
                                    "gemm_cuda_python": lambda: tileorch.gemm(a2, b2, c2)}, CALLS, sync)  # noqa: B023
        except Exception as exc:  # noqa: BLE001 - one shape's failure is reported, the others still run
            record["shapes"][name] = {"failed": f"{type(exc).__name__}: {exc}"}
            print(f"[gemm] {name:16s} FAILED: {type(exc).__name__}: {str(exc)[:300]}", flush=True)
            continue
        record["shapes"][name] = {"paths": paths, "output_ok": ok, **timed}
        g, t, cp = (timed.get(x, {}).get("median_us", float("nan")) for x in ("gemm", "torch_matmul", "gemm_cuda_python"))
        print(f"[gemm] {name:16s} tileorch.gemm {g:6.2f} us (path {paths[0]}) vs torch.matmul {t:6.2f} us "
              f"({'met' if g <= t else 'NOT met'}); cuda-python path {cp:6.2f} us (path {paths[1]}); output ok {ok}",
              flush=True)
    return record


def main(argv: list[str]) -> int:
    part = argv[1] if len(argv) > 1 else "programs"
    record = {"first": first, "programs": programs, "gemm": gemm}[part]()
    path = Path(os.environ.get("S34_JSON", f"build/session34_launch_{part}.json"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    t0 = time.perf_counter()
    rc = main(sys.argv)
    print(f"[s34] {sys.argv[1:] or ['programs']} done in {time.perf_counter() - t0:.1f} s", flush=True)
    sys.exit(rc)
