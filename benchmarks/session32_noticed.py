"""Session 32's leftovers (issue 22) on the GPU, each against a reference computed without tileorch's code paths:

* ``directed``: ``ct.add`` rz / ``ct.sub`` rm / ``ct.mul`` rp and ``ct.mul`` in each mode (tileorch.testing.
  noticed32_programs) of f32 and f64 arrays with subnormals, huge values, zeros, infinities, NaN and exact
  cancellations, bit for bit against :mod:`tileorch.testing.exact_rounding` (rationals rounded that way);
* ``division``: ``x / s`` by a scalar (the shared-reciprocal sequence with its div.rn branch) bit for bit against
  numpy's f32 ``x / s`` for divisors across the range test's bounds (the hardware's own rcp.approx.ftz);
* ``static_strides``: ``ct.ArrayAnnotation(static_stride_dims=...)`` rows on two views of different row strides
  (two compiles), against torch, the columns outside the views left NaN.

One line per check: ``<check> <case> ok|FAIL <detail>``; exit 1 on any failure.

    python3 benchmarks/session32_noticed.py
"""

from __future__ import annotations

import math
import sys

import numpy as np
import torch

import tileorch.cutile as tc
from tileorch.testing import noticed32_programs as P
from tileorch.testing.exact_rounding import reference

N, TILE = 4096, 128
FAILED: list[str] = []


def _report(check: str, case: str, bad: int, detail: str = "") -> None:
    print(f"{check} {case} {'ok' if bad == 0 else 'FAIL'} {bad} bad {detail}".rstrip(), flush=True)
    if bad:
        FAILED.append(f"{check} {case}")


def _bits_differ(got: np.ndarray, want: np.ndarray) -> int:
    nan = np.isnan(want)
    bits = np.uint32 if got.dtype == np.float32 else np.uint64
    return int(((got.view(bits) != want.view(bits)) & ~nan).sum() + (np.isnan(got) != nan).sum())


def _operands(dt, rng) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = (-150, 128) if dt == np.float32 else (-1075, 1024)
    x, y = ((rng.uniform(1, 2, N) * rng.choice([-1.0, 1.0], N) * np.exp2(rng.integers(lo, hi, N).astype(float)))
            .astype(dt) for _ in range(2))
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0], dt)
    x[:64], y[64:128] = rng.choice(special, 64), rng.choice(special, 64)
    y[128:192], y[192:256] = -x[128:192], x[192:256]  # exact zero sums, doublings
    near = rng.integers(-20, 20, N // 2).astype(float)  # a half of close exponents (rounding happens)
    x[N // 2:] = (rng.uniform(1, 2, N // 2) * np.exp2(near)).astype(dt)
    y[N // 2:] = (rng.uniform(-2, 2, N // 2) * np.exp2(near - rng.integers(0, 30, N // 2))).astype(dt)
    return x, y


def directed() -> None:
    rng = np.random.default_rng(3201)
    for dt, tdt in ((np.float32, torch.float32), (np.float64, torch.float64)):
        x, y = _operands(dt, rng)
        dx, dy = (torch.from_numpy(v).cuda() for v in (x, y))
        for kernel, ops in ((P.directed_ops, (("add", "rz"), ("sub", "rm"), ("mul", "rp"))),
                            (P.directed_modes, (("mul", "rz"), ("mul", "rm"), ("mul", "rp")))):
            outs = [torch.full((N,), float("nan"), dtype=tdt, device="cuda") for _ in range(3)]
            tc.launch(torch.cuda.current_stream(), (N // TILE,), kernel, (dx, dy, *outs, TILE))
            torch.cuda.synchronize()
            for (op, mode), out in zip(ops, outs):
                _report("directed", f"{op}.{mode}.{np.dtype(dt).name}",
                        _bits_differ(out.cpu().numpy(), reference(op, mode, [x, y], dt)))


def division() -> None:
    rng = np.random.default_rng(3202)
    divisors = [1.7, -3.0, 2.0 ** -60, 2.0 ** 60, 1.5 * 2.0 ** -61, 1.5 * 2.0 ** 61, 2.0 ** 126, 2.0 ** 127, 8e-39,
                1e-45, 3e38, math.inf, -math.inf, math.nan, 0.0, -0.0]
    for s in divisors:
        s = float(np.float32(s))
        for regime in (0, -60, 60, -126, 120):
            x = (rng.uniform(1, 2, N) * rng.choice([-1.0, 1.0], N) * 2.0 ** regime).astype(np.float32)
            specials = np.array([0.0, -0.0, np.inf, np.nan, 1e-45], np.float32)
            x[rng.choice(N, 16, replace=False)] = rng.choice(specials, 16)
            dx = torch.from_numpy(x).cuda()
            out = torch.full((N,), float("nan"), dtype=torch.float32, device="cuda")
            tc.launch(torch.cuda.current_stream(), (N // TILE,), P.divide_by_scalar, (dx, out, s, TILE))
            torch.cuda.synchronize()
            with np.errstate(all="ignore"):
                want = x / np.float32(s)
            _report("division", f"s={s!r} x~2^{regime}", _bits_differ(out.cpu().numpy(), want))


def static_strides() -> None:
    g = torch.Generator(device="cuda").manual_seed(3203)
    for w_in, w_out, off in ((512, 320, 10), (256, 1000, 3)):
        xb = torch.randn(40, w_in, device="cuda", generator=g)
        yb = torch.full((40, w_out), float("nan"), device="cuda")
        x, y = xb[:, off:off + 100], yb[:, off:off + 100]
        tc.launch(torch.cuda.current_stream(), (40,), P.scaled_rows, (x, y, 128))
        torch.cuda.synchronize()
        outside = (~torch.isnan(yb[:, :off])).sum() + (~torch.isnan(yb[:, off + 100:])).sum()
        bad = int((y != x * 2.0 + 1.0).sum()) + int(outside)
        _report("static_strides", f"rows {w_in}->{w_out}", bad)


def main(argv: list[str]) -> int:
    for name in argv or ["directed", "division", "static_strides"]:
        globals()[name]()
    print("FAILED: " + ", ".join(FAILED) if FAILED else "all ok", flush=True)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
