"""The thirteenth user sweep (session 21, issue 21: programs acceptance runs that we will not see):
memory-bound cuTile 1.7 programs without a dot, of the kinds a user writes first, using keyword
arguments and idioms the earlier sweeps (:mod:`tileorch.testing.user_programs` .. ``user_programs12``)
do not combine: ``ct.load`` with ``order="F"`` / a tuple order, ``padding_mode`` NaN / +inf,
``latency`` and ``allow_tma=False``, ``check_bounds=False``; ``ct.store`` with ``order="F"``;
``ct.gather`` / ``ct.scatter`` with 2-D and 3-D broadcast index tuples, ``mask`` and ``padding_value``;
``ct.bitcast`` both ways (f32 <-> int32, f16 -> int16); ``ct.minimum`` / ``ct.maximum`` with NaN in both
modes; integer ``//`` / ``%`` / ``divmod`` of negatives (int32 and int64, tiles and scalars) and
float ``//`` / ``%``; an f32 reverse ``ct.cumprod``; reductions over axis 0 of a rank-3 tile with
``keepdims`` and over every axis (``axis=None``); rank-1 tiles larger than their array and tiles of
8 over 13 elements; strided views (``Array.slice`` on both axes at runtime starts); constexpr
branches (one kernel, two ``ct.Constant`` values); nested ``for`` over ``ct.static_iter``; an early
``return`` on a runtime bound; ``ct.bid`` / ``ct.num_blocks`` on all three grid axes; int8 and fp8
outputs clamped by the user and saturated by the conversion; scalar arguments of every kind
cuTile passes (int32, ``ct.ScalarInt64``, float32, bool, and float / bool constants); ``ct.assert_``
beside a computation; ``expand_dims`` / ``broadcast_to`` to rank 3; ``argmax`` with ``keepdims``.
Three programs come in a 2-D and a 3-D spelling (``pair3d_*``): their results and global-memory
instruction mix must agree (tests/unit/test_user_sweep13_compile.py).

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep13_compile.py (CPU compile to PTX, ptxas, the 2-D / 3-D pairs),
tests/unit/test_user_sweep13_interp.py (the SIMT interpreter against numpy),
tests/unit/test_user_sweep13_emulated.py (the PTX emulator on a few) and
tests/gpu/test_user_sweep13_gpu.py (the H200, the same references).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
F32, F16, BF16, I32, I64 = "float32", "float16", "bfloat16", "int32", "int64"
C = ct.Constant
ZERO = ct.PaddingMode.ZERO


# ----------------------------------------------------------------------------------------------- load / store keywords


@ct.kernel
def load_order_f_transpose(X, Y, TM: C[int], TN: C[int]):
    """A transpose by the load's ``order="F"``: the ``(TN, TM)`` tile ``t[y, x] = X[i*TM + x, j*TN + y]``
    stored into ``Y [N, M]`` (both extents ragged)."""
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(X, index=(j, i), shape=(TN, TM), order="F")
    ct.store(Y, index=(j, i), tile=t)


@ct.kernel
def store_order_f_transpose(X, Y, TM: C[int], TN: C[int]):
    """The same transpose by the store's ``order=(1, 0)``: a ``(TM, TN)`` tile of X written as
    ``Y[j*TN + y, i*TM + x] = t[x, y]`` (the index in the tile's axis order, as the load's)."""
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(X, index=(i, j), shape=(TM, TN))
    ct.store(Y, index=(i, j), tile=t, order=(1, 0))


@ct.kernel
def load_nan_padding_row_max_latency(X, Mx, Npad, BN: C[int]):
    """Rows padded with NaN (``padding_mode=NAN``, ``latency=4``, ``allow_tma=False``): the row maximum
    ignores NaN (``ct.max``'s default), and the count of NaNs in the tile (the pads plus the row's own)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ct.PaddingMode.NAN, latency=4, allow_tma=False)
    ct.store(Mx, index=(r,), tile=ct.max(x, axis=1))
    ct.store(Npad, index=(r,), tile=ct.sum(ct.isnan(x).astype(ct.int32), axis=1))


@ct.kernel
def load_pos_inf_padding_min_keepdims(X, Y, BN: C[int]):
    """``y = x - min(x)`` per row: padded with +inf so the pads never win, the minimum kept as a
    ``(1, 1)`` tile (``keepdims=True``) and broadcast back (ragged columns)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ct.PaddingMode.POS_INF)
    ct.store(Y, index=(r, 0), tile=x - ct.min(x, axis=1, keepdims=True))


@ct.kernel
def load_check_bounds_false_scale(X, Y, s: float, BN: C[int]):
    """``Y = s * X`` with ``check_bounds=False`` on both load and store (the size a multiple of BN)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), check_bounds=False)
    ct.store(Y, index=(i,), tile=x * s, check_bounds=False)


# ----------------------------------------------------------------------------------------------- gather / scatter


@ct.kernel
def gather_2d_outer_indices_padding(T, R, Cc, Y, BR: C[int], BC: C[int]):
    """``Y[a, b] = T[R[a], Cc[b]]`` from a ``(BR, 1)`` row-index tile and a ``(1, BC)`` column-index
    tile (broadcast to 2-D); indices past T (or negative) read ``padding_value=-7``."""
    r = ct.load(R, index=(0,), shape=(BR,))
    c = ct.load(Cc, index=(0,), shape=(BC,))
    y = ct.gather(T, (r[:, None], c[None, :]), padding_value=-7.0)
    ct.store(Y, index=(0, 0), tile=y)


@ct.kernel
def gather_3d_broadcast_mask(T, Y, lim: int):
    """A rank-3 gather ``T[i, j, k]`` whose three index tiles are ``(4,1,1)``, ``(1,8,1)``, ``(1,1,16)``
    aranges (reversed on axis 1), masked to ``i + k < lim`` (masked lanes read ``padding_value=0.5``)."""
    i = ct.arange(4, dtype=ct.int32)[:, None, None]
    j = (7 - ct.arange(8, dtype=ct.int32))[None, :, None]
    k = ct.arange(16, dtype=ct.int32)[None, None, :]
    y = ct.gather(T, (i, j, k), mask=(i + k) < lim, padding_value=0.5)
    ct.store(Y, index=(0, 0, 0), tile=y)


@ct.kernel
def scatter_2d_lower_triangle(Src, Y, BM: C[int]):
    """``Y[c, r] = Src[r, c]`` for ``c <= r`` only (a 2-D scatter of the lower triangle, transposed;
    a ``(BM, 1)`` and a ``(1, BM)`` index tile and a 2-D mask; rows past Src masked)."""
    b = ct.bid(0)
    r = ct.arange(BM, dtype=ct.int32)[:, None] + b * BM
    c = ct.arange(BM, dtype=ct.int32)[None, :]
    v = ct.load(Src, index=(b, 0), shape=(BM, BM), padding_mode=ZERO)
    ct.scatter(Y, (c, r), v, mask=(c <= r) & (r < Src.shape[0]))


@ct.kernel
def gather_int64_indices_scaled(T, I, Y, BN: C[int]):
    """A gather by int64 indices computed as ``2 * I + 1`` in int64 (odd elements of T), ragged length."""
    b = ct.bid(0)
    idx = ct.load(I, index=(b,), shape=(BN,), padding_mode=ZERO) * 2 + 1
    ct.store(Y, index=(b,), tile=ct.gather(T, idx))


# ----------------------------------------------------------------------------------------------- bits and NaN


@ct.kernel
def bitcast_f32_exponent_and_negate(X, E, Neg, BN: C[int]):
    """``ct.bitcast`` f32 -> int32: the unbiased exponent ``((b >> 23) & 255) - 127``; and the sign bit
    flipped by ``b ^ (1 << 31)`` bitcast back to f32 (``-x`` exactly, NaN payloads kept)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    b = ct.bitcast(x, ct.int32)
    ct.store(E, index=(i,), tile=((b >> 23) & 255) - 127)
    ct.store(Neg, index=(i,), tile=ct.bitcast(b ^ ct.full((BN,), -2147483648, dtype=ct.int32), ct.float32))


@ct.kernel
def bitcast_f16_to_int16_abs(X, Bits, Abs, BN: C[int]):
    """f16 -> int16 by ``ct.bitcast``, stored; and ``|x|`` by clearing bit 15 (``& 0x7FFF``) bitcast back."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    b = ct.bitcast(x, ct.int16)
    ct.store(Bits, index=(i,), tile=b)
    ct.store(Abs, index=(i,), tile=ct.bitcast(b & ct.full((BN,), 0x7FFF, dtype=ct.int16), ct.float16))


@ct.kernel
def minimum_maximum_nan_modes(A, B, Mn, Mx, MnP, BN: C[int]):
    """Elementwise ``ct.minimum`` / ``ct.maximum`` (NaN ignored: the other operand) and ``ct.minimum``
    with ``propagate_nan=True`` (NaN wins), on tiles holding NaN in either operand."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BN,))
    b = ct.load(B, index=(i,), shape=(BN,))
    ct.store(Mn, index=(i,), tile=ct.minimum(a, b))
    ct.store(Mx, index=(i,), tile=ct.maximum(a, b))
    ct.store(MnP, index=(i,), tile=ct.minimum(a, b, propagate_nan=True))


# ----------------------------------------------------------------------------------------------- integer and float division


@ct.kernel
def int32_floordiv_mod_negatives(A, B, Q, R, Qs, Rs, BN: C[int]):
    """int32 ``a // b`` and ``a % b`` (Python's floor semantics) with negative dividends and divisors,
    and by the constant ``-3``."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BN,))
    b = ct.load(B, index=(i,), shape=(BN,))
    ct.store(Q, index=(i,), tile=a // b)
    ct.store(R, index=(i,), tile=a % b)
    ct.store(Qs, index=(i,), tile=a // -3)
    ct.store(Rs, index=(i,), tile=a % -3)


@ct.kernel
def int64_divmod_runtime_scalar(A, Q, R, d: ct.ScalarInt64, BN: C[int]):
    """int64 ``divmod(a, d)`` by a runtime int64 scalar (negative), dividends past 2**40 of both signs."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BN,))
    q, r = ct.divmod(a, d)
    ct.store(Q, index=(i,), tile=q)
    ct.store(R, index=(i,), tile=r)


@ct.kernel
def float_floordiv_mod(A, B, Q, R, BN: C[int]):
    """f32 ``a // b`` (``floor(a / b)``) and ``a % b`` (the sign of b) with mixed signs."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BN,))
    b = ct.load(B, index=(i,), shape=(BN,))
    ct.store(Q, index=(i,), tile=a // b)
    ct.store(R, index=(i,), tile=a % b)


# ----------------------------------------------------------------------------------------------- scans and reductions


@ct.kernel
def f32_cumprod_reverse(X, Y, BN: C[int]):
    """A reverse running product of f32 rows (``ct.cumprod(..., reverse=True)``)."""
    r = ct.bid(0)
    ct.store(Y, index=(r, 0), tile=ct.cumprod(ct.load(X, index=(r, 0), shape=(1, BN)), axis=1, reverse=True))


@ct.kernel
def rank3_axis0_sum_keepdims_and_axis2_max(X, S, Mx):
    """A ``(4, 8, 32)`` tile: the sum over axis 0 kept as ``(1, 8, 32)`` (``keepdims``) and stored into a
    rank-3 array, and the maximum over axis 2 (``(4, 8)``)."""
    x = ct.load(X, index=(0, 0, 0), shape=(4, 8, 32))
    ct.store(S, index=(0, 0, 0), tile=ct.sum(x, axis=0, keepdims=True))
    ct.store(Mx, index=(0, 0), tile=ct.max(x, axis=2))


@ct.kernel
def full_reduce_axis_none(X, S, Mx, BM: C[int], BN: C[int]):
    """``ct.sum`` and ``ct.max`` over every axis of a ``(BM, BN)`` tile (``axis=None``: a 0-d tile),
    reshaped to ``(1,)`` and stored per program (ragged rows padded with zero / -inf)."""
    b = ct.bid(0)
    x = ct.load(X, index=(b, 0), shape=(BM, BN), padding_mode=ZERO)
    xm = ct.load(X, index=(b, 0), shape=(BM, BN), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(S, index=(b,), tile=ct.reshape(ct.sum(x), (1,)))
    ct.store(Mx, index=(b,), tile=ct.reshape(ct.max(xm), (1,)))


@ct.kernel
def argmax_keepdims_gather_value(X, V, BN: C[int]):
    """The row's argmax kept as ``(1, 1)`` (``keepdims``), then the value gathered back from X at
    ``(r, argmax)`` (an index-producing reduction feeding a 2-D gather)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ct.PaddingMode.NEG_INF)
    j = ct.argmax(x, axis=1, keepdims=True)
    v = ct.gather(X, (ct.full((1, 1), r, dtype=ct.int32), j.astype(ct.int32)))
    ct.store(V, index=(r,), tile=ct.reshape(v, (1,)))


# ----------------------------------------------------------------------------------------------- sizes and views


@ct.kernel
def rank1_tile_larger_than_array(X, Y, BN: C[int]):
    """One program whose 1024-element tile covers a 1000-element array: ``y = x * x + 1``."""
    x = ct.load(X, index=(0,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(0,), tile=x * x + 1.0)


@ct.kernel
def rank1_tile_8_over_13(X, Y, BN: C[int]):
    """Tiles of 8 over 13 elements (two programs, the second five real): ``y = |x| - 1`` in f16."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    ct.store(Y, index=(i,), tile=ct.abs(x) - 1.0)


@ct.kernel
def strided_view_slices(X, Y, r0: int, c0: int, BM: C[int], BN: C[int]):
    """A window of X: ``X.slice`` on axis 0 from runtime ``r0`` and on axis 1 from runtime ``c0``
    (a view whose rows stride the full width), doubled into Y (ragged on both axes)."""
    b = ct.bid(0)
    v = X.slice(axis=0, start=r0, stop=r0 + Y.shape[0]).slice(axis=1, start=c0, stop=c0 + Y.shape[1])
    t = ct.load(v, index=(b, 0), shape=(BM, BN))
    ct.store(Y, index=(b, 0), tile=t * 2.0)


# ----------------------------------------------------------------------------------------------- control flow and launch


@ct.kernel
def constexpr_branch_activation(X, Y, MODE: C[int], BN: C[int]):
    """One kernel, three activations chosen by a ``ct.Constant`` (``if`` / ``elif`` / ``else``):
    0 relu, 1 leaky relu (0.1), 2 ``x * sigmoid(x)``."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    if MODE == 0:
        y = ct.maximum(x, 0.0)
    elif MODE == 1:
        y = ct.where(x > 0.0, x, x * 0.1)
    else:
        y = x / (1.0 + ct.exp(-x))
    ct.store(Y, index=(i,), tile=y)


@ct.kernel
def nested_static_iter_blocks(X, Y, KB: C[int], NB: C[int], BK: C[int], BN: C[int]):
    """Nested ``for`` over ``ct.static_iter``: ``Y[i, n-block] = sum over KB row blocks of
    (k + 1) * X[k-block, n-block]`` with the block weights known at compile time."""
    acc = ct.zeros((BK, BN * NB), dtype=ct.float32)
    for k in ct.static_iter(range(KB)):
        parts = ()
        for n in ct.static_iter(range(NB)):
            parts += (ct.load(X, index=(k, n), shape=(BK, BN)) * float(k + 1),)
        acc = acc + ct.cat(parts, axis=1)
    ct.store(Y, index=(0, 0), tile=acc)


@ct.kernel
def early_return_on_runtime_bound(X, Y, live: int, BN: C[int]):
    """Programs at or past ``live`` (a runtime scalar) return at once; the others store ``x + 1``
    (the blocks past ``live`` keep their fill)."""
    i = ct.bid(0)
    if i >= live:
        return
    ct.store(Y, index=(i,), tile=ct.load(X, index=(i,), shape=(BN,)) + 1.0)


@ct.kernel
def bid_and_num_blocks_three_axes(X, Y, BN: C[int]):
    """A ``(2, 3, 4)`` grid: ``Y[z, y, x-tile] = X[z, y, x-tile] + bid(0) + 10 bid(1) + 100 bid(2) +
    1000 (num_blocks(0) + 10 num_blocks(1) + 100 num_blocks(2))``."""
    bx, by, bz = ct.bid(0), ct.bid(1), ct.bid(2)
    off = bx + 10 * by + 100 * bz + 1000 * (ct.num_blocks(0) + 10 * ct.num_blocks(1) + 100 * ct.num_blocks(2))
    t = ct.load(X, index=(bz, by, bx), shape=(1, 1, BN))
    ct.store(Y, index=(bz, by, bx), tile=t + ct.astype(off, ct.float32))


@ct.kernel
def scalars_of_every_kind(X, Y, k: int, big: ct.ScalarInt64, f: float, flag: bool, cf: C[float], cb: C[bool],
                          BN: C[int]):
    """Scalars of every kind cuTile passes: ``y = (x + k) * f + (big - 2**40)`` where ``flag`` holds,
    else ``x * cf``; a constant bool ``cb`` negates the result."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    extra = ct.astype(big - (1 << 40), ct.float32)
    y = ct.where(flag, (x + k) * f + extra, x * cf)
    if cb:
        y = -y
    ct.store(Y, index=(i,), tile=y)


@ct.kernel
def assert_beside_scale(X, Y, BN: C[int]):
    """``ct.assert_`` that the input is finite (it is) beside ``y = 3 x``."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    ct.assert_(x == x, "NaN in X")
    ct.store(Y, index=(i,), tile=x * 3.0)


# ----------------------------------------------------------------------------------------------- narrow outputs


@ct.kernel
def quantize_int8_clamped_rounded(X, Q, inv_scale: float, BN: C[int]):
    """Symmetric int8 quantisation the way users write it: ``round(x / scale)`` by ``floor(v + 0.5)``,
    clamped to [-128, 127] with ``ct.minimum`` / ``ct.maximum``, then ``astype(int8)``."""
    i = ct.bid(0)
    v = ct.floor(ct.load(X, index=(i,), shape=(BN,)) * inv_scale + 0.5)
    ct.store(Q, index=(i,), tile=ct.minimum(ct.maximum(v, -128.0), 127.0).astype(ct.int8))


@ct.kernel
def quantize_fp8_rowwise_saturating(X, Q, S, BN: C[int]):
    """Per-row fp8 e4m3 quantisation: ``scale = max|x| / 448``, ``q = x / scale`` (the largest
    element at 448; ``astype`` saturates), the scale stored beside (ragged columns padded zero)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    amax = ct.max(ct.abs(x), axis=1, keepdims=True)
    scale = ct.maximum(amax, 1e-12) / 448.0
    ct.store(Q, index=(r, 0), tile=(x / scale).astype(ct.float8_e4m3fn))
    ct.store(S, index=(r,), tile=ct.reshape(scale, (1,)))


@ct.kernel
def expand_dims_broadcast_rank3(A, B, Y, BM: C[int], BN: C[int]):
    """``Y[m, n, k] = A[m, k] * B[n, k]`` by ``expand_dims`` to ``(BM, 1, 16)`` / ``(1, BN, 16)`` and
    ``broadcast_to`` ``(BM, BN, 16)`` (an outer product per channel)."""
    a = ct.expand_dims(ct.load(A, index=(0, 0), shape=(BM, 16)), 1)
    b = ct.expand_dims(ct.load(B, index=(0, 0), shape=(BN, 16)), 0)
    ct.store(Y, index=(0, 0, 0), tile=ct.broadcast_to(a, (BM, BN, 16)) * ct.broadcast_to(b, (BM, BN, 16)))


# ----------------------------------------------------------------------------------------------- 2-D / 3-D pairs


@ct.kernel
def pair2d_row_softmax(X, Y, BN: C[int]):
    """A row softmax over a ragged ``[M, N]`` array, one row per program (the 2-D spelling)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ct.PaddingMode.NEG_INF)
    e = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    ct.store(Y, index=(r, 0), tile=e / ct.sum(e, axis=1, keepdims=True))


@ct.kernel
def pair3d_row_softmax(X, Y, BN: C[int]):
    """The same softmax over ``[1, M, N]`` with ``(1, 1, BN)`` tiles (the 3-D spelling)."""
    r = ct.bid(0)
    x = ct.load(X, index=(0, r, 0), shape=(1, 1, BN), padding_mode=ct.PaddingMode.NEG_INF)
    e = ct.exp(x - ct.max(x, axis=2, keepdims=True))
    ct.store(Y, index=(0, r, 0), tile=e / ct.sum(e, axis=2, keepdims=True))


@ct.kernel
def pair2d_axpby(X, Y, Z, a: float, b: float, BM: C[int], BN: C[int]):
    """``Z = a X + b Y`` over ``[M, N]`` in ``(BM, BN)`` tiles (2-D)."""
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(i, j), shape=(BM, BN))
    y = ct.load(Y, index=(i, j), shape=(BM, BN))
    ct.store(Z, index=(i, j), tile=a * x + b * y)


@ct.kernel
def pair3d_axpby(X, Y, Z, a: float, b: float, BM: C[int], BN: C[int]):
    """The same over ``[1, M, N]`` in ``(1, BM, BN)`` tiles (3-D)."""
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(0, i, j), shape=(1, BM, BN))
    y = ct.load(Y, index=(0, i, j), shape=(1, BM, BN))
    ct.store(Z, index=(0, i, j), tile=a * x + b * y)


@ct.kernel
def pair2d_column_sum(X, S, BM: C[int], BN: C[int]):
    """Column sums of ``[M, N]`` (``BM`` >= M rows in one tile, ``BN`` columns per program, 2-D)."""
    j = ct.bid(0)
    x = ct.load(X, index=(0, j), shape=(BM, BN), padding_mode=ZERO)
    ct.store(S, index=(j,), tile=ct.sum(x, axis=0))


@ct.kernel
def pair3d_column_sum(X, S, BM: C[int], BN: C[int]):
    """The same over ``[1, M, N]`` with ``(1, BM, BN)`` tiles, the sum over axis 1 (3-D)."""
    j = ct.bid(0)
    x = ct.load(X, index=(0, 0, j), shape=(1, BM, BN), padding_mode=ZERO)
    ct.store(S, index=(0, j), tile=ct.sum(x, axis=1))


@ct.kernel
def release_store_copy(X, Y, BN: C[int]):
    """``Y = X + 1`` whose store is a device-scope release (not in :data:`PROGRAMS`: the ordered access
    that keeps ``tileaa_to_simt/store_chunks.py`` from moving it, tests/unit/test_store_chunks.py)."""
    i = ct.bid(0)
    t = ct.load(X, index=(i,), shape=(BN,))
    ct.store(Y, index=(i,), tile=t + 1.0, memory_order=ct.MemoryOrder.RELEASE, memory_scope=ct.MemoryScope.DEVICE)


# ----------------------------------------------------------------------------------------------- second batch


@ct.kernel
def load_order_tuple_rank3(X, Y, BA: C[int], BB: C[int], BC: C[int]):
    """A rank-3 load with ``order=(2, 0, 1)``: tile axis 0 walks X's axis 2, axis 1 X's axis 0, axis 2
    X's axis 1; stored plainly into ``Y [C, A, B]`` (``Y = X.transpose(2, 0, 1)``)."""
    t = ct.load(X, index=(0, 0, 0), shape=(BC, BA, BB), order=(2, 0, 1))
    ct.store(Y, index=(0, 0, 0), tile=t)


@ct.kernel
def gather_scalar_column_index(T, R, Y, col: int, BN: C[int]):
    """``Y = T[R, col]``: a 2-D gather whose second index is a runtime scalar (broadcast against the
    row-index tile), ragged length, rows past T read 0."""
    b = ct.bid(0)
    r = ct.load(R, index=(b,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(b,), tile=ct.gather(T, (r, col)))


@ct.kernel
def scatter_scalar_value_flags(I, Flags, BN: C[int]):
    """``Flags[I] = 1`` (a scalar value scattered through an index tile; duplicates write the same)."""
    b = ct.bid(0)
    idx = ct.load(I, index=(b,), shape=(BN,), padding_mode=ZERO)
    pos = ct.arange(BN, dtype=ct.int32) + b * BN
    ct.scatter(Flags, idx, 1, mask=pos < I.shape[0])


@ct.kernel
def store_scalar_fill(Y, v: float, BN: C[int]):
    """``ct.store`` of a scalar: every element of the tile slot gets ``v`` (a fill kernel)."""
    ct.store(Y, index=(ct.bid(0),), tile=ct.full((BN,), v, dtype=ct.float32))


@ct.kernel
def cumsum_axis0_columns(X, Y, BM: C[int], BN: C[int]):
    """A running sum down the columns (``ct.cumsum(axis=0)`` of a ``(BM, BN)`` tile), ragged rows."""
    j = ct.bid(0)
    ct.store(Y, index=(0, j), tile=ct.cumsum(ct.load(X, index=(0, j), shape=(BM, BN), padding_mode=ZERO), axis=0))


@ct.kernel
def arange_start_step_int64(Y, BN: C[int]):
    """``ct.arange(BN, start=5, step=-3)`` in int64 plus the program's offset times 2**33."""
    b = ct.bid(0)
    t = ct.arange(BN, dtype=ct.int64, start=5, step=-3)
    ct.store(Y, index=(b,), tile=t + ct.astype(b, ct.int64) * (1 << 33))


@ct.kernel
def long_row_sum_loop_break(X, S, limit: float, BN: C[int]):
    """A row sum over column chunks of BN (``range(num_tiles)``) that stops (``break``) after the first
    chunk whose partial sum passes ``limit``; the sum reached is stored."""
    r = ct.bid(0)
    acc = ct.zeros((1, 1), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(1, BN))):
        acc = acc + ct.sum(ct.load(X, index=(r, k), shape=(1, BN), padding_mode=ZERO), axis=1, keepdims=True)
        if ct.sum(acc) > limit:
            break
    ct.store(S, index=(r,), tile=ct.reshape(acc, (1,)))


@ct.kernel
def loop_continue_skips_negative_chunks(X, S, BN: C[int]):
    """A row sum over column chunks that skips (``continue``) every chunk whose first element is negative."""
    r = ct.bid(0)
    acc = ct.zeros((1, BN), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(1, BN))):
        x = ct.load(X, index=(r, k), shape=(1, BN), padding_mode=ZERO)
        if ct.sum(ct.extract(x, index=(0, 0), shape=(1, 1))) < 0.0:
            continue
        acc = acc + x
    ct.store(S, index=(r,), tile=ct.sum(acc, axis=1))


@ct.kernel
def while_halving_until_small(X, Y, N: C[int]):
    """A ``while`` loop on a tile's maximum: halve the tile until every |x| is below 1, count the
    halvings (a data-dependent trip count per program)."""
    b = ct.bid(0)
    x = ct.load(X, index=(b,), shape=(N,))
    while ct.max(ct.abs(x)) >= 1.0:
        x = x * 0.5
    ct.store(Y, index=(b,), tile=x)


@ct.kernel
def int8_input_widened_mean(X, M, BN: C[int]):
    """The mean of int8 rows in f32 (``astype(float32)``, the sum divided by the real column count)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    ct.store(M, index=(r,), tile=ct.sum(x, axis=1) / X.shape[1])


@ct.kernel
def f64_accumulate_f32_rows(X, S, BN: C[int]):
    """Row sums of f32 accumulated in float64 (``astype(float64)``) and stored as f64."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(S, index=(r,), tile=ct.sum(x.astype(ct.float64), axis=1))


@ct.kernel
def nan_fill_full_and_where(X, Y, BN: C[int]):
    """``ct.full`` filled with NaN chosen where ``x < 0`` (negative inputs become NaN)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    ct.store(Y, index=(i,), tile=ct.where(x < 0.0, ct.full((BN,), float("nan"), dtype=ct.float32), x))


@ct.kernel
def static_assert_and_static_eval(X, Y, BN: C[int]):
    """``ct.static_assert`` on the tile size and ``ct.static_eval`` of a compile-time scale."""
    ct.static_assert(BN % 32 == 0, "BN must be a multiple of 32")
    i = ct.bid(0)
    scale = ct.static_eval(1.0 / BN)
    ct.store(Y, index=(i,), tile=ct.load(X, index=(i,), shape=(BN,)) * scale)


@ct.kernel
def reverse_range_loop_store(X, Y, BN: C[int]):
    """A runtime loop writing tile k of X into slot ``n - 1 - k`` of Y (tiles in reverse order; one
    program; cuTile itself refuses ``range`` with a negative step: "Step must be positive")."""
    n = ct.num_tiles(X, axis=0, shape=(BN,))
    for k in range(n):
        ct.store(Y, index=(n - 1 - k,), tile=ct.load(X, index=(k,), shape=(BN,)))


_add("load_order_f_transpose", load_order_f_transpose, [((37, 50), F32), ((50, 37), F32), 16, 32], (3, 2), "simt",
     outputs=(1,))
_add("store_order_f_transpose", store_order_f_transpose, [((37, 50), F16), ((50, 37), F16), 16, 32], (3, 2), "simt",
     outputs=(1,))
_add("load_nan_padding_row_max_latency", load_nan_padding_row_max_latency,
     [((5, 100), F32), ((5,), F32), ((5,), I32), 128], (5,), "simt", outputs=(1, 2))
_add("load_pos_inf_padding_min_keepdims", load_pos_inf_padding_min_keepdims, [((4, 70), F32), ((4, 70), F32), 128],
     (4,), "simt", outputs=(1,))
_add("load_check_bounds_false_scale", load_check_bounds_false_scale, [((256,), F32), ((256,), F32), 1.5, 64], (4,),
     "simt", outputs=(1,))
_add("gather_2d_outer_indices_padding", gather_2d_outer_indices_padding,
     [((20, 30), F32), ((16,), I32), ((32,), I32), ((16, 32), F32), 16, 32], (1,), "simt", outputs=(3,))
_add("gather_3d_broadcast_mask", gather_3d_broadcast_mask, [((4, 8, 16), F32), ((4, 8, 16), F32), 12], (1,), "simt",
     outputs=(1,))
_add("scatter_2d_lower_triangle", scatter_2d_lower_triangle, [((40, 16), F32), ((16, 40), F32), 16], (3,), "simt",
     outputs=(1,))
_add("gather_int64_indices_scaled", gather_int64_indices_scaled, [((200,), F32), ((90,), I64), ((90,), F32), 32],
     (3,), "simt", outputs=(2,))
_add("bitcast_f32_exponent_and_negate", bitcast_f32_exponent_and_negate,
     [((128,), F32), ((128,), I32), ((128,), F32), 64], (2,), "simt", outputs=(1, 2))
_add("bitcast_f16_to_int16_abs", bitcast_f16_to_int16_abs, [((128,), F16), ((128,), "int16"), ((128,), F16), 64],
     (2,), "simt", outputs=(1, 2))
_add("minimum_maximum_nan_modes", minimum_maximum_nan_modes,
     [((128,), F32), ((128,), F32), ((128,), F32), ((128,), F32), ((128,), F32), 64], (2,), "simt",
     outputs=(2, 3, 4))
_add("int32_floordiv_mod_negatives", int32_floordiv_mod_negatives,
     [((128,), I32), ((128,), I32), ((128,), I32), ((128,), I32), ((128,), I32), ((128,), I32), 64], (2,), "simt",
     outputs=(2, 3, 4, 5))
_add("int64_divmod_runtime_scalar", int64_divmod_runtime_scalar,
     [((128,), I64), ((128,), I64), ((128,), I64), -7, 64], (2,), "simt", outputs=(1, 2))
_add("float_floordiv_mod", float_floordiv_mod, [((128,), F32), ((128,), F32), ((128,), F32), ((128,), F32), 64], (2,),
     "simt", outputs=(2, 3))
_add("f32_cumprod_reverse", f32_cumprod_reverse, [((3, 32), F32), ((3, 32), F32), 32], (3,), "simt", outputs=(1,))
_add("rank3_axis0_sum_keepdims_and_axis2_max", rank3_axis0_sum_keepdims_and_axis2_max,
     [((4, 8, 32), F32), ((1, 8, 32), F32), ((4, 8), F32)], (1,), "simt", outputs=(1, 2))
_add("full_reduce_axis_none", full_reduce_axis_none, [((30, 40), F32), ((4,), F32), ((4,), F32), 8, 64], (4,), "simt",
     outputs=(1, 2))
_add("argmax_keepdims_gather_value", argmax_keepdims_gather_value, [((5, 90), F32), ((5,), F32), 128], (5,), "simt",
     outputs=(1,))
_add("rank1_tile_larger_than_array", rank1_tile_larger_than_array, [((1000,), F32), ((1000,), F32), 1024], (1,),
     "simt", outputs=(1,))
_add("rank1_tile_8_over_13", rank1_tile_8_over_13, [((13,), F16), ((13,), F16), 8], (2,), "simt", outputs=(1,))
_add("strided_view_slices", strided_view_slices, [((40, 64), F32), ((21, 37), F32), 5, 9, 8, 64], (3,), "simt",
     outputs=(1,))
for _mode in (0, 1, 2):
    _add(f"constexpr_branch_activation_{_mode}", constexpr_branch_activation, [((200,), F32), ((200,), F32), _mode, 64],
         (4,), "simt", outputs=(1,))
_add("nested_static_iter_blocks", nested_static_iter_blocks, [((12, 64), F32), ((4, 64), F32), 3, 2, 4, 32], (1,),
     "simt", outputs=(1,))
_add("early_return_on_runtime_bound", early_return_on_runtime_bound, [((256,), F32), ((256,), F32), 3, 64], (4,),
     "simt", outputs=(1,))
_add("bid_and_num_blocks_three_axes", bid_and_num_blocks_three_axes, [((4, 3, 64), F32), ((4, 3, 64), F32), 32],
     (2, 3, 4), "simt", outputs=(1,))
_add("scalars_of_every_kind", scalars_of_every_kind,
     [((128,), F32), ((128,), F32), 3, (1 << 40) + 5, 0.5, True, 2.0, True, 64], (2,), "simt", outputs=(1,))
_add("assert_beside_scale", assert_beside_scale, [((128,), F32), ((128,), F32), 64], (2,), "simt", outputs=(1,))
_add("quantize_int8_clamped_rounded", quantize_int8_clamped_rounded, [((200,), F32), ((200,), "int8"), 20.0, 64], (4,),
     "simt", outputs=(1,))
_add("quantize_fp8_rowwise_saturating", quantize_fp8_rowwise_saturating,
     [((4, 100), F32), ((4, 100), "float8_e4m3fn"), ((4,), F32), 128], (4,), "simt", outputs=(1, 2))
_add("expand_dims_broadcast_rank3", expand_dims_broadcast_rank3,
     [((4, 16), F32), ((8, 16), F32), ((4, 8, 16), F32), 4, 8], (1,), "simt", outputs=(2,))
_add("pair2d_row_softmax", pair2d_row_softmax, [((6, 300), F32), ((6, 300), F32), 512], (6,), "simt", outputs=(1,))
_add("pair3d_row_softmax", pair3d_row_softmax, [((1, 6, 300), F32), ((1, 6, 300), F32), 512], (6,), "simt",
     outputs=(1,))
_add("pair2d_axpby", pair2d_axpby, [((50, 200), F32), ((50, 200), F32), ((50, 200), F32), 2.0, -0.5, 16, 128], (4, 2),
     "simt", outputs=(2,))
_add("pair3d_axpby", pair3d_axpby, [((1, 50, 200), F32), ((1, 50, 200), F32), ((1, 50, 200), F32), 2.0, -0.5, 16, 128],
     (4, 2), "simt", outputs=(2,))
_add("pair2d_column_sum", pair2d_column_sum, [((30, 200), F32), ((200,), F32), 32, 64], (4,), "simt", outputs=(1,))
_add("pair3d_column_sum", pair3d_column_sum, [((1, 30, 200), F32), ((1, 200), F32), 32, 64], (4,), "simt",
     outputs=(1,))

PAIRS = (("pair2d_row_softmax", "pair3d_row_softmax"), ("pair2d_axpby", "pair3d_axpby"),
         ("pair2d_column_sum", "pair3d_column_sum"))
"""The programs written once for 2-D and once for 3-D tiles (the same results, the same memory code)."""

_add("load_order_tuple_rank3", load_order_tuple_rank3, [((4, 8, 16), F32), ((16, 4, 8), F32), 4, 8, 16], (1,), "simt",
     outputs=(1,))
_add("gather_scalar_column_index", gather_scalar_column_index, [((30, 12), F32), ((70,), I32), ((70,), F32), 7, 32], (3,),
     "simt", outputs=(2,))
_add("scatter_scalar_value_flags", scatter_scalar_value_flags, [((100,), I32), ((64,), I32), 32], (4,), "simt",
     outputs=(1,))
_add("store_scalar_fill", store_scalar_fill, [((200,), F32), -2.5, 64], (4,), "simt", outputs=(0,))
_add("cumsum_axis0_columns", cumsum_axis0_columns, [((20, 96), F32), ((20, 96), F32), 32, 32], (3,), "simt",
     outputs=(1,))
_add("arange_start_step_int64", arange_start_step_int64, [((96,), I64), 32], (3,), "simt", outputs=(0,))
_add("long_row_sum_loop_break", long_row_sum_loop_break, [((4, 1000), F32), ((4,), F32), 30.0, 128], (4,), "simt",
     outputs=(1,))
_add("loop_continue_skips_negative_chunks", loop_continue_skips_negative_chunks, [((4, 1000), F32), ((4,), F32), 128],
     (4,), "simt", outputs=(1,))
_add("while_halving_until_small", while_halving_until_small, [((128,), F32), ((128,), F32), 32], (4,), "simt",
     outputs=(1,))
_add("int8_input_widened_mean", int8_input_widened_mean, [((5, 300), "int8"), ((5,), F32), 512], (5,), "simt",
     outputs=(1,))
_add("f64_accumulate_f32_rows", f64_accumulate_f32_rows, [((4, 300), F32), ((4,), "float64"), 512], (4,), "simt",
     outputs=(1,))
_add("nan_fill_full_and_where", nan_fill_full_and_where, [((128,), F32), ((128,), F32), 64], (2,), "simt",
     outputs=(1,))
_add("static_assert_and_static_eval", static_assert_and_static_eval, [((128,), F32), ((128,), F32), 64], (2,), "simt",
     outputs=(1,))
_add("reverse_range_loop_store", reverse_range_loop_store, [((96,), F32), ((96,), F32), 32], (1,), "simt",
     outputs=(1,))
