"""The eighth user sweep (session 16): the corners of the ``cuda.tile`` 1.7 API that the first seven
sweeps (:mod:`tileorch.testing.user_programs` .. ``user_programs7``) use thinly or not at all, and
dots written in unusual but legal ways.

Integers and rounding: ``ct.floor`` / ``ct.ceil`` / truncation by ``astype``, ``ct.floordiv`` /
``ct.mod`` of int32 tiles with both signs and ``x // -3``, int64 ``divmod`` by a negative runtime
scalar, uint16 wrapping arithmetic and shifts, a uint64 splitmix hash, ``ct.less`` / ``less_equal``
/ ``equal`` / ``not_equal`` stored as bool, bool ``& | ^ ~`` counted, ``astype`` with
``rounding_mode`` (RN; RZ, which cuTile allows for f32 -> f16), f16 ``|x|`` by ``ct.bitcast`` to
int16 and uint16, ``ct.negative`` / ``ct.sub`` (``flush_to_zero``; RZ) / ``ct.bitwise_or``,
``ct.tan`` / ``sinh`` / ``cosh``.  Constructors and parameters: ``ct.full`` of int8 / f16 / bool,
``ct.ones``, ``ct.arange(start=, step=)``, ``ct.Constant[float]`` / ``ct.Constant[bool]``, a
3-axis grid with ``ct.num_blocks`` of each axis, a tile index from ``.item()`` of a loaded
one-element tile, ``check_bounds=False`` with ``latency`` / ``allow_tma=False`` hints.  Padding
modes NAN (counted out by ``ct.isnan``), POS_INF / NEG_INF (bf16 min / max), NEG_ZERO (told from +0
by ``1 / x``); ``propagate_nan`` on ``ct.max`` / ``ct.minimum``.  Gathers and scatters: ``mask`` +
``padding_value``, 2-D scatter under a mask with ``check_bounds=False``, 3-D index tiles, a scalar
scattered.  Shapes: ``ct.cat`` along each axis of rank 3, ``ct.permute`` / ``Tile.permute`` of rank
3 and 4, reductions along each axis of a 3-D tile (sum over axis 0, max over axis 1, argmin over
axis 2, all axes, ``keepdims`` over two axes), ``ct.cumsum`` along each axis (one reversed) and
``ct.cumprod`` along axis 0 of a 3-D tile, an int scan down columns, width-1 tiles,
``expand_dims`` / ``broadcast_to``, an odd ``[37, 53]`` array on a 2-D grid,
``TiledView.atomic_store_add``, ``load_advanced_indexing`` with an unaligned ``ct.Slice``.

Dots: ``acc += a @ b``, the K loop as ``while``, ``ct.matmul`` of one K tile without an
accumulator, C stored through ``order=(1, 0)``, a projection split into heads (a 3-D
``(tm, H, D)`` store with a per-head bias) and into a 4-D ``[B, S, H, D]`` output,
``Constant[float]`` / ``Constant[bool]`` epilogues, a batched GEMM on a 3-axis grid, int8 x int8 ->
int32 requantised to int8, fp8 e5m2 x e5m2, e4m3 with ``use_fast_acc=True``, two dots on the
``ct.extract`` halves of one A tile, a batched ``ct.matmul`` of a ``(2, tm, tk)`` A tile with a
``(1, tk, tn)`` B tile (the batch broadcast in the dot), ``latency`` / ``allow_tma`` hints, B with
``allow_tma=False``, a grid-stride loop over ``ct.num_blocks``, a bias from ``.item()`` in the
epilogue, row-max / column-sum partials beside C, a bf16 ``where(mask, acc, -inf)`` epilogue, the K
tiles visited downward; a two-GEMM MLP written ``h = relu(x @ w1); y += h @ w2`` and attention
with ``acc *= alpha; acc += p @ v``.  (cuTile itself refuses, at export: ``ct.cat`` of more than
two tiles, ``range`` with a negative step, non-power-of-two load shapes, ``rounding_mode`` other
than RN / RZ for f32 -> f16 and any for float -> int, and ``ct.mma`` of e5m2 with e4m3.)

Found by this sweep (the entries' ``notes``; each fix has a test that failed before it):
``h = relu(x @ w1)`` of f16 tiles (an f16 dot) followed by ``y += h @ w2`` was refused by the
chained kernel ("the accumulator must be f32"): tileas-fold-dot-accumulate now runs that dot in f32
rounded once to f16 and the chained tier takes it; ``ct.load(Bias, (0,), (1,)).item()`` in a GEMM
epilogue was refused ("the epilogue scalar op nv_tileaa.extract"): the epilogue reads the element;
``padding_mode=NEG_ZERO`` stopped at the load ("not supported yet"): padded lanes now read -0.0;
``flush_to_zero`` on add / sub / mul / fma / max / min / an IEEE division was dropped silently: a
located warning now says it is not applied; ``astype(f32 -> f16 / bf16, rounding_mode=RZ)`` (which
cuTile 1.7 allows) stopped at tileorch's ``ftof`` verifier ("Only 'nearest_even' is supported"):
the verifier takes ``zero`` and the SIMT path converts by ``cvt.rz`` (a dot program with one takes
the SIMT path with a located warning: the tiers' epilogues round to nearest); refusals said in the tier's bookkeeping are now in the
program's terms at its line: the K loop as ``while`` ("this dot is not in a loop", now "this dot is
in a while loop"), a B loaded with ``allow_tma=False`` ("expected a producer agent with 2 TMA tile
loads", now named at that load), an int8 C ("element type i8" at the A load, now "output element
type i8" at the store), a dot operand padded with NEG_ZERO / NAN / an infinity ("TMA tile loads",
or for two such operands an unlocated "the TileAS tier left a kernel unlowered": now named at the
load), a head-split / BSHD store ("a 3-D tile at (program id 0, an expression,
program id 1)" for the indices ``(bm, 0, 0)``, now what the tile is).  Still refused by the tiers
(the SIMT path runs them, dots on mma.sync): a ``while`` K loop, ``allow_tma=False`` on an operand,
an int8 C, 3-D / 4-D C tiles with more than two wide dimensions or a unit dimension between rows and
columns, two dots accumulating the halves of one A tile, a C rounded toward zero, an operand padded
with other than zeros.  Located errors
(not supported yet): ``astype(f64 -> f32, rounding_mode=RZ)``; ``ct.sub(..., rounding_mode=RZ)`` of f32 was one too,
lowered since session 32 (``sub.rz.f32``).

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep8_*.py (CPU compile, the SIMT interpreter, the PTX emulator) and
tests/gpu/test_user_sweep8_gpu.py (the H200 against torch).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import ZERO, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)

NEG_INF = ct.PaddingMode.NEG_INF
POS_INF = ct.PaddingMode.POS_INF
NAN = ct.PaddingMode.NAN
NEG_ZERO = ct.PaddingMode.NEG_ZERO


# ----------------------------------------------------------------------------------------------- rounding and integers


@ct.kernel
def floor_ceil_trunc_rows(X, Fl, Ce, Tr, BN: ct.Constant[int]):
    """``ct.floor`` / ``ct.ceil`` of f32 values and the truncation toward zero by
    ``astype(ct.int32)`` of the same values (negatives included), three outputs, a ragged row."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(Fl, index=(r, 0), tile=ct.floor(x))
    ct.store(Ce, index=(r, 0), tile=ct.ceil(x))
    ct.store(Tr, index=(r, 0), tile=x.astype(ct.int32))


@ct.kernel
def int_floordiv_mod_tiles(X, Y, Q, R, Q2, BN: ct.Constant[int]):
    """Python integer semantics on tiles: ``ct.floordiv`` / ``ct.mod`` of int32 tiles by int32 tiles
    (both signs on both sides: the quotient rounds toward minus infinity, the remainder takes the
    divisor's sign), and ``x // -3`` by a negative scalar."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    y = ct.load(Y, index=(i,), shape=(BN,))
    ct.store(Q, index=(i,), tile=ct.floordiv(x, y))
    ct.store(R, index=(i,), tile=ct.mod(x, y))
    ct.store(Q2, index=(i,), tile=x // -3)


@ct.kernel
def int64_divmod_scalar_tile(X, Q, R, d: int, BN: ct.Constant[int]):
    """``divmod`` of an int64 tile by a runtime int scalar (negative in the test), Python semantics."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    q, rem = divmod(x, d)
    ct.store(Q, index=(i,), tile=q)
    ct.store(R, index=(i,), tile=rem)


@ct.kernel
def uint16_wrapping_ops(X, Y, S, M, Sh, BN: ct.Constant[int]):
    """uint16 arithmetic that wraps (sum and product modulo 2^16) and a logical right shift, uint16
    in and out."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    y = ct.load(Y, index=(i,), shape=(BN,))
    ct.store(S, index=(i,), tile=x + y)
    ct.store(M, index=(i,), tile=x * y)
    ct.store(Sh, index=(i,), tile=x >> 3)


@ct.kernel
def uint64_xorshift_hash(Out, seed: int, BN: ct.Constant[int]):
    """A splitmix-style 64-bit hash of each element's index in uint64 (wrapping multiply, xor,
    logical shifts), the top 24 bits turned into a float in [0, 1)."""
    i = ct.bid(0)
    z = (ct.arange(BN, dtype=ct.int64) + i * BN + seed).astype(ct.uint64)
    z = z * 0x9E3779B97F4A7C15
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB
    z = z ^ (z >> 31)
    ct.store(Out, index=(i,), tile=(z >> 40).astype(ct.float32) * (1.0 / 16777216.0))


@ct.kernel
def compare_funcs_to_bool(X, Y, Lt, Le, Eq, Ne, BN: ct.Constant[int]):
    """``ct.less`` / ``ct.less_equal`` / ``ct.equal`` / ``ct.not_equal`` of f16 tiles stored as bool
    arrays directly (no cast), a ragged length."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    y = ct.load(Y, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Lt, index=(i,), tile=ct.less(x, y))
    ct.store(Le, index=(i,), tile=ct.less_equal(x, y))
    ct.store(Eq, index=(i,), tile=ct.equal(x, y))
    ct.store(Ne, index=(i,), tile=ct.not_equal(x, y))


@ct.kernel
def bool_tile_logic_to_int(A, B, Out, BM: ct.Constant[int], BN: ct.Constant[int]):
    """Bool arrays loaded, combined with ``&`` / ``|`` / ``^`` / ``~``, and counted per row as int32."""
    r = ct.bid(0)
    a = ct.load(A, index=(r, 0), shape=(BM, BN))
    b = ct.load(B, index=(r, 0), shape=(BM, BN))
    both = (a & b).astype(ct.int32)
    either = (a | b).astype(ct.int32)
    odd = (a ^ b).astype(ct.int32)
    neither = (~(a | b)).astype(ct.int32)
    lo = ct.cat((ct.sum(both, axis=1, keepdims=True), ct.sum(either, axis=1, keepdims=True)), axis=1)
    hi = ct.cat((ct.sum(odd, axis=1, keepdims=True), ct.sum(neither, axis=1, keepdims=True)), axis=1)
    ct.store(Out, index=(r, 0), tile=ct.cat((lo, hi), axis=1))


@ct.kernel
def astype_rounding_modes(X, Rn, Rb, BN: ct.Constant[int]):
    """f32 -> f16 and f32 -> bf16 conversions with ``rounding_mode=RN`` spelled out."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    ct.store(Rn, index=(i,), tile=ct.astype(x, ct.float16, rounding_mode=ct.RoundingMode.RN))
    ct.store(Rb, index=(i,), tile=ct.astype(x, ct.bfloat16, rounding_mode=ct.RoundingMode.RN))


@ct.kernel
def astype_toward_zero(X, Rz, Rb, BN: ct.Constant[int]):
    """f32 -> f16 and f32 -> bf16 rounding toward zero (``rounding_mode=RZ``, which cuTile allows
    for these conversions)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    ct.store(Rz, index=(i,), tile=ct.astype(x, ct.float16, rounding_mode=ct.RoundingMode.RZ))
    ct.store(Rb, index=(i,), tile=ct.astype(x, ct.bfloat16, rounding_mode=ct.RoundingMode.RZ))


@ct.kernel
def f16_abs_by_bitcast(X, Y, Bits, BN: ct.Constant[int]):
    """|x| of f16 values by clearing the sign bit through ``ct.bitcast`` to int16 and back; the raw
    bits stored too (a uint16 view)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    bits = ct.bitcast(x, ct.int16)
    ct.store(Y, index=(i,), tile=ct.bitcast(bits & 0x7FFF, ct.float16))
    ct.store(Bits, index=(i,), tile=ct.bitcast(bits, ct.uint16))


@ct.kernel
def negative_sub_bitwise_or(X, Y, I, J, Neg, Sub, Or, BN: ct.Constant[int]):
    """The function spellings ``ct.negative`` / ``ct.sub`` (``flush_to_zero``) / ``ct.bitwise_or``."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    y = ct.load(Y, index=(i,), shape=(BN,))
    ct.store(Neg, index=(i,), tile=ct.negative(x))
    ct.store(Sub, index=(i,), tile=ct.sub(x, y, flush_to_zero=True))
    ct.store(Or, index=(i,), tile=ct.bitwise_or(ct.load(I, index=(i,), shape=(BN,)),
                                                 ct.load(J, index=(i,), shape=(BN,))))


@ct.kernel
def astype_f64_toward_zero(X, Y, BN: ct.Constant[int]):
    """f64 -> f32 rounding toward zero."""
    i = ct.bid(0)
    ct.store(Y, index=(i,), tile=ct.astype(ct.load(X, index=(i,), shape=(BN,)), ct.float32,
                                            rounding_mode=ct.RoundingMode.RZ))


@ct.kernel
def sub_toward_zero(X, Y, Z, BN: ct.Constant[int]):
    """``ct.sub(x, y, rounding_mode=RZ)`` (a directed rounding of an f32 subtraction)."""
    i = ct.bid(0)
    z = ct.sub(ct.load(X, index=(i,), shape=(BN,)), ct.load(Y, index=(i,), shape=(BN,)),
               rounding_mode=ct.RoundingMode.RZ)
    ct.store(Z, index=(i,), tile=z)


@ct.kernel
def hyperbolic_tan_rows(X, Y, BN: ct.Constant[int]):
    """``ct.tan``, ``ct.sinh``, ``ct.cosh`` combined: ``tan(x) + sinh(x) / cosh(x)``."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(Y, index=(r, 0), tile=ct.tan(x) + ct.sinh(x) / ct.cosh(x))


_add("floor_ceil_trunc_rows", floor_ceil_trunc_rows,
     [((5, 100), "float32"), ((5, 100), "float32"), ((5, 100), "float32"), ((5, 100), "int32"), 128], (5,),
     "simt", outputs=(1, 2, 3))
_add("int_floordiv_mod_tiles", int_floordiv_mod_tiles,
     [((256,), "int32"), ((256,), "int32"), ((256,), "int32"), ((256,), "int32"), ((256,), "int32"), 128], (2,),
     "simt", outputs=(2, 3, 4))
_add("int64_divmod_scalar_tile", int64_divmod_scalar_tile,
     [((256,), "int64"), ((256,), "int64"), ((256,), "int64"), -7, 64], (4,), "simt", outputs=(1, 2))
_add("uint16_wrapping_ops", uint16_wrapping_ops,
     [((256,), "uint16"), ((256,), "uint16"), ((256,), "uint16"), ((256,), "uint16"), ((256,), "uint16"), 128], (2,),
     "simt", outputs=(2, 3, 4))
_add("uint64_xorshift_hash", uint64_xorshift_hash, [((512,), "float32"), 12345, 128], (4,), "simt", outputs=(0,))
_add("compare_funcs_to_bool", compare_funcs_to_bool,
     [((300,), "float16"), ((300,), "float16"), ((300,), "bool_"), ((300,), "bool_"), ((300,), "bool_"),
      ((300,), "bool_"), 128], (3,), "simt", outputs=(2, 3, 4, 5))
_add("bool_tile_logic_to_int", bool_tile_logic_to_int,
     [((16, 64), "bool_"), ((16, 64), "bool_"), ((16, 4), "int32"), 8, 64], (2,), "simt", outputs=(2,))
_add("astype_rounding_modes", astype_rounding_modes,
     [((256,), "float32"), ((256,), "float16"), ((256,), "bfloat16"), 128], (2,), "simt", outputs=(1, 2))
_add("astype_toward_zero", astype_toward_zero, [((256,), "float32"), ((256,), "float16"), ((256,), "bfloat16"), 128],
     (2,), "simt", outputs=(1, 2),
     notes="found by this sweep: stopped by tileorch's ftof verifier ('invalid rounding mode specified. Only "
           "nearest_even is supported') while cuTile 1.7 emits 'zero' for astype(f32 -> f16 / bf16, RZ); now "
           "cvt.rz on the SIMT path")
_add("astype_f64_toward_zero", astype_f64_toward_zero, [((128,), "float64"), ((128,), "float32"), 64], (2,),
     "error", outputs=(1,), error="with rounding<zero> from f64 to f32 is not supported yet",
     notes="RZ conversions are lowered for f32 -> f16 / bf16 only: the located 'not supported yet' at the astype")
_add("sub_toward_zero", sub_toward_zero, [((128,), "float32")] * 3 + [64], (2,), "simt", outputs=(2,),
     notes="directed rounding of an f32 sub: sub.rz.f32 on the SIMT path since session 32 (was: the located "
           "'not supported yet' at the op)")
_add("f16_abs_by_bitcast", f16_abs_by_bitcast,
     [((256,), "float16"), ((256,), "float16"), ((256,), "uint16"), 128], (2,), "simt", outputs=(1, 2))
_add("negative_sub_bitwise_or", negative_sub_bitwise_or,
     [((128,), "float32"), ((128,), "float32"), ((128,), "int32"), ((128,), "int32"), ((128,), "float32"),
      ((128,), "float32"), ((128,), "int32"), 64], (2,), "simt", outputs=(4, 5, 6),
     notes="found by this sweep: flush_to_zero on ct.sub (add, mul, maximum, minimum, an IEEE truediv) was dropped "
           "silently; a located warning now says it is not applied (subnormals kept)")
_add("hyperbolic_tan_rows", hyperbolic_tan_rows, [((3, 200), "float32"), ((3, 200), "float32"), 256], (3,),
     "simt", outputs=(1,))


# ----------------------------------------------------------------------------------------------- constructors, constants, grids


@ct.kernel
def full_ones_arange_dtypes(I8, F16, B, I32, AR, BN: ct.Constant[int]):
    """``ct.full`` of int8 / f16 / bool, ``ct.ones`` of int32 and ``ct.arange`` with ``start`` and
    ``step`` (int32), each stored as its own dtype; the fill values negative / fractional."""
    i = ct.bid(0)
    ct.store(I8, index=(i,), tile=ct.full((BN,), -5, dtype=ct.int8))
    ct.store(F16, index=(i,), tile=ct.full((BN,), 0.375, dtype=ct.float16))
    ct.store(B, index=(i,), tile=ct.full((BN,), True, dtype=ct.bool_))
    ct.store(I32, index=(i,), tile=ct.ones((BN,), dtype=ct.int32) * i)
    ct.store(AR, index=(i,), tile=ct.arange(BN, dtype=ct.int32, start=5, step=3) + i * 1000)


@ct.kernel
def constant_float_bool_params(X, Y, scale: ct.Constant[float], relu: ct.Constant[bool], BN: ct.Constant[int]):
    """``ct.Constant[float]`` and ``ct.Constant[bool]`` parameters: ``y = relu?(x * scale)`` with the
    branch decided at compile time."""
    i = ct.bid(0)
    y = ct.load(X, index=(i,), shape=(BN,)) * scale
    if relu:
        y = ct.maximum(y, 0.0)
    ct.store(Y, index=(i,), tile=y)


@ct.kernel
def grid3_num_blocks_ids(Out, BN: ct.Constant[int]):
    """A 3-axis grid: each program writes its flat id ``(z * ny + y) * nx + x`` (from
    ``ct.num_blocks`` of each axis) over its ``BN`` slots of ``Out [nz, ny, nx * BN]``."""
    x, y, z = ct.bid(0), ct.bid(1), ct.bid(2)
    nx, ny = ct.num_blocks(0), ct.num_blocks(1)
    fid = (z * ny + y) * nx + x
    ct.store(Out, index=(z, y, x), tile=ct.full((1, 1, BN), 0, dtype=ct.int32) + fid
             + ct.num_blocks(2) * 0)


@ct.kernel
def load_at_item_offsets(X, Off, Y, BN: ct.Constant[int]):
    """A tile index read from memory: ``o = ct.load(Off, (b,), (1,)).item()`` (a scalar from a 1-element
    tile) then ``ct.load(X, index=(o,), ...)``: program ``b`` copies tile ``Off[b]`` of X."""
    b = ct.bid(0)
    o = ct.load(Off, index=(b,), shape=(1,)).item()
    ct.store(Y, index=(b,), tile=ct.load(X, index=(o,), shape=(BN,)))


@ct.kernel
def loads_without_bounds_checks(X, Y, BM: ct.Constant[int], BN: ct.Constant[int]):
    """Exactly-fitting tiles loaded and stored with ``check_bounds=False`` and ``latency`` /
    ``allow_tma=False`` hints."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(BM, BN), check_bounds=False, latency=4, allow_tma=False)
    ct.store(Y, index=(r, 0), tile=x * 2.0 + 1.0, check_bounds=False, allow_tma=False)


_add("full_ones_arange_dtypes", full_ones_arange_dtypes,
     [((128,), "int8"), ((128,), "float16"), ((128,), "bool_"), ((128,), "int32"), ((128,), "int32"), 64], (2,),
     "simt", outputs=(0, 1, 2, 3, 4))
_add("constant_float_bool_params", constant_float_bool_params,
     [((256,), "float32"), ((256,), "float32"), -1.5, True, 128], (2,), "simt", outputs=(1,))
_add("grid3_num_blocks_ids", grid3_num_blocks_ids, [((2, 3, 4 * 32), "int32"), 32], (4, 3, 2), "simt",
     outputs=(0,))
_add("load_at_item_offsets", load_at_item_offsets,
     [((512,), "float32"), ((3,), "int32"), ((192,), "float32"), 64], (3,), "simt", outputs=(2,))
_add("loads_without_bounds_checks", loads_without_bounds_checks,
     [((64, 128), "float16"), ((64, 128), "float16"), 16, 128], (4,), "simt", outputs=(1,))


# ----------------------------------------------------------------------------------------------- padding modes


@ct.kernel
def nan_padding_counts_valid(X, Cnt, Sm, BN: ct.Constant[int]):
    """``padding_mode=NAN``: the padded lanes are NaN, counted out by ``ct.isnan``; the row sum of the
    others (inputs hold no NaN)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=NAN)
    ok = ~ct.isnan(x)
    ct.store(Cnt, index=(r,), tile=ct.sum(ok.astype(ct.int32), axis=1))
    ct.store(Sm, index=(r,), tile=ct.sum(ct.where(ok, x, 0.0), axis=1))


@ct.kernel
def inf_paddings_min_max(X, Mn, Mx, BN: ct.Constant[int]):
    """Row min under ``POS_INF`` padding and row max under ``NEG_INF`` padding of a ragged bf16 row,
    stored as f32."""
    r = ct.bid(0)
    lo = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=POS_INF)
    hi = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF)
    ct.store(Mn, index=(r,), tile=ct.min(lo, axis=1).astype(ct.float32))
    ct.store(Mx, index=(r,), tile=ct.max(hi, axis=1).astype(ct.float32))


@ct.kernel
def neg_zero_padding_sign(X, Y, BN: ct.Constant[int]):
    """``padding_mode=NEG_ZERO``: padded lanes are -0.0, told apart from +0.0 by ``1 / x``; the
    tile stored to a wider array (so the padding is visible) as ``x + 1 / x`` clipped."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=NEG_ZERO)
    ct.store(Y, index=(i,), tile=ct.where(1.0 / x < 0.0, -1.0, 1.0))


@ct.kernel
def nan_propagating_max_min(X, Mx, Mn, MxP, MnP, BN: ct.Constant[int]):
    """``ct.max(propagate_nan=True)`` against the default (NaN ignored) and ``ct.minimum`` of two
    halves both ways, rows with NaNs."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN))
    ct.store(Mx, index=(r,), tile=ct.max(x, axis=1))
    ct.store(MxP, index=(r,), tile=ct.max(x, axis=1, propagate_nan=True))
    a = ct.extract(x, index=(0, 0), shape=(1, BN // 2))
    b = ct.extract(x, index=(0, 1), shape=(1, BN // 2))
    ct.store(Mn, index=(r, 0), tile=ct.minimum(a, b))
    ct.store(MnP, index=(r, 0), tile=ct.minimum(a, b, propagate_nan=True))


_add("nan_padding_counts_valid", nan_padding_counts_valid,
     [((4, 300), "float32"), ((4,), "int32"), ((4,), "float32"), 512], (4,), "simt", outputs=(1, 2))
_add("inf_paddings_min_max", inf_paddings_min_max,
     [((4, 70), "bfloat16"), ((4,), "float32"), ((4,), "float32"), 128], (4,), "simt", outputs=(1, 2))
_add("neg_zero_padding_sign", neg_zero_padding_sign, [((100,), "float32"), ((128,), "float32"), 128], (1,),
     "simt", outputs=(1,))
_add("nan_propagating_max_min", nan_propagating_max_min,
     [((4, 64), "float32"), ((4,), "float32"), ((4, 32), "float32"), ((4,), "float32"), ((4, 32), "float32"), 64],
     (4,), "simt", outputs=(1, 2, 3, 4))


# ----------------------------------------------------------------------------------------------- gather / scatter options


@ct.kernel
def gather_padding_value_mask(X, Idx, Y, BN: ct.Constant[int]):
    """``ct.gather`` with a mask (even lanes only) and ``padding_value=-1.0``; indices past the end
    also give the padding value (bounds checked)."""
    i = ct.bid(0)
    idx = ct.load(Idx, index=(i,), shape=(BN,))
    even = (ct.arange(BN, dtype=ct.int32) % 2) == 0
    ct.store(Y, index=(i,), tile=ct.gather(X, idx, mask=even, padding_value=-1.0))


@ct.kernel
def scatter_2d_mask_no_check(X, Rows, Y, BM: ct.Constant[int], BN: ct.Constant[int]):
    """Rows of X scattered to the row ids ``Rows`` (a permutation, -1 for "drop") of Y by 2-D
    indices under a mask, ``check_bounds=False`` (the mask keeps every index in range)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(BM, BN))
    rows = ct.load(Rows, index=(r,), shape=(BM,))
    cols = ct.arange(BN, dtype=ct.int32)
    keep = (rows >= 0)[:, None] & (cols >= 0)[None, :]
    ct.scatter(Y, (rows[:, None], cols[None, :]), x, mask=keep, check_bounds=False)


@ct.kernel
def gather_3d_indices(X, Y, BI: ct.Constant[int], BJ: ct.Constant[int], BK: ct.Constant[int]):
    """A 3-D gather by three broadcast index tiles reading ``X[k, j, i]`` (a transpose through
    indices) into a ``(BI, BJ, BK)`` tile."""
    b = ct.bid(0)
    i = ct.arange(BI, dtype=ct.int32)[:, None, None]
    j = ct.arange(BJ, dtype=ct.int32)[None, :, None]
    k = (b * BK + ct.arange(BK, dtype=ct.int32))[None, None, :]
    ct.store(Y, index=(0, 0, b), tile=ct.gather(X, (k, j, i)))


@ct.kernel
def scatter_scalar_value(Y, Idx, BN: ct.Constant[int]):
    """``ct.scatter`` of a Python scalar (broadcast to the index tile) at indices read from memory."""
    i = ct.bid(0)
    ct.scatter(Y, ct.load(Idx, index=(i,), shape=(BN,)), 7)


_add("gather_padding_value_mask", gather_padding_value_mask,
     [((100,), "float32"), ((128,), "int32"), ((128,), "float32"), 64], (2,), "simt", outputs=(2,))
_add("scatter_2d_mask_no_check", scatter_2d_mask_no_check,
     [((32, 16), "float32"), ((32,), "int32"), ((32, 16), "float32"), 8, 16], (4,), "simt", outputs=(2,))
_add("gather_3d_indices", gather_3d_indices,
     [((64, 8, 4), "float16"), ((4, 8, 64), "float16"), 4, 8, 16], (4,), "simt", outputs=(1,))
_add("scatter_scalar_value", scatter_scalar_value, [((300,), "int32"), ((128,), "int32"), 64], (2,), "simt",
     outputs=(0,))


# ----------------------------------------------------------------------------------------------- shapes: cat, permute, reductions, scans


@ct.kernel
def cat_each_axis_3d(A, B, C0, C1, C2):
    """``ct.cat`` of two ``(2, 4, 8)`` tiles along axis 0, 1 and 2 (and the last as ``axis=-1``)."""
    a = ct.load(A, index=(0, 0, 0), shape=(2, 4, 8))
    b = ct.load(B, index=(0, 0, 0), shape=(2, 4, 8))
    ct.store(C0, index=(0, 0, 0), tile=ct.cat((a, b), axis=0))
    ct.store(C1, index=(0, 0, 0), tile=ct.cat((a, b), axis=1))
    ct.store(C2, index=(0, 0, 0), tile=ct.cat((b, a), axis=-1))


@ct.kernel
def permute_rank3_rank4(X3, X4, Y3, Y4):
    """``ct.permute`` of a rank-3 tile by ``(2, 0, 1)`` and the method ``Tile.permute`` of a rank-4
    tile by ``(0, 2, 3, 1)`` (NCHW -> NHWC)."""
    ct.store(Y3, index=(0, 0, 0), tile=ct.permute(ct.load(X3, index=(0, 0, 0), shape=(2, 4, 8)), (2, 0, 1)))
    x4 = ct.load(X4, index=(0, 0, 0, 0), shape=(2, 4, 2, 8))
    ct.store(Y4, index=(0, 0, 0, 0), tile=x4.permute((0, 2, 3, 1)))


@ct.kernel
def reduce_axis0_of_3d(X, S0, M1, A2, BT: ct.Constant[int]):
    """Over a ``(BT, 8, 16)`` tile: the sum over axis 0, the max over axis 1 and the argmin over axis 2."""
    b = ct.bid(0)
    x = ct.load(X, index=(0, b, 0), shape=(BT, 8, 16))
    ct.store(S0, index=(b, 0, 0), tile=ct.sum(x, axis=0, keepdims=True))
    ct.store(M1, index=(0, b), tile=ct.max(x, axis=1))
    ct.store(A2, index=(0, b), tile=ct.argmin(x, axis=2))


@ct.kernel
def scans_each_axis_3d(X, C0, C1, C2, P0):
    """``ct.cumsum`` along axis 0, 1 and 2 of a ``(4, 8, 16)`` f32 tile (axis 1 reversed) and
    ``ct.cumprod`` along axis 0."""
    x = ct.load(X, index=(0, 0, 0), shape=(4, 8, 16))
    ct.store(C0, index=(0, 0, 0), tile=ct.cumsum(x, axis=0))
    ct.store(C1, index=(0, 0, 0), tile=ct.cumsum(x, axis=1, reverse=True))
    ct.store(C2, index=(0, 0, 0), tile=ct.cumsum(x, axis=2))
    ct.store(P0, index=(0, 0, 0), tile=ct.cumprod(x, axis=0))


@ct.kernel
def int_cumsum_axis0_2d(X, Y, BM: ct.Constant[int], BN: ct.Constant[int]):
    """An int32 inclusive scan down the columns (axis 0) of ``(BM, BN)`` column strips."""
    j = ct.bid(0)
    ct.store(Y, index=(0, j), tile=ct.cumsum(ct.load(X, index=(0, j), shape=(BM, BN)), axis=0))


@ct.kernel
def width_one_tiles(X, S, Y, BM: ct.Constant[int]):
    """Tiles of width 1: a ``(BM, 1)`` column of per-row scales, a ``(1, 1)`` tile, the product
    broadcast over a ``(BM, 64)`` tile, a ``(BM, 1)`` row sum stored."""
    r = ct.bid(0)
    s = ct.load(S, index=(r, 0), shape=(BM, 1))
    c = ct.load(S, index=(0, 0), shape=(1, 1))
    x = ct.load(X, index=(r, 0), shape=(BM, 64)) * s * c
    ct.store(Y, index=(r, 0), tile=ct.sum(x, axis=1, keepdims=True))


@ct.kernel
def expand_dims_broadcast_to_3d(X, V, Y, BM: ct.Constant[int], BN: ct.Constant[int]):
    """``ct.expand_dims`` of a row vector to ``(1, 1, BN)`` and of X to ``(BM, 1, BN)``,
    ``ct.broadcast_to`` both to ``(BM, 2, BN)``, the halves summed and scaled."""
    r = ct.bid(0)
    x = ct.expand_dims(ct.load(X, index=(r, 0), shape=(BM, BN)), axis=1)
    v = ct.expand_dims(ct.expand_dims(ct.load(V, index=(0,), shape=(BN,)), axis=0), axis=0)
    t = ct.broadcast_to(x, (BM, 2, BN)) * ct.broadcast_to(v, (BM, 2, BN))
    ct.store(Y, index=(r, 0), tile=ct.sum(t, axis=1))


@ct.kernel
def ragged_odd_2d_copy_scale(X, Y, BM: ct.Constant[int], BN: ct.Constant[int]):
    """An odd ``[37, 53]`` array tiled by ``(16, 32)`` on a 2-D grid (both edges ragged), zero
    padding, ``y = 3 x - 1`` in f16."""
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(i, j), shape=(BM, BN), padding_mode=ZERO)
    ct.store(Y, index=(i, j), tile=(x * 3.0 - 1.0).astype(ct.float16))


_add("cat_each_axis_3d", cat_each_axis_3d,
     [((2, 4, 8), "float32"), ((2, 4, 8), "float32"), ((4, 4, 8), "float32"), ((2, 8, 8), "float32"),
      ((2, 4, 16), "float32")], (1,), "simt", outputs=(2, 3, 4))
_add("permute_rank3_rank4", permute_rank3_rank4,
     [((2, 4, 8), "float16"), ((2, 4, 2, 8), "float32"), ((8, 2, 4), "float16"), ((2, 2, 8, 4), "float32")], (1,),
     "simt", outputs=(2, 3))
_add("reduce_axis0_of_3d", reduce_axis0_of_3d,
     [((8, 16, 16), "float32"), ((2, 8, 16), "float32"), ((8, 32), "float32"), ((8, 16), "int32"), 8], (2,),
     "simt", outputs=(1, 2, 3))
_add("scans_each_axis_3d", scans_each_axis_3d,
     [((4, 8, 16), "float32")] * 5, (1,), "simt", outputs=(1, 2, 3, 4))
_add("int_cumsum_axis0_2d", int_cumsum_axis0_2d, [((32, 64), "int32"), ((32, 64), "int32"), 32, 16], (4,),
     "simt", outputs=(1,))
_add("width_one_tiles", width_one_tiles, [((64, 64), "float32"), ((64, 1), "float32"), ((64, 1), "float32"), 16],
     (4,), "simt", outputs=(2,))
_add("expand_dims_broadcast_to_3d", expand_dims_broadcast_to_3d,
     [((32, 64), "float32"), ((64,), "float32"), ((32, 64), "float32"), 8, 64], (4,), "simt", outputs=(2,))
_add("ragged_odd_2d_copy_scale", ragged_odd_2d_copy_scale,
     [((37, 53), "float32"), ((37, 53), "float16"), 16, 32], (3, 2), "simt", outputs=(1,))


@ct.kernel
def tiled_view_atomic_store_add(X, Acc, BN: ct.Constant[int]):
    """Partial sums folded into ``Acc [2, BN]`` by ``TiledView.atomic_store_add``: program ``i`` adds
    its ``(1, BN)`` tile of X into row ``i % 2`` of the view (several programs per row)."""
    i = ct.bid(0)
    v = Acc.tiled_view((1, BN))
    v.atomic_store_add((i % 2, 0), ct.load(X, index=(i, 0), shape=(1, BN)))


@ct.kernel
def advanced_index_slices(X, Rows, Y, BR: ct.Constant[int], BC: ct.Constant[int]):
    """``ct.load_advanced_indexing`` of gathered rows and a dense ``ct.Slice`` of columns starting at
    an unaligned element offset (3), stored by ``ct.store_advanced_indexing`` at a slice of Y."""
    b = ct.bid(0)
    rows = ct.load(Rows, index=(b,), shape=(BR,))
    t = ct.load_advanced_indexing(X, (rows, ct.Slice(3, BC)), padding_mode=ZERO)
    ct.store_advanced_indexing(Y, (b * BR + ct.arange(BR, dtype=ct.int32), ct.Slice(0, BC)), t * 2.0)


@ct.kernel
def sum_all_keepdims_3d(X, S, M):
    """``ct.sum`` over all axes of a 3-D tile (``axis=None``) and ``ct.max`` over axes ``(0, 2)``
    with ``keepdims=True``."""
    x = ct.load(X, index=(0, 0, 0), shape=(4, 8, 16))
    ct.store(S, index=(0,), tile=ct.reshape(ct.sum(x), (1,)))
    ct.store(M, index=(0, 0, 0), tile=ct.max(x, axis=(0, 2), keepdims=True))


_add("tiled_view_atomic_store_add", tiled_view_atomic_store_add,
     [((6, 64), "float32"), ((2, 64), "float32"), 64], (6,), "simt", outputs=(1,))
_add("advanced_index_slices", advanced_index_slices,
     [((40, 80), "float32"), ((32,), "int32"), ((32, 64), "float32"), 8, 64], (4,), "simt", outputs=(2,))
_add("sum_all_keepdims_3d", sum_all_keepdims_3d,
     [((4, 8, 16), "float32"), ((1,), "float32"), ((1, 8, 1), "float32")], (1,), "simt", outputs=(1, 2))


# ----------------------------------------------------------------------------------------------- GEMMs written unusually


@ct.kernel
def mm_iadd_matmul_operator(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``acc += a @ b`` (an augmented assignment of the ``@`` operator)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc += ct.load(A, index=(bm, k), shape=(tm, tk)) @ ct.load(B, index=(k, bn), shape=(tk, tn))
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def mm_while_k_loop(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The K loop written as ``while k < nk`` (a counter incremented by hand)."""
    bm, bn = ct.bid(0), ct.bid(1)
    nk = ct.num_tiles(A, axis=1, shape=(tm, tk))
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    k = 0
    while k < nk:
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
        k += 1
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def mm_single_tile_matmul_no_acc(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], K: ct.Constant[int]):
    """K fits one tile: ``C = ct.matmul(a, b)`` with no loop and no accumulator (f16 out)."""
    bm, bn = ct.bid(0), ct.bid(1)
    c = ct.matmul(ct.load(A, index=(bm, 0), shape=(tm, K)), ct.load(B, index=(0, bn), shape=(K, tn)))
    ct.store(C, index=(bm, bn), tile=c)


@ct.kernel
def mm_store_order_transposed(A, B, Ct, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """C stored transposed through the store's ``order=(1, 0)`` into ``Ct [N, M]`` (tile index in
    C's terms)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Ct, index=(bm, bn), tile=acc.astype(Ct.dtype), order=(1, 0))


@ct.kernel
def mm_heads_3d_epilogue(X, W, Bias, Y, tm: ct.Constant[int], H: ct.Constant[int], D: ct.Constant[int],
                         tk: ct.Constant[int]):
    """A projection whose ``(tm, H D)`` tile is split into heads: reshaped to ``(tm, H, D)``, a
    per-head bias ``[H, D]`` added as a 3-D tile, stored into ``Y [M, H, D]``."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, H * D), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W, index=(k, 0), shape=(tk, H * D)), acc)
    y = acc.reshape((tm, H, D)) + ct.load(Bias, index=(0, 0), shape=(H, D))[None, :, :]
    ct.store(Y, index=(bm, 0, 0), tile=y.astype(Y.dtype))


@ct.kernel
def mm_4d_output_bshd(X, W, Y, tm: ct.Constant[int], D: ct.Constant[int], tk: ct.Constant[int]):
    """Per-head projection written into a 4-D ``Y [B, S, H, D]``: grid (row tile, head, batch), X
    ``[B, S, K]`` read as a 3-D tile, ``W [H, K, D]``, the ``(tm, D)`` result stored as
    ``(1, tm, 1, D)``."""
    bm, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, D), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=2, shape=(1, tm, tk))):
        x = ct.load(X, index=(b, bm, k), shape=(1, tm, tk)).reshape((tm, tk))
        w = ct.load(W, index=(h, k, 0), shape=(1, tk, D)).reshape((tk, D))
        acc = ct.mma(x, w, acc)
    ct.store(Y, index=(b, bm, h, 0), tile=acc.reshape((1, tm, 1, D)).astype(Y.dtype))


@ct.kernel
def mm_constant_float_bool_epilogue(A, B, C, alpha: ct.Constant[float], relu: ct.Constant[bool],
                                    tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A GEMM whose epilogue takes a ``ct.Constant[float]`` scale and a ``ct.Constant[bool]`` switch."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    acc = acc * alpha
    if relu:
        acc = ct.maximum(acc, 0.0)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def mm_grid3_batched(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Batched GEMM on a 3-axis grid ``(N tiles, M tiles, batch)`` (N fastest), 3-D A / B / C."""
    bn, bm, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        a = ct.load(A, index=(b, bm, k), shape=(1, tm, tk)).reshape((tm, tk))
        bt = ct.load(B, index=(b, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(a, bt, acc)
    ct.store(C, index=(b, bm, bn), tile=acc.reshape((1, tm, tn)).astype(C.dtype))


@ct.kernel
def mm_int8_requant_epilogue(A, B, RowS, ColS, C, tm: ct.Constant[int], tn: ct.Constant[int],
                             tk: ct.Constant[int]):
    """int8 x int8 -> int32 accumulation, then requantisation to int8: ``clamp(round(acc * s_row *
    s_col), -128, 127)`` (round half away by ``floor(v + 0.5)``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    v = acc.astype(ct.float32) * ct.load(RowS, index=(bm,), shape=(tm,))[:, None] \
        * ct.load(ColS, index=(bn,), shape=(tn,))[None, :]
    q = ct.minimum(ct.maximum(ct.floor(v + 0.5), -128.0), 127.0)
    ct.store(C, index=(bm, bn), tile=q.astype(ct.int8))


@ct.kernel
def mm_fp8_e5m2_both(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """e5m2 x e5m2 (gradient-style fp8: cuTile refuses mixing e5m2 with e4m3 in one ``ct.mma`` at
    export), f32 accumulation, bf16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def mm_fp8_fast_acc(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """e4m3 x e4m3 with ``ct.mma(..., use_fast_acc=True)`` (the flag cuTile documents for fp8)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc,
                     use_fast_acc=True)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def mm_extract_halves_of_a(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A read ``2 tk`` wide per step and split by ``ct.extract`` into two K halves, each a dot with
    its own B tile."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, 2 * tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, 2 * tk))
        acc = ct.mma(ct.extract(a, index=(0, 0), shape=(tm, tk)), ct.load(B, index=(2 * k, bn), shape=(tk, tn)), acc)
        acc = ct.mma(ct.extract(a, index=(0, 1), shape=(tm, tk)), ct.load(B, index=(2 * k + 1, bn), shape=(tk, tn)),
                     acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def bmm_broadcast_b_in_tile(A, B, C, BB: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int],
                            tk: ct.Constant[int]):
    """A batched ``ct.matmul`` of a ``(BB, tm, tk)`` A tile with a ``(1, tk, tn)`` B tile (the batch
    broadcast inside the dot), accumulated over K."""
    bm, bn, g = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((BB, tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(B, axis=0, shape=(tk, tn))):
        a = ct.load(A, index=(g, bm, k), shape=(BB, tm, tk))
        b = ct.load(B, index=(k, bn), shape=(tk, tn)).reshape((1, tk, tn))
        acc = acc + ct.matmul(a, b)
    ct.store(C, index=(g, bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def mm_k_loop_hints(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Loads with ``latency=`` hints and ``allow_tma=True`` on A, the store with ``latency``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), latency=10, allow_tma=True)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), latency=2)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype), latency=3)


@ct.kernel
def mm_b_without_tma(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """B loaded with ``allow_tma=False`` (a user forbidding TMA on one operand)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk))
        b = ct.load(B, index=(k, bn), shape=(tk, tn), allow_tma=False)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def mm_num_blocks_grid_stride(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A grid-stride loop over output tiles ``for t in range(ct.bid(0), ntiles, ct.num_blocks(0))``
    (fewer programs than tiles)."""
    nn = ct.num_tiles(C, axis=1, shape=(tm, tn))
    ntiles = ct.num_tiles(C, axis=0, shape=(tm, tn)) * nn
    for t in range(ct.bid(0), ntiles, ct.num_blocks(0)):
        bm, bn = t // nn, t % nn
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
        ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def mm_bias_from_item(A, B, Bias, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A scalar bias read as ``ct.load(Bias, (0,), (1,)).item()`` added in the epilogue."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=(acc + ct.load(Bias, index=(0,), shape=(1,)).item()).astype(C.dtype))


@ct.kernel
def mm_rowmax_colsum_outputs(A, B, C, RowMax, ColSum, tm: ct.Constant[int], tn: ct.Constant[int],
                             tk: ct.Constant[int]):
    """Beside C, the tile's per-row max over N and per-column sum over M (partials per tile)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))
    ct.store(RowMax, index=(bm, bn), tile=ct.max(acc, axis=1, keepdims=True))
    ct.store(ColSum, index=(bm, bn), tile=ct.sum(acc, axis=0, keepdims=True))


@ct.kernel
def mm_bf16_where_mask_epilogue(A, B, Mask, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """bf16 GEMM with an epilogue ``where(mask, acc, -inf)`` of a bool mask tensor ``[M, N]`` (a
    masked logits write), bf16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    m = ct.load(Mask, index=(bm, bn), shape=(tm, tn))
    ct.store(C, index=(bm, bn), tile=ct.where(m, acc, float("-inf")).astype(C.dtype))


@ct.kernel
def mm_k_range_reversed_step(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The K tiles visited downward (``kk = nk - 1 - k``: cuTile's ``range`` takes positive steps
    only) with ``acc = a @ b + acc`` (product first)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    nk = ct.num_tiles(A, axis=1, shape=(tm, tk))
    for k in range(nk):
        kk = nk - 1 - k
        acc = ct.load(A, index=(bm, kk), shape=(tm, tk)) @ ct.load(B, index=(kk, bn), shape=(tk, tn)) + acc
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def mm_f16_out_toward_zero(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """C rounded to f16 toward zero (``astype(..., rounding_mode=RZ)``) in the epilogue."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=ct.astype(acc, ct.float16, rounding_mode=ct.RoundingMode.RZ))


@ct.kernel
def mm_neg_zero_padded_a(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A ragged in M read with ``padding_mode=NEG_ZERO`` (the rows past M: -0.0, never stored)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=NEG_ZERO)
        acc = ct.mma(a, ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


GEMM_F16 = [((256, 256), "float16"), ((256, 128), "float16"), ((256, 128), "float16"), 128, 64, 64]
_add("mm_f16_out_toward_zero", mm_f16_out_toward_zero, GEMM_F16, (2, 2), "simt", outputs=(2,),
     error="a conversion rounding toward zero",
     notes="the tensor-core epilogues round to nearest: the SIMT path (cvt.rz) runs it, with a located warning")
_add("mm_neg_zero_padded_a", mm_neg_zero_padded_a,
     [((200, 256), "float16"), ((256, 128), "float16"), ((200, 128), "float16"), 128, 64, 64], (2, 2), "simt",
     outputs=(2,), error="this dot operand is loaded with padding_mode=NEG_ZERO",
     notes="found by this sweep: a dot operand padded with other than zeros was refused as 'expected a producer "
           "agent with 2 TMA tile loads' (one such operand) or not at all ('the TileAS tier left a kernel "
           "unlowered', unlocated: both operands); now named at the load (TMA pads with zeros only)")
_add("mm_iadd_matmul_operator", mm_iadd_matmul_operator, GEMM_F16, (2, 2), "gemm", outputs=(2,))
_add("mm_while_k_loop", mm_while_k_loop, GEMM_F16, (2, 2), "gemm", outputs=(2,),
     notes="found by this sweep: the tier's refusal said 'this dot is not in a loop'; then refused as 'this dot is "
           "in a while loop' (the tier pipelines counted for loops only); session 21: the counted while runs as its "
           "for loop (tileas-while-to-for)")
_add("mm_single_tile_matmul_no_acc", mm_single_tile_matmul_no_acc,
     [((256, 64), "float16"), ((64, 128), "float16"), ((256, 128), "float16"), 128, 64, 64], (2, 2), "gemm",
     outputs=(2,))
_add("mm_store_order_transposed", mm_store_order_transposed,
     [((256, 256), "float16"), ((256, 128), "float16"), ((128, 256), "float16"), 128, 64, 64], (2, 2), "gemm",
     outputs=(2,))
_add("mm_heads_3d_epilogue", mm_heads_3d_epilogue,
     [((256, 128), "float16"), ((128, 128), "float16"), ((4, 32), "float32"), ((256, 4, 32), "float16"), 128, 4,
      32, 64], (2,), "simt", outputs=(3,), error="the product is stored as a 3-D tile [128, 4, 32] with 3 dimensions",
     notes="found by this sweep: refused as 'a 3-D tile [128, 4, 32] at (program id 0, an expression, program id 1)' "
           "(the constant 0 indices of a 1-D grid shown as program ids); now says what the tile is.  Not taken by "
           "the tier: it stores 2-D tiles of C")
_add("mm_4d_output_bshd", mm_4d_output_bshd,
     [((2, 128, 128), "float16"), ((2, 128, 64), "float16"), ((2, 128, 2, 64), "float16"), 64, 64, 64], (2, 2, 2),
     "simt", outputs=(2,), error="the product is stored as a 4-D tile [1, 64, 1, 64] whose rows and columns are not",
     notes="a [B, S, H, D] store of one head's (S, D) tile: the tier's batched GEMM takes leading unit dimensions "
           "only")
_add("mm_constant_float_bool_epilogue", mm_constant_float_bool_epilogue,
     [((256, 256), "float16"), ((256, 128), "float16"), ((256, 128), "float16"), 0.5, True, 128, 64, 64], (2, 2),
     "gemm", outputs=(2,))
_add("mm_grid3_batched", mm_grid3_batched,
     [((3, 128, 128), "float16"), ((3, 128, 128), "float16"), ((3, 128, 128), "float16"), 64, 64, 64], (2, 2, 3),
     "gemm", outputs=(2,))
_add("mm_int8_requant_epilogue", mm_int8_requant_epilogue,
     [((128, 256), "int8"), ((256, 128), "int8"), ((128,), "float32"), ((128,), "float32"), ((128, 128), "int8"),
      64, 64, 64], (2, 2), "gemm", outputs=(4,),
     notes="found by this sweep: refused as 'element type i8 is not supported yet by the WGMMA lowering (... i8 as "
           "s8 or u8 in ...)' at the A load, as if the int8 operands were the problem; then the output type at the "
           "store.  Since session 25 (sweep 20) the tier's direct epilogue stores the int8 C (requantisation)")
_add("mm_fp8_e5m2_both", mm_fp8_e5m2_both,
     [((128, 256), "float8_e5m2"), ((256, 128), "float8_e5m2"), ((128, 128), "bfloat16"), 64, 64, 64], (2, 2),
     "gemm", outputs=(2,))
_add("mm_fp8_fast_acc", mm_fp8_fast_acc,
     [((128, 256), "float8_e4m3fn"), ((256, 128), "float8_e4m3fn"), ((128, 128), "float16"), 64, 64, 64], (2, 2),
     "gemm", outputs=(2,))
_add("mm_extract_halves_of_a", mm_extract_halves_of_a, GEMM_F16, (2, 2), "simt", outputs=(2,),
     error="this dot adds its product to the result of the dot at line",
     notes="two dots accumulating one product over the halves of one A tile: the tiers run one dot per product")
_add("bmm_broadcast_b_in_tile", bmm_broadcast_b_in_tile,
     [((4, 128, 128), "float16"), ((128, 64), "float16"), ((4, 128, 64), "float32"), 2, 64, 64, 64], (2, 1, 2),
     "gemm", outputs=(2,))
_add("mm_k_loop_hints", mm_k_loop_hints, GEMM_F16, (2, 2), "gemm", outputs=(2,))
_add("mm_b_without_tma", mm_b_without_tma, GEMM_F16, (2, 2), "simt", outputs=(2,),
     error="this dot operand is loaded with allow_tma=False",
     notes="found by this sweep: refused as 'expected a producer agent with 2 TMA tile loads (A and 1 B); found 1 "
           "staged loads' at the kernel; now named at the load with the hint (the tier reads operands by TMA "
           "only: it has no cp.async producer)")
_add("mm_num_blocks_grid_stride", mm_num_blocks_grid_stride, GEMM_F16, (3,), "gemm", outputs=(2,))
_add("mm_bias_from_item", mm_bias_from_item,
     [((256, 256), "float16"), ((256, 128), "float16"), ((1,), "float32"), ((256, 128), "float16"), 128, 64, 64],
     (2, 2), "gemm", outputs=(3,),
     notes="found by this sweep: refused by the GEMM tier ('not supported yet in the accumulator's register "
           "layout: the epilogue scalar op nv_tileaa.extract'); the epilogue now reads the one-element tile")
_add("mm_rowmax_colsum_outputs", mm_rowmax_colsum_outputs,
     [((256, 256), "float16"), ((256, 128), "float16"), ((256, 128), "float16"), ((256, 2), "float32"),
      ((2, 128), "float32"), 128, 64, 64], (2, 2), "gemm", outputs=(2, 3, 4))
_add("mm_bf16_where_mask_epilogue", mm_bf16_where_mask_epilogue,
     [((256, 256), "bfloat16"), ((256, 128), "bfloat16"), ((256, 128), "bool_"), ((256, 128), "bfloat16"), 128,
      64, 64], (2, 2), "gemm", outputs=(3,))
_add("mm_k_range_reversed_step", mm_k_range_reversed_step, GEMM_F16, (2, 2), "gemm", outputs=(2,))


# ----------------------------------------------------------------------------------------------- chained dots


@ct.kernel
def mlp_chain_iadd_operator(X, W1, W2, Y, tm: ct.Constant[int], th: ct.Constant[int], D: ct.Constant[int]):
    """A two-GEMM chain written with operators: ``h = relu(x @ w1)`` per hidden tile, ``y += h @ w2``
    (augmented), the hidden loop over ``W1``'s columns."""
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(tm, D))
    y = ct.zeros((tm, D), dtype=ct.float32)
    for j in range(ct.num_tiles(W1, axis=1, shape=(D, th))):
        h = ct.maximum(x @ ct.load(W1, index=(0, j), shape=(D, th)), 0.0)
        y += h.astype(ct.float16) @ ct.load(W2, index=(j, 0), shape=(th, D))
    ct.store(Y, index=(bm, 0), tile=y.astype(Y.dtype))


@ct.kernel
def attn_plain_iadd_exp2(Q, K, V, O, qk_scale: float, tm: ct.Constant[int], tn: ct.Constant[int],
                         D: ct.Constant[int]):
    """Flash attention whose rescaled accumulator is updated with ``acc += p @ v`` after
    ``acc *= alpha`` (augmented assignments), ``ct.exp2``, ``[BH, S, D]`` f16."""
    bm, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, bm, 0), shape=(1, tm, D)).reshape((tm, D))
    m = ct.full((tm, 1), float("-inf"), dtype=ct.float32)
    l = ct.zeros((tm, 1), dtype=ct.float32)
    acc = ct.zeros((tm, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, tn, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, tn, D)).reshape((tn, D))
        s = ct.matmul(q, ct.transpose(k)) * qk_scale
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m - m_new)
        l = l * alpha + ct.sum(p, axis=1, keepdims=True)
        acc *= alpha
        acc += p.astype(ct.float16) @ ct.load(V, index=(bh, j, 0), shape=(1, tn, D)).reshape((tn, D))
        m = m_new
    ct.store(O, index=(bh, bm, 0), tile=(acc / l).reshape((1, tm, D)).astype(O.dtype))


_add("mlp_chain_iadd_operator", mlp_chain_iadd_operator,
     [((256, 64), "float16"), ((64, 256), "float16"), ((256, 64), "float16"), ((256, 64), "float16"), 128, 64, 64],
     (2,), "chained", outputs=(3,),
     notes="found by this sweep: x @ w1 of f16 tiles is an f16 dot, refused by the chained kernel ('the "
           "accumulator must be f32'); tileas-fold-dot-accumulate now runs it in f32 rounded once to f16")
_add("attn_plain_iadd_exp2", attn_plain_iadd_exp2,
     [((2, 256, 64), "float16"), ((2, 256, 64), "float16"), ((2, 256, 64), "float16"), ((2, 256, 64), "float16"),
      0.18033688011112042, 128, 64, 64], (2, 2), "chained", outputs=(3,))
