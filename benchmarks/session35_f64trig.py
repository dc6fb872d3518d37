"""Session 35 (s35-loose), issue 21 item 1: ``ct.sin`` / ``ct.cos`` / ``ct.tan`` / ``ct.sinh`` / ``ct.cosh`` /
``ct.atan2`` of f64 tiles on the GPU (tileaa_to_simt/f64_trig.py, f64_math.hyperbolic; refused before session 35),
through ``tileorch.cutile.launch`` on torch float64 CUDA tensors: the largest distance in ulps from C's libm on the
CPU (Python's ``math``; the exact value at the reduction's worst case) beside torch's own float64 functions' (CUDA's,
up to 2 ulp) over a spread of every exponent, huge
arguments (the Payne-Hanek branch), the reduction's worst case, +-inf, NaN, +-0; then the time per element against
torch's op (one kernel computing all six vs six torch calls).  Also: a compile switch changed between two launches
of one kernel takes effect (launchers/stale_settings.py).  One line per measurement.

Usage: python benchmarks/session35_f64trig.py [check|time|stale]"""

from __future__ import annotations

import math
import sys

import cuda.tile as ct
import numpy as np
import torch

import tileorch.cutile

N, TILE = 1 << 22, 256
NAMES = ("sin", "cos", "tan", "sinh", "cosh", "atan2")
BOUNDS = {"sin": 1, "cos": 1, "tan": 3, "sinh": 2, "cosh": 2, "atan2": 2}


@ct.kernel
def f64_trig_tiles(X, Y, S, C, T, SH, CH, A, B: ct.Constant[int]):
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(B,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(Y, index=(i,), shape=(B,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(S, index=(i,), tile=ct.sin(x))
    ct.store(C, index=(i,), tile=ct.cos(x))
    ct.store(T, index=(i,), tile=ct.tan(x))
    ct.store(SH, index=(i,), tile=ct.sinh(x))
    ct.store(CH, index=(i,), tile=ct.cosh(x))
    ct.store(A, index=(i,), tile=ct.atan2(y, x))


def ulps(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    same = ((got == ref) & (np.signbit(got) == np.signbit(ref))) | (np.isnan(got) & np.isnan(ref))
    d = np.abs(got.view(np.int64).astype(np.float64) - ref.view(np.int64).astype(np.float64))
    bad = (np.signbit(got) != np.signbit(ref)) | ~np.isfinite(got) | ~np.isfinite(ref)
    tiny = (np.abs(got) < 1e-300) & (np.abs(ref) < 1e-300)  # (the sign of a result within an ulp of 0)
    return np.where(same | tiny, 0.0, np.where(bad, np.inf, d))


def arguments(huge: bool):
    rng = np.random.default_rng(35)
    lo, hi = (20, 1024) if huge else (-60, 12)
    x = np.ldexp(rng.uniform(1, 2, N), rng.integers(lo, hi, N)) * rng.choice([-1.0, 1.0], N)
    y = np.ldexp(rng.uniform(1, 2, N), rng.integers(-60, 60, N)) * rng.choice([-1.0, 1.0], N)
    edges = [0.0, -0.0, math.inf, -math.inf, math.nan, 6381956970095103.0 * 2.0 ** 797, 1e22, 1.7976931348623157e308,
             5e-324, 710.47, -710.48, 2.0 ** 20, np.nextafter(2.0 ** 20, 0)]
    x[:len(edges)] = edges
    return torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()


def run(x, y):
    outs = [torch.full_like(x, math.nan) for _ in NAMES]
    tileorch.cutile.launch(torch.cuda.current_stream(), (N // TILE,), f64_trig_tiles, (x, y, *outs, TILE))
    torch.cuda.synchronize()
    return outs


def reference(x, y):
    return [torch.sin(x), torch.cos(x), torch.tan(x), torch.sinh(x), torch.cosh(x), torch.atan2(y, x)]


CHECKED = 1 << 18
"""Elements checked against C's libm (Python's ``math``, element by element on the CPU): the first ones."""
WORST = 6381956970095103.0 * 2.0 ** 797
EXACT_AT_WORST = {"sin": 1.0, "cos": -4.687165924254628e-19, "tan": -2.133485385753704e18}
"""At the reduction's worst case, where libm is 8 ulp off (mpmath at 3000 bits; tests/unit/test_f64_trig_emulated.py)."""


def libm(name: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    fn = getattr(math, name)
    out = np.empty(len(x))
    for i, (a, b) in enumerate(zip(x.tolist(), y.tolist())):
        try:
            out[i] = fn(b, a) if name == "atan2" else fn(a)
        except (ValueError, OverflowError):
            with np.errstate(all="ignore"):
                out[i] = np.arctan2(b, a) if name == "atan2" else getattr(np, name)(a)
        if name in EXACT_AT_WORST and a == WORST:
            out[i] = EXACT_AT_WORST[name]
    return out


def check() -> int:
    """Ours and torch's float64 functions against libm on the first :data:`CHECKED` elements (bounds: ours)."""
    bad = 0
    for huge in (False, True):
        x, y = arguments(huge)
        got, theirs = run(x, y), reference(x, y)
        xs, ys = x[:CHECKED].cpu().numpy(), y[:CHECKED].cpu().numpy()
        for name, g, t in zip(NAMES, got, theirs):
            ref = libm(name, xs, ys)
            u = ulps(g[:CHECKED].cpu().numpy(), ref)
            v = ulps(t[:CHECKED].cpu().numpy(), ref)
            k = int(np.argmax(u))
            ok = u[k] <= BOUNDS[name]
            bad += not ok
            print(f"[check] {name:5s} {'huge' if huge else 'spread'} args: tileorch max {u[k]:.0f} ulp from libm "
                  f"(bound {BOUNDS[name]}) at x={float(xs[k])!r}, torch max {v.max():.0f} -> {'ok' if ok else 'FAIL'}")
    return bad


def time_it() -> None:
    x, y = arguments(False)
    outs = [torch.empty_like(x) for _ in NAMES]
    args = (x, y, *outs, TILE)
    stream = torch.cuda.current_stream()

    def ours():
        tileorch.cutile.launch(stream, (N // TILE,), f64_trig_tiles, args)

    def theirs():
        reference(x, y)

    for label, fn in (("tileorch (one kernel, six functions)", ours), ("torch (six ops)", theirs)):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(10):
            fn()
        end.record()
        torch.cuda.synchronize()
        ms = start.elapsed_time(end) / 10
        print(f"[time] {label}: {ms:.3f} ms for {N} elements ({ms * 1e6 / N:.3f} ns an element)")


@ct.kernel
def tanh_f32(X, Y, B: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(Y, index=(i,), tile=ct.tanh(ct.load(X, index=(i,), shape=(B,), padding_mode=ct.PaddingMode.ZERO)))


def stale() -> int:
    """TILEORCH_MATH (a codegen switch: approximate tanh) set between launches of one f32 kernel on the same
    tensors: the results must change (before session 35 the bound launch of the first program ran again)."""
    import os

    x = torch.linspace(-3, 3, 1 << 16, device="cuda", dtype=torch.float32)
    y = torch.empty_like(x)
    s = torch.cuda.current_stream()
    os.environ.pop("TILEORCH_MATH", None)
    tileorch.cutile.launch(s, (x.numel() // 256,), tanh_f32, (x, y, 256))
    tileorch.cutile.launch(s, (x.numel() // 256,), tanh_f32, (x, y, 256))
    full = y.clone()
    os.environ["TILEORCH_MATH"] = "approx"
    tileorch.cutile.launch(s, (x.numel() // 256,), tanh_f32, (x, y, 256))
    approx = y.clone()
    del os.environ["TILEORCH_MATH"]
    tileorch.cutile.launch(s, (x.numel() // 256,), tanh_f32, (x, y, 256))
    torch.cuda.synchronize()
    ref = torch.tanh(x.double())
    e_full = (full.double() - ref).abs().max().item()
    e_approx = (approx.double() - ref).abs().max().item()
    back = torch.equal(y, full)
    ok = e_approx > e_full and back
    print(f"[stale] tanh max error: default {e_full:.2e}, after TILEORCH_MATH=approx {e_approx:.2e}, unset again "
          f"equals the default: {back} -> {'ok' if ok else 'FAIL (a stale kernel ran)'}")
    return 0 if ok else 1


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "check"
    if what == "check":
        sys.exit(1 if check() else 0)
    elif what == "time":
        time_it()
    else:
        sys.exit(stale())
