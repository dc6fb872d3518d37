"""The nineteenth user sweep (session 24, issue 21 item 1: every ``cuda_tile`` op cuTile 1.7 emits,
on programs without a dot, and the user's mistakes), written as a user writes them, in the variants
the earlier sweeps (:mod:`tileorch.testing.user_programs` .. ``user_programs17``) do not hold.
Shapes: a 4-D int16 permute beside a reshape of the same padded tile, a 1-D tile reshaped to 4-D and
summed over each axis, ``ct.cat`` of 2-D int32 tiles along axis 0 and axis 1, of 3-D f16 tiles along
axes 0 and 1, a chain of four int8 pieces; a 4-D ``broadcast_to`` of a row and a column; quadrant
swaps by ``ct.extract``; one-element int64 tiles on a 3-D grid; per-tile maxima on a 3-D grid; a
grid larger than the data (programs whose every element is out of bounds); 1 x 65536 int32 rows.
Element types: int16 data gathered by int64 flat indices; bool arrays combined by ``& ^ ~`` and
stored; a compare stored as bool / uint8 / int32 / f16; int8 ``abs`` / negation / product wrapping
at -128; f32 -> int32 / int64 / int8 / uint8 and f64 -> int32 of NaN, the infinities and values out
of range (saturating, NaN 0); f16 / bf16 -> fp8 e4m3 saturating and back; int8 and int64 ``//`` and
``%`` of negative numbers (Python's floor semantics), uint32 division past 2**31.  Scans along axis 0
and of int types (int32 cumsum, int64 reverse cumprod, int16 cumsum wrapping, bool running counts);
column argmax / argmin with ties (f16, int16); ``ct.where`` chains (a piecewise function, int64 /
f16 branches).  Atomics: a uint32 bitmap by ``atomic_or`` (bit 31 too), int64 ``atomic_and`` /
``atomic_xor``, an int32 histogram by an ``atomic_cas`` add loop, f32 ``atomic_xchg``, scatter with
duplicate indices beside ``atomic_add``, an int8-valued histogram.  Gathers padded and masked
(negative / past-the-end indices, a NaN padding value, a 2-D index pair with -1 padding), rows
reversed by a gather, an inverse permutation by an int64 scatter, top-3 down columns by repeated
``max``.  Loops: runtime ``range`` with zero and negative trip counts, ``range`` with a negative
step, ``ct.static_iter`` over an empty and a one-element range.

The invalid half (:data:`INVALID`): programs cuTile's front end accepts that no compiler can run as
written; each must stop with ``file:line:col: error:`` at the user's line.  (Mistakes cuTile's own
front end rejects never reach tileorch: :data:`REJECTED_BY_CUTILE` lists them with the error cuTile
raises, so that a change of cuTile shows.)

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep19_compile.py (CPU compile to PTX, ptxas without spills),
tests/unit/test_user_sweep19_interp.py (the SIMT interpreter against numpy),
tests/unit/test_user_sweep19_emulated.py (the PTX emulator), tests/unit/test_user_sweep19_invalid.py
and tests/gpu/test_user_sweep19_gpu.py (the GPU, the same references).  Importing it needs
``cuda.tile``.
"""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
F32, F16, BF16, I8, I16, I32, U32, I64, U8, B = ("float32", "float16", "bfloat16", "int8", "int16", "int32",
                                                 "uint32", "int64", "uint8", "bool_")
C = ct.Constant
ZERO = ct.PaddingMode.ZERO
NEG_INF = ct.PaddingMode.NEG_INF


# ----------------------------------------------------------------------------------------------- shapes


@ct.kernel
def permute_4d_int16_and_reshape(X, Y, Z):
    """An int16 ``(3, 5, 6, 2)`` array in one ``(4, 8, 8, 2)`` tile (zero padded): its permute
    ``(3, 1, 0, 2)`` stored into ``(2, 5, 3, 6)`` (the padding dropped by the store) and the padded
    tile reshaped to ``(32, 16)`` stored whole."""
    x = ct.load(X, index=(0, 0, 0, 0), shape=(4, 8, 8, 2), padding_mode=ZERO)
    ct.store(Y, index=(0, 0, 0, 0), tile=ct.permute(x, (3, 1, 0, 2)))
    ct.store(Z, index=(0, 0), tile=ct.reshape(x, (32, 16)))


@ct.kernel
def reshape_1d_to_4d_sum_each_axis(X, S0, S1, S2, S3):
    """A 64-element f32 vector reshaped to ``(2, 4, 2, 4)`` and summed over each of the four axes
    (four outputs of rank 3)."""
    x = ct.reshape(ct.load(X, index=(0,), shape=(64,)), (2, 4, 2, 4))
    ct.store(S0, index=(0, 0, 0), tile=ct.sum(x, axis=0))
    ct.store(S1, index=(0, 0, 0), tile=ct.sum(x, axis=1))
    ct.store(S2, index=(0, 0, 0), tile=ct.sum(x, axis=2))
    ct.store(S3, index=(0, 0, 0), tile=ct.sum(x, axis=3))


@ct.kernel
def cat_rank2_axis0_and_axis1_int32(A, Bm, Y0, Y1, BM: C[int], BN: C[int]):
    """Two int32 ``(BM, BN)`` tiles of ragged ``(13, 16)`` arrays joined by ``ct.cat`` along axis 0
    (stored as the ``i``-th ``(2 BM, BN)`` block of ``Y0``) and along axis 1 (``(BM, 2 BN)`` blocks of
    ``Y1``, the ragged rows dropped)."""
    i = ct.bid(0)
    a = ct.load(A, index=(i, 0), shape=(BM, BN), padding_mode=ZERO)
    b = ct.load(Bm, index=(i, 0), shape=(BM, BN), padding_mode=ZERO)
    ct.store(Y0, index=(i, 0), tile=ct.cat((a, b), 0))
    ct.store(Y1, index=(i, 0), tile=ct.cat((a, b - a), 1))


@ct.kernel
def cat_rank3_axis0_axis1_f16(A, Bm, Y0, Y1):
    """f16 ``(2, 4, 8)`` tiles joined along axis 0 into ``(4, 4, 8)`` and along axis 1 into
    ``(2, 8, 8)`` (the second scaled by 2)."""
    a = ct.load(A, index=(0, 0, 0), shape=(2, 4, 8))
    b = ct.load(Bm, index=(0, 0, 0), shape=(2, 4, 8))
    ct.store(Y0, index=(0, 0, 0), tile=ct.cat((a, b), 0))
    ct.store(Y1, index=(0, 0, 0), tile=ct.cat((a, b * 2.0), 1))


@ct.kernel
def cat_chain_four_int8_pieces(P, Q, Y, BN: C[int]):
    """Four int8 ``BN`` pieces (``p``, ``q``, ``p + q`` wrapping, ``-p``) joined by nested ``ct.cat``
    into one ``4 BN`` tile per program (ragged: the tail's pieces padded with 0)."""
    i = ct.bid(0)
    p = ct.load(P, index=(i,), shape=(BN,), padding_mode=ZERO)
    q = ct.load(Q, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=ct.cat((ct.cat((p, q), 0), ct.cat((p + q, -p), 0)), 0))


@ct.kernel
def broadcast_to_4d_row_and_column(R, Cc, Y):
    """``Y[a, b, c, d] = R[d] * (a + 1) + Cc[b]`` by ``broadcast_to`` of a row and a column to
    ``(2, 4, 4, 8)`` (the 4-D output ``(2, 3, 4, 7)`` ragged in two dimensions)."""
    r = ct.load(R, index=(0,), shape=(8,), padding_mode=ZERO)
    c = ct.load(Cc, index=(0,), shape=(4,), padding_mode=ZERO)
    rows = ct.broadcast_to(ct.reshape(r, (1, 1, 1, 8)), (2, 4, 4, 8))
    cols = ct.broadcast_to(ct.reshape(c, (1, 4, 1, 1)), (2, 4, 4, 8))
    a = ct.reshape(ct.arange(2, dtype=ct.int32), (2, 1, 1, 1)).astype(ct.float32) + 1.0
    ct.store(Y, index=(0, 0, 0, 0), tile=rows * a + cols)


@ct.kernel
def extract_quadrants_swapped(X, Y):
    """An ``(8, 8)`` f32 tile of a ragged ``(7, 7)`` array cut into four ``(4, 4)`` quadrants by
    ``ct.extract``, stored crosswise (top-left <-> bottom-right, top-right <-> bottom-left)."""
    x = ct.load(X, index=(0, 0), shape=(8, 8), padding_mode=ZERO)
    ct.store(Y, index=(0, 0), tile=ct.extract(x, index=(1, 1), shape=(4, 4)))
    ct.store(Y, index=(1, 1), tile=ct.extract(x, index=(0, 0), shape=(4, 4)))
    ct.store(Y, index=(0, 1), tile=ct.extract(x, index=(1, 0), shape=(4, 4)))
    ct.store(Y, index=(1, 0), tile=ct.extract(x, index=(0, 1), shape=(4, 4)))


@ct.kernel
def one_element_tiles_int64_grid_3d(X, Y):
    """A 3-D grid of ``(1, 1, 1)`` int64 tiles: ``Y[k, j, i] = X[i, j, k] * (100 i + 10 j + k)`` with
    the products past 2**32."""
    i, j, k = ct.bid(0), ct.bid(1), ct.bid(2)
    x = ct.load(X, index=(i, j, k), shape=(1, 1, 1))
    w = i * 100 + j * 10 + k
    ct.store(Y, index=(k, j, i), tile=ct.permute(x * w, (2, 1, 0)))


@ct.kernel
def tile_max_per_block_grid_3d(X, Y, BM: C[int], BN: C[int]):
    """Per ``(1, BM, BN)`` tile of a ragged f32 ``(3, 37, 50)`` array, on a 3-D grid, its maximum
    stored as one element ``Y[b, i, j]`` (padding -inf)."""
    b, i, j = ct.bid(0), ct.bid(1), ct.bid(2)
    x = ct.load(X, index=(b, i, j), shape=(1, BM, BN), padding_mode=NEG_INF)
    ct.store(Y, index=(b, i, j), tile=ct.reshape(ct.max(x), (1, 1, 1)))


@ct.kernel
def grid_larger_than_data(X, Y, Cnt, BN: C[int]):
    """``Y = 2 X + 1`` with a grid of 8 programs over 300 elements in 64-element tiles: programs 5..7
    read only padding and store nothing; every program adds its count of in-bounds lanes to
    ``Cnt`` (300 in all)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=x * 2.0 + 1.0)
    valid = (i * BN + ct.arange(BN, dtype=ct.int32)) < X.shape[0]
    ct.atomic_add(Cnt, ct.zeros((1,), dtype=ct.int32), ct.reshape(ct.sum(ct.where(valid, 1, 0)), (1,)))


@ct.kernel
def wide_row_1x65536_int32_sum_argmax(X, S, A, BN: C[int]):
    """One ``(1, 65536)`` int32 tile per row: its int32 sum and the first index of its maximum (a
    tie at two places)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN))
    ct.store(S, index=(r,), tile=ct.sum(x, axis=1))
    ct.store(A, index=(r,), tile=ct.argmax(x, axis=1).astype(ct.int32))


@ct.kernel
def space_to_depth_2x2_rank4(X, Y):
    """Space-to-depth of an f32 ``(8, 8)`` image (ragged ``(7, 6)``, zero padded): reshape to
    ``(4, 2, 4, 2)``, permute ``(1, 3, 0, 2)`` (the 2 x 2 phase first), reshape to ``(4, 16)``."""
    x = ct.load(X, index=(0, 0), shape=(8, 8), padding_mode=ZERO)
    y = ct.reshape(ct.permute(ct.reshape(x, (4, 2, 4, 2)), (1, 3, 0, 2)), (4, 16))
    ct.store(Y, index=(0, 0), tile=y)


@ct.kernel
def transposes_of_every_width(Mb, A8, Q8, H, D, L, Tb, T8, Tq, Th, Td, Tl):
    """``ct.transpose`` of ragged ``(7, 13)`` arrays of bool, int8, fp8 e4m3 (its bytes moved as
    they are), f16, f64 and int64 in ``(8, 16)`` tiles: one exchange through shared memory per
    element width (1, 8, 16 and 64 bits), the ``(13, 7)`` outputs clipped."""
    ct.store(Tb, index=(0, 0), tile=ct.transpose(ct.load(Mb, index=(0, 0), shape=(8, 16), padding_mode=ZERO)))
    ct.store(T8, index=(0, 0), tile=ct.transpose(ct.load(A8, index=(0, 0), shape=(8, 16), padding_mode=ZERO)))
    ct.store(Tq, index=(0, 0), tile=ct.transpose(ct.load(Q8, index=(0, 0), shape=(8, 16), padding_mode=ZERO)))
    ct.store(Th, index=(0, 0), tile=ct.transpose(ct.load(H, index=(0, 0), shape=(8, 16), padding_mode=ZERO)))
    ct.store(Td, index=(0, 0), tile=ct.transpose(ct.load(D, index=(0, 0), shape=(8, 16), padding_mode=ZERO)))
    ct.store(Tl, index=(0, 0), tile=ct.transpose(ct.load(L, index=(0, 0), shape=(8, 16), padding_mode=ZERO)))


@ct.kernel
def bool_tiles_cat_permute_reshape(M, Y, Z):
    """A bool ``(4, 8)`` mask and its negation joined along axis 0, permuted to ``(8, 8)``' columns
    first, and reshaped to ``(2, 32)``: bool tiles through ``cat`` / ``permute`` / ``reshape``."""
    m = ct.load(M, index=(0, 0), shape=(4, 8))
    both = ct.cat((m, ~m), 0)
    ct.store(Y, index=(0, 0), tile=ct.permute(both, (1, 0)))
    ct.store(Z, index=(0, 0), tile=ct.reshape(both, (2, 32)))


# ----------------------------------------------------------------------------------------------- element types


@ct.kernel
def int16_gather_by_int64_flat_index(X, Rows, Y, BN: C[int]):
    """Rows of an int16 ``(R, N)`` array viewed flat, chosen by int32 row ids: the flat index
    ``row * N + col`` computed in int64, the gather masked at ``N`` (ragged columns)."""
    i = ct.bid(0)
    n = Y.shape[1]
    row = ct.gather(Rows, i).astype(ct.int64)
    col = ct.arange(BN, dtype=ct.int64)
    v = ct.gather(X, row * n + col, mask=col < n)
    ct.store(Y, index=(i, 0), tile=ct.reshape(v, (1, BN)))


@ct.kernel
def bool_arrays_and_xor_not(A, Bm, And, Xor, Not, Cnt, BN: C[int]):
    """Two bool arrays combined by ``&``, ``^`` and ``~`` and stored as bool arrays; the number of
    true lanes of ``a & b`` added to an int32 counter (ragged length: padding is false)."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BN,), padding_mode=ZERO)
    b = ct.load(Bm, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(And, index=(i,), tile=a & b)
    ct.store(Xor, index=(i,), tile=a ^ b)
    ct.store(Not, index=(i,), tile=~a)
    n = ct.sum((a & b).astype(ct.int32))
    ct.atomic_add(Cnt, ct.zeros((1,), dtype=ct.int32), ct.reshape(n, (1,)))


@ct.kernel
def compare_stored_as_four_dtypes(X, Mb, Mu8, Mi32, Mf16, BN: C[int]):
    """``x > 0`` of an f32 array stored as bool, uint8, int32 and f16 (1 / 0); NaN compares false."""
    i = ct.bid(0)
    m = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO) > 0
    ct.store(Mb, index=(i,), tile=m)
    ct.store(Mu8, index=(i,), tile=m.astype(ct.uint8))
    ct.store(Mi32, index=(i,), tile=m.astype(ct.int32))
    ct.store(Mf16, index=(i,), tile=m.astype(ct.float16))


@ct.kernel
def casts_to_bool(X, K, Bf, Bi, BN: C[int]):
    """``astype(bool)`` of an f32 tile (fractions, negatives, NaN, infinities) and of an int32 tile
    (2, 256, -1: values whose low bit is 0 included), stored as bool arrays.  cuTile 1.7 writes the
    int32 cast as ``cmpi ne 0`` and the f32 one as ``ftoi unsigned`` to ``i1``: truncation
    saturating to [0, 1], NaN 0 (0.5 and -1.0 give false, unlike ``torch``'s ``x != 0``)."""
    i = ct.bid(0)
    ct.store(Bf, index=(i,), tile=ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.bool_))
    ct.store(Bi, index=(i,), tile=ct.load(K, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.bool_))


@ct.kernel
def tf32_rounding_and_f64_bits(X, D, T, Db, Bb, BN: C[int]):
    """``astype(tfloat32)`` of an f32 tile and back (10 mantissa bits kept), the bits of an f64 tile
    as int64 by ``bitcast`` and back with the sign flipped (``x ^ 2**63``), bf16 bits as int16."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(T, index=(i,), tile=x.astype(ct.tfloat32).astype(ct.float32))
    d = ct.load(D, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Db, index=(i,), tile=ct.bitcast(ct.bitcast(d, ct.int64) ^ (-(2 ** 63)), ct.float64))
    ct.store(Bb, index=(i,), tile=ct.bitcast(x.astype(ct.bfloat16), ct.int16))


@ct.kernel
def int8_abs_negate_multiply_wrap(A, Bm, Ab, Ng, Pr, BN: C[int]):
    """int8 ``abs`` and negation (-128 stays -128) and the product of two int8 arrays, wrapping."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BN,), padding_mode=ZERO)
    b = ct.load(Bm, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Ab, index=(i,), tile=ct.abs(a))
    ct.store(Ng, index=(i,), tile=-a)
    ct.store(Pr, index=(i,), tile=a * b)


@ct.kernel
def float_to_int_nan_inf_out_of_range(X, D, I32o, I64o, I8o, U8o, D32o, BN: C[int]):
    """f32 -> int32 / int64 / int8 / uint8 and f64 -> int32 of NaN, +-inf, values past each type's
    range and fractions of both signs (truncation toward zero, saturating, NaN 0)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(I32o, index=(i,), tile=x.astype(ct.int32))
    ct.store(I64o, index=(i,), tile=x.astype(ct.int64))
    ct.store(I8o, index=(i,), tile=x.astype(ct.int8))
    ct.store(U8o, index=(i,), tile=x.astype(ct.uint8))
    ct.store(D32o, index=(i,), tile=ct.load(D, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.int32))


@ct.kernel
def e4m3_from_f16_and_bf16_saturating(H, Bf, Qh, Qb, Rh, Rb, BN: C[int]):
    """f16 and bf16 arrays to fp8 e4m3 (nearest even, saturating past 448, NaN kept) and the bytes
    back to f32 (ragged length)."""
    i = ct.bid(0)
    qh = ct.load(H, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.float8_e4m3fn)
    qb = ct.load(Bf, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.float8_e4m3fn)
    ct.store(Qh, index=(i,), tile=qh)
    ct.store(Qb, index=(i,), tile=qb)
    ct.store(Rh, index=(i,), tile=qh.astype(ct.float32))
    ct.store(Rb, index=(i,), tile=qb.astype(ct.float32))


@ct.kernel
def int8_int64_floordiv_mod_negatives(A, Bm, Q, R, A64, B64, Q64, R64, BN: C[int]):
    """``//`` and ``%`` of int8 and int64 tiles with negative dividends and divisors (Python's floor
    division; int8 -128 // 1 and -128 % -3 included; int64 dividends past 2**40)."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BN,), padding_mode=ZERO)
    b = ct.load(Bm, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Q, index=(i,), tile=a // b)
    ct.store(R, index=(i,), tile=a % b)
    a64 = ct.load(A64, index=(i,), shape=(BN,), padding_mode=ZERO)
    b64 = ct.load(B64, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Q64, index=(i,), tile=a64 // b64)
    ct.store(R64, index=(i,), tile=a64 % b64)


@ct.kernel
def uint32_divmod_past_2_31(A, Bm, Q, R, BN: C[int]):
    """uint32 ``%`` with dividends and divisors past 2**31 (an unsigned remainder: a signed one reads
    them as negative) and ``//`` written as the located error of ``a // b`` on uint32 tells (widened
    to int64, divided, narrowed back)."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BN,), padding_mode=ZERO)
    b = ct.load(Bm, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Q, index=(i,), tile=(a.astype(ct.int64) // b.astype(ct.int64)).astype(ct.uint32))
    ct.store(R, index=(i,), tile=a % b)


# ----------------------------------------------------------------------------------------------- scans and selection


@ct.kernel
def scans_axis0_int_types(X, Cs, Cp, W, Yw, BM: C[int], BN: C[int]):
    """Along axis 0 of one column block: the int32 ``cumsum`` of ``X`` and the int64 reverse
    ``cumprod`` of ``X`` widened; along axis 1 the int16 ``cumsum`` of ``W`` (wrapping).  ``X`` is an
    int32 ``(BM, 37)`` array (ragged columns, padding 0), ``W`` an int16 ``(BM, 37)`` one."""
    j = ct.bid(0)
    x = ct.load(X, index=(0, j), shape=(BM, BN), padding_mode=ZERO)
    ct.store(Cs, index=(0, j), tile=ct.cumsum(x, axis=0))
    ct.store(Cp, index=(0, j), tile=ct.cumprod(x.astype(ct.int64), axis=0, reverse=True))
    w = ct.load(W, index=(0, j), shape=(BM, BN), padding_mode=ZERO)
    ct.store(Yw, index=(0, j), tile=ct.cumsum(w, axis=1))


@ct.kernel
def cumprod_axis0_f32_zeros_nan(X, Y, BM: C[int], BN: C[int]):
    """The f32 ``cumprod`` down each column (axis 0) of a ``(BM, N)`` array holding zeros, NaN and
    infinities (ragged columns)."""
    j = ct.bid(0)
    x = ct.load(X, index=(0, j), shape=(BM, BN), padding_mode=ZERO)
    ct.store(Y, index=(0, j), tile=ct.cumprod(x, axis=0))


@ct.kernel
def uint8_saturating_add_clamp(A, Bm, Y, Z, BN: C[int]):
    """Two uint8 images added saturating at 255 (widened to int16, ``minimum``, narrowed) and
    subtracted saturating at 0 (``maximum``), as image code writes it (ragged length)."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.int16)
    b = ct.load(Bm, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.int16)
    ct.store(Y, index=(i,), tile=ct.minimum(a + b, 255).astype(ct.uint8))
    ct.store(Z, index=(i,), tile=ct.maximum(a - b, 0).astype(ct.uint8))


@ct.kernel
def bool_running_count_axis0(M, Y, BM: C[int], BN: C[int]):
    """The running count of true values down each column of a bool ``(BM, N)`` mask (``cumsum`` of
    the mask as int32 along axis 0; ragged columns)."""
    j = ct.bid(0)
    m = ct.load(M, index=(0, j), shape=(BM, BN), padding_mode=ZERO)
    ct.store(Y, index=(0, j), tile=ct.cumsum(m.astype(ct.int32), axis=0))


@ct.kernel
def column_argmax_argmin_ties(X, W, Amax, Amin, BM: C[int], BN: C[int]):
    """Per column: the first row of the f16 maximum of ``X`` (padding -inf) and of the int16 minimum
    of ``W`` (ragged rows sent to 32767 by ``where``); ties everywhere."""
    j = ct.bid(0)
    x = ct.load(X, index=(0, j), shape=(BM, BN), padding_mode=NEG_INF)
    w = ct.load(W, index=(0, j), shape=(BM, BN), padding_mode=ZERO)
    rows = ct.arange(BM, dtype=ct.int32)[:, None]
    w = ct.where(rows < W.shape[0], w, 32767)
    ct.store(Amax, index=(j,), tile=ct.argmax(x, axis=0).astype(ct.int32))
    ct.store(Amin, index=(j,), tile=ct.argmin(w, axis=0).astype(ct.int32))


@ct.kernel
def argmax_argmin_middle_and_first_axis_3d(X, H, Amax, Amin):
    """Of a ragged int64 ``(3, 7, 13)`` array in one ``(4, 8, 16)`` tile (padding sent to the
    type's minimum by ``where``): the first index of the maximum along axis 1; of an f16 one
    (padding +inf): the first index of the minimum along axis 0; ties throughout."""
    x = ct.load(X, index=(0, 0, 0), shape=(4, 8, 16), padding_mode=ZERO)
    j = ct.arange(8, dtype=ct.int32)[None, :, None]
    x = ct.where(j < X.shape[1], x, -(2 ** 63))
    h = ct.load(H, index=(0, 0, 0), shape=(4, 8, 16), padding_mode=ct.PaddingMode.POS_INF)
    ct.store(Amax, index=(0, 0), tile=ct.argmax(x, axis=1).astype(ct.int32))
    ct.store(Amin, index=(0, 0), tile=ct.argmin(h, axis=0).astype(ct.int32))


@ct.kernel
def top3_down_columns_int16(X, V, BM: C[int], BN: C[int]):
    """The three largest int16 values of each column (padding -32768) by ``max`` and masking the
    first row that holds it, stored as rows 0..2 of ``V``."""
    j = ct.bid(0)
    x = ct.load(X, index=(0, j), shape=(BM, BN), padding_mode=ZERO)
    rows = ct.arange(BM, dtype=ct.int32)[:, None]
    x = ct.where(rows < X.shape[0], x, -32768)
    for k in range(3):
        m = ct.max(x, axis=0, keepdims=True)
        ct.store(V, index=(k, j), tile=m)
        first = ct.argmax(x, axis=0, keepdims=True)
        x = ct.where(rows == first, -32768, x)


@ct.kernel
def where_chain_piecewise(X, Y, Code, BN: C[int]):
    """A piecewise function by a chain of ``ct.where``: ``x < -2`` -> -1, ``x < 0`` -> ``x / 2``,
    ``x < 1`` -> ``x * x``, ``x < 3`` -> ``sqrt(x)``, else 3; and the piece's int64 code (NaN takes
    the last piece)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    y = ct.where(x < -2.0, -1.0, ct.where(x < 0.0, x / 2.0, ct.where(x < 1.0, x * x,
                                                                      ct.where(x < 3.0, ct.sqrt(ct.abs(x)), 3.0))))
    code = ct.where(x < -2.0, 0, ct.where(x < 0.0, 1, ct.where(x < 1.0, 2, ct.where(x < 3.0, 3, 4))))
    ct.store(Y, index=(i,), tile=y)
    ct.store(Code, index=(i,), tile=code.astype(ct.int64))


@ct.kernel
def where_int64_and_f16_branches(A, H, Y64, Y16, BN: C[int]):
    """``where`` choosing between an int64 tile and an int scalar past 2**32, and between an f16 tile
    and an f16 scalar, on one f16 condition."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BN,), padding_mode=ZERO)
    h = ct.load(H, index=(i,), shape=(BN,), padding_mode=ZERO)
    neg = h < 0
    ct.store(Y64, index=(i,), tile=ct.where(neg, a, 5_000_000_000))
    ct.store(Y16, index=(i,), tile=ct.where(neg, -h, h * 0.5))


@ct.kernel
def argmax_argmin_index_past_16_bits_f16(X, Amax, Amin, BN: C[int]):
    """The first index of the maximum and of the minimum of each f16 row of 65536 elements (one
    ``(1, 65536)`` tile): indices past 2**15 and 2**16 - 1 must survive a 16-bit element type."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN))
    ct.store(Amax, index=(r,), tile=ct.argmax(x, axis=1).astype(ct.int32))
    ct.store(Amin, index=(r,), tile=ct.argmin(x, axis=1).astype(ct.int32))


@ct.kernel
def argmin_argmax_uint8_index_past_255(X, Amin, Amax, BN: C[int]):
    """Per uint8 row of 300 (a ``(1, 512)`` tile, the padding sent to 255 for the minimum and to 0
    for the maximum by ``where``): the first index of the minimum and of the maximum, past 255."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    inside = ct.arange(BN, dtype=ct.int32)[None, :] < X.shape[1]
    ct.store(Amin, index=(r,), tile=ct.argmin(ct.where(inside, x, 255), axis=1).astype(ct.int32))
    ct.store(Amax, index=(r,), tile=ct.argmax(x, axis=1).astype(ct.int32))


# ----------------------------------------------------------------------------------------------- atomics


@ct.kernel
def atomic_or_bitmap_uint32(Keys, Bitmap, BN: C[int]):
    """A presence bitmap of int32 keys: bit ``k % 32`` of uint32 word ``k // 32`` set by
    ``atomic_or`` (bit 31 included, duplicate keys; ragged: the tail's words past the table)."""
    i = ct.bid(0)
    pos = i * BN + ct.arange(BN, dtype=ct.int32)
    k = ct.load(Keys, index=(i,), shape=(BN,), padding_mode=ZERO)
    word = ct.where(pos < Keys.shape[0], k // 32, Bitmap.shape[0])
    bit = ct.full((BN,), 1, dtype=ct.uint32) << (k % 32).astype(ct.uint32)
    ct.atomic_or(Bitmap, word, bit)


@ct.kernel
def atomic_and_xor_int64_words(Masks, Idx, AndT, XorT, BN: C[int]):
    """int64 words updated by ``atomic_and`` (each lane clears the bits of its mask) and
    ``atomic_xor`` (each lane flips them), masks with bits past 2**32; ragged: the tail's lanes
    send index -1 (dropped)."""
    i = ct.bid(0)
    pos = i * BN + ct.arange(BN, dtype=ct.int32)
    m = ct.load(Masks, index=(i,), shape=(BN,), padding_mode=ZERO)
    k = ct.where(pos < Idx.shape[0], ct.load(Idx, index=(i,), shape=(BN,), padding_mode=ZERO), -1)
    ct.atomic_and(AndT, k, ~m)
    ct.atomic_xor(XorT, k, m)


@ct.kernel
def histogram_sum_by_cas_add_loop(Val, Bin, Tab, BN: C[int], TRIES: C[int]):
    """A per-bin int32 sum by an ``atomic_cas`` retry loop (read, add, compare-and-swap, retry the
    lanes whose compare failed; ``TRIES`` rounds), as a user writes an atomic add of their own; the
    ragged tail's lanes are done from the start."""
    i = ct.bid(0)
    pos = i * BN + ct.arange(BN, dtype=ct.int32)
    v = ct.load(Val, index=(i,), shape=(BN,), padding_mode=ZERO)
    b = ct.load(Bin, index=(i,), shape=(BN,), padding_mode=ZERO)
    done = pos >= Val.shape[0]
    for t in range(TRIES):
        old = ct.gather(Tab, b)
        got = ct.atomic_cas(Tab, b, old, ct.where(done, old, old + v))
        done = done | (got == old)


@ct.kernel
def atomic_xchg_f32_returns_old(Tab, Idx, V, Old, BN: C[int]):
    """f32 ``atomic_xchg`` at distinct indices: the old values stored, the table left holding the new
    ones (ragged: the tail's lanes exchange past the table)."""
    i = ct.bid(0)
    pos = i * BN + ct.arange(BN, dtype=ct.int32)
    k = ct.where(pos < Idx.shape[0], ct.load(Idx, index=(i,), shape=(BN,), padding_mode=ZERO), Tab.shape[0])
    v = ct.load(V, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Old, index=(i,), tile=ct.atomic_xchg(Tab, k, v))


@ct.kernel
def scatter_duplicates_beside_atomic_add(Idx, V, S, A, BN: C[int]):
    """The same duplicate indices given to ``scatter`` (one of the writers wins) and to
    ``atomic_add`` (every writer counts); ragged: masked scatter, the tail adds 0."""
    i = ct.bid(0)
    pos = i * BN + ct.arange(BN, dtype=ct.int32)
    valid = pos < Idx.shape[0]
    k = ct.load(Idx, index=(i,), shape=(BN,), padding_mode=ZERO)
    v = ct.load(V, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.scatter(S, k, v, mask=valid)
    ct.atomic_add(A, k, ct.where(valid, v, 0.0))


@ct.kernel
def atomic_add_int64_tickets(Cnt, T, BN: C[int]):
    """Every lane takes a ticket from one int64 counter that starts past 2**40 by ``atomic_add`` of 1
    (all lanes at index 0) and stores it: the tickets are the counter's start plus 0 .. n - 1, each
    once (ragged: tail lanes add 0 and store nothing)."""
    i = ct.bid(0)
    valid = (i * BN + ct.arange(BN, dtype=ct.int32)) < T.shape[0]
    t = ct.atomic_add(Cnt, ct.zeros((BN,), dtype=ct.int32), ct.where(valid, 1, 0).astype(ct.int64))
    ct.store(T, index=(i,), tile=t)


@ct.kernel
def histogram_of_int8_values(X, H, BN: C[int]):
    """A 256-bin histogram of int8 values (bin ``x + 128``, widened to int32 first) by
    ``atomic_add``; the ragged tail's lanes go to bin 256, past the table."""
    i = ct.bid(0)
    pos = i * BN + ct.arange(BN, dtype=ct.int32)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.int32) + 128
    ct.atomic_add(H, ct.where(pos < X.shape[0], x, 256), ct.full((BN,), 1, dtype=ct.int32))


# ----------------------------------------------------------------------------------------------- gather / scatter


@ct.kernel
def gather_masked_nan_padding_f16(X, Idx, M, Y, BN: C[int]):
    """``Y = X[idx]`` of f16 with ``padding_value=nan``: lanes whose bool mask is false and indices
    that are negative or past the end read NaN (ragged length)."""
    i = ct.bid(0)
    k = ct.load(Idx, index=(i,), shape=(BN,), padding_mode=ZERO)
    m = ct.load(M, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=ct.gather(X, k, mask=m, padding_value=float("nan")))


@ct.kernel
def gather_and_atomic_by_small_unsigned_indices(X, U8, I16, U32, G8, G16, G32, H, BN: C[int]):
    """Gathers of an f32 table by uint8 indices (128..255 too: zero-extended, not negative), int16
    ones (negative: dropped, padding 0) and uint32 ones (past 2**31: past the table, not negative),
    and an int32 histogram by ``atomic_add`` at the uint8 indices."""
    i = ct.bid(0)
    u8 = ct.load(U8, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(G8, index=(i,), tile=ct.gather(X, u8))
    ct.store(G16, index=(i,), tile=ct.gather(X, ct.load(I16, index=(i,), shape=(BN,), padding_mode=ZERO)))
    ct.store(G32, index=(i,), tile=ct.gather(X, ct.load(U32, index=(i,), shape=(BN,), padding_mode=ZERO)))
    valid = (i * BN + ct.arange(BN, dtype=ct.int32)) < U8.shape[0]
    ct.atomic_add(H, u8, ct.where(valid, 1, 0))


@ct.kernel
def gather_2d_index_pair_padding_minus_one(X, R, Cc, Y, BR: C[int], BC: C[int]):
    """``Y[a, b] = X[R[a], Cc[b]]`` of int32 by a gather with a broadcast ``(rows, cols)`` index pair;
    out-of-bounds pairs (negative or past either dimension) read -1."""
    r = ct.load(R, index=(0,), shape=(BR,), padding_mode=ZERO)
    c = ct.load(Cc, index=(0,), shape=(BC,), padding_mode=ZERO)
    ct.store(Y, index=(0, 0), tile=ct.gather(X, (r[:, None], c[None, :]), padding_value=-1))


@ct.kernel
def reverse_rows_by_gather(X, Y, BN: C[int]):
    """Each f32 row of a ragged ``(R, N)`` array reversed: ``Y[r, c] = X[r, N - 1 - c]`` by a gather
    masked at ``N``."""
    r = ct.bid(0)
    n = X.shape[1]
    c = ct.arange(BN, dtype=ct.int32)
    v = ct.gather(X, (r, n - 1 - c), mask=c < n)
    ct.store(Y, index=(r, 0), tile=ct.reshape(v, (1, BN)))


@ct.kernel
def inverse_permutation_scatter_int64(Perm, X, Y, Inv, BN: C[int]):
    """``Y[perm[i]] = X[i]`` and ``Inv[perm[i]] = i`` by scatters at int64 indices (ragged: masked)."""
    i = ct.bid(0)
    pos = i * BN + ct.arange(BN, dtype=ct.int64)
    valid = pos < Perm.shape[0]
    p = ct.load(Perm, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.scatter(Y, p, ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO), mask=valid)
    ct.scatter(Inv, p, pos, mask=valid)


@ct.kernel
def scatter_adjacent_bytes_int8_bool(Perm, X, Y, M, BN: C[int]):
    """``Y[perm[i]] = X[i]`` (int8) and ``M[perm[i]] = X[i] > 0`` (bool) by scatters: neighbouring
    bytes written by different threads and programs (a byte store each: a wider read-modify-write
    would lose its neighbours' bytes); ragged length, masked."""
    i = ct.bid(0)
    valid = (i * BN + ct.arange(BN, dtype=ct.int32)) < Perm.shape[0]
    p = ct.load(Perm, index=(i,), shape=(BN,), padding_mode=ZERO)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.scatter(Y, p, x, mask=valid)
    ct.scatter(M, p, x > 0, mask=valid)


@ct.kernel
def atomic_cas_f32_claims(Tab, Idx, V, Won, BN: C[int]):
    """f32 ``atomic_cas`` of a table of zeros: each lane tries to put its value where the table
    holds 0.0; exactly one lane per index wins (its old value 0.0), the others see the winner's
    value (ragged: the tail's lanes try past the table)."""
    i = ct.bid(0)
    pos = i * BN + ct.arange(BN, dtype=ct.int32)
    k = ct.where(pos < Idx.shape[0], ct.load(Idx, index=(i,), shape=(BN,), padding_mode=ZERO), Tab.shape[0])
    v = ct.load(V, index=(i,), shape=(BN,), padding_mode=ZERO)
    old = ct.atomic_cas(Tab, k, ct.zeros((BN,), dtype=ct.float32), v)
    ct.store(Won, index=(i,), tile=old)


# ----------------------------------------------------------------------------------------------- loops


@ct.kernel
def runtime_range_zero_and_negative_trips(X, Y, lo: int, hi: int, BN: C[int]):
    """``acc`` summed over the tiles ``lo .. hi - 1`` of ``X`` by ``for k in range(lo, hi)``: ``hi <=
    lo`` runs no iteration and stores the initial 0.5; the launch's ``lo`` / ``hi`` come at run time."""
    acc = ct.full((BN,), 0.5, dtype=ct.float32)
    for k in range(lo, hi):
        acc = acc + ct.load(X, index=(k,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(0,), tile=acc)


@ct.kernel
def range_negative_step_weights(X, Y, n: int, BN: C[int]):
    """Tiles ``n - 1, n - 3, ...`` down to 0 or 1, weighted 1, 2, 3, ... (cuTile's ``range`` takes no
    negative step: the user counts up, ``for t in range(ct.cdiv(n, 2))``, and indexes ``n - 1 - 2 t``);
    ``n <= 0`` runs none."""
    acc = ct.zeros((BN,), dtype=ct.float32)
    for t in range(ct.cdiv(n, 2)):
        acc = acc + ct.load(X, index=(n - 1 - 2 * t,), shape=(BN,), padding_mode=ZERO) * (t + 1.0)
    ct.store(Y, index=(0,), tile=acc)


@ct.kernel
def loop_carried_bool_int8_f16_int64(X, Any, Cnt8, Mx16, Sum64, K: C[int], BN: C[int]):
    """Over the ``K`` row tiles of an f32 ``(K * 4 - 1, BN)`` array (ragged rows), four tiles carried
    by the loop, one per element type: a bool ``any(x > 1)`` by ``|``, an int8 count of ``x > 0``
    (wrapping past 127), an f16 running maximum and an int64 sum of ``x * 2**33`` truncated; a
    runtime ``if`` on the flag flips the int8 count's sign at the end."""
    j = ct.bid(0)
    anyb = ct.full((1, BN), False, dtype=ct.bool_)
    cnt = ct.zeros((1, BN), dtype=ct.int8)
    mx = ct.full((1, BN), -float("inf"), dtype=ct.float16)
    tot = ct.zeros((1, BN), dtype=ct.int64)
    for k in range(K):
        x = ct.load(X, index=(k, j), shape=(4, BN), padding_mode=ZERO)
        rows = k * 4 + ct.arange(4, dtype=ct.int32)[:, None]
        x = ct.where(rows < X.shape[0], x, 0.0)
        anyb = anyb | ct.max((x > 1.0).astype(ct.int32), axis=0, keepdims=True).astype(ct.bool_)
        cnt = cnt + ct.sum((x > 0.0).astype(ct.int32), axis=0, keepdims=True).astype(ct.int8)
        mx = ct.maximum(mx, ct.max(x, axis=0, keepdims=True).astype(ct.float16))
        tot = tot + ct.sum((x * 8589934592.0).astype(ct.int64), axis=0, keepdims=True)
    if ct.sum(anyb.astype(ct.int32)) > 0:
        cnt = -cnt
    ct.store(Any, index=(0, j), tile=anyb)
    ct.store(Cnt8, index=(0, j), tile=cnt)
    ct.store(Mx16, index=(0, j), tile=mx)
    ct.store(Sum64, index=(0, j), tile=tot)


@ct.kernel
def static_iter_empty_and_single(X, Y, BN: C[int], NONE: C[int], ONE: C[int]):
    """``ct.static_iter(range(NONE))`` with ``NONE = 0`` (no copy of the body) and
    ``ct.static_iter(range(ONE))`` with ``ONE = 1``: ``Y = X * 3``."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    y = x * 3.0
    for t in ct.static_iter(range(NONE)):
        y = y + 100.0
    for t in ct.static_iter(range(ONE)):
        y = y + x * t
    ct.store(Y, index=(i,), tile=y)


# ----------------------------------------------------------------------------------------------- ordered views


@ct.kernel
def ordered_view_loads_and_stores(X, W, Y, Z, BN: C[int]):
    """View loads and stores with a memory order, as a user publishes a tile for another program:
    ``X`` read with ``ACQUIRE`` at device scope, ``W`` with ``RELAXED``; ``Y = X + W`` stored with
    ``RELEASE`` at device scope and ``Z = X * W`` with ``RELAXED`` (ragged length)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO, memory_order=ct.MemoryOrder.ACQUIRE,
                memory_scope=ct.MemoryScope.DEVICE)
    w = ct.load(W, index=(i,), shape=(BN,), padding_mode=ZERO, memory_order=ct.MemoryOrder.RELAXED,
                memory_scope=ct.MemoryScope.DEVICE)
    ct.store(Y, index=(i,), tile=x + w, memory_order=ct.MemoryOrder.RELEASE, memory_scope=ct.MemoryScope.DEVICE)
    ct.store(Z, index=(i,), tile=x * w, memory_order=ct.MemoryOrder.RELAXED, memory_scope=ct.MemoryScope.DEVICE)


@ct.kernel
def ordered_tiny_tiles_early_return(X, Y, BN: C[int]):
    """Two-element tiles (several programs to a warp) read with ``ACQUIRE`` and written with
    ``RELEASE``; programs whose first element is negative return before either store (a branch
    that differs between the programs sharing a warp)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO, memory_order=ct.MemoryOrder.ACQUIRE,
                memory_scope=ct.MemoryScope.DEVICE)
    if ct.sum(ct.where(ct.arange(BN, dtype=ct.int32) == 0, x, 0.0)) < 0.0:
        return
    ct.store(Y, index=(i,), tile=x * 3.0, memory_order=ct.MemoryOrder.RELEASE, memory_scope=ct.MemoryScope.DEVICE)


@ct.kernel
def ordered_views_of_narrow_and_wide_types(A8, H, L, Mb, Hy, Ly, BN: C[int]):
    """Ordered view accesses of 1-, 8-, 16- and 64-bit elements: an int8 tile read with ``ACQUIRE``,
    its sign stored as bool with ``RELEASE``, an f16 tile read ``RELAXED`` and stored doubled with
    ``RELEASE``, an int64 tile (values past 2**32) read with ``ACQUIRE`` and stored negated
    ``RELAXED`` (ragged length)."""
    i = ct.bid(0)
    a = ct.load(A8, index=(i,), shape=(BN,), padding_mode=ZERO, memory_order=ct.MemoryOrder.ACQUIRE,
                memory_scope=ct.MemoryScope.DEVICE)
    h = ct.load(H, index=(i,), shape=(BN,), padding_mode=ZERO, memory_order=ct.MemoryOrder.RELAXED,
                memory_scope=ct.MemoryScope.DEVICE)
    ln = ct.load(L, index=(i,), shape=(BN,), padding_mode=ZERO, memory_order=ct.MemoryOrder.ACQUIRE,
                 memory_scope=ct.MemoryScope.DEVICE)
    ct.store(Mb, index=(i,), tile=a < 0, memory_order=ct.MemoryOrder.RELEASE, memory_scope=ct.MemoryScope.DEVICE)
    ct.store(Hy, index=(i,), tile=h * 2.0, memory_order=ct.MemoryOrder.RELEASE, memory_scope=ct.MemoryScope.DEVICE)
    ct.store(Ly, index=(i,), tile=-ln, memory_order=ct.MemoryOrder.RELAXED, memory_scope=ct.MemoryScope.DEVICE)


@ct.kernel
def chained_sum_by_acquire_spin_release_flag(X, Y, Carry, Flag, BN: C[int]):
    """A chained running sum written with ordered view accesses only: program ``i`` spins on an
    ``ACQUIRE`` load of ``Flag[i]``, reads the carry its predecessor left, stores its tile's
    inclusive ``cumsum`` plus the carry, writes ``Carry[i + 1]``, then sets ``Flag[i + 1]`` by a
    ``RELEASE`` store (ragged length)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    while ct.load(Flag, index=(i,), shape=(1,), memory_order=ct.MemoryOrder.ACQUIRE,
                  memory_scope=ct.MemoryScope.DEVICE).item() == 0:
        pass
    carry = ct.load(Carry, index=(i,), shape=(1,))
    ct.store(Y, index=(i,), tile=ct.cumsum(x, axis=0) + carry)
    ct.store(Carry, index=(i + 1,), tile=ct.reshape(ct.sum(x), (1,)) + carry)
    ct.store(Flag, index=(i + 1,), tile=ct.ones((1,), dtype=ct.int32), memory_order=ct.MemoryOrder.RELEASE,
             memory_scope=ct.MemoryScope.DEVICE)


# ----------------------------------------------------------------------------------------------- the table


_add("permute_4d_int16_and_reshape", permute_4d_int16_and_reshape,
     [((3, 5, 6, 2), I16), ((2, 5, 3, 6), I16), ((32, 16), I16)], (1,), "simt", outputs=(1, 2))
_add("reshape_1d_to_4d_sum_each_axis", reshape_1d_to_4d_sum_each_axis,
     [((64,), F32), ((4, 2, 4), F32), ((2, 2, 4), F32), ((2, 4, 4), F32), ((2, 4, 2), F32)], (1,), "simt",
     outputs=(1, 2, 3, 4))
_add("cat_rank2_axis0_and_axis1_int32", cat_rank2_axis0_and_axis1_int32,
     [((13, 16), I32), ((13, 16), I32), ((32, 16), I32), ((13, 32), I32), 4, 16], (4,), "simt", outputs=(2, 3))
_add("cat_rank3_axis0_axis1_f16", cat_rank3_axis0_axis1_f16,
     [((2, 4, 8), F16), ((2, 4, 8), F16), ((4, 4, 8), F16), ((2, 8, 8), F16)], (1,), "simt", outputs=(2, 3))
_add("cat_chain_four_int8_pieces", cat_chain_four_int8_pieces,
     [((100,), I8), ((100,), I8), ((512,), I8), 32], (4,), "simt", outputs=(2,))
_add("broadcast_to_4d_row_and_column", broadcast_to_4d_row_and_column,
     [((7,), F32), ((3,), F32), ((2, 3, 4, 7), F32)], (1,), "simt", outputs=(2,))
_add("extract_quadrants_swapped", extract_quadrants_swapped, [((7, 7), F32), ((7, 7), F32)], (1,), "simt",
     outputs=(1,))
_add("one_element_tiles_int64_grid_3d", one_element_tiles_int64_grid_3d,
     [((3, 4, 5), I64), ((5, 4, 3), I64)], (3, 4, 5), "simt", outputs=(1,))
_add("tile_max_per_block_grid_3d", tile_max_per_block_grid_3d,
     [((3, 37, 50), F32), ((3, 5, 4), F32), 8, 16], (3, 5, 4), "simt", outputs=(1,))
_add("grid_larger_than_data", grid_larger_than_data, [((300,), F32), ((300,), F32), ((1,), I32), 64], (8,), "simt",
     outputs=(1, 2))
_add("wide_row_1x65536_int32_sum_argmax", wide_row_1x65536_int32_sum_argmax,
     [((2, 65536), I32), ((2,), I32), ((2,), I32), 65536], (2,), "simt", outputs=(1, 2))
_add("space_to_depth_2x2_rank4", space_to_depth_2x2_rank4, [((7, 6), F32), ((4, 16), F32)], (1,), "simt",
     outputs=(1,))
_add("cumprod_axis0_f32_zeros_nan", cumprod_axis0_f32_zeros_nan, [((16, 37), F32), ((16, 37), F32), 16, 16], (3,),
     "simt", outputs=(1,))
_add("uint8_saturating_add_clamp", uint8_saturating_add_clamp,
     [((300,), U8), ((300,), U8), ((300,), U8), ((300,), U8), 128], (3,), "simt", outputs=(2, 3))
_add("atomic_add_int64_tickets", atomic_add_int64_tickets, [((1,), I64), ((300,), I64), 128], (3,), "simt",
     outputs=(0, 1))
_add("transposes_of_every_width", transposes_of_every_width,
     [((7, 13), B), ((7, 13), I8), ((7, 13), "float8_e4m3fn"), ((7, 13), F16), ((7, 13), "float64"), ((7, 13), I64),
      ((13, 7), B), ((13, 7), I8), ((13, 7), "float8_e4m3fn"), ((13, 7), F16), ((13, 7), "float64"), ((13, 7), I64)],
     (1,), "simt", outputs=(6, 7, 8, 9, 10, 11))
_add("bool_tiles_cat_permute_reshape", bool_tiles_cat_permute_reshape, [((4, 8), B), ((8, 8), B), ((2, 32), B)], (1,),
     "simt", outputs=(1, 2))
_add("int16_gather_by_int64_flat_index", int16_gather_by_int64_flat_index,
     [((9 * 37,), I16), ((5,), I32), ((5, 37), I16), 64], (5,), "simt", outputs=(2,))
_add("bool_arrays_and_xor_not", bool_arrays_and_xor_not,
     [((300,), B), ((300,), B), ((300,), B), ((300,), B), ((300,), B), ((1,), I32), 128], (3,), "simt",
     outputs=(2, 3, 4, 5))
_add("compare_stored_as_four_dtypes", compare_stored_as_four_dtypes,
     [((300,), F32), ((300,), B), ((300,), U8), ((300,), I32), ((300,), F16), 128], (3,), "simt",
     outputs=(1, 2, 3, 4))
_add("casts_to_bool", casts_to_bool, [((300,), F32), ((300,), I32), ((300,), B), ((300,), B), 128], (3,), "simt",
     outputs=(2, 3))
_add("tf32_rounding_and_f64_bits", tf32_rounding_and_f64_bits,
     [((300,), F32), ((300,), "float64"), ((300,), F32), ((300,), "float64"), ((300,), I16), 128], (3,), "simt",
     outputs=(2, 3, 4))
_add("int8_abs_negate_multiply_wrap", int8_abs_negate_multiply_wrap,
     [((300,), I8), ((300,), I8), ((300,), I8), ((300,), I8), ((300,), I8), 128], (3,), "simt", outputs=(2, 3, 4))
_add("float_to_int_nan_inf_out_of_range", float_to_int_nan_inf_out_of_range,
     [((300,), F32), ((300,), "float64"), ((300,), I32), ((300,), I64), ((300,), I8), ((300,), U8), ((300,), I32),
      128], (3,), "simt", outputs=(2, 3, 4, 5, 6))
_add("e4m3_from_f16_and_bf16_saturating", e4m3_from_f16_and_bf16_saturating,
     [((300,), F16), ((300,), BF16), ((300,), "float8_e4m3fn"), ((300,), "float8_e4m3fn"), ((300,), F32),
      ((300,), F32), 128], (3,), "simt", outputs=(2, 3, 4, 5))
_add("int8_int64_floordiv_mod_negatives", int8_int64_floordiv_mod_negatives,
     [((300,), I8), ((300,), I8), ((300,), I8), ((300,), I8), ((300,), I64), ((300,), I64), ((300,), I64),
      ((300,), I64), 128], (3,), "simt", outputs=(2, 3, 6, 7))
_add("uint32_divmod_past_2_31", uint32_divmod_past_2_31,
     [((300,), U32), ((300,), U32), ((300,), U32), ((300,), U32), 128], (3,), "simt", outputs=(2, 3))
_add("scans_axis0_int_types", scans_axis0_int_types,
     [((16, 37), I32), ((16, 37), I32), ((16, 37), I64), ((16, 37), I16), ((16, 37), I16), 16, 16], (3,), "simt",
     outputs=(1, 2, 4))
_add("bool_running_count_axis0", bool_running_count_axis0, [((32, 50), B), ((32, 50), I32), 32, 16], (4,), "simt",
     outputs=(1,))
_add("column_argmax_argmin_ties", column_argmax_argmin_ties,
     [((21, 50), F16), ((21, 50), I16), ((50,), I32), ((50,), I32), 32, 16], (4,), "simt", outputs=(2, 3))
_add("argmax_argmin_middle_and_first_axis_3d", argmax_argmin_middle_and_first_axis_3d,
     [((3, 7, 13), I64), ((3, 7, 13), F16), ((3, 13), I32), ((7, 13), I32)], (1,), "simt", outputs=(2, 3))
_add("top3_down_columns_int16", top3_down_columns_int16, [((21, 50), I16), ((3, 50), I16), 32, 16], (4,), "simt",
     outputs=(1,))
_add("argmax_argmin_index_past_16_bits_f16", argmax_argmin_index_past_16_bits_f16,
     [((2, 65536), F16), ((2,), I32), ((2,), I32), 65536], (2,), "simt", outputs=(1, 2))
_add("argmin_argmax_uint8_index_past_255", argmin_argmax_uint8_index_past_255,
     [((4, 300), U8), ((4,), I32), ((4,), I32), 512], (4,), "simt", outputs=(1, 2))
_add("where_chain_piecewise", where_chain_piecewise, [((300,), F32), ((300,), F32), ((300,), I64), 128], (3,),
     "simt", outputs=(1, 2))
_add("where_int64_and_f16_branches", where_int64_and_f16_branches,
     [((300,), I64), ((300,), F16), ((300,), I64), ((300,), F16), 128], (3,), "simt", outputs=(2, 3))
_add("atomic_or_bitmap_uint32", atomic_or_bitmap_uint32, [((300,), I32), ((10,), U32), 128], (3,), "simt",
     outputs=(1,))
_add("atomic_and_xor_int64_words", atomic_and_xor_int64_words,
     [((300,), I64), ((300,), I32), ((7,), I64), ((7,), I64), 128], (3,), "simt", outputs=(2, 3))
_add("histogram_sum_by_cas_add_loop", histogram_sum_by_cas_add_loop,
     [((300,), I32), ((300,), I32), ((5,), I32), 128, 320], (3,), "simt", outputs=(2,))
_add("atomic_xchg_f32_returns_old", atomic_xchg_f32_returns_old,
     [((40,), F32), ((300,), I32), ((300,), F32), ((300,), F32), 128], (3,), "simt", outputs=(0, 3))
_add("scatter_duplicates_beside_atomic_add", scatter_duplicates_beside_atomic_add,
     [((300,), I32), ((300,), F32), ((20,), F32), ((20,), F32), 128], (3,), "simt", outputs=(2, 3))
_add("histogram_of_int8_values", histogram_of_int8_values, [((300,), I8), ((256,), I32), 128], (3,), "simt",
     outputs=(1,))
_add("gather_masked_nan_padding_f16", gather_masked_nan_padding_f16,
     [((50,), F16), ((300,), I32), ((300,), B), ((300,), F16), 128], (3,), "simt", outputs=(3,))
_add("gather_and_atomic_by_small_unsigned_indices", gather_and_atomic_by_small_unsigned_indices,
     [((300,), F32), ((300,), U8), ((300,), I16), ((300,), U32), ((300,), F32), ((300,), F32), ((300,), F32),
      ((300,), I32), 128], (3,), "simt", outputs=(4, 5, 6, 7))
_add("gather_2d_index_pair_padding_minus_one", gather_2d_index_pair_padding_minus_one,
     [((9, 11), I32), ((16,), I32), ((16,), I32), ((16, 16), I32), 16, 16], (1,), "simt", outputs=(3,))
_add("reverse_rows_by_gather", reverse_rows_by_gather, [((5, 37), F32), ((5, 37), F32), 64], (5,), "simt",
     outputs=(1,))
_add("inverse_permutation_scatter_int64", inverse_permutation_scatter_int64,
     [((300,), I64), ((300,), F32), ((300,), F32), ((300,), I64), 128], (3,), "simt", outputs=(2, 3))
_add("scatter_adjacent_bytes_int8_bool", scatter_adjacent_bytes_int8_bool,
     [((300,), I32), ((300,), I8), ((300,), I8), ((300,), B), 128], (3,), "simt", outputs=(2, 3))
_add("atomic_cas_f32_claims", atomic_cas_f32_claims, [((30,), F32), ((300,), I32), ((300,), F32), ((300,), F32), 128],
     (3,), "simt", outputs=(0, 3))
_add("runtime_range_zero_and_negative_trips", runtime_range_zero_and_negative_trips,
     [((300,), F32), ((128,), F32), 0, 3, 128], (1,), "simt", outputs=(1,))
_add("range_negative_step_weights", range_negative_step_weights, [((300,), F32), ((64,), F32), 5, 64], (1,),
     "simt", outputs=(1,))
_add("loop_carried_bool_int8_f16_int64", loop_carried_bool_int8_f16_int64,
     [((159, 20), F32), ((1, 20), B), ((1, 20), I8), ((1, 20), F16), ((1, 20), I64), 40, 32], (1,), "simt",
     outputs=(1, 2, 3, 4))
_add("static_iter_empty_and_single", static_iter_empty_and_single, [((300,), F32), ((300,), F32), 128, 0, 1], (3,),
     "simt", outputs=(1,))
_add("ordered_view_loads_and_stores", ordered_view_loads_and_stores,
     [((300,), F32), ((300,), F32), ((300,), F32), ((300,), F32), 128], (3,), "simt", outputs=(2, 3))


# ----------------------------------------------------------------------------------------------- what users get wrong
# Programs cuTile's front end accepts but that cannot run as written: each must stop at the user's
# line (``file:line:col: error:``), saying why, never with a traceback or an internal error.


@ct.kernel
def cumsum_down_512x512_f32(X, Y, BN: C[int]):
    """A ``cumsum`` along axis 0 of a ``512 x 512`` f32 tile: its exchange through shared memory
    needs about 1 MiB (the error names the ``cumsum`` line)."""
    x = ct.load(X, index=(0, 0), shape=(BN, BN))
    ct.store(Y, index=(0, 0), tile=ct.cumsum(x, axis=0))


@ct.kernel
def permute_3d_tile_of_128k_elements(X, Y, BN: C[int]):
    """A ``(64, 64, 32)`` f32 tile (131072 elements, 1024 registers per thread) loaded to permute."""
    x = ct.load(X, index=(0, 0, 0), shape=(BN, BN, 32))
    ct.store(Y, index=(0, 0, 0), tile=ct.permute(x, (2, 1, 0)))


@ct.kernel
def full_of_a_million_elements(X, Y, BN: C[int]):
    """``ct.full`` of ``2**20`` elements (no load: the error names the ``full`` line)."""
    ct.store(Y, index=(0,), tile=ct.full((BN,), 1.0, dtype=ct.float32) + ct.load(X, index=(0,), shape=(1,)))


@ct.kernel
def cat_of_two_512x512_tiles(X, Y, BN: C[int]):
    """``ct.cat`` of two ``512 x 512`` f32 tiles along axis 1 (2 MiB through shared memory)."""
    x = ct.load(X, index=(0, 0), shape=(BN, BN))
    ct.store(Y, index=(0, 0), tile=ct.cat((x, x), 1))


@ct.kernel
def atomic_xchg_system_scope(X, Y, BN: C[int]):
    """``atomic_xchg`` at system scope, which the SIMT lowering cannot emit with that scope."""
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.atomic_xchg(Y, ct.arange(BN, dtype=ct.int32), x, memory_scope=ct.MemoryScope.SYS)


@ct.kernel
def f64_to_f32_toward_zero(X, Y, BN: C[int]):
    """``astype(float32, rounding_mode=RZ)`` of an f64 tile (only f32 -> f16 / bf16 toward zero
    is supported)."""
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.astype(x, ct.float32, rounding_mode=ct.RoundingMode.RZ))


@ct.kernel
def cumsum_rounding_toward_zero(X, Y, BN: C[int]):
    """``ct.cumsum(x, rounding_mode=RZ)``: additions rounded toward zero, which no lowering has."""
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.cumsum(x, rounding_mode=ct.RoundingMode.RZ))


@ct.kernel
def e8m0_scales_widened(S, Y, BN: C[int]):
    """An e8m0 (MX scale) tile widened to f32 in a program without a dot."""
    ct.store(Y, index=(0,), tile=ct.load(S, index=(0,), shape=(BN,)).astype(ct.float32) * 2.0)


@ct.kernel
def permute_of_a_rank1_tile(X, Y, BN: C[int]):
    """``ct.permute(x, (0,))`` of a rank-1 tile (the identity), which cuTile 1.7 writes as a
    ``cuda_tile.permute`` that CUDA Tile IR rejects (rank 2 at least); the error says to leave it out."""
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.permute(x, (0,)) * 2.0)


INVALID: dict[str, UserProgram] = {}
"""The programs above as :class:`UserProgram` with path "error": ``error`` is part of the message and
``notes`` the source text of the line the error must name."""
_bad = registrar(INVALID)
_bad("cumsum_down_512x512_f32", cumsum_down_512x512_f32, [((512, 512), F32), ((512, 512), F32), 512], (1,), "error",
     error="bytes of shared scratch", notes="tile=ct.cumsum(x, axis=0)")
_bad("permute_3d_tile_of_128k_elements", permute_3d_tile_of_128k_elements,
     [((64, 64, 32), F32), ((32, 64, 64), F32), 64], (1,), "error", error="is too large",
     notes="x = ct.load(X, index=(0, 0, 0), shape=(BN, BN, 32))")
_bad("full_of_a_million_elements", full_of_a_million_elements, [((1,), F32), ((1 << 20,), F32), 1 << 20], (1,),
     "error", error="is too large", notes="ct.full((BN,), 1.0")
_bad("cat_of_two_512x512_tiles", cat_of_two_512x512_tiles, [((512, 512), F32), ((512, 1024), F32), 512], (1,),
     "error", error="bytes of shared scratch", notes="tile=ct.cat((x, x), 1)")
_bad("atomic_xchg_system_scope", atomic_xchg_system_scope, [((128,), I32), ((128,), I32), 128], (1,), "error",
     error="system-scope atomic_rmw", notes="memory_scope=ct.MemoryScope.SYS")
_bad("f64_to_f32_toward_zero", f64_to_f32_toward_zero, [((128,), "float64"), ((128,), F32), 128], (1,), "error",
     error="with rounding<zero> from f64 to f32 is not supported yet", notes="rounding_mode=ct.RoundingMode.RZ")
_bad("cumsum_rounding_toward_zero", cumsum_rounding_toward_zero, [((128,), F32), ((128,), F32), 128], (1,), "error",
     error="with rounding<zero> is not supported yet", notes="rounding_mode=ct.RoundingMode.RZ")
_bad("permute_of_a_rank1_tile", permute_of_a_rank1_tile, [((128,), F32), ((128,), F32), 128], (1,), "error",
     error="that permute is the identity, leave it out", notes="ct.permute(x, (0,))")
_bad("e8m0_scales_widened", e8m0_scales_widened, [((128,), "float8_e8m0fnu"), ((128,), F32), 128], (1,), "error",
     error="element type f8E8M0FNU is not supported yet", notes="ct.load(S, index=(0,), shape=(BN,))")


# ----------------------------------------------------------------------------------------------- cuTile says no
# Mistakes cuTile's own front end rejects (with its ``"file", line N, col A-B`` location): they never
# reach tileorch.  Kept, with the words cuTile uses, so that a cuTile that starts accepting one shows.


@ct.kernel
def tile_of_100_elements(X, Y, BN: C[int]):
    """A 100-element tile (cuTile's tiles are powers of two)."""
    ct.store(Y, index=(0,), tile=ct.load(X, index=(0,), shape=(BN,)))


@ct.kernel
def arange_of_96(X, Y, BN: C[int]):
    """``ct.arange(96)``."""
    ct.store(Y, index=(0,), tile=ct.arange(BN, dtype=ct.int32))


@ct.kernel
def extract_past_the_tile(X, Y, BN: C[int]):
    """``ct.extract`` of the third half of a tile (index 2 of 2)."""
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.extract(x, index=(2,), shape=(BN // 2,)))


@ct.kernel
def cat_of_mismatched_rows(X, Y, BN: C[int]):
    """``ct.cat`` along axis 0 of ``(16, 16)`` and ``(16, 32)`` tiles."""
    x = ct.load(X, index=(0, 0), shape=(BN, BN))
    z = ct.load(X, index=(0, 0), shape=(BN, 2 * BN))
    ct.store(Y, index=(0, 0), tile=ct.cat((x, z), 0))


@ct.kernel
def reshape_to_twice_the_elements(X, Y, BN: C[int]):
    """``reshape`` of ``(BN,)`` to ``(BN, 2)``."""
    ct.store(Y, index=(0, 0), tile=ct.reshape(ct.load(X, index=(0,), shape=(BN,)), (BN, 2)))


@ct.kernel
def permute_with_a_repeated_axis(X, Y, BN: C[int]):
    """``permute(x, (0, 0))``."""
    ct.store(Y, index=(0, 0), tile=ct.permute(ct.load(X, index=(0, 0), shape=(BN, BN)), (0, 0)))


@ct.kernel
def gather_by_float_indices(X, Y, BN: C[int]):
    """A gather whose indices are the f32 values just loaded."""
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.gather(X, x))


@ct.kernel
def bitwise_and_of_floats(X, Y, BN: C[int]):
    """``x & x`` of an f32 tile."""
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=x & x)


@ct.kernel
def three_indices_into_a_2d_array(X, Y, BN: C[int]):
    """A load of a 2-D array with three indices."""
    x = ct.load(X, index=(0, 0, 0), shape=(BN, BN, BN))
    ct.store(Y, index=(0, 0), tile=ct.sum(x, axis=0))


@ct.kernel
def sum_over_axis_2_of_a_2d_tile(X, Y, BN: C[int]):
    """``ct.sum(x, axis=2)`` of a 2-D tile."""
    ct.store(Y, index=(0,), tile=ct.sum(ct.load(X, index=(0, 0), shape=(BN, BN)), axis=2))


@ct.kernel
def range_with_a_negative_step(X, Y, n: int, BN: C[int]):
    """``for k in range(n - 1, -1, -1)``."""
    acc = ct.zeros((BN,), dtype=ct.float32)
    for k in range(n - 1, -1, -1):
        acc = acc + ct.load(X, index=(k,), shape=(BN,))
    ct.store(Y, index=(0,), tile=acc)


@ct.kernel
def static_iter_over_a_runtime_count(X, Y, n: int, BN: C[int]):
    """``ct.static_iter(range(n))`` with a runtime ``n``."""
    acc = ct.zeros((BN,), dtype=ct.float32)
    for k in ct.static_iter(range(n)):
        acc = acc + 1.0
    ct.store(Y, index=(0,), tile=acc)


@ct.kernel
def atomic_max_of_f32(X, T, BN: C[int]):
    """``atomic_max`` into an f32 table (cuTile's integer-only ``max`` / ``min`` atomics)."""
    ct.atomic_max(T, ct.arange(BN, dtype=ct.int32) % 4, ct.load(X, index=(0,), shape=(BN,)))


@ct.kernel
def atomic_add_of_int8(X, T, BN: C[int]):
    """``atomic_add`` into an int8 table."""
    ct.atomic_add(T, ct.arange(BN, dtype=ct.int32), ct.load(X, index=(0,), shape=(BN,)))


@ct.kernel
def store_at_a_float_index(X, Y, BN: C[int]):
    """``ct.store(Y, index=(1.5,), ...)``."""
    ct.store(Y, index=(1.5,), tile=ct.load(X, index=(0,), shape=(BN,)))


@ct.kernel
def integer_pow_wraps(A, E, Y, BN: C[int]):
    """int32 ``ct.pow(a, e)`` (cuTile 1.7 has no integer ``pow``: an internal error of its own)."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BN,), padding_mode=ZERO)
    e = ct.load(E, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=ct.pow(a, e))


REJECTED_BY_CUTILE: dict[str, tuple] = {
    # name: (kernel, spec, words of cuTile's message, the source text of the line it names)
    "tile_of_100_elements": (tile_of_100_elements, [((128,), F32), ((128,), F32), 100], "is not a power of two",
                             "ct.load(X, index=(0,), shape=(BN,))"),
    # (a float given to ct.Constant[int], cuTile's "Expected a tuple of integers" at the load: since session 32
    # describe_arguments refuses it first, naming the parameter; tests/unit/test_user_sweep24_invalid.py)
    "arange_of_96": (arange_of_96, [((128,), F32), ((128,), I32), 96], "must be power of 2", "ct.arange(BN"),
    "extract_past_the_tile": (extract_past_the_tile, [((128,), F32), ((128,), F32), 128], "out of bounds",
                              "ct.extract(x, index=(2,)"),
    "cat_of_mismatched_rows": (cat_of_mismatched_rows, [((64, 64), F32), ((64, 64), F32), 16],
                               "to have the same shape", "ct.cat((x, z), 0)"),
    "reshape_to_twice_the_elements": (reshape_to_twice_the_elements, [((128,), F32), ((128, 2), F32), 128],
                                      "Cannot reshape", "ct.reshape("),
    "permute_with_a_repeated_axis": (permute_with_a_repeated_axis, [((64, 64), F32), ((64, 64), F32), 16],
                                     "Repeated axis", "ct.permute("),
    "gather_by_float_indices": (gather_by_float_indices, [((128,), F32), ((128,), F32), 128],
                                "Expected a tuple of integer", "ct.gather(X, x)"),
    "bitwise_and_of_floats": (bitwise_and_of_floats, [((128,), F32), ((128,), F32), 128],
                              "Bitwise operations require integers", "tile=x & x"),
    "three_indices_into_a_2d_array": (three_indices_into_a_2d_array, [((64, 64), F32), ((64, 64), F32), 16],
                                      "does not match the array rank", "index=(0, 0, 0)"),
    "sum_over_axis_2_of_a_2d_tile": (sum_over_axis_2_of_a_2d_tile, [((64, 64), F32), ((64,), F32), 16],
                                     "out of range for rank 2", "axis=2"),
    "range_with_a_negative_step": (range_with_a_negative_step, [((128,), F32), ((128,), F32), 2, 64],
                                   "Step must be positive", "range(n - 1, -1, -1)"),
    "static_iter_over_a_runtime_count": (static_iter_over_a_runtime_count, [((128,), F32), ((128,), F32), 3, 128],
                                         "no concrete value", "ct.static_iter(range(n))"),
    "atomic_max_of_f32": (atomic_max_of_f32, [((128,), F32), ((4,), F32), 128], "Unsupported array dtype",
                          "ct.atomic_max("),
    "atomic_add_of_int8": (atomic_add_of_int8, [((128,), I8), ((128,), I8), 128], "Unsupported array dtype",
                           "ct.atomic_add("),
    "integer_pow_wraps": (integer_pow_wraps, [((300,), I32), ((300,), I32), ((300,), I32), 128],
                          "Missing binary arithmetic implementation for pow", "ct.pow(a, e)"),
    "store_at_a_float_index": (store_at_a_float_index, [((128,), F32), ((128,), F32), 128],
                               "Expected a tuple of signed integers", "index=(1.5,)"),
}
"""Mistakes cuTile 1.7's front end rejects before tileorch sees a program (the mistakes of the brief
that are not in :data:`INVALID`): cuTile's message holds the words given and names the user's line."""
_add("ordered_views_of_narrow_and_wide_types", ordered_views_of_narrow_and_wide_types,
     [((300,), I8), ((300,), F16), ((300,), I64), ((300,), B), ((300,), F16), ((300,), I64), 128], (3,), "simt",
     outputs=(3, 4, 5))
_add("chained_sum_by_acquire_spin_release_flag", chained_sum_by_acquire_spin_release_flag,
     [((300,), F32), ((300,), F32), ((4,), F32), ((4,), I32), 128], (3,), "simt", outputs=(1, 2, 3))
_add("ordered_tiny_tiles_early_return", ordered_tiny_tiles_early_return, [((75,), F32), ((75,), F32), 2], (38,),
     "simt", outputs=(1,))
