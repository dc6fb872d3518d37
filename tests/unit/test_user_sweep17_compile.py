"""Seventeenth user sweep (``tileorch.testing.user_programs17``: issue 21, memory-bound and non-dot
programs at the edges of the element types and of the grid): each program, exported through
cuTile's exporter (no GPU) and compiled for sm_90a, takes the SIMT path with no refusal and no
internal error, and its PTX holds the instructions its idiom needs (the global atomics of every
kind: ``min`` / ``max`` / ``add`` / ``exch`` / ``cas``; the saturating e5m2 and e4m3 conversions; the
16-bit saturating float -> integer conversions; 64-bit integer multiply; runtime shifts; 16-, 8- and
64-bit stores); every program's PTX assembles with ptxas without spills (one test).  Their results
against numpy: test_user_sweep17_interp.py (the SIMT interpreter), test_user_sweep17_emulated.py (the
PTX emulator) and tests/gpu/test_user_sweep17_gpu.py (the GPU)."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing.user_programs17 import PROGRAMS  # noqa: E402
from simt_sweep_checks import simt_sweep_compile_tests  # noqa: E402

ATOM = r"(atom|red)(\.\w+)*\.global(\.\w+)*\.{}(\.\w+)*\.(s32|u32|b32)"
PTX_NEEDS = {
    "histogram_bin_min_max_count": [ATOM.format("min"), ATOM.format("max"), ATOM.format("add")],
    "histogram_float_max_cas_loop": [r"atom(\.\w+)*\.global(\.\w+)*\.cas\.b32"],
    "bucket_lists_by_xchg_heads": [r"atom(\.\w+)*\.global(\.\w+)*\.exch\.b32"],
    "distinct_count_presence_xchg": [r"atom(\.\w+)*\.global(\.\w+)*\.exch\.b32", ATOM.format("add")],
    "last_program_reduces_partials": [ATOM.format("add"), r"fence"],
    "e5m2_saturate_roundtrip": [r"cvt\.rn\.satfinite\.e5m2x2\.f32", r"cvt\.rn\.f16x2\.e5m2x2",
                                r"cvt\.rn\.satfinite\.e4m3x2\.f32"],
    "int16_uint16_saturate_and_wrap": [r"cvt\.rzi\.s16\.f32", r"cvt\.rzi\.u16\.f32", r"st\.global(\.\w+)*\.(b16|u16|s16)"],
    "integer_overflow_wraps": [r"mul\.lo\.(s|u)64", r"st\.global(\.\w+)*\.(b8|u8|s8)"],
    "shifts_by_runtime_amounts": [r"shl\.b32", r"shr\.s32", r"shr\.u32"],
    "six_outputs_six_dtypes": [r"st\.global(\.\w+)*\.(b8|u8|s8)", r"st\.global(\.\w+)*\.(b64|u64|s64|f64)",
                               r"cvt\.rn\.bf16\.f32"],
    "long_row_max_single_tile_64k": [r"shfl\.sync\.bfly\.b32"],
}
"""Per program: regular expressions its PTX must match (the idiom lowered, not refused)."""


(test_the_sweep_has_its_programs, test_program_compiles_on_the_simt_path,
 test_every_program_assembles_without_spills) = simt_sweep_compile_tests(
    PROGRAMS, 25, PTX_NEEDS,
    # review 27: float % computed exactly in f64 (a - b*trunc(a/b) in f32 was off past quotients of 2^24);
    # ptxas 13.0 keeps 4 bytes of it on the stack at this program's 80 registers
    spills_allowed={"float_floordiv_mod_mixed_signs": 8})
