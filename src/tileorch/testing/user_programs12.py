"""The twelfth user sweep (session 20, issue 21's op-coverage audit): small cuTile 1.7 programs without a
dot, on the SIMT path, that use ops, element types and ranks in combinations the earlier sweeps
(:mod:`tileorch.testing.user_programs` .. ``user_programs11``, ``memory_programs``, ``op_programs``)
do not: rank-3 / rank-4 ``reshape`` + ``permute`` round trips, ``cat`` along the last axis of rank-3
tiles, ``extract`` of a rank-4 tile, bool tiles reduced (any / all by ``max`` / ``min``) and counted,
int16 and uint32 tiles through ``sum`` / ``max`` / ``min`` (uint32 values above 2**31: unsigned
compares), a uint16 ``cumsum`` that wraps, an int64 ``cumsum`` past 2**32, an int8 ``argmin``, fp8
e5m2 -> e4m3 and e4m3 -> e5m2 conversions (through f32 and directly), fp8 -> bf16, ``atomic_add`` /
``atomic_max`` on int64 with duplicate indices and values past 2**32, ``atomic_cas`` on int64, a gather
whose indices ``ct.where`` chooses between two index tiles, a masked scatter whose masked-off lanes
hold duplicate targets, a bool tile stored, an int16 reverse ``cumsum`` beside a bool running count,
a uint8 column ``max`` and a rank-3 middle-axis ``sum``, an int32 ``cat`` along axis 0 stored
transposed, ``sum`` / ``cumsum`` of bool tiles themselves, a uint32 ``argmax``, uint32 -> f32,
int64 -> f16, int32 -> e4m3 and e5m2 -> int32 conversions, int64 ``atomic_xchg`` and uint64
``atomic_add``, a rank-4 bool tile reshaped to rank 1, an f16 ``min`` propagating NaN, a uint8
``cumprod``, ``extract`` on the middle axis of a rank-3 tile and ``cat`` of rank-4 tiles on axis 1.
(``ct.max`` of an fp8 tile is refused by cuTile itself: "Non-arithmetic dtype float8_e4m3fn is
unsupported for reduction".)

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep12_compile.py (CPU compile to PTX and path), tests/unit/test_user_sweep12_interp.py
(the SIMT interpreter against numpy) and tests/gpu/test_user_sweep12_gpu.py (the H200, the same
references).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
F32, F16, BF16 = "float32", "float16", "bfloat16"


@ct.kernel
def permute_rank4_heads(X, Y, BM: ct.Constant[int]):
    """``[M, 8, 16]`` rows as ``[M, 2, 4, 16]``, the middle axes swapped (``permute((0, 2, 1, 3))``) and
    flattened back to ``[M, 8, 16]``: rank 3 -> 4 -> 3 in registers."""
    i = ct.bid(0)
    t = ct.load(X, index=(i, 0, 0), shape=(BM, 8, 16))
    u = ct.reshape(ct.permute(ct.reshape(t, (BM, 2, 4, 16)), (0, 2, 1, 3)), (BM, 8, 16))
    ct.store(Y, index=(i, 0, 0), tile=u)


@ct.kernel
def cat_rank3_last_axis(A, B, Y, BM: ct.Constant[int]):
    """Two ``[BM, 4, 8]`` f16 tiles joined along their last axis into ``[BM, 4, 16]`` (ragged M)."""
    i = ct.bid(0)
    a = ct.load(A, index=(i, 0, 0), shape=(BM, 4, 8))
    b = ct.load(B, index=(i, 0, 0), shape=(BM, 4, 8))
    ct.store(Y, index=(i, 0, 0), tile=ct.cat((a, b * 2.0), axis=2))


@ct.kernel
def extract_rank4_plane(X, Y):
    """Plane ``[b, 1]`` of a ``[B, 2, 4, 32]`` array: ``extract`` of a ``(1, 2, 4, 32)`` tile at
    ``(0, 1, 0, 0)``, reshaped to ``(1, 4, 32)``."""
    b = ct.bid(0)
    t = ct.load(X, index=(b, 0, 0, 0), shape=(1, 2, 4, 32))
    p = ct.extract(t, index=(0, 1, 0, 0), shape=(1, 1, 4, 32))
    ct.store(Y, index=(b, 0, 0), tile=ct.reshape(p, (1, 4, 32)))


@ct.kernel
def bool_any_all_count(X, Any, All, Count, BN: ct.Constant[int]):
    """Per row of a ragged ``[M, N]`` f32 array: whether any / every element is positive (``max`` /
    ``min`` of a bool tile, the padded columns neutral by ``where``) and how many are (``sum`` of the
    bool tile as int32)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ct.PaddingMode.ZERO)
    real = ct.arange(BN, dtype=ct.int32)[None, :] < X.shape[1]
    pos = x > 0.0
    ct.store(Any, index=(r,), tile=ct.max(ct.where(real, pos, False), axis=1).astype(ct.int8))
    ct.store(All, index=(r,), tile=ct.min(ct.where(real, pos, True), axis=1).astype(ct.int8))
    ct.store(Count, index=(r,), tile=ct.sum((pos & real).astype(ct.int32), axis=1))


@ct.kernel
def int16_row_sum_max_min(X, S, Mx, Mn, BN: ct.Constant[int]):
    """int16 rows: the sum widened to int32, the max and min kept int16 (negative values, the padded
    columns neutral by ``where``)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ct.PaddingMode.ZERO)
    real = ct.arange(BN, dtype=ct.int32)[None, :] < X.shape[1]
    ct.store(S, index=(r,), tile=ct.sum(x.astype(ct.int32), axis=1))
    ct.store(Mx, index=(r,), tile=ct.max(ct.where(real, x, ct.full((1, BN), -32768, dtype=ct.int16)), axis=1))
    ct.store(Mn, index=(r,), tile=ct.min(ct.where(real, x, ct.full((1, BN), 32767, dtype=ct.int16)), axis=1))


@ct.kernel
def uint32_row_max_min(X, Mx, Mn, BN: ct.Constant[int]):
    """uint32 rows holding values above 2**31: ``max`` and ``min`` compare unsigned."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN))
    ct.store(Mx, index=(r,), tile=ct.max(x, axis=1))
    ct.store(Mn, index=(r,), tile=ct.min(x, axis=1))


@ct.kernel
def uint16_cumsum_wraps(X, Y, BN: ct.Constant[int]):
    """An inclusive ``cumsum`` of uint16 rows in uint16 (wrapping modulo 2**16)."""
    r = ct.bid(0)
    ct.store(Y, index=(r, 0), tile=ct.cumsum(ct.load(X, index=(r, 0), shape=(1, BN)), axis=1))


@ct.kernel
def int64_cumsum_past_2_32(X, Y, BN: ct.Constant[int]):
    """An inclusive ``cumsum`` of int64 rows whose partial sums pass 2**32 (and go negative)."""
    r = ct.bid(0)
    ct.store(Y, index=(r, 0), tile=ct.cumsum(ct.load(X, index=(r, 0), shape=(1, BN)), axis=1))


@ct.kernel
def int8_argmin_rows(X, I, V, BN: ct.Constant[int]):
    """int8 rows: the first position of the minimum (``argmin``) and the minimum itself."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN))
    ct.store(I, index=(r,), tile=ct.argmin(x, axis=1).astype(ct.int32))
    ct.store(V, index=(r,), tile=ct.min(x, axis=1))


@ct.kernel
def fp8_e5m2_e4m3_both_ways(A5, A4, To4, To5, Via, BN: ct.Constant[int]):
    """fp8 conversions both ways: e5m2 -> e4m3 directly, e4m3 -> e5m2 directly, and e5m2 -> f32 ->
    e4m3 (values inside both formats' range)."""
    i = ct.bid(0)
    a5 = ct.load(A5, index=(i,), shape=(BN,))
    a4 = ct.load(A4, index=(i,), shape=(BN,))
    ct.store(To4, index=(i,), tile=a5.astype(ct.float8_e4m3fn))
    ct.store(To5, index=(i,), tile=a4.astype(ct.float8_e5m2))
    ct.store(Via, index=(i,), tile=(a5.astype(ct.float32) * 0.5).astype(ct.float8_e4m3fn))


@ct.kernel
def fp8_e4m3_to_bf16_scaled(A4, Scale, Y, BN: ct.Constant[int]):
    """e4m3 widened to bf16 and multiplied by a per-row f32 scale (dequantisation into bf16)."""
    r = ct.bid(0)
    a = ct.load(A4, index=(r, 0), shape=(1, BN)).astype(ct.bfloat16)
    s = ct.load(Scale, index=(r,), shape=(1,)).astype(ct.bfloat16)
    ct.store(Y, index=(r, 0), tile=a * s[:, None])


@ct.kernel
def atomic_add_max_int64_duplicates(Idx, V, Sum, Mx, BN: ct.Constant[int]):
    """int64 ``atomic_add`` and ``atomic_max`` into 8 bins whose indices repeat within and across
    programs; the values are past 2**32 (both signs); a ragged last program masked by an index of -1
    (out of bounds: skipped by the bounds check)."""
    i = ct.bid(0)
    pos = ct.arange(BN, dtype=ct.int32) + i * BN
    idx = ct.load(Idx, index=(i,), shape=(BN,), padding_mode=ct.PaddingMode.ZERO)
    idx = ct.where(pos < Idx.shape[0], idx, -1)
    v = ct.load(V, index=(i,), shape=(BN,), padding_mode=ct.PaddingMode.ZERO)
    ct.atomic_add(Sum, idx, v)
    ct.atomic_max(Mx, idx, v)


@ct.kernel
def atomic_cas_int64_claim(Slots, Owner, BN: ct.Constant[int]):
    """Each element ``k`` of a program claims slot ``k % 16`` of an int64 table holding -1 by
    ``atomic_cas(-1 -> 2**40 + global id)``; the old value says who won (one winner per slot)."""
    i = ct.bid(0)
    gid = (ct.arange(BN, dtype=ct.int64) + i * BN)
    slot = (ct.arange(BN, dtype=ct.int32) % 16)
    old = ct.atomic_cas(Slots, slot, ct.full((BN,), -1, dtype=ct.int64), gid + (1 << 40))
    ct.store(Owner, index=(i,), tile=old)


@ct.kernel
def gather_where_chooses_indices(T, Ia, Ib, Y, BN: ct.Constant[int]):
    """A gather of ``T[where(a > b, a, b)]``: the index tile is chosen per element by ``ct.where``
    between two loaded index tiles (indices past T read 0)."""
    i = ct.bid(0)
    a = ct.load(Ia, index=(i,), shape=(BN,))
    b = ct.load(Ib, index=(i,), shape=(BN,))
    ct.store(Y, index=(i,), tile=ct.gather(T, ct.where(a > b, a, b)))


@ct.kernel
def scatter_masked_duplicates(Src, Y, BN: ct.Constant[int]):
    """``Y[k // 2] = Src[k]`` for even ``k`` only: the odd lanes, masked off, hold the same targets
    (duplicates that must not write); a ragged length."""
    i = ct.bid(0)
    k = ct.arange(BN, dtype=ct.int32) + i * BN
    v = ct.load(Src, index=(i,), shape=(BN,), padding_mode=ct.PaddingMode.ZERO)
    ct.scatter(Y, k // 2, v, mask=((k % 2) == 0) & (k < Src.shape[0]))


@ct.kernel
def bool_tile_stored(X, B, BN: ct.Constant[int]):
    """A bool tile (``x > 0`` or NaN) stored into a bool array, ragged length."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    ct.store(B, index=(i,), tile=(x > 0.0) | ct.isnan(x))


@ct.kernel
def int16_cumsum_reverse_and_bool_running_count(X, Rev, Cnt, BN: ct.Constant[int]):
    """An int16 row's reverse ``cumsum`` in int16 (wrapping) and the running count of its negative
    elements (a bool tile's ``cumsum`` as int32)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN))
    ct.store(Rev, index=(r, 0), tile=ct.cumsum(x, axis=1, reverse=True))
    ct.store(Cnt, index=(r, 0), tile=ct.cumsum((x < 0).astype(ct.int32), axis=1))


@ct.kernel
def uint8_column_max_rank3_middle_sum(X, Y, Mx, S, BM: ct.Constant[int]):
    """A ``[BM, 8, 32]`` tile: the uint8 column maximum over the first axis (one program: values above
    127 compare unsigned), and the f16 sum over the middle axis of its f16 copy, in f32."""
    x = ct.load(X, index=(0, 0, 0), shape=(BM, 8, 32))
    ct.store(Mx, index=(0, 0), tile=ct.max(x, axis=0))
    y = ct.load(Y, index=(0, 0, 0), shape=(BM, 8, 32))
    ct.store(S, index=(0, 0), tile=ct.sum(y.astype(ct.float32), axis=1))


@ct.kernel
def cat_rows_int32_then_transpose(A, B, Y, BN: ct.Constant[int]):
    """Two int32 ``(4, BN)`` tiles joined along axis 0 into ``(8, BN)`` and stored transposed into a
    ``[BN, 8]`` array (a rank-2 ``cat`` on the first axis, then ``permute``)."""
    i = ct.bid(0)
    a = ct.load(A, index=(0, i), shape=(4, BN))
    b = ct.load(B, index=(0, i), shape=(4, BN))
    ct.store(Y, index=(i, 0), tile=ct.permute(ct.cat((a, b + 1000), axis=0), (1, 0)))



@ct.kernel
def bool_sum_direct(X, C, BN: ct.Constant[int]):
    """Per row, how many elements are positive: ``ct.sum`` of the bool tile itself (cuTile counts)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN))
    ct.store(C, index=(r,), tile=ct.sum(x > 0.0, axis=1).astype(ct.int32))


@ct.kernel
def bool_cumsum_direct(X, C, BN: ct.Constant[int]):
    """The running count of positive elements: ``ct.cumsum`` of the bool tile itself."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN))
    ct.store(C, index=(r, 0), tile=ct.cumsum(x > 0.0, axis=1).astype(ct.int32))


@ct.kernel
def uint32_argmax(X, I, BN: ct.Constant[int]):
    """The first position of a uint32 row's maximum (values above 2**31: an unsigned compare)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN))
    ct.store(I, index=(r,), tile=ct.argmax(x, axis=1).astype(ct.int32))


@ct.kernel
def uint32_to_f32_and_int64_to_f16(X, Y, Z, W, BN: ct.Constant[int]):
    """uint32 -> f32 (unsigned, rounded) and int64 -> f16 (rounded, past 65504 infinite)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    ct.store(Y, index=(i,), tile=x.astype(ct.float32))
    z = ct.load(Z, index=(i,), shape=(BN,))
    ct.store(W, index=(i,), tile=z.astype(ct.float16))


@ct.kernel
def int_to_fp8_and_fp8_to_int(X, Q, B, R, BN: ct.Constant[int]):
    """int32 -> fp8 e4m3 (saturating) and fp8 e5m2 -> int32 (truncated)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    ct.store(Q, index=(i,), tile=x.astype(ct.float8_e4m3fn))
    b = ct.load(B, index=(i,), shape=(BN,))
    ct.store(R, index=(i,), tile=b.astype(ct.int32))


@ct.kernel
def atomic_xchg_int64_and_uint64_add(T, U, I, V, BN: ct.Constant[int]):
    """int64 ``atomic_xchg`` (some writer wins each slot) and uint64 ``atomic_add`` with repeated indices."""
    i = ct.bid(0)
    idx = ct.load(I, index=(i,), shape=(BN,))
    v = ct.load(V, index=(i,), shape=(BN,))
    ct.atomic_xchg(T, idx, v)
    ct.atomic_add(U, idx, v.astype(ct.uint64))


@ct.kernel
def bool_reshape_rank4_to_1(X, B):
    """A rank-4 bool tile (``x > 0``) reshaped to rank 1 and stored into a bool array."""
    x = ct.load(X, index=(0, 0, 0, 0), shape=(2, 2, 4, 8))
    ct.store(B, index=(0,), tile=ct.reshape(x > 0.0, (128,)))


@ct.kernel
def f16_min_propagate_nan(X, M, BN: ct.Constant[int]):
    """An f16 row minimum with ``propagate_nan=True`` (a NaN anywhere gives NaN)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN))
    ct.store(M, index=(r,), tile=ct.min(x, axis=1, propagate_nan=True))


@ct.kernel
def uint8_cumprod_wraps(X, Y, BN: ct.Constant[int]):
    """A uint8 running product (``ct.cumprod``, wrapping modulo 256)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN))
    ct.store(Y, index=(r, 0), tile=ct.cumprod(x, axis=1))


@ct.kernel
def extract_rank3_middle(X, Y):
    """``extract`` of the second half of the middle axis of a rank-3 tile."""
    t = ct.load(X, index=(0, 0, 0), shape=(4, 8, 16))
    ct.store(Y, index=(0, 0, 0), tile=ct.extract(t, index=(0, 1, 0), shape=(4, 4, 16)))


@ct.kernel
def cat_rank4_axis1(A, B, Y):
    """Two rank-4 tiles joined along axis 1."""
    a = ct.load(A, index=(0, 0, 0, 0), shape=(2, 2, 4, 8))
    b = ct.load(B, index=(0, 0, 0, 0), shape=(2, 2, 4, 8))
    ct.store(Y, index=(0, 0, 0, 0), tile=ct.cat((a, b), axis=1))

_add("permute_rank4_heads", permute_rank4_heads, [((10, 8, 16), F32), ((10, 8, 16), F32), 4], (3,), "simt",
     outputs=(1,))
_add("cat_rank3_last_axis", cat_rank3_last_axis, [((7, 4, 8), F16), ((7, 4, 8), F16), ((7, 4, 16), F16), 4], (2,),
     "simt", outputs=(2,))
_add("extract_rank4_plane", extract_rank4_plane, [((3, 2, 4, 32), F32), ((3, 4, 32), F32)], (3,), "simt",
     outputs=(1,))
_add("bool_any_all_count", bool_any_all_count, [((6, 100), F32), ((6,), "int8"), ((6,), "int8"), ((6,), "int32"), 128],
     (6,), "simt", outputs=(1, 2, 3))
_add("int16_row_sum_max_min", int16_row_sum_max_min,
     [((5, 90), "int16"), ((5,), "int32"), ((5,), "int16"), ((5,), "int16"), 128], (5,), "simt", outputs=(1, 2, 3))
_add("uint32_row_max_min", uint32_row_max_min, [((4, 64), "uint32"), ((4,), "uint32"), ((4,), "uint32"), 64], (4,),
     "simt", outputs=(1, 2))
_add("uint16_cumsum_wraps", uint16_cumsum_wraps, [((3, 128), "uint16"), ((3, 128), "uint16"), 128], (3,), "simt",
     outputs=(1,))
_add("int64_cumsum_past_2_32", int64_cumsum_past_2_32, [((3, 64), "int64"), ((3, 64), "int64"), 64], (3,), "simt",
     outputs=(1,))
_add("int8_argmin_rows", int8_argmin_rows, [((5, 64), "int8"), ((5,), "int32"), ((5,), "int8"), 64], (5,), "simt",
     outputs=(1, 2))
_add("fp8_e5m2_e4m3_both_ways", fp8_e5m2_e4m3_both_ways,
     [((256,), "float8_e5m2"), ((256,), "float8_e4m3fn"), ((256,), "float8_e4m3fn"), ((256,), "float8_e5m2"),
      ((256,), "float8_e4m3fn"), 128], (2,), "simt", outputs=(2, 3, 4))
_add("fp8_e4m3_to_bf16_scaled", fp8_e4m3_to_bf16_scaled,
     [((4, 64), "float8_e4m3fn"), ((4,), F32), ((4, 64), BF16), 64], (4,), "simt", outputs=(2,))
_add("atomic_add_max_int64_duplicates", atomic_add_max_int64_duplicates,
     [((200,), "int32"), ((200,), "int64"), ((8,), "int64"), ((8,), "int64"), 64], (4,), "simt", outputs=(2, 3))
_add("atomic_cas_int64_claim", atomic_cas_int64_claim, [((16,), "int64"), ((128,), "int64"), 64], (2,), "simt",
     outputs=(0, 1))
_add("gather_where_chooses_indices", gather_where_chooses_indices,
     [((50,), F32), ((128,), "int32"), ((128,), "int32"), ((128,), F32), 64], (2,), "simt", outputs=(3,))
_add("scatter_masked_duplicates", scatter_masked_duplicates, [((150,), F32), ((75,), F32), 64], (3,), "simt",
     outputs=(1,))
_add("bool_tile_stored", bool_tile_stored, [((100,), F32), ((100,), "bool_"), 64], (2,), "simt", outputs=(1,))
_add("int16_cumsum_reverse_and_bool_running_count", int16_cumsum_reverse_and_bool_running_count,
     [((3, 64), "int16"), ((3, 64), "int16"), ((3, 64), "int32"), 64], (3,), "simt", outputs=(1, 2))
_add("uint8_column_max_rank3_middle_sum", uint8_column_max_rank3_middle_sum,
     [((4, 8, 32), "uint8"), ((4, 8, 32), F16), ((8, 32), "uint8"), ((4, 32), F32), 4], (1,), "simt",
     outputs=(2, 3))
_add("cat_rows_int32_then_transpose", cat_rows_int32_then_transpose,
     [((4, 96), "int32"), ((4, 96), "int32"), ((96, 8), "int32"), 32], (3,), "simt", outputs=(2,))
_add("bool_sum_direct", bool_sum_direct, [((4, 64), F32), ((4,), "int32"), 64], (4,), "simt", outputs=(1,))
_add("bool_cumsum_direct", bool_cumsum_direct, [((4, 64), F32), ((4, 64), "int32"), 64], (4,), "simt", outputs=(1,))
_add("uint32_argmax", uint32_argmax, [((4, 64), "uint32"), ((4,), "int32"), 64], (4,), "simt", outputs=(1,))
_add("uint32_to_f32_and_int64_to_f16", uint32_to_f32_and_int64_to_f16,
     [((128,), "uint32"), ((128,), F32), ((128,), "int64"), ((128,), F16), 64], (2,), "simt", outputs=(1, 3))
_add("int_to_fp8_and_fp8_to_int", int_to_fp8_and_fp8_to_int,
     [((128,), "int32"), ((128,), "float8_e4m3fn"), ((128,), "float8_e5m2"), ((128,), "int32"), 64], (2,), "simt",
     outputs=(1, 3))
_add("atomic_xchg_int64_and_uint64_add", atomic_xchg_int64_and_uint64_add,
     [((8,), "int64"), ((8,), "uint64"), ((128,), "int32"), ((128,), "int64"), 64], (2,), "simt", outputs=(0, 1))
_add("bool_reshape_rank4_to_1", bool_reshape_rank4_to_1, [((2, 2, 4, 8), F32), ((128,), "bool_")], (1,), "simt",
     outputs=(1,))
_add("f16_min_propagate_nan", f16_min_propagate_nan, [((4, 64), F16), ((4,), F16), 64], (4,), "simt", outputs=(1,))
_add("uint8_cumprod_wraps", uint8_cumprod_wraps, [((4, 16), "uint8"), ((4, 16), "uint8"), 16], (4,), "simt",
     outputs=(1,))
_add("extract_rank3_middle", extract_rank3_middle, [((4, 8, 16), F32), ((4, 4, 16), F32)], (1,), "simt", outputs=(1,))
_add("cat_rank4_axis1", cat_rank4_axis1, [((2, 2, 4, 8), F32), ((2, 2, 4, 8), F32), ((2, 4, 4, 8), F32)], (1,),
     "simt", outputs=(2,))
