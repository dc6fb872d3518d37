"""User sweep 17's programs given the arrays users pass that are not contiguous: a broadcast row
(``x.expand(R, N)``: stride 0), a transposed array, rows of 3 inside rows of 8, every third element of
a buffer updated in place.  Compiled for those strides (test_user_sweep13_strided.emulate_views: the
launcher's description, the PTX emulator CTA by CTA on numpy views of larger buffers) against numpy;
the buffers' elements outside the views must keep their values.  An array with a negative stride
(a reversed cupy view) is refused before cuTile compiles anything, naming the argument."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from test_user_sweep13_strided import emulate_views  # noqa: E402

from tileorch.testing import user_programs17 as up  # noqa: E402

RNG = np.random.default_rng(1717)


def _f(shape):
    return RNG.standard_normal(shape).astype(np.float32)


def test_where_masks_over_a_broadcast_row():
    row = _f((1, 50))
    x = np.broadcast_to(row, (21, 50))  # strides (0, 4 bytes): the user's row.expand(21, 50)
    rk, ck = RNG.random(21) > 0.4, RNG.random(50) > 0.3
    y = np.full((21, 50), np.nan, np.float32)
    emulate_views(up.where_broadcast_row_col_masks, "where_broadcast_row", [x, rk, ck, y, 8, 32], (3, 2))
    np.testing.assert_array_equal(y, np.where(rk[:, None] & ck[None, :], x, np.where(ck[None, :], -x, 0.5)))


def test_odd_stride_gather_of_a_transposed_array():
    xb = _f((100, 13))
    y = np.full((13, 33), np.nan, np.float32)
    emulate_views(up.odd_stride_columns_gather, "odd_stride_transposed", [xb.T, y, 3, 8, 16], (2, 3))
    np.testing.assert_array_equal(y, xb.T[:, 1::3])


def test_short_rows_inside_wider_rows():
    xb = RNG.standard_normal((37, 8)).astype(np.float16)
    yb = np.full((37, 8), np.nan, np.float16)
    emulate_views(up.short_rows_softmax_width_3, "short_rows_view", [xb[:, 2:5], yb[:, 4:7], 16, 4], (3,))
    x = xb[:, 2:5].astype(np.float64)
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(yb[:, 4:7], e / e.sum(1, keepdims=True), rtol=2e-3, atol=2e-3)
    assert np.isnan(yb[:, [0, 1, 2, 3, 7]]).all()  # the columns outside the output view


def test_in_place_update_of_every_third_element():
    xb, yb = _f(900), _f(300)
    x0, y0 = xb.copy(), yb.copy()
    emulate_views(up.inplace_axpby_and_relu, "inplace_stride3", [xb[::3], yb, 2.0, -0.5, 128], (3,))
    np.testing.assert_allclose(yb, 2.0 * x0[::3].astype(np.float64) - 0.5 * y0, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(xb[::3], np.maximum(x0[::3], 0))
    keep = np.ones(900, bool)
    keep[::3] = False
    np.testing.assert_array_equal(xb[keep], x0[keep])  # the elements between the view's are not written


def test_a_negative_stride_is_refused_naming_the_argument():
    from tileorch.launchers import cutile as rc
    from tileorch.testing.export import FakeDeviceArray

    args = (FakeDeviceArray(0x1000, (300,), (-1,)), FakeDeviceArray(0x2000, (300,)), 2.0, -0.5, 128)
    described = rc.describe_arguments(up.inplace_axpby_and_relu, args)
    with pytest.raises(ValueError, match=r"argument 0 \('X'\) has strides \(-1,\) \(in elements\): a negative stride"):
        rc.export_bytecode(up.inplace_axpby_and_relu, described)
