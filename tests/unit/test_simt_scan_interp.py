"""Scans (``ct.cumsum``, ``ct.cumprod``, ``ct.scan`` with a non-commutative combiner, forward and
reverse, along either axis of a 2-D tile) lowered by ``convert-nv-tileaa-to-simt``'s register
scan (``transforms/tileaa_to_simt/scan.py``) and run on the CPU by the lockstep interpreter
(tests/unit/simt_interp.py) against numpy: ragged rows (the padded tail is zero), rows shorter
than the CTA (slots past the tile's end), a base that is not 16-byte aligned, NaN-prefilled
outputs.  A scan that loses a segment's carry, a warp's prefix or the combiner's operand order
fails here."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")

from simt_interp import export_kernels  # noqa: E402
from test_cuda_tile_bytecode import HAVE_CUTILE  # noqa: E402

pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

KERNELS = '''
import sys
import cuda.tile as ct
from cuda.tile.compilation import export_kernel, KernelSignature, ArrayConstraint, CallingConvention
out = sys.argv[1]
DT = {"f32": ct.float32, "i32": ct.int32}
def arr(dt, nd):
    return ArrayConstraint(DT[dt], nd, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=(),
                           may_alias_internally=False, stride_constant=(None,) * nd,
                           stride_divisible_by=(1,) * nd, shape_divisible_by=(1,) * nd, base_addr_divisible_by=1)

from tileorch.testing.memory_programs import cumsum

@ct.kernel
def cumsum2d(x, y, tm: ct.Constant[int], tn: ct.Constant[int], axis: ct.Constant[int], rev: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(i, j), tile=ct.cumsum(t, axis=axis, reverse=bool(rev)))

@ct.kernel
def cumprod_rows(x, y, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, n), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(ct.bid(0), 0), tile=ct.cumprod(t, axis=1))

@ct.kernel
def recurrence(a, b, y, n: ct.Constant[int], rev: ct.Constant[int]):
    # y_t = a_t * y_{t-1} + b_t as a scan of affine maps (a, b): (a1, b1) then (a2, b2) is
    # (a1 * a2, b1 * a2 + b2), associative and not commutative
    ta = ct.load(a, index=(ct.bid(0), 0), shape=(1, n), padding_mode=ct.PaddingMode.ZERO)
    tb = ct.load(b, index=(ct.bid(0), 0), shape=(1, n), padding_mode=ct.PaddingMode.ZERO)
    _, yb = ct.scan((ta, tb), axis=1, func=lambda a1, b1, a2, b2: (a1 * a2, b1 * a2 + b2),
                    identity=(1.0, 0.0), reverse=bool(rev))
    ct.store(y, index=(ct.bid(0), 0), tile=yb)

@ct.kernel(num_worker_warps=4)
def cumsum_4_warps(x, y, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, n))
    ct.store(y, index=(ct.bid(0), 0), tile=ct.cumsum(t, axis=1))

CASES = {
    "scan_cumsum_f32_4096_w4": (cumsum_4_warps, [arr("f32", 2), arr("f32", 2), 4096]),
    "scan_cumsum_f32_1024": (cumsum, [arr("f32", 2), arr("f32", 2), 1024]),
    "scan_cumsum_f32_8": (cumsum, [arr("f32", 2), arr("f32", 2), 8]),
    "scan_cumsum_i32_256": (cumsum, [arr("i32", 2), arr("i32", 2), 256]),
    "scan_cumsum_f32_4096": (cumsum, [arr("f32", 2), arr("f32", 2), 4096]),
    "scan_2d_axis0": (cumsum2d, [arr("f32", 2), arr("f32", 2), 64, 32, 0, 0]),
    "scan_2d_axis1": (cumsum2d, [arr("f32", 2), arr("f32", 2), 16, 128, 1, 0]),
    "scan_2d_axis0_rev": (cumsum2d, [arr("f32", 2), arr("f32", 2), 64, 32, 0, 1]),
    "scan_2d_axis1_rev": (cumsum2d, [arr("f32", 2), arr("f32", 2), 16, 128, 1, 1]),
    "scan_cumprod_64": (cumprod_rows, [arr("f32", 2), arr("f32", 2), 64]),
    "scan_recurrence_512": (recurrence, [arr("f32", 2), arr("f32", 2), arr("f32", 2), 512, 0]),
    "scan_recurrence_512_rev": (recurrence, [arr("f32", 2), arr("f32", 2), arr("f32", 2), 512, 1]),
}
for name, (f, args) in CASES.items():
    export_kernel(f, [KernelSignature(args, CallingConvention.cutile_python_v1())], f"{out}/{name}.tileirbc",
                  gpu_code=None, output_format="tileir_bytecode", bytecode_version="13.4")
'''


@pytest.fixture(scope="module")
def bytecode(tmp_path_factory):
    return export_kernels(tmp_path_factory, "scans", KERNELS)


def _run(bytecode, name, arrays, grid, offsets=None):
    from test_simt_layout_interp import _run as run

    return run(bytecode, name, arrays, grid, offsets)


RNG = np.random.default_rng(1)


def _nan(shape):
    return np.full(shape, np.nan, np.float32)


@pytest.mark.parametrize("rows,cols,offset", [(2, 1024, 0), (3, 1000, 0), (2, 1001, 4), (1, 3, 0), (2, 1500, 0)])
def test_row_cumsum(bytecode, rows, cols, offset):
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    (_, y) = _run(bytecode, "scan_cumsum_f32_1024", [x, _nan((rows, cols))], (rows, 1, 1), {0: offset, 1: offset})
    ref = np.cumsum(x.astype(np.float64), axis=1)
    if cols > 1024:  # one tile per row: columns past it are not written
        np.testing.assert_allclose(y[:, :1024], ref[:, :1024], atol=1e-3, rtol=0)
        assert np.isnan(y[:, 1024:]).all()
    else:
        np.testing.assert_allclose(y, ref, atol=1e-3, rtol=0)


def test_row_cumsum_exact_order(bytecode):
    """Powers of two: every partial sum is exact, so any wrong or missing term shows."""
    x = (2.0 ** RNG.integers(-6, 6, (3, 1024))).astype(np.float32) * RNG.choice([-1, 1], (3, 1024))
    (_, y) = _run(bytecode, "scan_cumsum_f32_1024", [x.astype(np.float32), _nan((3, 1024))], (3, 1, 1))
    np.testing.assert_array_equal(y, np.cumsum(x.astype(np.float64), axis=1).astype(np.float32))


@pytest.mark.parametrize("cols", [1, 5, 8])
def test_short_row_cumsum(bytecode, cols):
    x = RNG.standard_normal((3, cols)).astype(np.float32)
    (_, y) = _run(bytecode, "scan_cumsum_f32_8", [x, _nan((3, cols))], (3, 1, 1))
    np.testing.assert_allclose(y, np.cumsum(x.astype(np.float64), axis=1), atol=1e-5, rtol=0)


@pytest.mark.parametrize("cols", [256, 77])
def test_int_cumsum(bytecode, cols):
    x = RNG.integers(-1000, 1000, (2, cols)).astype(np.int32)
    y = np.full((2, cols), -7, np.int32)
    (_, y) = _run(bytecode, "scan_cumsum_i32_256", [x, y], (2, 1, 1))
    np.testing.assert_array_equal(y, np.cumsum(x, axis=1))


@pytest.mark.parametrize("name,threads", [("scan_cumsum_f32_4096", 512), ("scan_cumsum_f32_4096_w4", 128)])
def test_long_row_cumsum(bytecode, name, threads):
    """4096 elements: without a warps hint the CTA is sized to the tile (512 threads, one run of
    four each); with num_worker_warps=4, 128 threads hold eight runs each (hi segments chained)."""
    from test_simt_layout_interp import _kernel

    assert _kernel(bytecode, name)[1] == threads
    x = RNG.standard_normal((2, 4096)).astype(np.float32)
    (_, y) = _run(bytecode, name, [x, _nan((2, 4096))], (2, 1, 1))
    np.testing.assert_allclose(y, np.cumsum(x.astype(np.float64), axis=1), atol=2e-3, rtol=0)


@pytest.mark.parametrize("name,tm,tn,axis,rev", [("scan_2d_axis0", 64, 32, 0, False), ("scan_2d_axis1", 16, 128, 1, False),
                                                 ("scan_2d_axis0_rev", 64, 32, 0, True),
                                                 ("scan_2d_axis1_rev", 16, 128, 1, True)])
@pytest.mark.parametrize("rows,cols", [(100, 150), (64, 128)])
def test_2d_cumsum(bytecode, name, tm, tn, axis, rev, rows, cols):
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    grid = (-(-rows // tm), -(-cols // tn), 1)
    (_, y) = _run(bytecode, name, [x, _nan((rows, cols))], grid)
    # per tile (zero padded): the scan of each tile's own rows/columns
    xp = np.zeros((grid[0] * tm, grid[1] * tn))
    xp[:rows, :cols] = x
    tiles = xp.reshape(grid[0], tm, grid[1], tn)
    ax = 1 if axis == 0 else 3
    if rev:
        ref = np.flip(np.cumsum(np.flip(tiles, ax), axis=ax), ax)
    else:
        ref = np.cumsum(tiles, axis=ax)
    ref = ref.reshape(grid[0] * tm, grid[1] * tn)[:rows, :cols]
    np.testing.assert_allclose(y, ref, atol=1e-3, rtol=0)


def test_cumprod(bytecode):
    x = (1 + 0.05 * RNG.standard_normal((3, 50))).astype(np.float32)
    (_, y) = _run(bytecode, "scan_cumprod_64", [x, _nan((3, 50))], (3, 1, 1))
    np.testing.assert_allclose(y, np.cumprod(x.astype(np.float64), axis=1), rtol=1e-4)


@pytest.mark.parametrize("rev", [False, True])
@pytest.mark.parametrize("cols", [512, 300])
def test_non_commutative_scan(bytecode, rev, cols):
    """y_t = a_t y_{t-1} + b_t: the combiner's operands in the wrong order give another answer."""
    a = RNG.uniform(0.5, 1.0, (2, cols)).astype(np.float32)
    b = RNG.standard_normal((2, cols)).astype(np.float32)
    name = "scan_recurrence_512_rev" if rev else "scan_recurrence_512"
    (_, _, y) = _run(bytecode, name, [a, b, _nan((2, cols))], (2, 1, 1))
    ap, bp = np.zeros((2, 512)), np.zeros((2, 512))  # the tile, padded with (0, 0) past the row
    ap[:, :cols], bp[:, :cols] = a, b
    ref = np.zeros((2, 512))
    if not rev:  # (a1, b1) then (a2, b2) = (a1 a2, b1 a2 + b2): y_t = a_t y_{t-1} + b_t
        acc = np.zeros(2)
        for t in range(512):
            acc = acc * ap[:, t] + bp[:, t]
            ref[:, t] = acc
    else:  # x_t (+) x_t+1 (+) ... (+) x_511: the composition of the maps from t on
        for t in range(512):
            acc = np.zeros(2)
            for u in range(t, 512):
                acc = acc * ap[:, u] + bp[:, u]
            ref[:, t] = acc
    ref = ref[:, :cols]
    np.testing.assert_allclose(y, ref, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("name", ["scan_cumsum_f32_1024", "scan_2d_axis0"])
def test_ptx_scan_is_parallel(bytecode, name):
    """The register scan: shuffles, vector accesses, and no loop over the row."""
    from tileorch.driver import compile_program

    prog = compile_program((bytecode / f"{name}.tileirbc").read_bytes(), name, ptxas=True)
    assert "ld.global.v4" in prog.ptx
    if name == "scan_cumsum_f32_1024":
        assert "shfl.sync.up.b32" in prog.ptx
