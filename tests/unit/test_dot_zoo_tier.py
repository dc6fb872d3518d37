"""Every program of the dot zoo (``tileorch.testing.dot_programs``: f16/bf16/fp8/tf32/int8 GEMMs, A^T
and B^T operands, fused epilogues, batched and program-persistent GEMMs, program tiles the kernel
builder retiles) compiles through the TileAS tier to the TMA/WGMMA kernel on the CPU, with the
configuration its operands call for; ptxas accepts it.  The GPU tests (tests/gpu/
test_tier_programs.py) run the same programs against torch."""

from __future__ import annotations

import dataclasses

import pytest

pytest.importorskip("cuda.tile")

from tileorch.backend.ptxas import ptxas_available  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing.dot_programs import KNOWN_REFUSED, PROGRAMS  # noqa: E402

pytestmark = pytest.mark.skipif(not ptxas_available(), reason="no ptxas (pip install nvidia-cuda-nvcc)")

TORCH_NAMES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "e4m3": "float8_e4m3fn",
               "e5m2": "float8_e5m2", "i8": "int8",
               "u8": "uint8", "i32": "int32"}
M, N, K, L = 1024, 512, 384, 4


class DeviceArray:
    """A fake device array (``__cuda_array_interface__``): cuTile only reads its signature."""

    def __init__(self, ptr: int, shape: tuple[int, ...], column_major: bool = False):
        strides = (2, 2 * shape[0]) if column_major else None  # bytes; the launcher reads the layout only
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": shape, "typestr": "<f2",
                                         "strides": strides, "version": 3}


def _arrays(name: str) -> list:
    """(shape, element type) or a scalar per kernel argument before the tile constants."""
    gemm = [((M, K), "f16"), ((K, N), "f16"), ((M, N), "f16")]
    return {
        "gemm_f16": gemm, "gemm_f16_tile64x128": gemm, "gemm_f16_tile256x128_2cta": gemm,
        "gemm_f16_tile128x32x32": gemm, "gemm_persistent_f16": gemm, "gemm_cdiv_f16": gemm,
        "gemm_plus_matmul_f16": gemm, "gemm_linear_pid_f16": gemm, "gemm_grid_nm_f16": gemm, "gemm_one_k_tile_f16": gemm,
        "gemm_one_n_tile_f16": [((M, K), "f16"), ((K, 120), "f16"), ((M, 120), "f16")],
        "gemm_softmax_rows_f16": [((M, K), "f16"), ((K, 120), "f16"), ((M, 120), "f16")],
        "gemm_at_bf16": [((K, M), "bf16"), ((K, N), "bf16"), ((M, N), "bf16")],
        "gemm_fp8_e4m3_scaled": [((M, K), "e4m3"), ((N, K), "e4m3"), ((M, N), "bf16"), 0.25, 0.5],
        "linear_tf32": [((M, K), "f32"), ((N, K), "f32"), ((M, N), "f32")],
        "gemm_f32": [((M, K), "f32"), ((K, N), "f32"), ((M, N), "f32")],
        "gemm_fp8_e4m3_n_major_b": [((M, K), "e4m3"), ((K, N), "e4m3"), ((M, N), "f16")],
        "linear_view_order_f16": [((M, K), "f16"), ((N, K), "f16"), ((M, N), "f16")],
        "gemm_at_view_order_bf16": [((K, M), "bf16"), ((K, N), "bf16"), ((M, N), "bf16")],
        "gemm_tf32_n_major_b": [((M, K), "f32"), ((K, N), "f32"), ((M, N), "f32")],
        "gemm_bias_relu_f16": [((M, K), "f16"), ((K, N), "f16"), ((N,), "f16"), ((M, N), "f16")],
        # weight-only int8: the raw int8 tile TMA-loaded, converted by the consumers (GemmConfig.b_raw)
        "linear_w8a16_f16": [((M, K), "f16"), ((N, K), "i8"), ((N,), "f32"), ((M, N), "f16")],
        "gemm_w8a16_f16": [((M, K), "f16"), ((K, N), "i8"), ((N,), "f32"), ((M, N), "f16")],
        "gemm_bias_relu_two_outputs_f16": [((M, K), "f16"), ((K, N), "f16"), ((N,), "f16"), ((M, N), "f32"),
                                           ((M, N), "f16")],
        "gemm_bias_relu_two_outputs_bf16": [((M, K), "bf16"), ((K, N), "bf16"), ((N,), "bf16"), ((M, N), "f32"),
                                            ((M, N), "bf16")],
        "linear_gelu_bf16": [((M, K), "bf16"), ((N, K), "bf16"), ((N,), "bf16"), ((M, N), "bf16")],
        "gemm_scale_residual_bf16": [((M, K), "bf16"), ((K, N), "bf16"), ((M, N), "bf16"), ((M, N), "bf16"), 0.75],
        "gemm_rowscale_sigmoid_f16_f32": [((M, K), "f16"), ((K, N), "f16"), ((M,), "f32"), ((M, N), "f32")],
        "bmm_f16": [((L, M, K), "f16"), ((L, K, N), "f16"), ((L, M, N), "f16")],
        "bmm_bias_bf16": [((L, M, K), "bf16"), ((L, K, N), "bf16"), ((N,), "bf16"), ((L, M, N), "bf16")],
        "gemm_grouped_f16": gemm, "gemm_persistent_grouped_f16": gemm,
        "gemm_grouped_tf32_32x32": [((M, K), "f32"), ((K, N), "f32"), ((M, N), "f32")],
        "bmm_batch_first_f16": [((L, M, K), "f16"), ((L, K, N), "f16"), ((L, M, N), "f16")],
        "bmm_heads_4d_f16": [((2, L, M, K), "f16"), ((2, L, K, N), "f16"), ((2, L, M, N), "f16")],
        "linear_i8_i32": [((M, K), "i8"), ((N, K), "i8"), ((M, N), "i32")],
        "gemm_i8_n_major_b": [((M, K), "i8"), ((K, N), "i8"), ((M, N), "i32")],
        "gemm_u8_i8_n_major_b": [((M, K), "u8"), ((K, N), "i8"), ((M, N), "i32")],
        "linear_i8_dequant_bf16": [((M, K), "i8"), ((N, K), "i8"), ((M, N), "bf16"), ((M,), "f32"), ((N,), "f32")],
        "gemm_splitk_atomic_f16": [((M, K), "f16"), ((K, N), "f16"), ((M, N), "f32")],
        "gemm_atomic_epilogue_f16": [((M, K), "f16"), ((K, N), "f16"), ((M, N), "f32")],
        "gemm_persistent_atomic_f16": [((M, K), "f16"), ((K, N), "f16"), ((M, N), "f32")],
        "bmm_batch_tile2_f16": [((2 * L, M, K), "f16"), ((2 * L, K, N), "f16"), ((2 * L, M, N), "f16")],
        "gemm_rowmax_f16": gemm + [((M, N // 128), "f32")],
        "gemm_colsum_f16": gemm + [((M // 128, N), "f32")],
        "gemm_colsum_f16_tile128x256": gemm + [((M // 128, N), "f32")],
        "gemm_colmax_f16": gemm + [((M // 128, N), "f32")],
        "gemm_row_softmax_f16": gemm,
        "gemm_colsum_f32_out": [((M, K), "f16"), ((K, N), "f16"), ((M, N), "f32"), ((M // 128, N), "f32")],
        "gemm_colmax_zero_pad_f16": gemm + [((M // 128, N), "f32")],
        "gemm_bias_relu_colsum_f16": [((M, K), "f16"), ((K, N), "f16"), ((N,), "f16"), ((M, N), "f16"),
                                      ((M // 128, N), "f32")],
        "gemm_colmin_half_f16": gemm + [((M // 128, N), "f16")],
        "gemm_fp8_e4m3_at": [((K, M), "e4m3"), ((N, K), "e4m3"), ((M, N), "f16")],
        "linear_fp8_e5m2_scaled": [((M, K), "e5m2"), ((N, K), "e5m2"), ((M, N), "bf16"), 1.0, 1.0],
        "gemm_f16_tile256x128": gemm, "gemm_f16_tile64x64": gemm,
        "swiglu_f16": [((M, K), "f16"), ((K, N), "f16"), ((K, N), "f16"), ((M, N), "f16")],
        "swiglu_bf16": [((M, K), "bf16"), ((K, N), "bf16"), ((K, N), "bf16"), ((M, N), "bf16")],
        "gated_three_f16": [((M, K), "f16"), ((K, N), "f16"), ((K, N), "f16"), ((K, N), "f16"), ((M, N), "f16")],
        "swiglu_linear_bf16": [((M, K), "bf16"), ((N, K), "bf16"), ((N, K), "bf16"), ((M, N), "bf16")],
        # the accumulator stored transposed: C [N, M], or C [M, N] column-major ("cm")
        "gemm_store_transposed_f16": [((M, K), "f16"), ((K, N), "f16"), ((N, M), "f16")],
        "gemm_store_transposed_bf16": [((M, K), "bf16"), ((K, N), "bf16"), ((N, M), "bf16")],
        "gemm_bias_relu_store_permuted_f16": [((M, K), "f16"), ((K, N), "f16"), ((N,), "f16"), ((N, M), "f16")],
        "gemm_bias_relu_store_permuted_bf16": [((M, K), "bf16"), ((K, N), "bf16"), ((N,), "bf16"),
                                               ((N, M), "bf16")],
        "gemm_c_column_major_f16": [((M, K), "f16"), ((K, N), "f16"), ((M, N), "f16", "cm")],
        "gemm_c_column_major_bf16": [((M, K), "bf16"), ((K, N), "bf16"), ((M, N), "bf16", "cm")],
        # computed operands: a B with per-channel / per-group scale vectors, a computed A
        "linear_w8a16_channel_scale_f16": [((M, K), "f16"), ((N, K), "i8"), ((N,), "f16"), ((M, N), "f16")],
        "gemm_w8a16_group128_f16": [((M, K), "f16"), ((K, N), "i8"), ((K // 128, N), "f32"), ((M, N), "f32")],
        "relu_a_gemm_f16": [((M, K), "f16"), ((K, N), "f16"), ((M, N), "f32")],
        "a8_dequant_gemm_f16": [((M, K), "i8"), ((K, N), "f16"), ((M, N), "f32"), 0.02],
        "rmsnorm_gamma_gemm_f16": [((M, K), "f16"), ((K,), "f16"), ((K, N), "f16"), ((M, N), "f32")],
    }[name]


EXPECT = {  # configuration fields the operands call for
    "gemm_at_bf16": {"a_major": "m", "b_major": "n", "dtype": "bf16"},
    "gemm_fp8_e4m3_scaled": {"dtype": "e4m3", "b_major": "k", "tile_k": 128, "out_dtype": "bf16"},
    "linear_tf32": {"dtype": "tf32", "b_major": "k", "tile_k": 32, "epilogue": "direct"},
    "linear_gelu_bf16": {"b_major": "k"},
    "linear_view_order_f16": {"b_major": "k", "a_major": "k"},
    "gemm_at_view_order_bf16": {"a_major": "m", "b_major": "n"},
    "gemm_fp8_e4m3_n_major_b": {"dtype": "e4m3", "b_major": "k", "transpose_b": True},
    "gemm_tf32_n_major_b": {"dtype": "tf32", "b_major": "k", "transpose_b": True},
    "bmm_f16": {"batched": True}, "bmm_bias_bf16": {"batched": True},
    "gemm_f16_tile64x128": {"tile_m": 128, "tile_n": 128},
    "gemm_f16_tile256x128_2cta": {"tile_m": 128, "cluster_m": 2},
    "gemm_f16_tile128x32x32": {"tile_n": 128, "tile_k": 64},
    "gemm_rowscale_sigmoid_f16_f32": {"out_dtype": "f32", "epilogue": "direct"},
    "gemm_grouped_f16": {"tile_n": 256},
    "gemm_persistent_grouped_f16": {"tile_n": 256},
    "gemm_grouped_tf32_32x32": {"dtype": "tf32", "tile_n": 128, "transpose_b": True},
    "bmm_batch_first_f16": {"batched": True},
    # (batch, head) = (program id 2 // H, program id 2 % H): each agent's flat batch index per work tile
    "bmm_heads_4d_f16": {"batched": True, "grid_l": True, "program_grid": False},
    "gemm_fp8_e4m3_at": {"dtype": "e4m3", "a_major": "k", "transpose_a": True, "b_major": "k"},
    "linear_fp8_e5m2_scaled": {"dtype": "e5m2", "b_major": "k"},
    "gemm_f16_tile256x128": {"tile_m": 128},
    # acc^T stored element by element from the registers (the direct epilogue's store replaced)
    **{name: {"c_transposed": True, "epilogue": "direct"} for name in (
        "gemm_store_transposed_f16", "gemm_store_transposed_bf16", "gemm_bias_relu_store_permuted_f16",
        "gemm_bias_relu_store_permuted_bf16", "gemm_c_column_major_f16", "gemm_c_column_major_bf16")},
    # split-K: the program's K range per work tile, program id 2 walked as L, atomic adds into C
    "gemm_splitk_atomic_f16": {"epilogue": "atomic", "grid_l": True, "cluster_m": 1, "out_dtype": "f32"},
    "gemm_atomic_epilogue_f16": {"epilogue": "atomic", "grid_l": False, "out_dtype": "f32"},
    "gemm_persistent_atomic_f16": {"epilogue": "atomic", "grid_l": False, "out_dtype": "f32"},
    "bmm_batch_tile2_f16": {"batched": True, "tile_m": 128, "tile_n": 128},
    "gemm_rowmax_f16": {"out_dtype": "f16", "epilogue": "tma"},
    # 8 consumer warps x 128 columns of f32 partials exchanged in the TMA epilogue's staging buffer
    # (no shared memory of its own: the pipeline keeps its stages), or, with an f32 C stored
    # directly (no staging buffer), in a scratch of their own
    "gemm_colsum_f16": {"out_dtype": "f16", "epilogue": "tma", "tile_n": 128, "scratch_bytes": 0, "stages": 6},
    "gemm_colsum_f16_tile128x256": {"tile_n": 256, "scratch_bytes": 0, "stages": 4},
    "gemm_colsum_f32_out": {"out_dtype": "f32", "epilogue": "direct", "scratch_bytes": 4096},
    # int8 -> int32 (cuda_tile.mmai): s8/u8 WGMMA (k32, like fp8), K-major operands, i32 accumulators
    "linear_i8_i32": {"dtype": "s8", "b_dtype": "", "out_dtype": "s32", "b_major": "k", "tile_k": 128,
                      "epilogue": "direct", "transpose_b": False},
    "gemm_i8_n_major_b": {"dtype": "s8", "out_dtype": "s32", "b_major": "k", "transpose_b": True},
    "gemm_u8_i8_n_major_b": {"dtype": "u8", "b_dtype": "s8", "out_dtype": "s32", "transpose_b": True},
    "linear_i8_dequant_bf16": {"dtype": "s8", "out_dtype": "bf16", "epilogue": "tma", "tile_k": 128},
    # dots sharing A: one A and 2 (3) B tiles per stage, 2 (3) accumulators of 64 x tile_n per consumer
    # warp group within the 128 accumulator registers (tile_n 128, or 64 for three)
    "swiglu_f16": {"b_operands": 2, "tile_n": 128, "b_major": "n", "stages": 4, "epilogue": "tma"},
    "swiglu_bf16": {"b_operands": 2, "tile_n": 128, "dtype": "bf16"},
    "swiglu_linear_bf16": {"b_operands": 2, "tile_n": 128, "b_major": "k"},
    "gated_three_f16": {"b_operands": 3, "tile_n": 64, "cluster_m": 1},
    # B computed in the K loop: f16 WGMMA on the converted operand, the raw int8 tile after it in each stage
    "linear_w8a16_f16": {"dtype": "f16", "b_raw": "s8", "b_major": "k", "cluster_m": 1, "tile_n": 128},
    "gemm_w8a16_f16": {"dtype": "f16", "b_raw": "s8", "b_major": "n", "cluster_m": 1, "tile_n": 128},
    # vectors read by the computed B (per output channel before the loop; a group's scale row per K step)
    "linear_w8a16_channel_scale_f16": {"dtype": "f16", "b_raw": "s8", "b_major": "k", "cluster_m": 1},
    "gemm_w8a16_group128_f16": {"dtype": "f16", "b_raw": "s8", "b_major": "n", "cluster_m": 1, "tile_k": 64},
    # A computed in the K loop: its raw tile after B's in each stage (GemmConfig.a_raw), WGMMA's register A
    # operand (a_regs; the raw K row's swizzle: 128 bytes of f16, 64 of int8)
    "relu_a_gemm_f16": {"dtype": "f16", "a_raw": "f16", "b_raw": "", "cluster_m": 1, "a_regs": True},
    "a8_dequant_gemm_f16": {"dtype": "f16", "a_raw": "s8", "cluster_m": 1, "a_regs": True},
    # a K-indexed vector in A's map (gamma[k]): TMA-loaded by the producer, A register A (session 41; staged while
    # the consumers loaded it from global memory: register_a_operand.k_vector_staged)
    "rmsnorm_gamma_gemm_f16": {"dtype": "f16", "a_raw": "f16", "cluster_m": 1, "a_regs": True, "kvecs": "128:5:f16:1"},
}
WGMMA = {  # the instruction the integer programs must run
    "linear_i8_i32": "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8",
    "gemm_i8_n_major_b": "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8",
    "gemm_u8_i8_n_major_b": "wgmma.mma_async.sync.aligned.m64n128k32.s32.u8.s8",
    "linear_i8_dequant_bf16": "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8",
}


PTX_HAS = {  # the epilogue's atomic adds: one per accumulator element (ptxas turns unused atoms into RED)
    "gemm_splitk_atomic_f16": "atom.global.add.f32",
    "gemm_atomic_epilogue_f16": "atom.global.add.f32",
    "gemm_persistent_atomic_f16": "atom.global.add.f32",
}
PTX_COUNT = {  # counts of the one consumer body both warp groups run (TILEORCH_GEMM_SHARED_CONSUMER=1, the default)
    # the row max: two rows per thread, two shuffle steps each (lane quad), in the one consumer body
    "gemm_rowmax_f16": [("shfl.sync.bfly", 4), ("0fFF800000", 64)],  # -inf for a column past N
    # the column sum: 32 columns per thread (tile_n / 4), three shuffle steps each (the lanes sharing
    # columns), in the one consumer body; three bar.sync of the consumers' exchange barrier in the
    # staging buffer (the last one before C's staging), two in a scratch of its own (one body: 3 and 2)
    "gemm_colsum_f16": [("shfl.sync.bfly", 32 * 3), ("bar.sync \t1, 256;", 3),
                        ("cp.async.bulk.wait_group.read \t0;", 1 + 1)],
    "gemm_colsum_f16_tile128x256": [("shfl.sync.bfly", 64 * 3), ("bar.sync \t1, 256;", 3)],
    "gemm_colsum_f32_out": [("shfl.sync.bfly", 32 * 3), ("bar.sync \t1, 256;", 2),
                            ("cp.async.bulk.wait_group", 0)],
    # A's padding undetermined: each of a thread's 2 x 32 elements selects -inf for a row past M;
    # A's padding zero: the rows past M are the program's (no select)
    "gemm_colmax_f16": [("0fFF800000", 2 * 32)],
    # the row softmax: max and sum of each of a thread's 2 rows, two shuffle steps each, per warp group
    # (the exponentials the sum folds are the ones the stored elements reuse: one per element; each a
    # full-precision exp, the spec's default: one saturating clamp and one ex2.approx of the reduced
    # argument each)
    "gemm_row_softmax_f16": [("shfl.sync.bfly", 2 * 2 * 2), ("ex2.approx", 64), ("fma.rn.sat.f32", 64)],
    "gemm_colmax_zero_pad_f16": [("0fFF800000", 0), ("bar.sync \t1, 256;", 3)],
    # dots sharing A: 4 k16 steps per B per K tile, in the one consumer body; one exponential per
    # element of a thread's 64 x tile_n / 128 (the SiLU of the first accumulator)
    "swiglu_f16": [("wgmma.mma_async", 2 * 4), ("ex2.approx", 64), ("fma.rn.sat.f32", 64)],
    "swiglu_linear_bf16": [("wgmma.mma_async", 2 * 4), ("ex2.approx", 64), ("fma.rn.sat.f32", 64)],
    "gated_three_f16": [("wgmma.mma_async", 3 * 4), ("ex2.approx", 32), ("fma.rn.sat.f32", 32)],
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_REFUSED[n]))
                                  if n in KNOWN_REFUSED else n for n in PROGRAMS])
def test_zoo_program_takes_the_tensor_cores(name):
    """No dot program of the zoo reaches the SIMT path (the known refusals are strict xfails)."""
    p = PROGRAMS[name]
    args, dtypes = [], []
    for i, spec in enumerate(_arrays(name)):
        if isinstance(spec, tuple):
            args.append(DeviceArray(0x7F0000000000 + (i + 1) * 0x10000000, spec[0], spec[2:] == ("cm",)))
            dtypes.append(spec[1])
        else:
            args.append(spec)
            dtypes.append(None)
    arguments = rc.describe_arguments(p.kernel, (*args, *p.tiles, *p.extra))
    arguments = [dataclasses.replace(a, dtype=TORCH_NAMES[dtypes[i]]) if i < len(dtypes) and dtypes[i] else a
                 for i, a in enumerate(arguments)]
    program = rc.compiled(p.kernel, arguments, "sm_90a", "persistent").program
    assert program.kind == "gemm", program.remarks
    assert program.cubin is not None and "wgmma.mma_async" in program.ptx
    cfg = program.gemm_config
    # the zoo's tile coordinates are program ids or orders the tier recognises: the scheduler's own
    # tiles (clusters, retiling), not a walk of the launch grid (convert_to_cutlass.py, program grid)
    assert not cfg.program_grid, program.remarks
    for field, want in EXPECT.get(name, {}).items():
        assert getattr(cfg, field) == want, (field, cfg)
    if name in WGMMA:
        assert WGMMA[name] in program.ptx
    if name in PTX_HAS:
        assert program.ptx.count(PTX_HAS[name]) == cfg.tile_n // 2, "one atomic add per accumulator element (one consumer body)"
    for text, count in PTX_COUNT.get(name, ()):
        assert program.ptx.count(text) == count, (text, program.ptx.count(text))
