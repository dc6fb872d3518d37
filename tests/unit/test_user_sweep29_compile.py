"""Twenty-ninth user sweep (``tileorch.testing.user_programs29``): each program, exported through cuTile's
exporter (no GPU) and compiled for sm_90a, takes the path its table entry names with no internal error
(dot_sweep_checks.dot_sweep_compile_tests, the skeleton sweeps 25-28 share).  The dots: the TileAS tier's TMA/WGMMA
kernel with the tier's remark (fp8 e4m3 / e5m2 with per-tensor scales from 1-element and 0-d arrays and per-row
scales, int8 -> int32 with a ragged K and with row / column dequantization, tf32 by ``ct.matmul``, B through
``ct.transpose``, A through ``order=``, ``acc + ct.matmul(a, b).astype(f32)`` of bf16, a MoE GEMM of expert offsets
from an array, split-K by atomics, a residual and a scaled e4m3 output, a full-N softmax with masked columns, row
tiles of 16 and 32, K = 72, two outputs of two dtypes), or the SIMT path's mma.sync after a *located* warning (a 3-D
operand tile with a unit middle dim, reshaped or permuted; two K tiles a step by hand; ``acc + ct.matmul(a, b)`` of
int8 tiles, whose product cuTile truncates to int8).  The programs without a dot: the SIMT path with no refusal,
their PTX holding what the idiom needs.  Every tier kernel (every program with
TILEORCH_EMULATE_ALL=1) assembles with ptxas without spills.  Results against numpy:
test_user_sweep29_interp.py, test_user_sweep29_emulated.py, tests/gpu/test_user_sweep29_gpu.py."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs29  # noqa: E402
from tileorch.testing.user_programs29 import PROGRAMS  # noqa: E402
from dot_sweep_checks import assert_assembles_without_spills, dot_sweep_compile_tests  # noqa: E402
from invalid_sweep_checks import line_of  # noqa: E402

SOURCE = user_programs29.__file__
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
WGMMA = r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k\d+\.{}\.{}\.{}"
RED = r"(red|atom)(\.\w+)*\.global(\.\w+)*\.add(\.\w+)*\.{}"
PTX_NEEDS = {
    "fp8_e4m3_gemm_tensor_scales_from_arrays_bf16": [WGMMA.format("f32", "e4m3", "e4m3")],
    "fp8_e5m2_gemm_row_scales_f32": [WGMMA.format("f32", "e5m2", "e5m2")],
    "fp8_e4m3_gemm_scale_from_0d_array_f16": [WGMMA.format("f32", "e4m3", "e4m3")],
    "int8_gemm_int32_ragged_k": [WGMMA.format("s32", "s8", "s8")],
    "int8_gemm_row_col_dequant_bf16_out": [WGMMA.format("s32", "s8", "s8")],
    "tf32_gemm_by_ct_matmul": [WGMMA.format("f32", "tf32", "tf32")],
    "gemm_weight_nk_by_ct_transpose": [WGMMA.format("f32", "bf16", "bf16")],
    "split_k_gemm_atomic_add_bf16_in": [RED.format("f32")],
    "gemm_residual_to_fp8_e4m3_scaled": [r"cvt\.rn\.satfinite\.e4m3x2\.f32"],
    "int8_gemm_by_matmul_operator_wraps": [r"mma\.sync\.aligned\.m16n8k32\S*\.s8\.s8"],
    "bit_ops_and_shifts_int32_uint32": [r"shr\.s32", r"shr\.u32|shr\.b32"],
    "bf16_fp8_round_trips_both_formats": [r"cvt\.rn\.satfinite\.e4m3x2\.f32|cvt\.rn\S*\.e4m3x2",
                                          r"cvt\.rn\S*\.e5m2x2"],
    "uint32_xorshift_hash_wrapping_multiply": [r"mul\.lo\.(s|u)32"],
    "column_sums_and_total": [RED.format("f32")],
}
"""Per program: regular expressions its PTX must match (the idiom lowered, not refused)."""

(compiled, test_the_sweep_has_its_programs, test_a_dot_takes_its_path_and_says_so,
 test_program_without_a_dot_compiles_on_the_simt_path, _every_program) = \
    dot_sweep_compile_tests(PROGRAMS, SOURCE, 15, PTX_NEEDS, at_least=35)


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if ALL or p.path != "simt"))
def test_every_program_assembles_without_spills(name):
    """ptxas (sm_90a) without a spill warning: in CI the tier's kernels (the large ones), every program with
    ``TILEORCH_EMULATE_ALL=1`` (CI time: the SIMT programs' ptxas runs are ~2 CPU s of the file's).  One test a
    program (CI-sized subsets, tests/ci_case_selection.json: a program none of whose other tests CI runs is not
    compiled for its spill check alone)."""
    assert_assembles_without_spills(name, compiled, frozenset())


def test_an_int8_matmul_operator_is_warned_of_at_the_users_line():
    """``acc = acc + ct.matmul(a, b)`` of int8 tiles: cuTile's ``ct.matmul`` of int8 tiles is an int8 tile (the
    bytecode's ``mmai`` then ``trunci`` to i8), so each K step's product wraps.  A located warning at the
    ``ct.matmul`` line names the truncation and ``ct.mma`` (narrow_int_dot_warnings.py), and the tier's refusal says
    the product is truncated.  Found by sweep 29: the program compiled to the SIMT path with a warning about
    "per-K-block scales, DeepSeek-style fp8 block scaling" -- nothing the program does -- and nothing said that
    the products wrap."""
    name = "int8_gemm_by_matmul_operator_wraps"
    at = line_of(PROGRAMS[name].kernel, "acc = acc + ct.matmul(a, b)")
    said = [r for r in compiled(name).remarks if ": warning: " in r]
    assert len(said) == 2 and all(r.startswith(f"{SOURCE}:{at}:") for r in said), said
    assert "truncated to 8 bits (each element wraps modulo 256)" in said[0] and "ct.mma(a, b, acc)" in said[0], said
    assert "DeepSeek" not in said[1], said


def test_an_int8_dot_accumulating_by_mma_has_no_such_warning():
    """The control: ``ct.mma(a, b, acc)`` of int8 tiles into int32 is the int32 GEMM, no truncation warned of."""
    prog = compiled("int8_gemm_int32_ragged_k")
    assert not [r for r in prog.remarks if "truncated" in r], prog.remarks


@pytest.mark.parametrize("name,rounded", [("gemm_matmul_then_add_bf16_accumulator_f32", "bf16"),
                                          ("tf32_gemm_by_ct_matmul", "tf32")])
def test_a_product_accumulated_unrounded_on_the_tier_is_said_at_the_users_line(name, rounded):
    """``acc + ct.matmul(a, b).astype(ct.float32)`` of bf16 (tf32) tiles: cuTile rounds each K step's product to bf16
    (tf32) before the add; the tier's WGMMA accumulates the products in f32 (tileas-fold-dot-accumulate: at least
    as accurate).  Found by sweep 29: the tier made that decision silently; now a located remark at the
    ``ct.matmul`` line says so (fold_dot_accumulate.rounding_remarks)."""
    at = line_of(PROGRAMS[name].kernel, "ct.matmul(")
    said = [r for r in compiled(name).remarks if "without that rounding" in r]
    assert len(said) == 1 and said[0].startswith(f"{SOURCE}:{at}:") and ": remark: " in said[0], said
    assert f"cuTile rounds to {rounded}" in said[0], said


def test_a_product_accumulated_by_mma_has_no_rounding_remark():
    """The control: ``ct.mma(a, b, acc)`` rounds nothing, and the remark is not made."""
    assert not [r for r in compiled("gemm_k_72_one_ragged_tile_f16_out").remarks if "without that rounding" in r]
