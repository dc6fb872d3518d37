#!/usr/bin/env python3
"""Hand-written invalid and edge-case cuTile programs, as a user gets them wrong (run outside CI;
needs cuda-tile):

    python tools/cutile_edge_cases.py [--only NAME,...] [--no-ptxas] [--out DIR]

Each case is exported by cuTile (:func:`tileorch.testing.export.cutile_bytecode`); a case cuTile
refuses is reported as such (its exporter's problem, not tileorch's).  An exported case is
compiled twice: ``tileorch compile CASE.tileirbc --remarks --no-cache`` in a child process and
``tileorch.compile(bytes)`` in process.  Printed per case: the outcome of each, the first error
line (or the path remark), and whether the outcome breaks the front-door property (exit 0, or
exit 1 with every ``error:`` line located; never a traceback, an internal error, a signal or a
hang; the API raises ``CompileError`` with located lines).  Exit status 1 if any case breaks it.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import cuda.tile as ct  # noqa: E402

ZERO = ct.PaddingMode.ZERO
CASES: dict[str, tuple] = {}


def case(name: str, spec: list, note: str):
    def add(kernel):
        CASES[name] = (kernel, spec, note)
        return kernel
    return add


F32_1D = ((1024,), "float32")
F16_2D = ((256, 256), "float16")
F32_2D = ((256, 256), "float32")


# ------------------------------------------------------------------------------------------ tile shapes
@case("shape_not_pow2", [F32_1D, F32_1D, 48], "ct.load with a 48-element tile")
@ct.kernel
def shape_not_pow2(x, y, n: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(n,)))


@case("shape_not_pow2_2d", [F32_2D, F32_2D, 24, 64], "a 24x64 tile")
@ct.kernel
def shape_not_pow2_2d(x, y, a: ct.Constant[int], b: ct.Constant[int]):
    ct.store(y, index=(0, 0), tile=ct.load(x, index=(0, 0), shape=(a, b)))


@case("zeros_not_pow2", [F32_1D, 100], "ct.zeros((100,))")
@ct.kernel
def zeros_not_pow2(y, n: ct.Constant[int]):
    ct.store(y, index=(0,), tile=ct.zeros((n,), dtype=ct.float32))


@case("zero_size_tile", [F32_1D, F32_1D, 0], "a 0-element tile")
@ct.kernel
def zero_size_tile(x, y, n: ct.Constant[int]):
    ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(n,)))


@case("zero_size_zeros", [F32_2D, 0], "ct.zeros((0, 16))")
@ct.kernel
def zero_size_zeros(y, n: ct.Constant[int]):
    ct.store(y, index=(0, 0), tile=ct.zeros((n, 16), dtype=ct.float32))


@case("huge_row_1x1m", [((1, 1 << 20), "float32"), ((1, 1 << 20), "float32"), 1 << 20],
      "a 1x1048576 f32 tile (4 MiB)")
@ct.kernel
def huge_row_1x1m(x, y, n: ct.Constant[int]):
    ct.store(y, index=(0, 0), tile=ct.exp(ct.load(x, index=(0, 0), shape=(1, n))))


@case("huge_sum_1x1m", [((1, 1 << 20), "float32"), ((1,), "float32"), 1 << 20],
      "a sum over a 1x1048576 f32 tile")
@ct.kernel
def huge_sum_1x1m(x, y, n: ct.Constant[int]):
    t = ct.load(x, index=(0, 0), shape=(1, n))
    ct.store(y, index=(0,), tile=ct.sum(t, axis=1))


@case("huge_acc_512", [((1024, 1024), "float16"), ((1024, 1024), "float16"), ((1024, 1024), "float32"), 512, 512, 64],
      "a 512x512 f32 accumulator (1 MiB) GEMM")
@ct.kernel
def huge_acc_512(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc)


@case("huge_acc_512_simt", [((1024, 1024), "float16"), ((1024, 1024), "float16"), ((1024, 1024), "float32"),
                            512, 512, 64],
      "the 512x512 accumulator with an epilogue the tier does not take (exp)")
@ct.kernel
def huge_acc_512_simt(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=ct.cumsum(acc, axis=1))


@case("big_k_tile", [((1024, 1024), "float16"), ((1024, 1024), "float16"), ((1024, 1024), "float32"), 128, 256, 512],
      "a 128x256 accumulator with K tiles of 512 (operand stages of 384 KiB)")
@ct.kernel
def big_k_tile(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc)


@case("big_2d_elementwise", [((4096, 4096), "float32"), ((4096, 4096), "float32"), 256, 256],
      "a 256x256 f32 elementwise tile (64K elements)")
@ct.kernel
def big_2d_elementwise(x, y, a: ct.Constant[int], b: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(a, b))
    ct.store(y, index=(ct.bid(0), 0), tile=t * 2.0 + 1.0)


@case("big_transpose", [((4096, 4096), "float32"), ((4096, 4096), "float32"), 128, 128],
      "a 128x128 f32 transpose (an exchange through shared memory of 64 KiB)")
@ct.kernel
def big_transpose(x, y, a: ct.Constant[int], b: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), ct.bid(1)), shape=(a, b))
    ct.store(y, index=(ct.bid(1), ct.bid(0)), tile=ct.transpose(t))


@case("big_transpose_256", [((4096, 4096), "float32"), ((4096, 4096), "float32"), 256, 256],
      "a 256x256 f32 transpose (256 KiB through shared memory)")
@ct.kernel
def big_transpose_256(x, y, a: ct.Constant[int], b: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), ct.bid(1)), shape=(a, b))
    ct.store(y, index=(ct.bid(1), ct.bid(0)), tile=ct.transpose(t))


@case("big_col_sum", [((4096, 4096), "float32"), ((4096,), "float32"), 256, 256],
      "a column sum of a 256x256 f32 tile")
@ct.kernel
def big_col_sum(x, y, a: ct.Constant[int], b: ct.Constant[int]):
    t = ct.load(x, index=(0, ct.bid(0)), shape=(a, b))
    ct.store(y, index=(ct.bid(0),), tile=ct.sum(t, axis=0))


# ------------------------------------------------------------------------------------------ mma
@case("mma_k_mismatch", [F16_2D, F16_2D, F32_2D], "a (64,32) x (16,64) mma")
@ct.kernel
def mma_k_mismatch(A, B, C):
    acc = ct.zeros((64, 64), dtype=ct.float32)
    acc = ct.mma(ct.load(A, index=(0, 0), shape=(64, 32)), ct.load(B, index=(0, 0), shape=(16, 64)), acc)
    ct.store(C, index=(0, 0), tile=acc)


@case("mma_acc_shape_mismatch", [F16_2D, F16_2D, F32_2D], "a 64x64 product into a 64x32 accumulator")
@ct.kernel
def mma_acc_shape_mismatch(A, B, C):
    acc = ct.zeros((64, 32), dtype=ct.float32)
    acc = ct.mma(ct.load(A, index=(0, 0), shape=(64, 32)), ct.load(B, index=(0, 0), shape=(32, 64)), acc)
    ct.store(C, index=(0, 0), tile=acc)


@case("mma_int_acc_for_f16", [F16_2D, F16_2D, ((256, 256), "int32")], "f16 x f16 into an int32 accumulator")
@case("mma_i32_operands", [((256, 256), "int32"), ((256, 256), "int32"), ((256, 256), "int32")],
      "int32 x int32 mma")
@case("mma_i16_operands", [((256, 256), "int16"), ((256, 256), "int16"), ((256, 256), "int32")],
      "int16 x int16 mma")
@case("mma_u8_i8", [((256, 256), "uint8"), ((256, 256), "int8"), ((256, 256), "int32")], "uint8 x int8 mma")
@ct.kernel
def mma_64x64_i32_acc(A, B, C):
    """One 64x32 by 32x64 mma into an int32 accumulator: the cases above differ only in their operands' types."""
    acc = ct.zeros((64, 64), dtype=ct.int32)
    acc = ct.mma(ct.load(A, index=(0, 0), shape=(64, 32)), ct.load(B, index=(0, 0), shape=(32, 64)), acc)
    ct.store(C, index=(0, 0), tile=acc)


@case("mma_dtype_mix", [F16_2D, ((256, 256), "bfloat16"), F32_2D], "f16 x bf16 mma")
@case("mma_i8_f32_acc", [((256, 256), "int8"), ((256, 256), "int8"), F32_2D], "int8 x int8 into an f32 accumulator")
@case("mma_fp8_mixed", [((256, 256), "float8_e4m3fn"), ((256, 256), "float8_e5m2"), F32_2D], "e4m3 x e5m2 mma")
@case("mma_f32_tf32", [F32_2D, F32_2D, F32_2D], "f32 x f32 mma (tf32 or f32 FMA)")
@ct.kernel
def mma_64x64_f32_acc(A, B, C):
    """One 64x32 by 32x64 mma into a float32 accumulator: the cases above differ only in their operands' types."""
    acc = ct.zeros((64, 64), dtype=ct.float32)
    acc = ct.mma(ct.load(A, index=(0, 0), shape=(64, 32)), ct.load(B, index=(0, 0), shape=(32, 64)), acc)
    ct.store(C, index=(0, 0), tile=acc)


@case("mma_tiny_1x1", [F16_2D, F16_2D, F32_2D], "a 1x1x1 mma")
@ct.kernel
def mma_tiny_1x1(A, B, C):
    acc = ct.zeros((1, 1), dtype=ct.float32)
    acc = ct.mma(ct.load(A, index=(0, 0), shape=(1, 1)), ct.load(B, index=(0, 0), shape=(1, 1)), acc)
    ct.store(C, index=(0, 0), tile=acc)


@case("mma_1d", [((256,), "float16"), ((256,), "float16"), ((256,), "float32")], "an mma of 1-D tiles")
@ct.kernel
def mma_1d(A, B, C):
    acc = ct.zeros((64,), dtype=ct.float32)
    acc = ct.mma(ct.load(A, index=(0,), shape=(64,)), ct.load(B, index=(0,), shape=(64,)), acc)
    ct.store(C, index=(0,), tile=acc)


@case("mma_f64_acc_f16", [F16_2D, F16_2D, ((256, 256), "float64")], "f16 x f16 into an f64 accumulator")
@ct.kernel
def mma_f64_acc_f16(A, B, C):
    acc = ct.zeros((64, 64), dtype=ct.float64)
    acc = ct.mma(ct.load(A, index=(0, 0), shape=(64, 32)), ct.load(B, index=(0, 0), shape=(32, 64)), acc)
    ct.store(C, index=(0, 0), tile=acc)


@case("mma_scaled_mx", [((256, 256), "float8_e4m3fn"), ((256, 8), "float8_e8m0fnu"), ((256, 256), "float8_e4m3fn"),
                        ((8, 256), "float8_e8m0fnu"), F32_2D], "ct.mma_scaled (MX block scaling, sm_100 only)")
@ct.kernel
def mma_scaled_mx(A, SA, B, SB, C):
    acc = ct.zeros((128, 128), dtype=ct.float32)
    a = ct.load(A, index=(0, 0), shape=(128, 128))
    sa = ct.load(SA, index=(0, 0), shape=(128, 4))
    b = ct.load(B, index=(0, 0), shape=(128, 128))
    sb = ct.load(SB, index=(0, 0), shape=(4, 128))
    acc = ct.mma_scaled(a, sa, b, sb, acc)
    ct.store(C, index=(0, 0), tile=acc)


# ------------------------------------------------------------------------------------------ elementwise
@case("broadcast_mismatch", [F32_1D, F32_1D], "a (64,) + (32,) tile")
@ct.kernel
def broadcast_mismatch(x, y):
    a = ct.load(x, index=(0,), shape=(64,))
    b = ct.load(x, index=(0,), shape=(32,))
    ct.store(y, index=(0,), tile=a + b)


@case("dtype_mix_add", [((1024,), "float16"), F32_1D, F32_1D], "f16 tile + f32 tile")
@ct.kernel
def dtype_mix_add(x, z, y):
    ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(64,)) + ct.load(z, index=(0,), shape=(64,)))


@case("store_f32_into_f16", [F32_1D, ((1024,), "float16")], "an f32 tile stored into an f16 array")
@ct.kernel
def store_f32_into_f16(x, y):
    ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(64,)))


@case("store_wrong_rank", [F32_2D, F32_2D], "a 1-D tile stored into a 2-D array")
@ct.kernel
def store_wrong_rank(x, y):
    ct.store(y, index=(0, 0), tile=ct.load(x, index=(0, 0), shape=(1, 64)).reshape((64,)))


@case("store_wrong_shape_tile", [F32_2D, F32_2D], "a 64x64 tile stored through a 32x64 view index")
@ct.kernel
def store_wrong_shape_tile(x, y):
    t = ct.load(x, index=(0, 0), shape=(64, 64))
    ct.store(y, index=(3, 0), tile=t)


@case("exp_of_int", [((1024,), "int32"), F32_1D], "ct.exp of an int32 tile")
@ct.kernel
def exp_of_int(x, y):
    ct.store(y, index=(0,), tile=ct.exp(ct.load(x, index=(0,), shape=(64,))))


@case("int_div_by_zero", [((1024,), "int32"), ((1024,), "int32")], "t // 0 on int32")
@ct.kernel
def int_div_by_zero(x, y):
    ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(64,)) // 0)


@case("shift_by_64", [((1024,), "int32"), ((1024,), "int32")], "an int32 tile shifted by 64")
@ct.kernel
def shift_by_64(x, y):
    ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(64,)) << 64)


@case("f64_math", [((1024,), "float64"), ((1024,), "float64")], "exp/tanh/rsqrt on f64")
@ct.kernel
def f64_math(x, y):
    t = ct.load(x, index=(0,), shape=(64,))
    ct.store(y, index=(0,), tile=ct.exp(t) + ct.tanh(t) + ct.rsqrt(t))


@case("uint64_ops", [((1024,), "uint64"), ((1024,), "uint64")], "uint64 division, shift, compare")
@ct.kernel
def uint64_ops(x, y):
    t = ct.load(x, index=(0,), shape=(64,))
    ct.store(y, index=(0,), tile=ct.where(t > 5, t // 3, t >> 2))


@case("bitcast_f32_i32", [F32_1D, ((1024,), "int32")], "ct.bitcast f32 -> i32")
@ct.kernel
def bitcast_f32_i32(x, y):
    ct.store(y, index=(0,), tile=ct.bitcast(ct.load(x, index=(0,), shape=(64,)), ct.int32))


@case("astype_fp4", [F32_1D, F32_1D], "astype to float4_e2m1fn and back")
@ct.kernel
def astype_fp4(x, y):
    t = ct.load(x, index=(0,), shape=(64,))
    ct.store(y, index=(0,), tile=t.astype(ct.float4_e2m1fn).astype(ct.float32))


@case("astype_e8m0", [F32_1D, F32_1D], "astype to float8_e8m0fnu and back")
@ct.kernel
def astype_e8m0(x, y):
    t = ct.load(x, index=(0,), shape=(64,))
    ct.store(y, index=(0,), tile=t.astype(ct.float8_e8m0fnu).astype(ct.float32))


# ------------------------------------------------------------------------------------------ indices
@case("index_out_of_range", [F32_1D, F32_1D], "a constant tile index far past the array (1000000)")
@ct.kernel
def index_out_of_range(x, y):
    ct.store(y, index=(0,), tile=ct.load(x, index=(1000000,), shape=(64,), padding_mode=ZERO))


@case("index_negative", [F32_1D, F32_1D], "a constant tile index of -1")
@ct.kernel
def index_negative(x, y):
    ct.store(y, index=(0,), tile=ct.load(x, index=(-1,), shape=(64,)))


@case("index_2pow31", [F32_1D, F32_1D], "a constant tile index of 2^31")
@ct.kernel
def index_2pow31(x, y):
    ct.store(y, index=(0,), tile=ct.load(x, index=(2147483648,), shape=(64,)))


@case("index_wrong_rank", [F32_2D, F32_2D], "a 1-index tuple on a 2-D array")
@ct.kernel
def index_wrong_rank(x, y):
    ct.store(y, index=(0, 0), tile=ct.load(x, index=(0,), shape=(64, 64)))


@case("shape_wrong_rank", [F32_2D, F32_2D], "a 1-D shape on a 2-D array")
@ct.kernel
def shape_wrong_rank(x, y):
    ct.store(y, index=(0, 0), tile=ct.load(x, index=(0, 0), shape=(64,)))


@case("bid_axis_3", [F32_1D, F32_1D], "ct.bid(3)")
@ct.kernel
def bid_axis_3(x, y):
    ct.store(y, index=(ct.bid(3),), tile=ct.load(x, index=(0,), shape=(64,)))


@case("extract_out_of_range", [F32_1D, F32_1D], "ct.extract past the tile")
@ct.kernel
def extract_out_of_range(x, y):
    t = ct.load(x, index=(0,), shape=(64,))
    ct.store(y, index=(0,), tile=ct.extract(t, index=(5,), shape=(16,)))


@case("gather_float_index", [F32_1D, F32_1D, F32_1D], "ct.gather with float indices")
@ct.kernel
def gather_float_index(x, i, y):
    ct.store(y, index=(0,), tile=ct.gather(x, ct.load(i, index=(0,), shape=(64,))))


@case("gather_far_constant", [F32_1D, F32_1D], "ct.gather at constant 2^40 (int64 index)")
@ct.kernel
def gather_far_constant(x, y):
    idx = ct.arange(64, dtype=ct.int64) + 1099511627776
    ct.store(y, index=(0,), tile=ct.gather(x, idx))


# ------------------------------------------------------------------------------------------ shape ops
@case("reduce_missing_axis", [F32_2D, F32_1D], "ct.sum over axis 2 of a 2-D tile")
@ct.kernel
def reduce_missing_axis(x, y):
    ct.store(y, index=(0,), tile=ct.sum(ct.load(x, index=(0, 0), shape=(64, 64)), axis=2))


@case("reduce_axis_neg3", [F32_2D, F32_1D], "ct.max over axis -3 of a 2-D tile")
@ct.kernel
def reduce_axis_neg3(x, y):
    ct.store(y, index=(0,), tile=ct.max(ct.load(x, index=(0, 0), shape=(64, 64)), axis=-3))


@case("reshape_wrong_numel", [F32_1D, F32_2D], "ct.reshape of 64 elements to 16x8")
@ct.kernel
def reshape_wrong_numel(x, y):
    ct.store(y, index=(0, 0), tile=ct.reshape(ct.load(x, index=(0,), shape=(64,)), (16, 8)))


@case("permute_bad", [((64, 64, 64), "float32"), ((64, 64, 64), "float32")], "ct.permute with (0, 0, 1)")
@ct.kernel
def permute_bad(x, y):
    ct.store(y, index=(0, 0, 0), tile=ct.permute(ct.load(x, index=(0, 0, 0), shape=(4, 8, 16)), (0, 0, 1)))


@case("broadcast_to_bad", [F32_1D, F32_2D], "ct.broadcast_to (64,) -> (64, 32)")
@ct.kernel
def broadcast_to_bad(x, y):
    ct.store(y, index=(0, 0), tile=ct.broadcast_to(ct.load(x, index=(0,), shape=(64,)), (64, 32)))


@case("cat_tiles", [F32_1D, F32_1D], "ct.cat of two 32-element tiles")
@ct.kernel
def cat_tiles(x, y):
    a = ct.load(x, index=(0,), shape=(32,))
    b = ct.load(x, index=(1,), shape=(32,))
    ct.store(y, index=(0,), tile=ct.cat((a, b), axis=0))


@case("rank5_tile", [((2, 2, 2, 2, 64), "float32"), ((2, 2, 2, 2, 64), "float32")], "a rank-5 tile")
@ct.kernel
def rank5_tile(x, y):
    t = ct.load(x, index=(0, 0, 0, 0, 0), shape=(2, 2, 2, 2, 64))
    ct.store(y, index=(0, 0, 0, 0, 0), tile=t + 1.0)


@case("pack_unpack_bytes", [F32_1D, F32_1D], "ct.pack_to_bytes / ct.unpack_from_bytes")
@ct.kernel
def pack_unpack_bytes(x, y):
    t = ct.load(x, index=(0,), shape=(64,))
    ct.store(y, index=(0,), tile=ct.unpack_from_bytes(ct.pack_to_bytes(t), ct.float32))


@case("load_advanced_indexing", [F32_2D, F32_2D], "ct.load_advanced_indexing")
@ct.kernel
def load_advanced_indexing(x, y):
    rows = ct.arange(16, dtype=ct.int32)
    t = ct.load_advanced_indexing(x, (rows, slice(None)), shape=(16, 64))
    ct.store(y, index=(0, 0), tile=t)


# ------------------------------------------------------------------------------------------ control flow
@case("loop_runtime_step", [F32_1D, F32_1D, 3], "for i in range(0, 16, s) with a runtime step")
@ct.kernel
def loop_runtime_step(x, y, s: int):
    acc = ct.zeros((64,), dtype=ct.float32)
    for i in range(0, 16, s):
        acc = acc + ct.load(x, index=(i,), shape=(64,), padding_mode=ZERO)
    ct.store(y, index=(0,), tile=acc)


@case("loop_zero_step", [F32_1D, F32_1D, 0], "for i in range(0, 16, s) with s == 0 (runtime)")
@ct.kernel
def loop_zero_step(x, y, s: int):
    acc = ct.zeros((64,), dtype=ct.float32)
    for i in range(0, 16, s):
        acc = acc + ct.load(x, index=(i,), shape=(64,), padding_mode=ZERO)
    ct.store(y, index=(0,), tile=acc)


@case("loop_const_zero_step", [F32_1D, F32_1D], "for i in range(0, 16, 0)")
@ct.kernel
def loop_const_zero_step(x, y):
    acc = ct.zeros((64,), dtype=ct.float32)
    for i in range(0, 16, 0):
        acc = acc + ct.load(x, index=(i,), shape=(64,), padding_mode=ZERO)
    ct.store(y, index=(0,), tile=acc)


@case("loop_negative_step", [F32_1D, F32_1D], "for i in range(15, -1, -1)")
@ct.kernel
def loop_negative_step(x, y):
    acc = ct.zeros((64,), dtype=ct.float32)
    for i in range(15, -1, -1):
        acc = acc + ct.load(x, index=(i,), shape=(64,), padding_mode=ZERO)
    ct.store(y, index=(0,), tile=acc)


@case("loop_huge_trip", [F32_1D, F32_1D], "for i in range(2^31 - 1)")
@ct.kernel
def loop_huge_trip(x, y):
    acc = ct.zeros((64,), dtype=ct.float32)
    for i in range(2147483647):
        acc = acc + 1.0
    ct.store(y, index=(0,), tile=acc)


@ct.function
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)


@case("recursion", [F32_1D, F32_1D, 5], "a recursive ct.function")
@ct.kernel
def recursion(x, y, n: int):
    ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(64,)) * fact(n))


@case("while_true_no_exit", [F32_1D], "while True without a break")
@ct.kernel
def while_true_no_exit(y):
    i = 0
    while True:
        i += 1
    ct.store(y, index=(0,), tile=ct.zeros((64,), dtype=ct.float32))


@case("no_store", [F32_1D], "a kernel that stores nothing")
@ct.kernel
def no_store(x):
    t = ct.load(x, index=(0,), shape=(64,))
    t = t + 1.0


@case("grid_dependency_control", [F32_1D, F32_1D], "ct.grid_dependency_control_wait / launch_dependents")
@ct.kernel
def grid_dependency_control(x, y):
    ct.grid_dependency_control_wait()
    ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(64,)))
    ct.grid_dependency_control_launch_dependents()


@case("atomic_cas_f16", [((1024,), "float16"), ((1024,), "float16")], "ct.atomic_cas on f16")
@ct.kernel
def atomic_cas_f16(x, y):
    idx = ct.arange(64, dtype=ct.int32)
    ct.atomic_cas(y, idx, ct.load(x, index=(0,), shape=(64,)), ct.load(x, index=(1,), shape=(64,)))


@case("atomic_add_i8", [((1024,), "int8"), ((1024,), "int8")], "ct.atomic_add on int8")
@ct.kernel
def atomic_add_i8(x, y):
    idx = ct.arange(64, dtype=ct.int32)
    ct.atomic_add(y, idx, ct.load(x, index=(0,), shape=(64,)))


# ------------------------------------------------------------------------------------------ more
@case("mma_batched_mismatch", [((4, 64, 64), "float16"), ((2, 64, 64), "float16"), ((4, 64, 64), "float32")],
      "a 3-D mma with batch 2 against batch 1")
@ct.kernel
def mma_batched_mismatch(A, B, C):
    acc = ct.zeros((2, 64, 64), dtype=ct.float32)
    acc = ct.mma(ct.load(A, index=(0, 0, 0), shape=(2, 64, 32)), ct.load(B, index=(0, 0, 0), shape=(1, 32, 64)), acc)
    ct.store(C, index=(0, 0, 0), tile=acc)


@case("fp8_add", [((1024,), "float8_e4m3fn"), ((1024,), "float8_e4m3fn")], "e4m3 tile + e4m3 tile")
@ct.kernel
def fp8_add(x, y):
    t = ct.load(x, index=(0,), shape=(64,))
    ct.store(y, index=(0,), tile=t + t)


@case("f16_overflow_constant", [((1024,), "float16"), ((1024,), "float16")], "an f16 tile times 70000.0")
@ct.kernel
def f16_overflow_constant(x, y):
    ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(64,)) * ct.full((64,), 70000.0, dtype=ct.float16))


@case("nan_constant_arg", [F32_1D, F32_1D, float("nan")], "a ct.Constant[float] of NaN")
@ct.kernel
def nan_constant_arg(x, y, c: ct.Constant[float]):
    ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(64,)) + c)


@case("unicode_kernel_name", [F32_1D, F32_1D], "a kernel named with non-ASCII letters")
@ct.kernel
def ядро(x, y):
    ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(64,)))


@case("static_iter_4096", [F32_1D, F32_1D], "ct.static_iter over 4096 steps (unrolled by cuTile)")
@ct.kernel
def static_iter_4096(x, y):
    acc = ct.zeros((64,), dtype=ct.float32)
    for i in ct.static_iter(range(4096)):
        acc = acc * 0.5 + i
    ct.store(y, index=(0,), tile=acc)


@case("deep_loops", [F32_1D, F32_1D, 2], "8 nested runtime loops")
@ct.kernel
def deep_loops(x, y, n: int):
    acc = ct.zeros((64,), dtype=ct.float32)
    for a in range(n):
        for b in range(n):
            for c in range(n):
                for d in range(n):
                    for e in range(n):
                        for f in range(n):
                            for g in range(n):
                                for h in range(n):
                                    acc = acc + 1.0
    ct.store(y, index=(0,), tile=acc)


@case("arange_16m", [((1 << 24,), "int32")], "ct.arange(2^24) stored")
@ct.kernel
def arange_16m(y):
    ct.store(y, index=(0,), tile=ct.arange(1 << 24, dtype=ct.int32))


@case("where_dtype_mix", [F32_1D, ((1024,), "int32"), F32_1D], "ct.where(f32 cond, f32, int32)")
@ct.kernel
def where_dtype_mix(x, i, y):
    t = ct.load(x, index=(0,), shape=(64,))
    ct.store(y, index=(0,), tile=ct.where(t > 0, t, ct.load(i, index=(0,), shape=(64,))))


@case("argmax_bool", [((1024,), "bool_"), ((1,), "int32")], "ct.argmax of a bool tile")
@ct.kernel
def argmax_bool(x, y):
    ct.store(y, index=(0,), tile=ct.reshape(ct.argmax(ct.load(x, index=(0,), shape=(64,)), axis=0), (1,)))


@case("reduce_custom", [F32_2D, F32_1D], "ct.reduce with a custom combiner (a * b + 1)")
@ct.kernel
def reduce_custom(x, y):
    t = ct.load(x, index=(0, 0), shape=(64, 64))
    ct.store(y, index=(0,), tile=ct.reduce(t, axis=1, func=lambda a, b: a * b + 1.0, identity=1.0))


@case("scan_custom", [F32_1D, F32_1D], "ct.scan with a custom combiner (max)")
@ct.kernel
def scan_custom(x, y):
    t = ct.load(x, index=(0,), shape=(64,))
    ct.store(y, index=(0,), tile=ct.scan(t, axis=0, func=lambda a, b: ct.maximum(a, b), identity=-1.0e30))


@case("scatter_2d_wrong_rank", [F32_2D, F32_1D], "ct.scatter into a 2-D array with one index tile")
@ct.kernel
def scatter_2d_wrong_rank(y, x):
    ct.scatter(y, ct.arange(64, dtype=ct.int32), ct.load(x, index=(0,), shape=(64,)))


@case("int64_index_huge_array", [((1 << 33,), "float32"), F32_1D], "a 2^33-element array (int32 index type)")
@ct.kernel
def int64_index_huge_array(x, y):
    ct.store(y, index=(0,), tile=ct.load(x, index=(ct.bid(0) + 100000000,), shape=(64,)))


@case("mma_k_tiny", [F16_2D, F16_2D, F32_2D], "a 64x64 mma with K = 1")
@ct.kernel
def mma_k_tiny(A, B, C):
    acc = ct.zeros((64, 64), dtype=ct.float32)
    acc = ct.mma(ct.load(A, index=(0, 0), shape=(64, 1)), ct.load(B, index=(0, 0), shape=(1, 64)), acc)
    ct.store(C, index=(0, 0), tile=acc)


@case("mma_2x2x2", [F16_2D, F16_2D, F32_2D], "a 2x2x2 mma")
@ct.kernel
def mma_2x2x2(A, B, C):
    acc = ct.zeros((2, 2), dtype=ct.float32)
    acc = ct.mma(ct.load(A, index=(0, 0), shape=(2, 2)), ct.load(B, index=(0, 0), shape=(2, 2)), acc)
    ct.store(C, index=(0, 0), tile=acc)


@case("gemm_256x256_acc", [((1024, 1024), "float16"), ((1024, 1024), "float16"), ((1024, 1024), "float32"),
                           256, 256, 64], "a 256x256 f32 accumulator GEMM (256 KiB of registers)")
@ct.kernel
def gemm_256x256_acc(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc)


@case("gemm_256x256_acc_exp", [((1024, 1024), "float16"), ((1024, 1024), "float16"), ((1024, 1024), "float32"),
                               256, 256, 64], "the 256x256 accumulator with a cumsum epilogue (SIMT path)")
@ct.kernel
def gemm_256x256_acc_exp(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=ct.cumsum(acc, axis=1))


@case("simt_max_slots", [((512, 512), "float32"), ((512, 512), "float32"), 512, 512],
      "a 512x512 f32 elementwise tile (512 values per thread on 512 threads)")
@ct.kernel
def simt_max_slots(x, y, a: ct.Constant[int], b: ct.Constant[int]):
    t = ct.load(x, index=(0, 0), shape=(a, b))
    ct.store(y, index=(0, 0), tile=ct.exp(t) * t)


@case("uint32_floordiv", [((1024,), "uint32"), ((1024,), "uint32")], "t // 3 on uint32")
@ct.kernel
def uint32_floordiv(x, y):
    ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(64,)) // 3)


@case("warps_32_big_tile", [((4096, 4096), "float32"), ((4096, 4096), "float32"), 256, 256],
      "num_worker_warps=32 (1024 threads) with a 256x256 f32 tile and occupancy=32")
@ct.kernel(num_worker_warps=32, occupancy=32)
def warps_32_big_tile(x, y, a: ct.Constant[int], b: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(a, b))
    ct.store(y, index=(ct.bid(0), 0), tile=ct.exp(t) * ct.transpose(t))


@case("num_ctas_16", [((4096, 4096), "float16"), ((4096, 4096), "float16"), ((4096, 4096), "float32"), 128, 128, 64],
      "a GEMM with num_ctas=16 (a cluster of 16 CTAs)")
@ct.kernel(num_ctas=16)
def num_ctas_16(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc)


# ------------------------------------------------------------------------------------------ runner
PROPERTY = re.compile(r"^(?:\S[^:]*:\d+:\d+: error: |\S[^:]*: error: invalid CUDA Tile IR bytecode at offset \d+: )")


def _first(lines: list[str], pattern: str) -> str:
    for line in lines:
        if pattern in line:
            return line.strip()
    return lines[-1].strip() if lines else ""


def run_case(name: str, kernel, spec, tmp: Path, ptxas: bool) -> dict:
    from tileorch.testing.export import cutile_bytecode

    row = {"name": name}
    try:
        data = cutile_bytecode(kernel, spec)
    except Exception as exc:  # noqa: BLE001 - cuTile's refusal is reported, not ours
        row["export"] = f"cuTile refuses: {type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}"
        return row
    row["export"] = "ok"
    path = tmp / f"{name}.tileirbc"
    path.write_bytes(data)
    code = ("import sys\nfrom tileorch.cli.main import main\nsys.exit(main(sys.argv[1:]))\n")
    args = [sys.executable, "-c", code, "compile", str(path), "--remarks", "--no-cache", "-o", str(tmp / f"{name}.ptx")]
    if not ptxas:
        args.append("--no-ptxas")
    try:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
        out = (proc.stdout + proc.stderr).splitlines()
        errors = [line for line in out if " error:" in line or line.startswith("error:")]
        bad = (proc.returncode not in (0, 1) or any("Traceback" in line or "internal error" in line for line in out)
               or (proc.returncode == 1 and (not errors or not all(PROPERTY.match(e) for e in errors)))
               or (proc.returncode == 0 and errors))
        row["cli"] = f"rc={proc.returncode}"
        row["cli_msg"] = errors[0] if errors else _first(out, "path")
        row["cli_remarks"] = [line for line in out if "remark" in line]
        row["cli_bad"] = bad
        if bad:
            row["cli_out"] = "\n".join(out[-40:])
    except subprocess.TimeoutExpired:
        row["cli"], row["cli_bad"], row["cli_msg"] = "timeout", True, "over 300 s"
    import tileorch
    from tileorch.backend.compile import CompileError

    try:
        k = tileorch.compile(data, name=str(path), ptxas=ptxas, cache=False)
        row["api"] = "ok"
        row["api_msg"] = "; ".join(getattr(k, "remarks", []) or [])[:300]
        row["api_bad"] = False
    except CompileError as exc:
        lines = list(exc.lines)
        row["api"] = "CompileError"
        row["api_msg"] = lines[0] if lines else ""
        row["api_bad"] = not lines or not all(PROPERTY.match(line) for line in lines if "error" in line)
    except Exception:  # noqa: BLE001
        row["api"] = "traceback"
        row["api_msg"] = traceback.format_exc().splitlines()[-1]
        row["api_bad"] = True
        row["api_out"] = traceback.format_exc()
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="")
    ap.add_argument("--no-ptxas", action="store_true")
    ap.add_argument("--out", type=Path, default=None)
    ns = ap.parse_args(argv)
    names = [n for n in CASES if not ns.only or n in ns.only.split(",")]
    bad = 0
    with tempfile.TemporaryDirectory() as t:
        tmp = ns.out or Path(t)
        tmp.mkdir(parents=True, exist_ok=True)
        for name in names:
            kernel, spec, note = CASES[name]
            row = run_case(name, kernel, spec, tmp, not ns.no_ptxas)
            flag = "FINDING" if row.get("cli_bad") or row.get("api_bad") else "ok"
            bad += flag == "FINDING"
            print(f"== {name} ({note}): {flag}")
            print(f"   export: {row['export']}")
            if "cli" in row:
                print(f"   cli: {row['cli']}: {row['cli_msg']}")
                for r in row.get("cli_remarks", [])[:6]:
                    print(f"      {r[:220]}")
                print(f"   api: {row['api']}: {row['api_msg']}")
            if row.get("cli_out"):
                print("   --- cli output\n" + row["cli_out"])
            if row.get("api_out"):
                print("   --- api traceback\n" + row["api_out"])
            sys.stdout.flush()
    print(f"cutile-edge-cases: {len(names)} cases, {bad} breaking the property")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
