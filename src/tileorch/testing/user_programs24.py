"""The twenty-fourth user sweep (session 32): invalid inputs only, the mistakes the invalid halves of
sweeps 17, 19 and 21 did not try, in three tables.

* :data:`INVALID`: programs cuTile's front end accepts that cannot run as written: a ``512 x 512``
  f32 ``mma`` accumulator (2048 registers per thread) and ``printf`` of a ``512 x 512`` tile (a
  megabyte of shared scratch); each stops with ``file:line:col: error:`` at the user's line.
* :data:`WARNED`: programs that compile but whose result is rarely what the user meant: integer
  ``//`` and ``%`` by a constant 0 (undefined in CUDA Tile IR; tileorch defines them), a shape
  divided by 0, shifts by the element width or more, an ``assert_`` of a constant false condition,
  a load and a store at the tile index -1 (Python's "last tile"), and the launch hints ``num_ctas=16`` / ``occupancy=32`` tileorch does not apply: each gets a
  located ``warning:`` at the user's line.
* :data:`REJECTED_BY_CUTILE`: a dot whose inner dims differ after a ``reshape``, ``mma`` with an int8
  or (f16 operands) an int32 accumulator, a loop-carried tile changing dtype, a gather by a bool
  tile, a load or an ``extract`` of a zero-size shape, a store into a ``Constant``: cuTile's front
  end says no at the user's line, so tileorch never sees them.

:data:`LAUNCH` is a plain program the launch-time mistakes of tests/unit/test_user_sweep24_invalid.py
call.  Importing it needs ``cuda.tile``."""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

F32, F16, I8, I32, I64, B = "float32", "float16", "int8", "int32", "int64", "bool_"
C = ct.Constant


# ----------------------------------------------------------------------------------------------- what users get wrong


@ct.kernel
def attention_scores_of_512_rows_in_one_mma(Q, K, S, BM: C[int]):
    """``S = Q @ K^T`` of 512 queries by 512 keys in one ``mma`` (a ``512 x 512`` f32 accumulator:
    2048 registers per thread on 128 threads)."""
    q = ct.load(Q, index=(0, 0), shape=(BM, 64))
    k = ct.load(K, index=(0, 0), shape=(64, BM))
    ct.store(S, index=(0, 0), tile=ct.mma(q, k, ct.zeros((BM, BM), dtype=ct.float32)))


@ct.kernel
def printf_a_whole_512x512_tile(X, BN: C[int]):
    """Debugging by ``ct.printf("%f", x)`` of a ``512 x 512`` tile (its exchange takes a megabyte of
    shared memory)."""
    x = ct.load(X, index=(0, 0), shape=(BN, BN))
    ct.printf("%f\n", x)


INVALID: dict[str, UserProgram] = {}
"""The programs above as :class:`UserProgram` with path "error": ``error`` is part of the message and
``notes`` the source text of the line the error must name."""
_bad = registrar(INVALID)
_bad("attention_scores_of_512_rows_in_one_mma", attention_scores_of_512_rows_in_one_mma,
     [((512, 64), F16), ((64, 512), F16), ((512, 512), F32), 512], (1,), "error",
     error="a tile of 262144 elements is too large", notes="ct.mma(q, k, ct.zeros((BM, BM)")
_bad("printf_a_whole_512x512_tile", printf_a_whole_512x512_tile, [((512, 512), F32), 512], (1,), "error",
     error="bytes of shared scratch", notes='ct.printf("%f\\n", x)')


# ----------------------------------------------------------------------------------------------- compiles, warned


@ct.kernel
def bucket_of_each_id_by_a_zero_bucket_size(Ids, Y, BN: C[int], SIZE: C[int]):
    """``ids // SIZE`` with the bucket size given as 0 (a config left at its default)."""
    x = ct.load(Ids, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=x // SIZE)


@ct.kernel
def slot_in_a_ring_of_zero_slots(Ids, Y, BN: C[int], RING: C[int]):
    """``ids % RING`` with a ring of 0 slots."""
    x = ct.load(Ids, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=x % RING)


@ct.kernel
def rows_per_head_of_zero_heads(X, Y, BN: C[int], HEADS: C[int]):
    """The rows per head, ``X.shape[0] // HEADS``, with 0 heads."""
    n = X.shape[0] // HEADS
    ct.store(Y, index=(0,), tile=ct.full((BN,), n, dtype=ct.int32))


@ct.kernel
def pack_two_words_by_a_shift_of_32(Lo, Y, BN: C[int], S: C[int]):
    """Two 32-bit words packed with ``lo << 32`` on the int32 tile (the user meant an int64 one)."""
    x = ct.load(Lo, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=x << S)


@ct.kernel
def sign_of_int64_by_a_shift_of_64(X, Y, BN: C[int]):
    """``x >> 64`` of an int64 tile for its sign (the width, not the width - 1)."""
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=x >> 64)


@ct.kernel
def assert_false_left_from_debugging(X, Y, BN: C[int]):
    """``ct.assert_`` of an all-false tile left in from debugging: every program traps."""
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.assert_(ct.full((BN,), False, dtype=ct.bool_), "unreachable")
    ct.store(Y, index=(0,), tile=x)


@ct.kernel
def last_tile_by_a_negative_index(X, Y, BN: C[int]):
    """The last tile of ``X`` read and written as ``index=(-1,)`` (Python's negative indexing: a view's
    tiles count from 0, so the load gives padding and the store writes nothing)."""
    x = ct.load(X, index=(-1,), shape=(BN,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(Y, index=(-1,), tile=x + 1.0)


@ct.kernel(num_ctas=16)
def copy_with_a_cluster_of_16(X, Y, BN: C[int]):
    """A copy with ``num_ctas=16`` (H100's largest, non-portable cluster): one CTA per program."""
    ct.store(Y, index=(0,), tile=ct.load(X, index=(0,), shape=(BN,)))


@ct.kernel(occupancy=32)
def copy_with_occupancy_32(X, Y, BN: C[int]):
    """A copy with ``occupancy=32`` (32 CTAs per SM: more threads than an SM holds at 128 a CTA)."""
    ct.store(Y, index=(0,), tile=ct.load(X, index=(0,), shape=(BN,)))


WARNED: dict[str, tuple] = {
    # name: (kernel, spec, words of the warning, the source text of the line it names)
    "bucket_of_each_id_by_a_zero_bucket_size": (bucket_of_each_id_by_a_zero_bucket_size,
                                                [((128,), I32), ((128,), I32), 128, 0],
                                                "integer division by the constant 0", "tile=x // SIZE"),
    "slot_in_a_ring_of_zero_slots": (slot_in_a_ring_of_zero_slots, [((128,), I32), ((128,), I32), 128, 0],
                                     "integer remainder by the constant 0", "tile=x % RING"),
    "rows_per_head_of_zero_heads": (rows_per_head_of_zero_heads, [((128,), I32), ((128,), I32), 128, 0],
                                    "integer division by the constant 0", "X.shape[0] // HEADS"),
    "pack_two_words_by_a_shift_of_32": (pack_two_words_by_a_shift_of_32, [((128,), I32), ((128,), I32), 128, 32],
                                        "shift of 32-bit integers by 32", "tile=x << S"),
    "sign_of_int64_by_a_shift_of_64": (sign_of_int64_by_a_shift_of_64, [((128,), I64), ((128,), I64), 128],
                                       "shift of 64-bit integers by 64", "tile=x >> 64"),
    "assert_false_left_from_debugging": (assert_false_left_from_debugging, [((128,), F32), ((128,), F32), 128],
                                         "assert of a condition that is always false", "ct.assert_("),
    "last_tile_read_by_a_negative_index": (last_tile_by_a_negative_index, [((256,), F32), ((256,), F32), 128],
                                           "tile index -1 along dimension 0 is negative", "index=(-1,), shape=(BN,)"),
    "last_tile_written_by_a_negative_index": (last_tile_by_a_negative_index, [((256,), F32), ((256,), F32), 128],
                                              "so the store writes nothing", "ct.store(Y, index=(-1,)"),
    "copy_with_a_cluster_of_16": (copy_with_a_cluster_of_16, [((128,), F32), ((128,), F32), 128],
                                  "num_ctas=16 (cuTile's CTAs per cluster) is not applied", None),
    "copy_with_occupancy_32": (copy_with_occupancy_32, [((128,), F32), ((128,), F32), 128],
                               "occupancy=32 (cuTile's hint of CTAs resident per SM) is not applied", None),
}
"""Programs that compile with a located ``warning:`` holding the words, at the line holding the text
(None: the kernel's ``def`` line, where launch hints are located)."""


# ----------------------------------------------------------------------------------------------- cuTile says no


@ct.kernel
def dot_of_a_reshaped_key_tile(A, B, Y, BM: C[int], BK: C[int]):
    """``a @ b`` where ``b`` was reshaped from ``(BK, BM)`` to ``(BM, BK)`` instead of transposed."""
    a = ct.load(A, index=(0, 0), shape=(BM, BK))
    b = ct.reshape(ct.load(B, index=(0, 0), shape=(BK, BM)), (BM, BK))
    ct.store(Y, index=(0, 0), tile=ct.mma(a, b, ct.zeros((BM, BK), dtype=ct.float32)))


@ct.kernel
def int8_gemm_into_an_int8_accumulator(A, B, Y, BM: C[int]):
    """An int8 GEMM accumulating in int8 (the accumulator is int32)."""
    a = ct.load(A, index=(0, 0), shape=(BM, BM))
    b = ct.load(B, index=(0, 0), shape=(BM, BM))
    ct.store(Y, index=(0, 0), tile=ct.mma(a, b, ct.zeros((BM, BM), dtype=ct.int8)))


@ct.kernel
def f16_gemm_into_an_int32_accumulator(A, B, Y, BM: C[int]):
    """An f16 GEMM whose accumulator was copied from the int8 kernel (int32)."""
    a = ct.load(A, index=(0, 0), shape=(BM, BM))
    b = ct.load(B, index=(0, 0), shape=(BM, BM))
    ct.store(Y, index=(0, 0), tile=ct.mma(a, b, ct.zeros((BM, BM), dtype=ct.int32)))


@ct.kernel
def running_sum_narrowed_in_the_loop(X, Y, BN: C[int]):
    """An f32 running sum narrowed to f16 inside the loop (the carried tile changes dtype)."""
    acc = ct.zeros((BN,), dtype=ct.float32)
    for k in range(4):
        acc = (acc + ct.load(X, index=(k,), shape=(BN,))).astype(ct.float16)
    ct.store(Y, index=(0,), tile=acc)


@ct.kernel
def gather_by_a_bool_mask(X, M, Y, BN: C[int]):
    """``ct.gather(X, mask)`` with a bool mask as the index (numpy's boolean indexing)."""
    m = ct.load(M, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.gather(X, m))


@ct.kernel
def load_of_an_empty_column_block(X, Y, BN: C[int], W: C[int]):
    """A ``(BN, W)`` load with ``W = 0`` (a view with a zero-size dimension)."""
    x = ct.load(X, index=(0, 0), shape=(BN, W))
    ct.store(Y, index=(0, 0), tile=x)


@ct.kernel
def extract_of_an_empty_piece(X, Y, BN: C[int]):
    """``ct.extract(x, (0,), (0,))``: a piece of no elements."""
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.extract(x, (0,), (0,)))


@ct.kernel
def store_into_the_tile_size(X, Y, BN: C[int]):
    """``ct.store(BN, ...)``: the arguments shifted by one (a store into a ``Constant``)."""
    ct.store(BN, index=(0,), tile=ct.load(X, index=(0,), shape=(BN,)))


REJECTED_BY_CUTILE: dict[str, tuple] = {
    # name: (kernel, spec, words of cuTile's message, the source text of the line it names)
    "dot_of_a_reshaped_key_tile": (dot_of_a_reshaped_key_tile, [((64, 64), F16), ((64, 64), F16), ((64, 64), F32), 64,
                                                                32], "Incompatible shapes for matrix mul", "ct.mma(a, b"),
    "int8_gemm_into_an_int8_accumulator": (int8_gemm_into_an_int8_accumulator,
                                           [((64, 64), I8), ((64, 64), I8), ((64, 64), I8), 64],
                                           "Unsupported acc dtype int8", "ct.mma(a, b"),
    "f16_gemm_into_an_int32_accumulator": (f16_gemm_into_an_int32_accumulator,
                                           [((64, 64), F16), ((64, 64), F16), ((64, 64), I32), 64],
                                           "Unsupported acc dtype int32", "ct.mma(a, b"),
    "running_sum_narrowed_in_the_loop": (running_sum_narrowed_in_the_loop, [((512,), F32), ((128,), F16), 128],
                                         "depends on path taken", "acc = (acc + ct.load("),
    "gather_by_a_bool_mask": (gather_by_a_bool_mask, [((128,), F32), ((128,), B), ((128,), F32), 128],
                              "Expected a tuple of integer scalars/tiles", "ct.gather(X, m)"),
    "load_of_an_empty_column_block": (load_of_an_empty_column_block, [((64, 64), F32), ((64, 64), F32), 64, 0],
                                      "is not positive", "shape=(BN, W)"),
    "extract_of_an_empty_piece": (extract_of_an_empty_piece, [((128,), F32), ((128,), F32), 128], "is not positive",
                                  "ct.extract(x, (0,), (0,))"),
    "store_into_the_tile_size": (store_into_the_tile_size, [((128,), F32), ((128,), F32), 128], "Expected an array",
                                 "ct.store(BN"),
}
"""Mistakes cuTile 1.7's front end rejects before tileorch sees a program: its message holds the words
and names the user's line."""


# ----------------------------------------------------------------------------------------------- launch mistakes


@ct.kernel
def scale_by_two(X, Y, BN: C[int]):
    """``Y = 2 X`` by ``BN``-element tiles, one per program (the launch-time mistakes' kernel)."""
    i = ct.bid(0)
    ct.store(Y, index=(i,), tile=ct.load(X, index=(i,), shape=(BN,)) * 2.0)


LAUNCH = scale_by_two
