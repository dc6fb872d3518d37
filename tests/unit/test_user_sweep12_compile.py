"""Twelfth user sweep (``tileorch.testing.user_programs12``: issue 21's op-coverage audit): each program,
exported through cuTile's exporter (no GPU) and compiled for sm_90a, takes the SIMT path with no
refusal and no internal error, and its PTX holds the instructions its op combination needs (unsigned
compares for uint32, 16-bit min/max for int16, fp8 conversions both ways, 64-bit atomics, warp-shuffle
scans of 16- and 64-bit integers); every program's PTX assembles with ptxas (one test).  Their results
against numpy: test_user_sweep12_interp.py (CPU) and tests/gpu/test_user_sweep12_gpu.py (H200)."""

from __future__ import annotations

import inspect
import re

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing.user_programs12 import PROGRAMS  # noqa: E402

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
    assert len(PROGRAMS) >= 15
    for name, p in PROGRAMS.items():
        assert p.path == "simt" and p.outputs, name
        assert p.kernel._annotated_function.pyfunc.__doc__, name
        src = inspect.getsource(p.kernel._annotated_function.pyfunc)
        assert "ct.mma(" not in src and " @ " not in src, name


def _compile(name, ptxas=False):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=ptxas)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_compiles_on_the_simt_path(name):
    prog = _compile(name)
    remarks = list(prog.remarks)
    assert prog.kind == "simt", remarks
    assert not [r for r in remarks if "refused" in r or "internal error" in r or "not supported" in r], remarks
    for pattern in PTX_NEEDS.get(name, []):
        assert re.search(pattern, prog.ptx), (name, pattern)


def test_every_program_assembles():
    from tileorch.backend.ptxas import ptxas_available, run_ptxas

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    for name in sorted(PROGRAMS):
        result = run_ptxas(_compile(name).ptx, "sm_90a")
        assert not result.spill_warnings(), (name, result.summary())
