"""Fifteenth user sweep (``tileorch.testing.user_programs15``: issue 21, whole memory-bound kernels from
real models as users port them from Triton / PyTorch): each program, exported through cuTile's
exporter (no GPU) and compiled for sm_90a, takes the SIMT path with no refusal and no internal
error, and its PTX holds the instructions its idiom needs (global atomics for the dgamma / dbeta,
loss-sum and bincount accumulators, the saturating e4m3 conversion, ``tanh``, warp shuffles for the
row reductions, byte loads / stores for masks and int8, the 32-bit conversion and clamp of an
8-bit ``astype``); every program's PTX assembles with ptxas
without spills (one test).  Their results against numpy: test_user_sweep15_interp.py (the SIMT
interpreter), test_user_sweep15_emulated.py (the PTX emulator) and tests/gpu/test_user_sweep15_gpu.py
(H200)."""

from __future__ import annotations


import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing.user_programs15 import PROGRAMS  # noqa: E402
from simt_sweep_checks import (assert_assembles_without_spills, assert_on_the_simt_path,  # noqa: E402
                               assert_simt_sweep, compile_sweep_program)

ATOM_F32 = r"(atom|red)\.global(\.\w+)*\.add(\.noftz)?\.f32"
PTX_NEEDS = {
    "rmsnorm_fwd_rows_block_rstd": [r"shfl\.sync\.bfly\.b32", r"rsqrt\.approx"],
    "layernorm_bwd_recompute_atomic_dwdb": [ATOM_F32],
    "cross_entropy_fwd_mean_atomic": [ATOM_F32, r"(atom|red)\.global(\.\w+)*\.add\.(u32|s32)", r"lg2\.approx|ex2\.approx"],
    "bincount_weighted_atomic": [ATOM_F32, r"(atom|red)\.global(\.\w+)*\.add\.(u32|s32)"],
    "quant_fp8_per_group_1x128": [r"cvt\.rn\.satfinite\.e4m3x2\.f32"],
    "dequant_fp8_weight_blocks": [r"cvt\.rn\.f16x2\.e4m3x2"],
    "quant_int8_per_token_saturating": [r"cvt\.rmi\.f32\.f32", r"st\.global(\.v\d)?\.b8|st\.global(\.v\d)?\.u8|st\.global(\.v\d)?\.s8"],
    "quant_int8_cast_saturates": [r"cvt\.rzi\.s32\.f32", r"max\.s32", r"min\.s32"],
    "image_to_uint8_saturating": [r"cvt\.rzi\.u32\.f32", r"min\.u32"],
    "geglu_tanh_bwd": [r"tanh\.approx\.f32|ex2\.approx"],
    "dropout_given_mask_residual": [r"ld\.global(\.\w+)*\.(u8|b8|s8)|ld\.global(\.\w+)*\.v\d\.(u8|b8)"],
    "exclusive_cumsum_long_carry": [r"shfl\.sync\.up\.b32|shfl\.sync\.idx\.b32|ld\.shared"],
}
"""Per program: regular expressions its PTX must match (the idiom lowered, not refused)."""


def test_the_sweep_has_its_programs():
    assert_simt_sweep(PROGRAMS, 20)


def _compile(name):
    return compile_sweep_program(PROGRAMS, name)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_compiles_on_the_simt_path(name):
    assert_on_the_simt_path(_compile(name), name, PTX_NEEDS)


def test_every_program_assembles_without_spills():
    assert_assembles_without_spills(PROGRAMS, _compile, cubin=True)
