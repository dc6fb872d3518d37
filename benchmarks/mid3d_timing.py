"""Same-process timing of GEMMs whose tiles have a unit middle dimension (session 40, issue 21 item 1:
``tileorch.testing.mid3d_programs``) beside their 2-D twins and torch, on one GPU:

* ``seqfirst``: ``Y[s, b, :] = X[s, b, :] @ W`` (X ``[S, B, K]`` and Y ``[S, B, N]`` read / stored as ``(tm, 1, .)``
  tiles, ``mid_a_c_shared_w_f16_out``) vs the 2-D program ``twin_2d`` on the contiguous ``[S B, K]`` rows vs
  ``torch.matmul(X, W)``;
* ``heads``: ``C[b] = X[:, b, :] @ W[b]`` (``mid_a_reshape``, C ``[B, S, N]`` f32) vs ``twin_2d``-shaped batched
  GEMM on a contiguous ``X.transpose(0, 1)`` copy (``mid_a_reshape`` reading a leading-batch copy is not a
  program here: torch.bmm stands in) vs ``torch.bmm``.

Each: the first launch of each 3-D program must run the TileAS tier's TMA/WGMMA kernel (its program compiled to
``gemm``, no PerformanceWarning naming the SIMT path, the launch's remark not the SIMT path's) and every output's
relative error against torch must be below ``--max-err``, else the script exits non-zero naming what failed (a
timing of the wrong path, or of a wrong result, is not reported as the 3-D kernel's); then the median of ``--reps``
launches timed with CUDA events after a warm-up; prints ``[s40 mid3d] ...`` lines and writes JSON to ``--out``."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import warnings

import torch

import tileorch.cutile
from tileorch.testing.mid3d_programs import PROGRAMS, twin_2d


def _time(fn, reps):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def _tensor_core_launch(kernel, grid, args):
    """Launch once (synchronised); SystemExit unless the launch ran the tier's TMA/WGMMA kernel."""
    from tileorch.diagnostics import PerformanceWarning
    from tileorch.launchers import cutile as rc

    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
        torch.cuda.synchronize()
    texts = [str(w.message) for w in got if issubclass(w.category, PerformanceWarning)]
    entry = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", "persistent", defer_gemm=True)
    remark = entry.launch_remarks.get(tuple(grid), "")
    why = ([f"compiled to {entry.program.kind!r}"] if entry.program.kind != "gemm" else []) + \
        [t for t in texts if "SIMT" in t] + ([remark] if "SIMT path runs the launch" in remark else [])
    if why:
        print(f"[s40 mid3d] FAIL {getattr(kernel, '__name__', kernel)}: not on the tensor-core path: {why}")
        sys.exit(2)


def _check_err(label, err, limit):
    if not err < limit:  # (a NaN error fails too)
        print(f"[s40 mid3d] FAIL {label}: relative error {err:.3e} >= {limit:.0e}")
        sys.exit(3)


def _rel(got, ref):
    return float((got.double() - ref.double()).norm() / ref.double().norm())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--s", type=int, default=4096)
    ap.add_argument("--b", type=int, default=8)
    ap.add_argument("--k", type=int, default=4096)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--out", default="mid3d_timing.json")
    ap.add_argument("--max-err", type=float, default=1e-2, help="relative error limit of every output (f16 / f32)")
    o = ap.parse_args()
    s, nb, k, n = o.s, o.b, o.k, o.n
    stream = torch.cuda.current_stream()
    tm, tn, tk = 128, 256, 64
    cd = lambda a, b: -(-a // b)  # noqa: E731
    torch.manual_seed(0)
    x = torch.randn(s, nb, k, device="cuda", dtype=torch.float16)
    w = torch.randn(k, n, device="cuda", dtype=torch.float16) * 0.05
    flop = 2.0 * s * nb * k * n
    res = {"device": torch.cuda.get_device_name(), "shape": {"S": s, "B": nb, "K": k, "N": n}}

    y3 = torch.full((s, nb, n), float("nan"), device="cuda", dtype=torch.float16)
    mid = PROGRAMS["mid_a_c_shared_w_f16_out"].kernel
    run3 = lambda: tileorch.cutile.launch(stream, (cd(s, tm), cd(n, tn), nb), mid, (x, w, y3, tm, tn, tk))  # noqa
    x2 = x.reshape(s * nb, k)  # (the same memory: the contiguous [S B, K] rows)
    y2 = torch.full((s * nb, n), float("nan"), device="cuda", dtype=torch.float16)
    run2 = lambda: tileorch.cutile.launch(stream, (cd(s * nb, tm), cd(n, tn), 1), twin_2d,  # noqa: E731
                                          (x2, w, y2, tm, tn, tk))
    run_t = lambda: torch.matmul(x, w)  # noqa: E731
    _tensor_core_launch(mid, (cd(s, tm), cd(n, tn), nb), (x, w, y3, tm, tn, tk))
    run2(); torch.cuda.synchronize()  # noqa: E702
    ref = torch.matmul(x.float(), w.float())
    err3, err2 = _rel(y3, ref), _rel(y2.view(s, nb, n), ref)
    _check_err("seqfirst 3-D", err3, o.max_err)
    _check_err("seqfirst 2-D twin", err2, o.max_err)
    res["seqfirst"] = {"err_3d": err3, "err_2d": err2,
                       "ms_3d": _time(run3, o.reps), "ms_2d": _time(run2, o.reps), "ms_torch": _time(run_t, o.reps)}
    r = res["seqfirst"]
    print(f"[s40 mid3d] seqfirst S={s} B={nb} K={k} N={n} f16: 3-D {r['ms_3d']:.3f} ms "
          f"({flop / r['ms_3d'] / 1e9:.0f} TFLOP/s, err {r['err_3d']:.1e}) | 2-D twin {r['ms_2d']:.3f} ms "
          f"({flop / r['ms_2d'] / 1e9:.0f}, err {r['err_2d']:.1e}) | torch.matmul {r['ms_torch']:.3f} ms "
          f"({flop / r['ms_torch'] / 1e9:.0f}) | 3-D / 2-D {r['ms_3d'] / r['ms_2d']:.3f}x time")

    wb = torch.randn(nb, k, n, device="cuda", dtype=torch.float16) * 0.05
    c3 = torch.full((nb, s, n), float("nan"), device="cuda", dtype=torch.float32)
    heads = PROGRAMS["mid_a_reshape"].kernel
    run3h = lambda: tileorch.cutile.launch(stream, (cd(s, tm), cd(n, tn), nb), heads, (x, wb, c3, tm, tn, tk))  # noqa
    xt = x.transpose(0, 1).contiguous()
    run_copy_bmm = lambda: torch.bmm(x.transpose(0, 1).contiguous(), wb)  # noqa: E731
    run_bmm = lambda: torch.bmm(xt, wb)  # noqa: E731
    _tensor_core_launch(heads, (cd(s, tm), cd(n, tn), nb), (x, wb, c3, tm, tn, tk))
    refh = torch.bmm(xt.float(), wb.float())
    errh = _rel(c3, refh)
    _check_err("heads 3-D", errh, o.max_err)
    res["heads"] = {"err_3d": errh, "ms_3d": _time(run3h, o.reps), "ms_torch_bmm": _time(run_bmm, o.reps),
                    "ms_torch_copy_bmm": _time(run_copy_bmm, o.reps)}
    r = res["heads"]
    print(f"[s40 mid3d] heads C[b] = X[:, b, :] @ W[b] f16 -> f32: 3-D {r['ms_3d']:.3f} ms "
          f"({flop / r['ms_3d'] / 1e9:.0f} TFLOP/s, err {r['err_3d']:.1e}) | torch.bmm on a contiguous copy "
          f"{r['ms_torch_bmm']:.3f} ms (+ the copy: {r['ms_torch_copy_bmm']:.3f} ms)")
    with open(o.out, "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
