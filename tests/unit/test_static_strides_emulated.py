"""``ct.ArrayAnnotation(static_stride_dims=...)`` (issue 22, item 1): the strides the annotation names are the
launch's own (the kernel compiled for them, a launch with other strides another compile, never the first
compile run on the second array), and the dimensions it does not name keep the launcher's default constants
(the unit last stride; a column-major matrix's unit stride on dimension -2, which the column-major transpose
reads).  The PTX of each compile runs CTA by CTA on ``tileorch.testing.ptx_emulator`` against numpy, on views
of NaN-filled buffers whose elements outside the view must keep their NaN."""

from __future__ import annotations

from typing import Annotated

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")

from test_user_sweep13_strided import emulate_views, spec_of  # noqa: E402

from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing.export import described_arguments  # noqa: E402
from tileorch.testing.noticed32_programs import scaled_rows  # noqa: E402

RNG = np.random.default_rng(2201)


def _case(width_in: int, width_out: int, offset: int):
    xb = RNG.standard_normal((5, width_in)).astype(np.float32)
    yb = np.full((5, width_out), np.nan, np.float32)
    return xb, yb, xb[:, offset:offset + 100], yb[:, offset:offset + 100]


def test_the_named_strides_are_constants_and_the_unit_last_stride_stays():
    """Row stride 512 (named) and the contiguous last dimension (not named): the signature states both (was:
    the annotation's tuple replaced the default, the unit last stride a runtime value)."""
    _, _, x, y = _case(512, 320, 10)
    args = described_arguments(scaled_rows, spec_of([x, y, 128]))
    assert args[0].static_strides == (512, None) and args[1].static_strides == (320, None)
    p = rc.kernel_signature(args).parameters
    assert p[0].stride_constant == (512, 1) and p[1].stride_constant == (320, 1)


def test_a_column_major_matrix_keeps_its_unit_stride_constant():
    """``x.T`` of a row-major [100, 5] buffer (a [5, 100] view, strides (1, 5)) with dimension 0 named: the unit stride on
    dimension -2 (what the column-major transpose and the GEMM host side's transposed view read) is still
    stated beside the named one; naming dimension 1 adds 5 to it (was: (None, 5), the kernel not
    transposed while the launcher's host side reads the array as its transpose)."""
    xt = np.zeros((100, 5), np.float32).T
    spec = spec_of([xt, np.zeros((5, 100), np.float32), 128])

    @ct.kernel
    def named_last(x: Annotated[ct.Array, ct.ArrayAnnotation(static_stride_dims=(1,))], y, tile: ct.Constant[int]):
        ct.store(y, index=(ct.bid(0), 0), tile=ct.load(x, index=(ct.bid(0), 0), shape=(1, tile)))

    for kernel, want in ((scaled_rows, (1, None)), (named_last, (1, 5))):
        a = described_arguments(kernel, spec)[0]
        assert a.column_major
        assert rc.kernel_signature(described_arguments(kernel, spec)).parameters[0].stride_constant == want


def test_another_stride_is_another_compile_and_both_are_right():
    """The same kernel launched on views of rows 512 / 320 wide and then 256 / 1000 wide: two signature keys,
    two PTX texts, each run on its own views against numpy (the output's columns outside the view keep NaN)."""
    keys, ptx = set(), set()
    for w_in, w_out, off in ((512, 320, 10), (256, 1000, 3)):
        xb, yb, x, y = _case(w_in, w_out, off)
        keys.add(rc.signature_key(described_arguments(scaled_rows, spec_of([x, y, 128]))))
        prog = emulate_views(scaled_rows, f"static_strides_rows_{w_in}", [x, y, 128], (5,))
        ptx.add(prog.ptx)
        np.testing.assert_array_equal(y, (x * np.float32(2.0) + np.float32(1.0)))
        assert np.isnan(yb[:, :off]).all() and np.isnan(yb[:, off + 100:]).all()
    assert len(keys) == 2 and len(ptx) == 2
