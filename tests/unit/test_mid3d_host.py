"""Host math of GEMM operands batched in their array's middle dimension (``GemmConfig.batch_mid``: ``[rows, L,
cols]`` arrays read as ``(rows, 1, cols)`` tiles at program id 2): the launcher's ``[L, rows, cols]`` view of such an
array (:func:`tileorch.launchers.cutile.mid_batch_view`), the tensor maps' dims / byte strides / boxes
(:func:`tileorch.launchers.gemm_host.batched_map`, :func:`tensor_maps`), the rows a staged copy moves
(:func:`operand_rows`) and the configuration rules.  Every address is checked against the row-major offset of the
element in the array as numpy lays it out (independent of the code under test); hypothesis draws the shapes."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tileorch.kernels.gemm.config import GemmConfig, GemmConfigError
from tileorch.launchers import gemm_host
from tileorch.launchers.gemm_host import ESIZE, batched_map, operand_rows

ES = {"f16": 2, "bf16": 2, "e4m3": 1, "tf32": 4}


def _array_offset(shape, index, es):
    """Byte offset of ``index`` in a C-contiguous array of ``shape`` (numpy's own ravel)."""
    return int(np.ravel_multi_index(index, shape)) * es


def _map_offset(row_bytes, index_inner_first):
    """Byte offset a tensor map of byte strides ``row_bytes`` (dims innermost first, the first contiguous) gives."""
    c, *outer = index_inner_first
    return c * _map_offset.es + sum(i * s for i, s in zip(outer, row_bytes))


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(1, 300), count=st.integers(1, 9), units=st.integers(1, 40), dtype=st.sampled_from(sorted(ES)),
       mid=st.booleans(), data=st.data())
def test_batched_map_addresses_the_array_element(rows, count, units, dtype, mid, data):
    """Element ``(r, l, c)`` of a ``[rows, L, cols]`` array (``mid``; else ``(l, r, c)`` of ``[L, rows, cols]``) is at
    the byte the 3-D map's strides give for coordinates ``(c, r, l)``; the box spans one matrix; the map's strides are
    multiples of 16 bytes (TMA's rule) when the rows are."""
    es = ES[dtype]
    cols = units * 16 // es  # whole 16-byte rows
    cfg = replace(GemmConfig(), batched=True, batch_mid="a" if mid else "")
    dims, strides, box = batched_map(cfg, "A", (cols, rows), None, (64, 128), es, count)
    assert dims == (cols, rows, count) and box == (64, 128, 1)
    assert all(s % 16 == 0 for s in strides)
    r, l, c = (data.draw(st.integers(0, x - 1)) for x in (rows, count, cols))
    _map_offset.es = es
    want = (_array_offset((rows, count, cols), (r, l, c), es) if mid
            else _array_offset((count, rows, cols), (l, r, c), es))
    assert _map_offset(strides, (c, r, l)) == want


def test_batched_map_keeps_a_staged_pitch_and_the_matrices_cols_apart():
    """A staged copy (a padded row pitch) replaces the row pitch; batched in the middle, the matrices stay ``cols``
    elements apart inside each padded row; a 2-D configuration's map is 2-D."""
    mid = replace(GemmConfig(), batched=True, batch_mid="a")
    assert batched_map(mid, "A", (64, 100), 1024, (64, 128), 2, 3) == ((64, 100, 3), (1024, 128), (64, 128, 1))
    assert batched_map(mid, "B", (64, 100), None, (64, 128), 2, 3) == ((64, 100, 3), (128, 12800), (64, 128, 1))
    assert batched_map(GemmConfig(), "A", (64, 100), None, (64, 128), 2, 3) == ((64, 100), (128,), (64, 128))


def test_tensor_maps_of_a_mid_batched_problem(monkeypatch):
    """A ``[M, L, K]``, B ``[K, L, N]`` and C ``[M, L, N]`` (all three in the middle, f16, the TMA epilogue): each map
    is ``(cols, rows, L)`` with rows ``L cols`` elements and matrices ``cols`` elements apart; the staged rows are the
    arrays' ``[rows, L cols]`` lines."""
    seen = {}

    def encode(ptr, dtype, dims, row_bytes, box, swizzle=128):
        seen[ptr] = (dims, row_bytes, box)
        return bytes(128)

    monkeypatch.setattr(gemm_host, "encode_tensor_map", encode)
    cfg = replace(GemmConfig(), batched=True, batch_mid="abc", c_ld=True, epilogue="tma", out_dtype="f16",
                  b_major="n").check()
    m, n, k, lb = 100, 80, 72, 3
    gemm_host.tensor_maps(cfg, 0x1000, 0x2000, 0x3000, m, n, k, batch=lb)
    assert seen[0x1000][:2] == ((k, m, lb), (lb * k * 2, k * 2)), seen[0x1000]
    assert seen[0x2000][:2] == ((n, k, lb), (lb * n * 2, n * 2)), seen[0x2000]
    assert seen[0x3000][:2] == ((n, m, lb), (lb * n * 2, n * 2)), seen[0x3000]
    rows = {op.name: (op.rows, op.width) for op in operand_rows(cfg, 0x1000, 0x2000, 0x3000, m, n, k, lb)}
    assert rows == {"A": (m, lb * k * 2), "B": (k, lb * n * 2), "C": (m, lb * n * 2)}, rows


def test_a_mid_a_beside_stacked_b_and_c(monkeypatch):
    """Only A in the middle: B ``[L, K, N]`` and C ``[L, M, N]`` keep their stacked maps (a matrix's rows apart)."""
    seen = {}
    monkeypatch.setattr(gemm_host, "encode_tensor_map",
                        lambda ptr, dtype, dims, row_bytes, box, swizzle=128: seen.setdefault(ptr, row_bytes) and b"")
    cfg = replace(GemmConfig(), batched=True, batch_mid="a", epilogue="tma", out_dtype="f16", b_major="n").check()
    gemm_host.tensor_maps(cfg, 0x1000, 0x2000, 0x3000, 100, 80, 72, batch=3)
    assert seen[0x1000] == (3 * 72 * 2, 72 * 2)
    assert seen[0x2000] == (80 * 2, 80 * 2 * 72) and seen[0x3000] == (80 * 2, 80 * 2 * 100)


@pytest.mark.parametrize("change, message", [
    ({"batch_mid": "a"}, "batch_mid names operands a, b, c of a batched configuration"),
    ({"batched": True, "batch_mid": "c"}, "(c with c_ld)"),
    ({"batched": True, "batch_mid": "x"}, "batch_mid names operands"),
    ({"batched": True, "c_ld": True}, "a C with its own row stride"),
])
def test_config_rules_of_batch_mid(change, message):
    with pytest.raises(GemmConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        replace(GemmConfig(), **change).check()


def test_batch_mid_kernels_are_named_apart():
    cfg = replace(GemmConfig(), batched=True)
    names = {replace(cfg, batch_mid=mid, c_ld="c" in mid).name for mid in ("", "a", "b", "ac", "abc")}
    assert len(names) == 5


def _arg(shape, strides, dtype="float16", ptr=0x10000):
    from tileorch.launchers.cutile import ArrayArg

    return ArrayArg(0, "X", dtype, tuple(shape), tuple(strides), ptr)


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(1, 50), count=st.integers(1, 6), units=st.integers(1, 12), data=st.data())
def test_mid_batch_view_is_the_same_memory(rows, count, units, data):
    """The launcher's ``[L, rows, cols]`` view of a contiguous ``[rows, L, cols]`` array: element ``(l, r, c)`` of the
    view is element ``(r, l, c)`` of the array (same pointer, strides in elements)."""
    from tileorch.launchers.cutile import mid_batch_view

    cols = units * 8
    x = _arg((rows, count, cols), (count * cols, cols, 1))
    v = mid_batch_view(x, "a")
    assert v.ptr == x.ptr and v.shape == (count, rows, cols)
    l, r, c = (data.draw(st.integers(0, d - 1)) for d in (count, rows, cols))
    assert sum(i * s for i, s in zip((l, r, c), v.strides)) == np.ravel_multi_index((r, l, c), (rows, count, cols))


@pytest.mark.parametrize("shape, strides, message", [
    ((100, 3, 100), (300, 100, 1), "batch pitch \\(100 elements, 200 bytes\\) is not a multiple of 16 bytes"),
    ((100, 3, 64), (64 * 4, 128, 1), "needs each row's L matrices contiguous"),
    ((100, 3, 64), (128, 64, 1), "needs each row's L matrices contiguous"),  # (rows overlapping)
    ((3, 64), (64, 1), "it must be 3-D"),
])
def test_mid_batch_view_refusals_name_the_argument(shape, strides, message):
    """What TMA cannot take: a LayoutNotSupported naming the argument (the launch then runs on the SIMT path)."""
    from tileorch.launchers.cutile import LayoutNotSupported, mid_batch_view

    with pytest.raises(LayoutNotSupported, match="argument 0 \\('X'\\).*" + message):
        mid_batch_view(_arg(shape, strides), "a")


def test_esize_of_every_mid_dtype():
    assert all(ESIZE[d] == ES[d] for d in ES)


@st.composite
def _strided_views(draw):
    """A ``[rows, L, cols]`` view of a numpy array: a contiguous parent sliced, stepped or transposed (size-1 extents
    included), as (the numpy view, its byte offset from the parent's first element)."""
    rows, count = draw(st.integers(1, 6)), draw(st.integers(1, 4))
    cols = 8 * draw(st.integers(1, 3))
    kind = draw(st.sampled_from(["contiguous", "slice_mid", "slice_rows", "slice_cols", "step", "transpose"]))
    if kind == "contiguous":
        parent = np.zeros((rows, count, cols), np.float16)
        return parent, parent
    if kind == "slice_mid":  # X[:, j:j+L, :] of a wider middle dimension
        extra, j = draw(st.integers(1, 3)), draw(st.integers(0, 3))
        parent = np.zeros((rows, count + extra + j, cols), np.float16)
        return parent, parent[:, j:j + count, :]
    if kind == "slice_rows":  # X[i:i+rows] of a taller array: still contiguous per row and batch
        parent = np.zeros((rows + 2, count, cols), np.float16)
        return parent, parent[1:1 + rows]
    if kind == "slice_cols":  # X[:, :, :cols] of a wider array
        parent = np.zeros((rows, count, cols + 8 * draw(st.integers(1, 2))), np.float16)
        return parent, parent[:, :, :cols]
    if kind == "step":  # X[::2]
        parent = np.zeros((2 * rows, count, cols), np.float16)
        return parent, parent[::2]
    parent = np.zeros((cols, count, rows), np.float16)  # a transposed array
    return parent, parent.transpose(2, 1, 0)


@settings(max_examples=200, deadline=None)
@given(pv=_strided_views(), role=st.sampled_from("abc"))
def test_mid_batch_view_of_strided_views_addresses_their_elements(pv, role):
    """Review H1 / L1: whatever view of an array the launcher takes as a mid-batched operand (A, B or C), its ``[L,
    rows, cols]`` view and the 3-D tensor map the host builds from it (:func:`operand_rows` with the launcher's
    ``mid_ld``, :func:`tensor_maps` with the in-place pitches, as ``PreparedGemm`` does) address exactly the view's
    element ``(r, l, c)`` (brute force over every element, numpy's own byte addresses); a view they cannot address
    is refused (LayoutNotSupported: the SIMT path), including size-1 extents whose parent strides differ from a
    contiguous array's."""
    from tileorch.launchers.cutile import ArrayArg, LayoutNotSupported, mid_batch_view, mid_row_strides

    parent, view = pv
    rows, count, cols = view.shape
    ptr = view.__array_interface__["data"][0]
    x = ArrayArg(0, "X", "float16", view.shape, tuple(s // 2 for s in view.strides), ptr)
    try:
        v = mid_batch_view(x, role)
    except LayoutNotSupported:
        assert view.strides[2] != 2 or (count > 1 and view.strides[1] != 2 * cols) or (
            rows > 1 and view.strides[0] < 2 * count * cols), view.strides  # (only what the maps cannot address)
        return
    matrix = replace(v, shape=v.shape[1:], strides=v.strides[1:])  # (gemm_problem_operand_batches' _matrix)
    other = replace(matrix, strides=(cols * count, 1))
    cfg = replace(GemmConfig(), batched=True, batch_mid=role, c_ld=role == "c", epilogue="tma", out_dtype="f16",
                  b_major="n").check()
    mid_ld = mid_row_strides(cfg, *(matrix if r == role else other for r in "abc"))
    # the problem whose operand ``role`` is this [rows, L, cols] array: A [M, K] (rows M), B [K, N] (rows K), C [M, N]
    m, n, k = {"a": (rows, 64, cols), "b": (64, cols, rows), "c": (rows, cols, 64)}[role]
    ptrs = {"a": (ptr, 1 << 20, 2 << 20), "b": (1 << 20, ptr, 2 << 20), "c": (1 << 20, 2 << 20, ptr)}[role]
    ops = {op.name: op for op in operand_rows(cfg, *ptrs, m, n, k, count, mid_ld=mid_ld)}
    op = ops[role.upper()]
    if not op.in_place:  # (a staged copy: its own padded pitch, not the array's)
        return
    seen = {}
    with pytest.MonkeyPatch.context() as mp:  # (encode_tensor_map recording {ptr: (dims, byte strides, box)})
        mp.setattr(gemm_host, "encode_tensor_map", lambda p, dt, dims, row_bytes, box, swizzle=128:
                   seen.__setitem__(p, (dims, row_bytes, box)) or bytes(128))
        gemm_host.tensor_maps(cfg, *ptrs, m, n, k, batch=count, pitch={name: o.pitch for name, o in ops.items()})
    dims, strides, _ = seen[ptr]
    assert dims == (cols, rows, count)
    for r in range(rows):
        for l in range(count):
            for c in range(cols):
                want = view[r:, l:, c:].__array_interface__["data"][0]  # numpy's address of view[r, l, c]
                assert v.ptr + 2 * sum(i * s for i, s in zip((l, r, c), v.strides)) == want
                assert ptr + 2 * c + sum(i * s for i, s in zip((r, l), strides)) == want


@pytest.mark.parametrize("shape, strides, view", [
    ((100, 1, 64), (192, 64, 1), (64, 192, 1)),  # X[:, 1:2, :] of a contiguous [100, 3, 64]: rows 192 apart
    ((100, 1, 64), (1, 6400, 100), None),  # a transposed [64, 1, 100]: its rows are not contiguous
    ((1, 3, 64), (384, 128, 1), None),  # X[:1, :, :64] of a [.., 3, 128]: matrices 128 apart, not 64
])
def test_mid_batch_view_of_size_one_extents_keeps_the_arrays_pitches(shape, strides, view):
    """Review H1's three examples (each was taken with a contiguous array's pitches): the row stride of a slice
    of a wider middle dimension is the array's own; the others are refused, naming the argument."""
    from tileorch.launchers.cutile import LayoutNotSupported, mid_batch_view

    if view is None:
        with pytest.raises(LayoutNotSupported, match="argument 0 \\('X'\\)"):
            mid_batch_view(_arg(shape, strides), "a")
    else:
        assert mid_batch_view(_arg(shape, strides), "a").strides == view
