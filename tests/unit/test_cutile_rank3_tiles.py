"""Issue 21: "a program written for 3-D tiles compiles the same as its 2-D form".  A program
over ``(1, M, N)`` tiles of a batched ``(B, M, N)`` array (the batch on grid axis 1 or 2) against
the same program over ``(M, N)`` tiles of a matrix, GPU-free:

* same path (SIMT row program / TileAS GEMM), same CTA size, and the same memory, shuffle,
  barrier and MMA instructions (counted in the PTX; a 3-D TMA copy counts as its 2-D form); the
  3-D kernel may add a few integer instructions for the batch index;
* the same values: the SIMT row program run by the CPU interpreter on each batch of a ragged
  array (rows not a whole number of tiles, rows narrower than the tile) gives bit-identical
  outputs in both forms, and matches numpy.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")


@ct.kernel
def rms_rows_2d(x, y, tm: ct.Constant[int], tn: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    s = ct.sum(t * t, axis=1, keepdims=True)
    ct.store(y, index=(ct.bid(0), 0), tile=(t * ct.rsqrt(s + 1e-6)).astype(y.dtype))


@ct.kernel
def rms_rows_3d(x, y, tm: ct.Constant[int], tn: ct.Constant[int]):
    b = ct.bid(1)
    t = ct.load(x, index=(b, ct.bid(0), 0), shape=(1, tm, tn), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    s = ct.sum(t * t, axis=2, keepdims=True)
    ct.store(y, index=(b, ct.bid(0), 0), tile=(t * ct.rsqrt(s + 1e-6)).astype(y.dtype))


@ct.kernel
def gemm_2d(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(a, index=(ct.bid(0), k), shape=(tm, tk)), ct.load(b, index=(k, ct.bid(1)), shape=(tk, tn)),
                     acc)
    ct.store(c, index=(ct.bid(0), ct.bid(1)), tile=acc.astype(c.dtype))


@ct.kernel
def gemm_3d(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    z = ct.bid(2)
    acc = ct.zeros((1, tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=2, shape=(1, tm, tk))):
        acc = ct.mma(ct.load(a, index=(z, ct.bid(0), k), shape=(1, tm, tk)),
                     ct.load(b, index=(z, k, ct.bid(1)), shape=(1, tk, tn)), acc)
    ct.store(c, index=(z, ct.bid(0), ct.bid(1)), tile=acc.astype(c.dtype))


H = "float16"
PAIRS = {
    "rms_rows": ((rms_rows_2d, [((64, 1024), H), ((64, 1024), H), 4, 1024]),
                 (rms_rows_3d, [((2, 64, 1024), H), ((2, 64, 1024), H), 4, 1024]), "simt"),
    "gemm": ((gemm_2d, [((512, 512), H), ((512, 512), H), ((512, 512), H), 128, 128, 64]),
             (gemm_3d, [((2, 512, 512), H), ((2, 512, 512), H), ((2, 512, 512), H), 128, 128, 64]), "gemm"),
}
KINDS = ("ld.global", "st.global", "ld.shared", "st.shared", "shfl", "bar.", "barrier", "mbarrier", "wgmma", "mma",
         "cp.async", "red.", "atom.", "fence")


def _profile(ptx: str) -> tuple[Counter, int]:
    """(memory / sync / MMA instructions by opcode, every instruction) of the kernel's PTX,
    inline PTX included (the SIMT path's predicated vector loads, the tier's ``wgmma``)."""
    body = re.sub(r"//[^\n]*", "", ptx[ptx.index(".entry"):])
    ops = []
    for st in re.split(r"[;\n{}]", body):
        st = re.sub(r"^@!?%?\w+\s+", "", st.strip())
        if st and not st.startswith((".", "$", "%", "(", ")", ",")) and not st.endswith(":"):
            ops.append(re.sub(r"\.[123]d\b", ".Nd", st.split()[0]))
    return Counter(o for o in ops if o.startswith(KINDS)), len(ops)


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_3d_program_compiles_like_its_2d_form(name):
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    (k2, s2), (k3, s3), kind = PAIRS[name]
    p2 = compile_program(cutile_bytecode(k2, s2), f"{name}_2d", ptxas=False)
    p3 = compile_program(cutile_bytecode(k3, s3), f"{name}_3d", ptxas=False)
    assert p2.kind == p3.kind == kind
    assert p2.threads == p3.threads
    (mem2, n2), (mem3, n3) = _profile(p2.ptx), _profile(p3.ptx)
    assert mem2 and mem2 == mem3
    assert n2 <= n3 <= n2 * 1.05, (n2, n3)


@pytest.mark.parametrize("rows,cols", [(64, 1024), (61, 1000), (3, 7)])
def test_3d_row_program_computes_what_its_2d_form_does(rows, cols):
    from simt_interp import run_cutile

    (k2, s2), (k3, s3), _ = PAIRS["rms_rows"]
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((2, rows, cols)).astype(np.float16)
    grid = -(-rows // 4)
    y3 = run_cutile(k3, s3, [x, np.full(x.shape, np.nan, np.float16)], (grid, 2, 1))[1]
    for b in range(2):
        y2 = run_cutile(k2, s2, [x[b], np.full(x[b].shape, np.nan, np.float16)], (grid, 1, 1))[1]
        np.testing.assert_array_equal(y3[b], y2)
    xf = x.astype(np.float64)
    ref = xf / np.sqrt((xf * xf).sum(-1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(y3.astype(np.float64), ref, atol=2e-3, rtol=0)
