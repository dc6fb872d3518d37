"""cuTile programs with tile reductions into views (``TiledView.atomic_store_<mode>``: CUDA Tile
IR's ``atomic_red_view_tko``), for the unit tests (SIMT interpreter) and the GPU tests."""

from __future__ import annotations

import cuda.tile as ct


@ct.kernel
def column_block_sums(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    """``out[r, c] += x[i * tm + r, c]`` for every row block ``i`` (a grid of row blocks x column
    blocks): ``out`` ends as the sum of ``x``'s row blocks; ragged edges are skipped."""
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO)
    out.tiled_view((tm, tn)).atomic_store_add((0, j), t)


@ct.kernel
def blockwise_max(x, out, tn: ct.Constant[int]):
    """``out[c] = max(out[c], x[i * tn + c])`` over the blocks ``i`` (int32, signed)."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(tn,), padding_mode=ct.PaddingMode.ZERO)
    out.tiled_view((tn,)).atomic_store_max((0,), t)


@ct.kernel
def sliding_window_counts(out, tn: ct.Constant[int], step: ct.Constant[int]):
    """Window ``i`` (``tn`` elements from ``i * step``: a strided view, overlapping where ``step <
    tn``) adds 1 to each element it covers: ``out[k]`` ends as the number of windows covering ``k``
    (windows past the end add nothing there)."""
    i = ct.bid(0)
    ones = ct.full((tn,), 1, dtype=ct.int32)
    out.tiled_view((tn,), traversal_steps=(step,)).atomic_store_add((i,), ones)


@ct.kernel
def row_vector_or(flags, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    """A ``(1, tn)`` update broadcast over the ``(tm, tn)`` tile: ``out[r, c] |= flags[j * tn + c]``
    for every row ``r`` of row block ``i``."""
    i, j = ct.bid(0), ct.bid(1)
    f = ct.load(flags, index=(j,), shape=(tn,), padding_mode=ct.PaddingMode.ZERO)
    out.tiled_view((tm, tn)).atomic_store_or((i, j), ct.reshape(f, (1, tn)))


@ct.kernel
def pack_rows(x, out, n: ct.Constant[int]):
    """Block ``i`` of ``x`` (``n`` elements) as its bytes: ``out[i * n * k ...]`` (``ct.pack_to_bytes``)."""
    i = ct.bid(0)
    ct.store(out, index=(i,), tile=ct.pack_to_bytes(ct.load(x, index=(i,), shape=(n,))))


@ct.kernel
def unpack_rows(b, out, n: ct.Constant[int], k: ct.Constant[int]):
    """``n * k`` bytes of ``b`` read as ``n`` elements of ``out``'s type (``ct.unpack_from_bytes``),
    doubled (arithmetic on the unpacked tile)."""
    i = ct.bid(0)
    t = ct.unpack_from_bytes(ct.load(b, index=(i,), shape=(n * k,)), out.dtype)
    ct.store(out, index=(i,), tile=t + t)


@ct.kernel
def gemm_split_k_view(A, B, C, splits: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int],
                      tk: ct.Constant[int]):
    """Split-K ``C += A @ B``: program id 2 takes K tiles ``s, s + splits, ..``, its partial product
    added into C's tile through a tiled view (``TiledView.atomic_store_add``)."""
    pid_m, pid_n, s = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(s, ct.num_tiles(A, axis=1, shape=(tm, tk)), splits):
        acc = ct.mma(ct.load(A, index=(pid_m, k), shape=(tm, tk)), ct.load(B, index=(k, pid_n), shape=(tk, tn)), acc)
    C.tiled_view((tm, tn)).atomic_store_add((pid_m, pid_n), acc)
