"""The seventeenth user sweep (session 23, issue 21: programs acceptance runs that we will not see):
**memory-bound and non-dot programs at the edges of the element types and of the grid**, written as a
user writes them, in the variants the earlier sweeps (:mod:`tileorch.testing.user_programs` ..
``user_programs15``) do not hold.  Selection and segments: top-k of each row by repeated ``argmax``
with masking; segmented (ragged) sums and maxima over a CSR offset table (int32 and int64 offsets,
empty segments).  Atomics of every kind: a histogram of per-bin minimum / maximum / count by
``atomic_min`` / ``atomic_max`` / ``atomic_add`` (uint32 past 2**31 and int64 past 2**32 too), f16 and
f64 ``atomic_add`` tables, a 2-D histogram by an index tuple, a float per-bin maximum by an
``atomic_cas`` retry loop on the bits, per-bin linked lists by ``atomic_xchg`` of the list heads, a
sort-free distinct count by ``atomic_xchg`` into a presence table, stream compaction by per-lane
slots from one counter, ids of -1 / INT_MIN / INT_MAX / past the table through the bounds checks.
Instances reading what others wrote: a "last program reduces" ticket and a chained scan that spins
on its predecessor's flag.  Shapes: a 4-D permute, a 3-D broadcast and 4-D middle-axis reductions of
odd shapes with tiles larger than the array in every dimension; one-element tiles; ``ct.where`` with
row / column masks and a 0-d runtime flag, ``cat`` / ``extract``; odd-stride column reads by gathers;
int64 index math past 2**32.  Element types: int16 / uint16 conversions saturating from floats and
wrapping from int32; f32 -> fp8 e5m2 (saturating) and back, e5m2 -> e4m3, e5m2 -> int8 / uint8 / int16;
uint32 / uint64 / int64 / f64 conversions at their edges; NaN and infinities through ``max`` / ``min``
/ ``argmax`` (with and without ``propagate_nan``) and the six compares; int8 / int32 / int64 wrap in
add / multiply / cumsum; shifts by runtime amounts at and beyond the width (PTX's clamp); float
``//`` and ``%`` of both signs; ``ct.reduce`` / ``ct.scan`` with user combiners (xor, (|x|, index)
pairs, running max, reverse running min); int64 argmax and uint32 argmin.  Row lengths: a
70,001-element row summed in tiles, a 65,536-element single tile, rows of 1 and 3 elements.  One
program storing six outputs of six dtypes; bool any / all per row; in-place updates.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep17_compile.py (CPU compile to PTX, ptxas without spills),
tests/unit/test_user_sweep17_interp.py (the SIMT interpreter against numpy),
tests/unit/test_user_sweep17_emulated.py (the PTX emulator) and tests/gpu/test_user_sweep17_gpu.py
(the GPU, the same references).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
F32, F16, BF16, I8, I16, U16, I32, U32, I64 = ("float32", "float16", "bfloat16", "int8", "int16", "uint16", "int32",
                                               "uint32", "int64")
C = ct.Constant
ZERO = ct.PaddingMode.ZERO
NEG_INF = ct.PaddingMode.NEG_INF


# ----------------------------------------------------------------------------------------------- selection


@ct.kernel
def topk_rows_repeated_argmax(X, V, I, K: C[int], BN: C[int]):
    """Top-``K`` of each f32 row (ragged, padded with -inf) by ``K`` rounds of ``argmax`` and ``max``,
    the winner masked to -inf before the next round; values and int32 indices stored per round into
    ``[rows, K]`` (ties: the first index)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF)
    cols = ct.arange(BN, dtype=ct.int32)[None, :]
    for k in range(K):
        idx = ct.argmax(x, axis=1, keepdims=True)
        ct.store(V, index=(r, k), tile=ct.max(x, axis=1, keepdims=True))
        ct.store(I, index=(r, k), tile=idx.astype(ct.int32))
        x = ct.where(cols == idx, -float("inf"), x)


@ct.kernel
def segmented_sum_csr_offsets(X, Off, Y, BN: C[int]):
    """The sum of each segment ``X[Off[s]:Off[s+1]]`` (int32 offsets, ragged lengths, empty segments
    sum to 0): the segment's bounds gathered as scalars, a runtime loop of ``BN``-element gathers
    masked at the segment's end."""
    s = ct.bid(0)
    start = ct.gather(Off, s)
    end = ct.gather(Off, s + 1)
    acc = ct.zeros((BN,), dtype=ct.float32)
    for k in range(ct.cdiv(end - start, BN)):
        idx = start + k * BN + ct.arange(BN, dtype=ct.int32)
        acc = acc + ct.gather(X, idx, mask=idx < end)
    ct.store(Y, index=(s,), tile=ct.reshape(ct.sum(acc), (1,)))


@ct.kernel
def segmented_max_argmax_int64_offsets(X, Off, Y, A, BN: C[int]):
    """The maximum of each f16 segment over int64 offsets and its global int64 position (-inf and -1
    for an empty segment): masked gathers padded with -inf, a running maximum and the index of its
    first occurrence carried across the loop."""
    s = ct.bid(0)
    start = ct.gather(Off, s)
    end = ct.gather(Off, s + 1)
    best = ct.full((1,), -float("inf"), dtype=ct.float32)
    where_ = ct.full((1,), -1, dtype=ct.int64)
    for k in range(ct.cdiv(end - start, BN)):
        idx = start + k * BN + ct.arange(BN, dtype=ct.int64)
        x = ct.gather(X, idx, mask=idx < end, padding_value=-float("inf")).astype(ct.float32)
        m = ct.max(x, keepdims=True)
        j = ct.argmax(x, keepdims=True).astype(ct.int64)
        better = m > best
        where_ = ct.where(better, start + k * BN + j, where_)
        best = ct.where(better, m, best)
    ct.store(Y, index=(s,), tile=best)
    ct.store(A, index=(s,), tile=where_)


# ----------------------------------------------------------------------------------------------- atomics


@ct.kernel
def histogram_bin_min_max_count(Val, Bin, Mn, Mx, Cnt, BN: C[int]):
    """Per-bin minimum, maximum and count of int32 values by ``atomic_min`` / ``atomic_max`` /
    ``atomic_add`` (ragged length: the tail's bins are sent past the table, where the atomics'
    bounds check drops them)."""
    i = ct.bid(0)
    n = Val.shape[0]
    pos = i * BN + ct.arange(BN, dtype=ct.int32)
    v = ct.load(Val, index=(i,), shape=(BN,), padding_mode=ZERO)
    b = ct.where(pos < n, ct.load(Bin, index=(i,), shape=(BN,), padding_mode=ZERO), Mn.shape[0])
    ct.atomic_min(Mn, b, v)
    ct.atomic_max(Mx, b, v)
    ct.atomic_add(Cnt, b, ct.full((BN,), 1, dtype=ct.int32))


@ct.kernel
def histogram_float_max_cas_loop(Val, Bin, MxBits, BN: C[int], TRIES: C[int]):
    """A per-bin f32 maximum where the table is the user's ``view(torch.int32)`` of it: read the
    bits, ``maximum`` as floats, ``atomic_cas`` the new bits, retry the lanes whose compare failed
    (``TRIES`` rounds: enough for the contention of this grid); the ragged tail's lanes are done
    from the start."""
    i = ct.bid(0)
    n = Val.shape[0]
    pos = i * BN + ct.arange(BN, dtype=ct.int32)
    v = ct.load(Val, index=(i,), shape=(BN,), padding_mode=ZERO)
    b = ct.load(Bin, index=(i,), shape=(BN,), padding_mode=ZERO)
    done = pos >= n
    for t in range(TRIES):
        bits = ct.gather(MxBits, b)
        new = ct.bitcast(ct.maximum(ct.bitcast(bits, ct.float32), v), ct.int32)
        old = ct.atomic_cas(MxBits, b, bits, ct.where(done, bits, new))
        done = done | (old == bits)


@ct.kernel
def bucket_lists_by_xchg_heads(Bin, Head, Next, BN: C[int]):
    """Per-bucket singly linked lists (a user's lock-free bucketing): element ``i`` swaps itself into
    ``Head[bin]`` by ``atomic_xchg`` and stores the previous head as ``Next[i]`` (-1 ends a list);
    the ragged tail's exchanges go past the table and are dropped."""
    i = ct.bid(0)
    n = Bin.shape[0]
    pos = i * BN + ct.arange(BN, dtype=ct.int32)
    b = ct.where(pos < n, ct.load(Bin, index=(i,), shape=(BN,), padding_mode=ZERO), Head.shape[0])
    old = ct.atomic_xchg(Head, b, pos)
    ct.store(Next, index=(i,), tile=old)


@ct.kernel
def negative_ids_dropped_by_bounds_checks(Ids, Src, Table, G, S, BN: C[int]):
    """Ids of -1 (padding tokens) and past the table, given straight to the bounds-checked accesses,
    as a user relies on them: ``atomic_add`` of 1 into ``Table[id]``, ``gather`` of ``Src[id]``
    (padding value 0 for a dropped id) and ``scatter`` of the position into ``S[id]`` (dropped), for
    every id; ragged length (the tail's id -1 too)."""
    i = ct.bid(0)
    n = Ids.shape[0]
    pos = i * BN + ct.arange(BN, dtype=ct.int32)
    ids = ct.where(pos < n, ct.load(Ids, index=(i,), shape=(BN,), padding_mode=ZERO), -1)
    ct.atomic_add(Table, ids, ct.full((BN,), 1, dtype=ct.int32))
    ct.store(G, index=(i,), tile=ct.gather(Src, ids))
    ct.scatter(S, ids, pos)


@ct.kernel
def distinct_count_presence_xchg(X, Seen, Count, BN: C[int]):
    """Sort-free distinct count of int32 ids: ``atomic_xchg(Seen, x, 1)`` returns 0 exactly once per
    id, those lanes are counted and added to ``Count`` by one ``atomic_add`` per program (ragged
    length: tail lanes count nothing and write past the table)."""
    i = ct.bid(0)
    n = X.shape[0]
    valid = (i * BN + ct.arange(BN, dtype=ct.int32)) < n
    x = ct.where(valid, ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO), Seen.shape[0])
    old = ct.atomic_xchg(Seen, x, ct.full((BN,), 1, dtype=ct.int32))
    first = ct.sum(ct.where(valid & (old == 0), 1, 0))
    ct.atomic_add(Count, ct.zeros((1,), dtype=ct.int32), ct.reshape(first, (1,)).astype(ct.int32))


@ct.kernel
def compaction_by_lane_atomic_slots(X, Y, Count, BN: C[int]):
    """Stream compaction without a scan: every kept lane takes its own output slot by an
    ``atomic_add`` of 1 on the one counter (all lanes of the tile at index 0: each must get a
    distinct old value), then scatters its value there (order unspecified; ragged length)."""
    i = ct.bid(0)
    n = X.shape[0]
    valid = (i * BN + ct.arange(BN, dtype=ct.int32)) < n
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    keep = valid & (x > 0)
    slot = ct.atomic_add(Count, ct.zeros((BN,), dtype=ct.int32), ct.where(keep, 1, 0))
    ct.scatter(Y, slot, x, mask=keep)


@ct.kernel
def joint_histogram_2d_atomic(A, B, H, BN: C[int]):
    """A joint histogram of two int32 label arrays into the int32 ``H[a, b]`` by ``atomic_add`` with a
    2-D index tuple (an int64 row index from one array, an int32 column from the other); ragged
    length: the tail lanes add 0 at ``(0, 0)``."""
    i = ct.bid(0)
    n = A.shape[0]
    valid = (i * BN + ct.arange(BN, dtype=ct.int32)) < n
    a = ct.load(A, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.int64)
    b = ct.load(B, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.atomic_add(H, (a, b), ct.where(valid, 1, 0))


@ct.kernel
def last_program_reduces_partials(X, Partial, Ticket, Total, BN: C[int], BP: C[int]):
    """Single-pass sum with a ticket (CUB's "last block" pattern): each program stores its partial
    sum, then takes a ticket with ``atomic_add`` (acquire-release); the program holding the last
    ticket reads every other instance's partial and stores the total (ragged length)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Partial, index=(i,), tile=ct.reshape(ct.sum(x), (1,)))
    ticket = ct.atomic_add(Ticket, ct.zeros((1,), dtype=ct.int32), ct.ones((1,), dtype=ct.int32))
    if ticket.item() == ct.num_blocks(0) - 1:
        parts = ct.load(Partial, index=(0,), shape=(BP,), padding_mode=ZERO)
        ct.store(Total, index=(0,), tile=ct.reshape(ct.sum(parts), (1,)))


@ct.kernel
def atomic_max_min_uint32_int64(U, Bu, MaxU, MinU, V, MaxV, BN: C[int]):
    """``atomic_max`` / ``atomic_min`` of uint32 values at and above 2**31 (an unsigned compare: a
    signed one takes them for negatives) and ``atomic_max`` of int64 values past 2**32 into small
    tables; ragged length (the tail's bins past the tables)."""
    i = ct.bid(0)
    n = U.shape[0]
    valid = (i * BN + ct.arange(BN, dtype=ct.int32)) < n
    b = ct.where(valid, ct.load(Bu, index=(i,), shape=(BN,), padding_mode=ZERO), MaxU.shape[0])
    u = ct.load(U, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.atomic_max(MaxU, b, u)
    ct.atomic_min(MinU, b, u)
    ct.atomic_max(MaxV, b, ct.load(V, index=(i,), shape=(BN,), padding_mode=ZERO))


@ct.kernel
def atomic_add_f16_and_f64_tables(X, Bin, H, D, BN: C[int]):
    """A bin sum accumulated twice: into an f16 table by a 16-bit float ``atomic_add`` and into an f64
    table by a 64-bit one (ragged length: the tail's bins past the tables)."""
    i = ct.bid(0)
    n = X.shape[0]
    valid = (i * BN + ct.arange(BN, dtype=ct.int32)) < n
    b = ct.where(valid, ct.load(Bin, index=(i,), shape=(BN,), padding_mode=ZERO), H.shape[0])
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.atomic_add(H, b, x.astype(ct.float16))
    ct.atomic_add(D, b, x.astype(ct.float64))


@ct.kernel
def chained_scan_flag_lookback(X, Y, Carry, Flag, BN: C[int]):
    """A single-pass inclusive scan in instance order (a "chained scan"): instance ``i`` scans its
    tile, spins until ``Flag[i]`` is set by instance ``i - 1`` (``atomic_add`` of 0, acquire), reads
    the carry it left, stores its tile plus the carry, then publishes its own carry and sets
    ``Flag[i + 1]`` (release).  Ragged length."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    at = ct.full((1,), i, dtype=ct.int32)
    while ct.atomic_add(Flag, at, ct.zeros((1,), dtype=ct.int32)).item() == 0:
        pass
    carry = ct.load(Carry, index=(i,), shape=(1,), memory_order=ct.MemoryOrder.ACQUIRE,
                    memory_scope=ct.MemoryScope.DEVICE)
    y = ct.cumsum(x, axis=0) + carry
    ct.store(Y, index=(i,), tile=y)
    ct.store(Carry, index=(i + 1,), tile=ct.reshape(ct.sum(x), (1,)) + carry)
    ct.atomic_xchg(Flag, at + 1, ct.ones((1,), dtype=ct.int32))


# ----------------------------------------------------------------------------------------------- shapes


@ct.kernel
def permute_4d_odd_tile_larger(X, Y):
    """A 4-D permute ``(2, 0, 3, 1)`` of an f16 ``(3, 5, 7, 2)`` array by one program whose tile
    ``(4, 8, 8, 2)`` is larger than the array in three dimensions (zero padding, stores clipped)."""
    x = ct.load(X, index=(0, 0, 0, 0), shape=(4, 8, 8, 2), padding_mode=ZERO)
    ct.store(Y, index=(0, 0, 0, 0), tile=ct.permute(x, (2, 0, 3, 1)))


@ct.kernel
def broadcast_3d_odd_unit_dims(X, Z, W, Y):
    """``y[a, b, c] = x[a, 0, c] + z[0, b, 0] * w[c]`` over ``(5, 3, 7)`` from arrays with unit
    dimensions, every tile larger than the array (``(8, 1, 8)``, ``(1, 4, 1)``, ``(8,)``)."""
    x = ct.load(X, index=(0, 0, 0), shape=(8, 1, 8), padding_mode=ZERO)
    z = ct.load(Z, index=(0, 0, 0), shape=(1, 4, 1), padding_mode=ZERO)
    w = ct.load(W, index=(0,), shape=(8,), padding_mode=ZERO)
    ct.store(Y, index=(0, 0, 0), tile=x + z * w[None, None, :])


@ct.kernel
def tiles_larger_than_array_3d(X, Y, S):
    """A ``(3, 5, 2)`` f32 array read by one ``(4, 8, 4)`` tile (zero padding): ``2x + 1`` stored
    (the padding's lanes not written) and the sum of the array (``(1,)``)."""
    x = ct.load(X, index=(0, 0, 0), shape=(4, 8, 4), padding_mode=ZERO)
    ct.store(Y, index=(0, 0, 0), tile=x * 2.0 + 1.0)
    ct.store(S, index=(0,), tile=ct.reshape(ct.sum(x), (1,)))


@ct.kernel
def transpose_one_element_tiles(X, Y):
    """A transpose of a ``(7, 5)`` f32 array by ``(1, 1)`` tiles in two nested runtime loops over the
    array's shape (one program)."""
    m, n = X.shape[0], X.shape[1]
    for i in range(m):
        for j in range(n):
            t = ct.load(X, index=(i, j), shape=(1, 1))
            ct.store(Y, index=(j, i), tile=t)


@ct.kernel
def where_broadcast_row_col_masks(X, RowKeep, ColKeep, Y, BM: C[int], BN: C[int]):
    """``ct.where`` with masks broadcast from a bool row vector ``(BM, 1)`` and a bool column vector
    ``(1, BN)``: kept cells ``x``, masked rows of kept columns ``-x``, else the scalar 0.5 (ragged
    both axes)."""
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(i, j), shape=(BM, BN), padding_mode=ZERO)
    rk = ct.load(RowKeep, index=(i,), shape=(BM,), padding_mode=ZERO)[:, None]
    ck = ct.load(ColKeep, index=(j,), shape=(BN,), padding_mode=ZERO)[None, :]
    ct.store(Y, index=(i, j), tile=ct.where(rk & ck, x, ct.where(ck, -x, 0.5)))


@ct.kernel
def odd_stride_columns_gather(X, Y, stride: int, BM: C[int], BN: C[int]):
    """Every ``stride``-th column of an f32 ``(M, N)`` array (a runtime odd stride) from column 1,
    read by 2-D gathers with row / column index tiles, stored compact ``(M, ceil((N-1)/stride))``."""
    i, j = ct.bid(0), ct.bid(1)
    m, n = X.shape[0], X.shape[1]
    rows = i * BM + ct.arange(BM, dtype=ct.int32)[:, None]
    cols = 1 + (j * BN + ct.arange(BN, dtype=ct.int32)[None, :]) * stride
    x = ct.gather(X, (rows, cols), mask=(rows < m) & (cols < n))
    ct.store(Y, index=(i, j), tile=x)


@ct.kernel
def int64_index_math_past_2_32(X, Y, far: ct.ScalarInt64, BN: C[int]):
    """Index arithmetic through int64 values past 2**32: ``(bid * far + arange) - bid * far`` with an
    int64 ``far`` (> 2**32) before the gather, so only a 64-bit evaluation lands in the array (ragged
    length, masked)."""
    i = ct.bid(0)
    n = X.shape[0]
    big = ct.full((BN,), i, dtype=ct.int64) * far
    idx = (big + i * BN + ct.arange(BN, dtype=ct.int64)) - big
    ct.store(Y, index=(i,), tile=ct.gather(X, idx, mask=idx < n) * 3.0)


# ----------------------------------------------------------------------------------------------- element types


@ct.kernel
def int16_uint16_saturate_and_wrap(X, A, B, Cw, D, BN: C[int]):
    """f32 -> int16 and -> uint16 ``astype`` (saturating, NaN 0), f32 -> int32 -> int16 (the second
    conversion wraps), and int16 + uint16 back to f32 (sign- and zero-extended); ragged length."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    a = x.astype(ct.int16)
    b = x.astype(ct.uint16)
    ct.store(A, index=(i,), tile=a)
    ct.store(B, index=(i,), tile=b)
    ct.store(Cw, index=(i,), tile=x.astype(ct.int32).astype(ct.int16))
    ct.store(D, index=(i,), tile=a.astype(ct.float32) + b.astype(ct.float32))


@ct.kernel
def e5m2_saturate_roundtrip(X, Q, R, Q4, BN: C[int]):
    """f32 -> fp8 e5m2 (rounding to nearest even, saturating past 57344, NaN kept), the e5m2 bytes
    back to f16, and e5m2 -> e4m3 directly (saturating past 448); ragged length."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    q = x.astype(ct.float8_e5m2)
    ct.store(Q, index=(i,), tile=q)
    ct.store(R, index=(i,), tile=q.astype(ct.float16))
    ct.store(Q4, index=(i,), tile=q.astype(ct.float8_e4m3fn))


@ct.kernel
def e5m2_to_small_integers_saturating(Q, A, B, Cc, BN: C[int]):
    """fp8 e5m2 values (up to +-57344, inf and NaN bytes included) to int8, uint8 and int16 by
    ``astype``: truncation toward zero, saturating (inf to the extremes, NaN 0); ragged length."""
    i = ct.bid(0)
    q = ct.load(Q, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(A, index=(i,), tile=q.astype(ct.int8))
    ct.store(B, index=(i,), tile=q.astype(ct.uint8))
    ct.store(Cc, index=(i,), tile=q.astype(ct.int16))


@ct.kernel
def nan_inf_max_min_argmax(X, Mx, Mn, MxP, Am, AmP, BN: C[int]):
    """Per f32 row (ragged, padded with -inf): ``max`` / ``min`` ignoring NaN (the default), ``max``
    and ``argmax`` with ``propagate_nan=True`` (NaN wins, its first index), and the default
    ``argmax``; rows with NaN, +-inf, all NaN."""
    r = ct.bid(0)
    n = X.shape[1]
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF)
    valid = ct.arange(BN, dtype=ct.int32)[None, :] < n
    ct.store(Mx, index=(r,), tile=ct.max(x, axis=1))
    ct.store(Mn, index=(r,), tile=ct.min(ct.where(valid, x, float("inf")), axis=1))
    ct.store(MxP, index=(r,), tile=ct.max(x, axis=1, propagate_nan=True))
    ct.store(Am, index=(r,), tile=ct.argmax(x, axis=1).astype(ct.int32))
    ct.store(AmP, index=(r,), tile=ct.argmax(x, axis=1, propagate_nan=True).astype(ct.int32))


@ct.kernel
def float_compares_with_nan_inf(X, Y, Out, BN: C[int]):
    """The six comparisons of f32 tiles holding NaN, +-inf and signed zeros, each stored as a bool
    row of ``Out [6, N]`` (``<``, ``<=``, ``>``, ``>=``, ``==`` false with a NaN; ``!=`` true; -0 == 0);
    ragged length."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    y = ct.load(Y, index=(i,), shape=(BN,), padding_mode=ZERO)
    rows = ct.cat((ct.cat(((x < y)[None, :], (x <= y)[None, :]), axis=0),
                   ct.cat(((x > y)[None, :], (x >= y)[None, :]), axis=0)), axis=0)
    ct.store(Out, index=(0, i), tile=rows)
    ct.store(Out, index=(2, i), tile=ct.cat(((x == y)[None, :], (x != y)[None, :]), axis=0))


@ct.kernel
def integer_overflow_wraps(A, B, S32, P32, S8, P64, BN: C[int]):
    """Two's-complement wrap of int32 add and multiply, int8 add (after an int32 -> int8
    truncation) and int64 multiply, as CUDA Tile IR's ``addi`` / ``muli`` define it (no overflow
    flags); ragged length."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BN,), padding_mode=ZERO)
    b = ct.load(B, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(S32, index=(i,), tile=a + b)
    ct.store(P32, index=(i,), tile=a * b)
    ct.store(S8, index=(i,), tile=a.astype(ct.int8) + b.astype(ct.int8))
    ct.store(P64, index=(i,), tile=a.astype(ct.int64) * b.astype(ct.int64) * 4294967311)


@ct.kernel
def shifts_by_runtime_amounts(X, U, Sh, L, Ra, Rl, BN: C[int]):
    """int32 ``<<``, arithmetic ``>>`` and uint32 logical ``>>`` by per-element runtime amounts
    0..40 (at and past the width: 0, the sign, 0, as PTX's clamped shifts give); ragged length."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    u = ct.load(U, index=(i,), shape=(BN,), padding_mode=ZERO)
    s = ct.load(Sh, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(L, index=(i,), tile=ct.bitwise_lshift(x, s))
    ct.store(Ra, index=(i,), tile=ct.bitwise_rshift(x, s))
    ct.store(Rl, index=(i,), tile=ct.bitwise_rshift(u, s.astype(ct.uint32)))


@ct.kernel
def float_floordiv_mod_mixed_signs(X, Y, Q, R, BN: C[int]):
    """Python's float ``//`` and ``%`` on f32 tiles with both signs (the remainder takes the divisor's
    sign, ``q * y + r == x``), one divisor tile per element; ragged length."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    y = ct.load(Y, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Q, index=(i,), tile=x // y)
    ct.store(R, index=(i,), tile=x % y)


@ct.kernel
def int8_cumsum_wraps_bool_argmax(X, M, S, A, BN: C[int]):
    """Per row: the int8 running sum (wrapping at 8 bits, as ``addi`` on i8) and the first true
    position of a bool row by ``argmax`` (0 when none; ragged N, padded false)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(S, index=(r, 0), tile=ct.cumsum(x, axis=1))
    m = ct.load(M, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(A, index=(r,), tile=ct.argmax(m, axis=1).astype(ct.int32))


@ct.kernel
def six_outputs_six_dtypes(X, H, S8, Pos, Q64, D64, BF, BN: C[int]):
    """One program writing six outputs of six dtypes from one f32 tile: f16 value, int8 sign, bool
    ``x > 0``, int64 ``floor(x * 1000)``, f64 square, bf16 ``x / 3`` (ragged length)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(H, index=(i,), tile=x.astype(ct.float16))
    ct.store(S8, index=(i,), tile=ct.where(x > 0, 1, ct.where(x < 0, -1, 0)).astype(ct.int8))
    ct.store(Pos, index=(i,), tile=x > 0)
    ct.store(Q64, index=(i,), tile=ct.floor(x * 1000.0).astype(ct.int64))
    xd = x.astype(ct.float64)
    ct.store(D64, index=(i,), tile=xd * xd)
    ct.store(BF, index=(i,), tile=(x / 3.0).astype(ct.bfloat16))


@ct.kernel
def bool_rows_any_all_count(X, Any, All, Cnt, BN: C[int]):
    """Per row of a bool ``(R, N)`` array (ragged N): any, all (the padding counted as true by a
    column mask) and the number of true values, from ``max`` / ``min`` / ``sum`` of its int32 cast."""
    r = ct.bid(0)
    n = X.shape[1]
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.int32)
    valid = ct.arange(BN, dtype=ct.int32)[None, :] < n
    ct.store(Any, index=(r,), tile=ct.max(x, axis=1) > 0)
    ct.store(All, index=(r,), tile=ct.min(ct.where(valid, x, 1), axis=1) > 0)
    ct.store(Cnt, index=(r,), tile=ct.sum(x, axis=1))


@ct.kernel
def reduce_custom_xor_and_absmax_index(X, K, V, I, BN: C[int]):
    """User combiners through ``ct.reduce``: a uint32 xor checksum of each row of ``K`` (0 is the
    identity, so the zero padding is harmless), and ``(|x|, index)`` pairs reduced to the largest
    ``|x|`` with the smallest index among ties (identity ``(-1, 2**31 - 1)``; padded lanes -1).
    Ragged N."""
    r = ct.bid(0)
    n = X.shape[1]
    k = ct.load(K, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(V, index=(r,), tile=ct.reduce(k, axis=1, func=lambda a, b: a ^ b, identity=0).astype(ct.uint32))
    cols = ct.arange(BN, dtype=ct.int32)[None, :]
    a = ct.where(cols < n, ct.abs(ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)), -1.0)

    def pick(v0, i0, v1, i1):
        take1 = (v1 > v0) | ((v1 == v0) & (i1 < i0))
        return ct.where(take1, v1, v0), ct.where(take1, i1, i0)

    _, best = ct.reduce((a, cols), axis=1, func=pick, identity=(-1.0, 2147483647))
    ct.store(I, index=(r,), tile=best)


@ct.kernel
def scan_custom_cummax_and_suffix_min(X, Mx, Mn, BN: C[int]):
    """``ct.scan`` with user combiners: the running maximum of each f32 row (identity -inf) and the
    running minimum from the right (``reverse=True``, identity +inf; the +inf padding sits past the
    row's end, so the reversed scan starts there).  Ragged N."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF)
    ct.store(Mx, index=(r, 0), tile=ct.scan(x, axis=1, func=lambda a, b: ct.maximum(a, b), identity=-float("inf")))
    y = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ct.PaddingMode.POS_INF)
    ct.store(Mn, index=(r, 0), tile=ct.scan(y, axis=1, func=lambda a, b: ct.minimum(a, b), identity=float("inf"),
                                            reverse=True))


@ct.kernel
def unsigned_and_wide_conversions(U, F, L, D, Q, UF, FU, LH, DF, LI, QD, BN: C[int]):
    """Conversions at the edges of the unsigned and 64-bit types: uint32 -> f32 (values past 2**31),
    f32 -> uint32 (negatives and NaN 0, past 2**32 the maximum), int64 -> f16 (past 65504: inf),
    f64 -> f32 (past 3.4e38: inf), int64 -> int32 (wraps), uint64 -> f64 (past 2**63); ragged."""
    i = ct.bid(0)
    ct.store(UF, index=(i,), tile=ct.load(U, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.float32))
    ct.store(FU, index=(i,), tile=ct.load(F, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.uint32))
    wide = ct.load(L, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(LH, index=(i,), tile=wide.astype(ct.float16))
    ct.store(DF, index=(i,), tile=ct.load(D, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.float32))
    ct.store(LI, index=(i,), tile=wide.astype(ct.int32))
    ct.store(QD, index=(i,), tile=ct.load(Q, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.float64))


@ct.kernel
def argmax_int64_argmin_uint32_rows(L, U, A, B, BN: C[int]):
    """Per row: ``argmax`` of int64 values past 2**32 (ties: the first) and ``argmin`` of uint32 values
    at and past 2**31 (unsigned order), the padding made harmless by ``where`` (ragged N)."""
    r = ct.bid(0)
    n = L.shape[1]
    valid = ct.arange(BN, dtype=ct.int32)[None, :] < n
    big = ct.load(L, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(A, index=(r,), tile=ct.argmax(ct.where(valid, big, -(2 ** 62)), axis=1).astype(ct.int32))
    u = ct.load(U, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(B, index=(r,), tile=ct.argmin(ct.where(valid, u, ct.full((1, BN), 2 ** 32 - 1, dtype=ct.uint32)),
                                           axis=1).astype(ct.int32))


@ct.kernel
def middle_axis_reductions_4d(X, S, M):
    """A ``(3, 5, 7, 2)`` f32 array in one ``(4, 8, 8, 2)`` tile: the sum over axis 2 with ``keepdims``
    stored into ``(3, 5, 1, 2)`` and the maximum over axis 1 (-inf padding) stored into ``(3, 7, 2)``."""
    x = ct.load(X, index=(0, 0, 0, 0), shape=(4, 8, 8, 2), padding_mode=ZERO)
    ct.store(S, index=(0, 0, 0, 0), tile=ct.sum(x, axis=2, keepdims=True))
    y = ct.load(X, index=(0, 0, 0, 0), shape=(4, 8, 8, 2), padding_mode=NEG_INF)
    ct.store(M, index=(0, 0, 0), tile=ct.max(y, axis=1))


@ct.kernel
def scalar_flag_where_cat_extract(X, Y, Z, flag: int, BN: C[int]):
    """A runtime flag as a 0-d condition broadcast by ``ct.where`` over a 2-D tile (``x`` or ``-x``),
    then the two halves of a ``(2, BN)`` tile ``cat``-ed along axis 1 into ``(1, 2 * BN)`` and the
    second half ``extract``-ed back (ragged columns)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(2, BN), padding_mode=ZERO)
    on = ct.full((), flag, dtype=ct.int32) != 0
    y = ct.where(on, x, -x)
    ct.store(Y, index=(i, 0), tile=y)
    both = ct.cat((ct.extract(y, (0, 0), shape=(1, BN)), ct.extract(y, (1, 0), shape=(1, BN))), axis=1)
    ct.store(Z, index=(i, 0), tile=ct.extract(both, (0, 1), shape=(1, BN)) * 2.0)


# ----------------------------------------------------------------------------------------------- row lengths


@ct.kernel
def long_row_sum_tiles_70001(X, Y, BN: C[int]):
    """The sum of each 70,001-element f32 row by a loop of ``BN``-element tiles (the last ragged)."""
    r = ct.bid(0)
    acc = ct.zeros((1, BN), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(1, BN))):
        acc = acc + ct.load(X, index=(r, k), shape=(1, BN), padding_mode=ZERO)
    ct.store(Y, index=(r,), tile=ct.sum(acc, axis=1))


@ct.kernel
def long_row_max_single_tile_64k(X, Y, BN: C[int]):
    """The maximum of each bf16 row of 65,000 elements as one ``(1, 65536)`` tile (padded with -inf)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF)
    ct.store(Y, index=(r,), tile=ct.max(x, axis=1).astype(ct.float32))


@ct.kernel
def short_rows_softmax_width_3(X, Y, BM: C[int], BN: C[int]):
    """Softmax of f16 rows of 3 elements, ``BM`` rows per program (ragged rows; the 4th lane padded
    with -inf)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(BM, BN), padding_mode=NEG_INF).astype(ct.float32)
    e = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    ct.store(Y, index=(i, 0), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(Y.dtype))


@ct.kernel
def softmax_rows_of_2_one_per_program(X, Y, BN: C[int]):
    """Softmax of f32 rows of 2 elements, one row per program (``(1, 2)`` tiles: the lowering packs
    several such programs per warp), 37 rows."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF)
    e = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    ct.store(Y, index=(r, 0), tile=e / ct.sum(e, axis=1, keepdims=True))


@ct.kernel
def width_one_rows_log_softmax(X, Y, BM: C[int]):
    """Log-softmax of rows of one element (always 0; -inf stays NaN as torch gives), ``BM`` rows of
    an f32 ``(R, 1)`` array per program (ragged rows)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(BM, 1), padding_mode=ZERO)
    m = ct.max(x, axis=1, keepdims=True)
    ct.store(Y, index=(i, 0), tile=x - m - ct.log(ct.sum(ct.exp(x - m), axis=1, keepdims=True)))


# ----------------------------------------------------------------------------------------------- in place


@ct.kernel
def inplace_axpby_and_relu(X, Y, a: float, b: float, BN: C[int]):
    """In place: ``Y = a * X + b * Y`` then ``X = relu(X)`` (both arrays read and written by the same
    program; ragged length)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    y = ct.load(Y, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=a * x + b * y)
    ct.store(X, index=(i,), tile=ct.maximum(x, 0.0))


@ct.kernel
def inplace_row_scale_by_own_max(X, BN: C[int]):
    """In place: each bf16 row divided by its own absolute maximum (a zero row left as is), read and
    written through the same array (ragged columns)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    amax = ct.max(ct.abs(x), axis=1, keepdims=True)
    ct.store(X, index=(r, 0), tile=(x / ct.where(amax > 0, amax, 1.0)).astype(X.dtype))


# ----------------------------------------------------------------------------------------------- what users get wrong
# Programs cuTile's front end accepts but no compiler can run as written: each must stop at the user's
# line (``file:line:col: error:``), saying why, never with a traceback or an internal error.


@ct.kernel
def transpose_256x256_f32_tile(X, Y, BM: C[int], BN: C[int]):
    """A transpose by ``256 x 256`` f32 tiles: the exchange through shared memory needs 264 KiB, more
    than a CTA has (the error names the ``ct.transpose`` line, not the kernel's)."""
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(i, j), shape=(BM, BN))
    ct.store(Y, index=(j, i), tile=ct.transpose(x))


@ct.kernel
def store_1d_tile_into_2d_array(X, Y, BN: C[int]):
    """A 1-D tile stored into a 2-D array with a 2-D index (the user forgot the ``reshape``)."""
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0, 0), tile=x)


@ct.kernel
def atomic_add_system_scope(X, Y, BN: C[int]):
    """``atomic_add`` at system scope (host-visible memory), which the SIMT lowering cannot emit with
    that scope through LLVM."""
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.atomic_add(Y, ct.arange(BN, dtype=ct.int32), x, memory_scope=ct.MemoryScope.SYS)


@ct.kernel
def whole_array_as_one_tile(X, Y):
    """A user's "load it all": one ``2**24``-element tile (32768 registers per thread)."""
    x = ct.load(X, index=(0,), shape=(1 << 24,))
    ct.store(Y, index=(0,), tile=x)


INVALID: dict[str, UserProgram] = {}
"""The programs above as :class:`UserProgram` with path "error": ``error`` is part of the message and
``notes`` the source text of the line the error must name."""
_bad = registrar(INVALID)
_bad("transpose_256x256_f32_tile", transpose_256x256_f32_tile, [((512, 512), F32), ((512, 512), F32), 256, 256],
     (2, 2), "error", error="bytes of shared scratch", notes="tile=ct.transpose(x)")
_bad("store_1d_tile_into_2d_array", store_1d_tile_into_2d_array, [((128,), F32), ((4, 128), F32), 128], (1,), "error",
     error="expected tensor_view rank and tile rank to match", notes="ct.store(Y, index=(0, 0), tile=x)")
_bad("atomic_add_system_scope", atomic_add_system_scope, [((128,), F32), ((128,), F32), 128], (1,), "error",
     error="system-scope atomic_rmw", notes="memory_scope=ct.MemoryScope.SYS")
_bad("whole_array_as_one_tile", whole_array_as_one_tile, [((1 << 24,), F32), ((1 << 24,), F32)], (1,), "error",
     error="is too large", notes="shape=(1 << 24,)")


# ----------------------------------------------------------------------------------------------- the table


_add("topk_rows_repeated_argmax", topk_rows_repeated_argmax, [((9, 100), F32), ((9, 3), F32), ((9, 3), I32), 3, 128],
     (9,), "simt", outputs=(1, 2))
_add("segmented_sum_csr_offsets", segmented_sum_csr_offsets, [((300,), F32), ((8,), I32), ((7,), F32), 32], (7,),
     "simt", outputs=(2,))
_add("segmented_max_argmax_int64_offsets", segmented_max_argmax_int64_offsets,
     [((300,), F16), ((8,), I64), ((7,), F32), ((7,), I64), 32], (7,), "simt", outputs=(2, 3))
_add("histogram_bin_min_max_count", histogram_bin_min_max_count,
     [((300,), I32), ((300,), I32), ((13,), I32), ((13,), I32), ((13,), I32), 128], (3,), "simt", outputs=(2, 3, 4))
_add("histogram_float_max_cas_loop", histogram_float_max_cas_loop,
     [((300,), F32), ((300,), I32), ((5,), I32), 128, 320], (3,), "simt", outputs=(2,))
_add("bucket_lists_by_xchg_heads", bucket_lists_by_xchg_heads, [((300,), I32), ((11,), I32), ((300,), I32), 128],
     (3,), "simt", outputs=(1, 2))
_add("distinct_count_presence_xchg", distinct_count_presence_xchg,
     [((300,), I32), ((500,), I32), ((1,), I32), 128], (3,), "simt", outputs=(1, 2))
_add("last_program_reduces_partials", last_program_reduces_partials,
     [((1000,), F32), ((8,), F32), ((1,), I32), ((1,), F32), 128, 8], (8,), "simt", outputs=(1, 2, 3))
_add("atomic_max_min_uint32_int64", atomic_max_min_uint32_int64,
     [((300,), U32), ((300,), I32), ((7,), U32), ((7,), U32), ((300,), I64), ((7,), I64), 128], (3,), "simt",
     outputs=(2, 3, 5))
_add("atomic_add_f16_and_f64_tables", atomic_add_f16_and_f64_tables,
     [((300,), F32), ((300,), I32), ((9,), F16), ((9,), "float64"), 128], (3,), "simt", outputs=(2, 3))
_add("chained_scan_flag_lookback", chained_scan_flag_lookback,
     [((300,), F32), ((300,), F32), ((4,), F32), ((4,), I32), 128], (3,), "simt", outputs=(1, 2, 3))
_add("float_floordiv_mod_mixed_signs", float_floordiv_mod_mixed_signs,
     [((300,), F32), ((300,), F32), ((300,), F32), ((300,), F32), 128], (3,), "simt", outputs=(2, 3))
_add("int8_cumsum_wraps_bool_argmax", int8_cumsum_wraps_bool_argmax,
     [((5, 100), I8), ((5, 100), "bool_"), ((5, 100), I8), ((5,), I32), 128], (5,), "simt", outputs=(2, 3))
_add("reduce_custom_xor_and_absmax_index", reduce_custom_xor_and_absmax_index,
     [((6, 100), F32), ((6, 100), U32), ((6,), U32), ((6,), I32), 128], (6,), "simt", outputs=(2, 3))
_add("scan_custom_cummax_and_suffix_min", scan_custom_cummax_and_suffix_min,
     [((5, 100), F32), ((5, 100), F32), ((5, 100), F32), 128], (5,), "simt", outputs=(1, 2))
_add("unsigned_and_wide_conversions", unsigned_and_wide_conversions,
     [((300,), U32), ((300,), F32), ((300,), I64), ((300,), "float64"), ((300,), "uint64"), ((300,), F32),
      ((300,), U32), ((300,), F16), ((300,), F32), ((300,), I32), ((300,), "float64"), 128], (3,), "simt",
     outputs=(5, 6, 7, 8, 9, 10))
_add("argmax_int64_argmin_uint32_rows", argmax_int64_argmin_uint32_rows,
     [((5, 100), I64), ((5, 100), U32), ((5,), I32), ((5,), I32), 128], (5,), "simt", outputs=(2, 3))
_add("middle_axis_reductions_4d", middle_axis_reductions_4d,
     [((3, 5, 7, 2), F32), ((3, 5, 1, 2), F32), ((3, 7, 2), F32)], (1,), "simt", outputs=(1, 2))
_add("scalar_flag_where_cat_extract", scalar_flag_where_cat_extract,
     [((14, 100), F32), ((14, 100), F32), ((7, 100), F32), 0, 128], (7,), "simt", outputs=(1, 2))
_add("compaction_by_lane_atomic_slots", compaction_by_lane_atomic_slots,
     [((300,), F32), ((300,), F32), ((1,), I32), 128], (3,), "simt", outputs=(1, 2))
_add("e5m2_to_small_integers_saturating", e5m2_to_small_integers_saturating,
     [((256,), "float8_e5m2"), ((256,), I8), ((256,), "uint8"), ((256,), I16), 128], (2,), "simt", outputs=(1, 2, 3))
_add("joint_histogram_2d_atomic", joint_histogram_2d_atomic,
     [((300,), I32), ((300,), I32), ((5, 7), I32), 128], (3,), "simt", outputs=(2,))
_add("float_compares_with_nan_inf", float_compares_with_nan_inf,
     [((300,), F32), ((300,), F32), ((6, 300), "bool_"), 128], (3,), "simt", outputs=(2,))
_add("negative_ids_dropped_by_bounds_checks", negative_ids_dropped_by_bounds_checks,
     [((300,), I32), ((40,), F32), ((40,), I32), ((300,), F32), ((40,), I32), 128], (3,), "simt", outputs=(2, 3, 4))
_add("permute_4d_odd_tile_larger", permute_4d_odd_tile_larger, [((3, 5, 7, 2), F16), ((7, 3, 2, 5), F16)], (1,),
     "simt", outputs=(1,))
_add("broadcast_3d_odd_unit_dims", broadcast_3d_odd_unit_dims,
     [((5, 1, 7), F32), ((1, 3, 1), F32), ((7,), F32), ((5, 3, 7), F32)], (1,), "simt", outputs=(3,))
_add("tiles_larger_than_array_3d", tiles_larger_than_array_3d, [((3, 5, 2), F32), ((3, 5, 2), F32), ((1,), F32)],
     (1,), "simt", outputs=(1, 2))
_add("transpose_one_element_tiles", transpose_one_element_tiles, [((7, 5), F32), ((5, 7), F32)], (1,), "simt",
     outputs=(1,))
_add("where_broadcast_row_col_masks", where_broadcast_row_col_masks,
     [((21, 50), F32), ((21,), "bool_"), ((50,), "bool_"), ((21, 50), F32), 8, 32], (3, 2), "simt", outputs=(3,))
_add("odd_stride_columns_gather", odd_stride_columns_gather, [((13, 100), F32), ((13, 33), F32), 3, 8, 16], (2, 3),
     "simt", outputs=(1,))
_add("int64_index_math_past_2_32", int64_index_math_past_2_32, [((300,), F32), ((300,), F32), 5_000_000_011, 128],
     (3,), "simt", outputs=(1,))
_add("int16_uint16_saturate_and_wrap", int16_uint16_saturate_and_wrap,
     [((300,), F32), ((300,), I16), ((300,), U16), ((300,), I16), ((300,), F32), 128], (3,), "simt",
     outputs=(1, 2, 3, 4))
_add("e5m2_saturate_roundtrip", e5m2_saturate_roundtrip,
     [((300,), F32), ((300,), "float8_e5m2"), ((300,), F16), ((300,), "float8_e4m3fn"), 128], (3,), "simt",
     outputs=(1, 2, 3))
_add("nan_inf_max_min_argmax", nan_inf_max_min_argmax,
     [((8, 100), F32), ((8,), F32), ((8,), F32), ((8,), F32), ((8,), I32), ((8,), I32), 128], (8,), "simt",
     outputs=(1, 2, 3, 4, 5))
_add("integer_overflow_wraps", integer_overflow_wraps,
     [((300,), I32), ((300,), I32), ((300,), I32), ((300,), I32), ((300,), I8), ((300,), I64), 128], (3,), "simt",
     outputs=(2, 3, 4, 5))
_add("shifts_by_runtime_amounts", shifts_by_runtime_amounts,
     [((300,), I32), ((300,), U32), ((300,), I32), ((300,), I32), ((300,), I32), ((300,), U32), 128], (3,), "simt",
     outputs=(3, 4, 5))
_add("six_outputs_six_dtypes", six_outputs_six_dtypes,
     [((300,), F32), ((300,), F16), ((300,), I8), ((300,), "bool_"), ((300,), I64), ((300,), "float64"),
      ((300,), BF16), 128], (3,), "simt", outputs=(1, 2, 3, 4, 5, 6))
_add("bool_rows_any_all_count", bool_rows_any_all_count,
     [((6, 100), "bool_"), ((6,), "bool_"), ((6,), "bool_"), ((6,), I32), 128], (6,), "simt", outputs=(1, 2, 3))
_add("long_row_sum_tiles_70001", long_row_sum_tiles_70001, [((3, 70001), F32), ((3,), F32), 4096], (3,), "simt",
     outputs=(1,))
_add("long_row_max_single_tile_64k", long_row_max_single_tile_64k, [((2, 65000), BF16), ((2,), F32), 65536], (2,),
     "simt", outputs=(1,))
_add("short_rows_softmax_width_3", short_rows_softmax_width_3, [((37, 3), F16), ((37, 3), F16), 16, 4], (3,), "simt",
     outputs=(1,))
_add("softmax_rows_of_2_one_per_program", softmax_rows_of_2_one_per_program, [((37, 2), F32), ((37, 2), F32), 2],
     (37,), "simt", outputs=(1,))
_add("width_one_rows_log_softmax", width_one_rows_log_softmax, [((37, 1), F32), ((37, 1), F32), 16], (3,), "simt",
     outputs=(1,))
_add("inplace_axpby_and_relu", inplace_axpby_and_relu, [((300,), F32), ((300,), F32), 2.0, -0.5, 128], (3,), "simt",
     outputs=(0, 1))
_add("inplace_row_scale_by_own_max", inplace_row_scale_by_own_max, [((5, 200), BF16), 256], (5,), "simt",
     outputs=(0,))
