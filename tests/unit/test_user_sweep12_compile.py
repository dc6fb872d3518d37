"""Twelfth user sweep (``tileorch.testing.user_programs12``: issue 21's op-coverage audit): each program,
exported through cuTile's exporter (no GPU) and compiled for sm_90a, takes the SIMT path with no
refusal and no internal error, and its PTX holds the instructions its op combination needs (unsigned
compares for uint32, 16-bit min/max for int16, fp8 conversions both ways, 64-bit atomics, warp-shuffle
scans of 16- and 64-bit integers); every program's PTX assembles with ptxas (one test).  Their results
against numpy: test_user_sweep12_interp.py (CPU) and tests/gpu/test_user_sweep12_gpu.py (H200)."""

from __future__ import annotations


import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing.user_programs12 import PROGRAMS  # noqa: E402
from simt_sweep_checks import (assert_assembles_without_spills, assert_on_the_simt_path,  # noqa: E402
                               assert_simt_sweep, compile_sweep_program)

PTX_NEEDS = {
    "uint32_row_max_min": [r"max\.u32", r"min\.u32"],
    "int16_row_sum_max_min": [r"max\.s16", r"min\.s16", r"cvt\.s32\.s16"],
    "uint16_cumsum_wraps": [r"shfl\.sync\.up\.b32", r"add\.s16"],
    "int64_cumsum_past_2_32": [r"shfl\.sync\.up\.b32", r"add\.s64"],
    "fp8_e5m2_e4m3_both_ways": [r"cvt\.rn\.f16x2\.e5m2x2", r"cvt\.rn\.f16x2\.e4m3x2", r"cvt\.rn\.satfinite\.e4m3x2\.f32",
                                r"cvt\.rn\.satfinite\.e5m2x2\.f32"],
    "fp8_e4m3_to_bf16_scaled": [r"cvt\.rn\.f16x2\.e4m3x2"],
    "atomic_add_max_int64_duplicates": [r"atom\.global\.add\.u64", r"atom\.global\.max\.s64"],
    "atomic_cas_int64_claim": [r"atom\.acq_rel\.gpu\.global\.cas\.b64|atom\.[a-z_.]*cas\.b64"],
    "gather_where_chooses_indices": [r"selp\.b32", r"ld\.global"],
    "scatter_masked_duplicates": [r"st\.global\.b32"],
    "bool_tile_stored": [r"st\.global(\.v[24])?\.b8|st\.global\.v2"],
    "uint32_argmax": [r"setp\.g[te]\.u32"],
    "uint32_to_f32_and_int64_to_f16": [r"cvt\.rn\.f32\.u32", r"cvt\.rn\.f16\.s64"],
    "int_to_fp8_and_fp8_to_int": [r"cvt\.rn\.satfinite\.e4m3x2\.f32", r"cvt\.rn\.f16x2\.e5m2x2", r"cvt\.rzi\.s32\.f32"],
    "atomic_xchg_int64_and_uint64_add": [r"atom\.global\.exch\.b64", r"atom\.global\.add\.u64"],
    "uint8_cumprod_wraps": [r"shfl\.sync\.up\.b32", r"mul\.lo\.s16"],
    "bool_sum_direct": [r"shfl\.sync\.bfly\.b32"],
    "f16_min_propagate_nan": [r"min\.NaN\.f32"],
}
"""Per program: regular expressions its PTX must match (the op combination lowered, not refused)."""


def test_the_sweep_has_its_programs():
    assert_simt_sweep(PROGRAMS, 15)


def _compile(name):
    return compile_sweep_program(PROGRAMS, name)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_compiles_on_the_simt_path(name):
    assert_on_the_simt_path(_compile(name), name, PTX_NEEDS)


def test_every_program_assembles():
    assert_assembles_without_spills(PROGRAMS, _compile)
