"""cuTile's tile reductions into views (``TiledView.atomic_store_add/max/or``, CUDA Tile IR's
``atomic_red_view_tko``): ``convert-cudatile-to-tileaa`` lowers each to the pointer tile of the
view's tile with its in-bounds mask and an ``nv_tileaa.atomic_rmw``; the SIMT kernels run on the
CPU interpreter (tests/unit/simt_interp.py, atomics one thread at a time) against numpy, outputs
prefilled, ragged edges included (an element past an edge must not be touched)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from simt_interp import run_cutile  # noqa: E402

from tileorch.testing import view_atomic_programs as P  # noqa: E402
from tileorch.testing.export import cutile_bytecode  # noqa: E402

RNG = np.random.default_rng(117)


@pytest.mark.parametrize("rows,cols", [(100, 70), (64, 64), (5, 3)])
def test_column_block_sums(rows, cols):
    tm, tn = 32, 32
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    out0 = RNG.standard_normal((tm, cols)).astype(np.float32)  # adds to what is there
    spec = [((rows, cols), "float32"), ((tm, cols), "float32"), tm, tn]
    _, out = run_cutile(P.column_block_sums, spec, [x, out0.copy()], (-(-rows // tm), -(-cols // tn), 1))
    padded = np.zeros((-(-rows // tm) * tm, cols))
    padded[:rows] = x
    ref = out0 + padded.reshape(-1, tm, cols).sum(0)
    np.testing.assert_allclose(out, ref, atol=1e-4, rtol=0)


def test_blockwise_max_is_signed_and_skips_the_edge():
    tn, n = 64, 300  # 5 blocks, the last ragged (its padding zeros would beat the negative values)
    x = RNG.integers(-1000, -1, n).astype(np.int32)
    out0 = np.full(tn + 8, -5000, np.int32)  # 8 elements past the view's single tile stay as they are
    spec = [((n,), "int32"), ((tn + 8,), "int32"), tn]
    _, out = run_cutile(P.blockwise_max, spec, [x, out0.copy()], (-(-n // tn), 1, 1))
    padded = np.zeros(5 * tn, np.int64)
    padded[:n] = x
    ref = out0.astype(np.int64)
    ref[:tn] = np.maximum(ref[:tn], padded.reshape(5, tn).max(0))
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("n,step", [(37, 4), (40, 8), (33, 11)])
def test_sliding_windows_through_a_strided_view(n, step):
    tn = 8
    windows = -(-(n - tn) // step) + 1 if n > tn else 1
    out0 = np.full(n, 7, np.int32)
    (out,) = run_cutile(P.sliding_window_counts, [((n,), "int32"), tn, step], [out0.copy()], (windows + 1, 1, 1))
    ref = out0.astype(np.int64)
    for i in range(windows + 1):  # the extra window starts past the end or reaches past it
        lo = i * step
        ref[lo:min(lo + tn, n)] += 1
    np.testing.assert_array_equal(out, ref)


def test_broadcast_row_update_with_or():
    tm, tn, rows, cols = 16, 32, 40, 50
    flags = RNG.integers(0, 1 << 20, cols).astype(np.int32)
    out0 = RNG.integers(0, 1 << 20, (rows, cols)).astype(np.int32)
    spec = [((cols,), "int32"), ((rows, cols), "int32"), tm, tn]
    _, out = run_cutile(P.row_vector_or, spec, [flags, out0.copy()], (-(-rows // tm), -(-cols // tn), 1))
    np.testing.assert_array_equal(out, out0 | flags[None, :])


def test_red_view_is_an_atomic_rmw_per_element_without_an_exchange():
    """The PTX: one relaxed ``atom.global.add.f32`` per element of the thread's slots, no shared
    memory (the coordinates are computed on whole tiles, no 1-D -> 2-D broadcast)."""
    from tileorch.driver import compile_program

    spec = [((100, 70), "float32"), ((32, 70), "float32"), 32, 32]
    p = compile_program(cutile_bytecode(P.column_block_sums, spec), "sums", ptxas=False)
    assert p.kind == "simt"
    assert p.ptx.count("atom.global.add.f32") == 32 * 32 // 256, "4 elements per thread of 256"
    assert "st.shared" not in p.ptx and "bar.sync" not in p.ptx


# ---------------------------------------------------------------------- pack / unpack
_NP = {"float32": np.float32, "float16": np.float16, "int16": np.int16, "int64": np.int64, "int32": np.int32,
       "float64": np.float64}


@pytest.mark.parametrize("dtype", ["float32", "float16", "int16", "int64", "bfloat16"])
def test_pack_to_bytes_is_the_little_endian_bytes(dtype):
    """``ct.pack_to_bytes`` of each block against numpy's view of the same elements as bytes (bf16
    as its bit patterns, held as f32 on the SIMT path)."""
    n, blocks = 64, 3
    if dtype == "bfloat16":
        x = (RNG.standard_normal(blocks * n).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16).view(np.int16)
    else:
        x = (RNG.standard_normal(blocks * n) * 1000).astype(_NP[dtype])
    k = x.itemsize
    out = np.full(blocks * n * k, 0xAB, np.uint8)
    _, got = run_cutile(P.pack_rows, [((blocks * n,), dtype), ((blocks * n * k,), "uint8"), n], [x, out], (blocks, 1, 1))
    np.testing.assert_array_equal(got, x.view(np.uint8))


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "float64", "bfloat16"])
def test_unpack_from_bytes_reads_elements(dtype):
    n, blocks = 32, 2
    if dtype == "bfloat16":
        vals = RNG.standard_normal(blocks * n).astype(np.float32)
        bits = (vals.view(np.uint32) >> 16).astype(np.uint16)
        raw, k = bits.view(np.uint8).copy(), 2
        out = np.zeros(blocks * n, np.int16)
    else:
        x = (RNG.standard_normal(blocks * n) * 1000).astype(_NP[dtype])
        raw, k = x.view(np.uint8).copy(), x.itemsize
        out = np.full(blocks * n, 7, _NP[dtype])
    spec = [((blocks * n * k,), "uint8"), ((blocks * n,), dtype), n, k]
    _, got = run_cutile(P.unpack_rows, spec, [raw, out], (blocks, 1, 1))
    if dtype == "bfloat16":
        value = (got.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        ref = (bits.astype(np.uint32) << 16).view(np.float32)
        np.testing.assert_array_equal(value, ref + ref)  # doubling a bf16 is exact
    else:
        np.testing.assert_array_equal(got, x + x)
