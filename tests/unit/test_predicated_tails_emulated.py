"""``TILEORCH_SIMT_PREDICATED_TAILS=1`` (issue 22, off by default): the SIMT path's per-element
global loads and stores (the scalar path of a run that is not one aligned vector) are predicated
``ld.global`` / ``st.global`` instructions instead of a branch per element.  Programs whose runs
all take that path (rows that start off a 16-byte boundary, column-strided and transposed views)
are compiled both ways and run CTA by CTA in ``tileorch.testing.ptx_emulator`` on numpy views of
larger NaN-filled buffers: the switch's output must be the numpy reference, bit for bit the
branched kernel's, and no element outside a view may be written.  The GPU A/B is
``benchmarks/session28_compile.sh``."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from test_user_sweep13_strided import emulate_views  # noqa: E402

from tileorch.testing import memory_programs as mp  # noqa: E402
from tileorch.testing import user_programs13 as up  # noqa: E402

RNG = np.random.default_rng(2812)
SWITCH = "TILEORCH_SIMT_PREDICATED_TAILS"


def _both(monkeypatch, run):
    """``run(tag)`` with the switch off, then on: (program, outputs) of each."""
    out = []
    for value in ("0", "1"):
        monkeypatch.setenv(SWITCH, value)
        out.append(run(f"pt{value}"))
    return out


def _predicated(prog, width: int) -> tuple[int, int]:
    """(predicated scalar loads, predicated scalar stores) of ``width`` bits in the program's PTX."""
    return prog.ptx.count(f"@p ld.global.b{width} "), prog.ptx.count(f"@p st.global.b{width} ")


def test_softmax_f16_on_rows_off_the_vector_alignment(monkeypatch):
    """Rows of 999 in rows of 1001 (input) and columns 1..999 of rows of 1001 (output): no row
    but the first starts on a 16-byte boundary, so the runs go element by element, and the run
    holding column 999 straddles the row's end (its last element is the -inf padding on the way
    in and not stored on the way out: column 1000 of the output keeps its NaN)."""
    xb = (RNG.standard_normal((3, 1001)) * 3).astype(np.float16)
    x = xb[:, :999]

    def run(tag):
        yb = np.full((3, 1001), np.nan, np.float16)
        prog = emulate_views(mp.softmax, f"softmax_f16_misaligned_{tag}", [x, yb[:, 1:1000], 1024], (3,))
        return prog, yb

    (off, y_off), (on, y_on) = _both(monkeypatch, run)
    assert _predicated(off, 16) == (0, 0)
    loads, stores = _predicated(on, 16)
    assert loads >= 32 and stores >= 32, (loads, stores)
    assert on.ptx.count("bra") < off.ptx.count("bra")
    ref = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y_on[:, 1:1000].astype(np.float64), ref / ref.sum(axis=1, keepdims=True), atol=2e-3,
                               rtol=0)
    np.testing.assert_array_equal(y_on.view(np.uint16), y_off.view(np.uint16))
    assert np.isnan(y_on[:, 0]).all() and np.isnan(y_on[:, 1000]).all()


def test_layernorm_bf16_on_rows_off_the_vector_alignment(monkeypatch):
    """bf16 moves as 16-bit integers (its bits): the predicated accesses of an i16 element."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bf16 = ml_dtypes.bfloat16
    xb = RNG.standard_normal((2, 1027)).astype(bf16)
    w = RNG.standard_normal(1024).astype(bf16)
    b = RNG.standard_normal(1024).astype(bf16)
    x = xb[:, 3:]

    def run(tag):
        yb = np.full((2, 1027), np.nan, bf16)
        prog = emulate_views(mp.layernorm, f"layernorm_bf16_misaligned_{tag}", [x, w, b, yb[:, :1024], 1024], (2,))
        return prog, yb

    (off, y_off), (on, y_on) = _both(monkeypatch, run)
    assert _predicated(off, 16) == (0, 0)
    loads, stores = _predicated(on, 16)
    assert loads >= 32 and stores >= 32, (loads, stores)
    xf = x.astype(np.float64)
    ref = (xf - xf.mean(1, keepdims=True)) / np.sqrt(xf.var(1, keepdims=True) + 1e-5) * w.astype(np.float64) \
        + b.astype(np.float64)
    np.testing.assert_allclose(y_on[:, :1024].astype(np.float64), ref, atol=6e-2, rtol=0)
    np.testing.assert_array_equal(y_on.view(np.uint16), y_off.view(np.uint16))
    assert np.isnan(y_on[:, 1024:].astype(np.float32)).all()


def test_axpby_f32_of_a_column_strided_x_and_a_transposed_y(monkeypatch):
    """Every element of a view with a last stride other than 1 moves alone: f32 loads and stores
    predicated (register class f); the output's rows of 198 in rows of 201 (misaligned, their
    last run straddling the end) stored only inside (50 x 198 in 16 x 128 tiles)."""
    xb = RNG.standard_normal((50, 396)).astype(np.float32)
    yb = RNG.standard_normal((198, 50)).astype(np.float32)
    x, y = xb[:, ::2], yb.T

    def run(tag):
        zb = np.full((50, 201), np.nan, np.float32)
        prog = emulate_views(up.pair2d_axpby, f"axpby_strided_{tag}", [x, y, zb[:, :198], 2.0, -0.5, 16, 128], (4, 2))
        return prog, zb

    (off, z_off), (on, z_on) = _both(monkeypatch, run)
    assert _predicated(off, 32) == (0, 0)
    loads, stores = _predicated(on, 32)
    assert loads > 0 and stores > 0, (loads, stores)
    np.testing.assert_allclose(z_on[:, :198], 2.0 * x.astype(np.float64) - 0.5 * y, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(z_on.view(np.uint32), z_off.view(np.uint32))
    assert np.isnan(z_on[:, 198:]).all()


@pytest.mark.parametrize("dtype,a,b", [(np.float64, 2.0, -0.5), (np.int32, 2, -1), (np.int64, 2, -1)])
def test_axpby_of_other_element_types(monkeypatch, dtype, a, b):
    """The other register classes (f64 ``d``, i32 ``r``, i64 ``l``): column-strided x, transposed
    y, rows of 50 in rows of 51; the column outside the view keeps its fill."""
    xb = (RNG.standard_normal((20, 100)) * 10).astype(dtype)
    yb = (RNG.standard_normal((50, 20)) * 10).astype(dtype)
    x, y = xb[:, ::2], yb.T
    width = np.dtype(dtype).itemsize * 8

    def run(tag):
        zb = np.full((20, 51), -7, dtype)
        prog = emulate_views(up.pair2d_axpby, f"axpby_{np.dtype(dtype).name}_{tag}", [x, y, zb[:, :50], a, b, 16, 32],
                             (2, 2))
        return prog, zb

    (off, z_off), (on, z_on) = _both(monkeypatch, run)
    assert _predicated(off, width) == (0, 0)
    loads, stores = _predicated(on, width)
    assert loads > 0 and stores > 0, (loads, stores)
    np.testing.assert_array_equal(z_on[:, :50], (a * x.astype(np.float64) + b * y).astype(dtype))
    np.testing.assert_array_equal(z_on, z_off)
    assert (z_on[:, 50] == -7).all()


@pytest.mark.parametrize("value,on", [(None, True), ("0", False), ("1", True)])
def test_the_switch_reads_0_or_1_else_an_error(monkeypatch, value, on):
    from tileorch.settings import SettingError
    from tileorch.transforms.tileaa_to_simt.predicated_tails import predicated_tails

    if value is None:
        monkeypatch.delenv(SWITCH, raising=False)
    else:
        monkeypatch.setenv(SWITCH, value)
    assert predicated_tails() is on
    monkeypatch.setenv(SWITCH, "yes")
    with pytest.raises(SettingError, match=SWITCH):
        predicated_tails()
