"""Thirteenth user sweep (``tileorch.testing.user_programs13``: issue 21, memory-bound programs of the
kinds a user writes first): each program, exported through cuTile's exporter (no GPU) and compiled
for sm_90a, takes the SIMT path with no refusal and no internal error, and its PTX holds the
instructions its idiom needs (NaN-propagating and NaN-ignoring min, signed 64-bit division,
saturating fp8 conversion, the assert's trap, f64 adds); every program's PTX assembles with ptxas
without spills (one test); and a program written for 3-D tiles compiles as its 2-D form (the
``PAIRS``: the same threads and the same global / shared memory, shuffle and barrier instructions).
Their results against numpy: test_user_sweep13_interp.py (the SIMT interpreter),
test_user_sweep13_emulated.py (the PTX emulator) and tests/gpu/test_user_sweep13_gpu.py (H200)."""

from __future__ import annotations

import collections
import re

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing.user_programs13 import PAIRS, PROGRAMS  # noqa: E402
from simt_sweep_checks import (assert_assembles_without_spills, assert_on_the_simt_path,  # noqa: E402
                               assert_simt_sweep, compile_sweep_program)

PTX_NEEDS = {
    "minimum_maximum_nan_modes": [r"min\.NaN\.f32", r"\tmin\.f32", r"\tmax\.f32"],
    "int32_floordiv_mod_negatives": [r"div\.s32"],
    "int64_divmod_runtime_scalar": [r"div\.s64"],
    "float_floordiv_mod": [r"cvt\.rmi\.f32\.f32"],
    "quantize_fp8_rowwise_saturating": [r"cvt\.rn\.satfinite\.e4m3x2\.f32"],
    "quantize_int8_clamped_rounded": [r"cvt\.rmi\.f32\.f32", r"st\.global(\.v\d)?\.b8"],
    "assert_beside_scale": [r"__assertfail|trap"],
    "f64_accumulate_f32_rows": [r"add\.(rn\.)?f64"],
    "bid_and_num_blocks_three_axes": [r"%ctaid\.y", r"%ctaid\.z", r"%nctaid\.z"],
    "gather_int64_indices_scaled": [r"ld\.global"],
    "pair2d_row_softmax": [r"shfl\.sync\.bfly\.b32"],
}
"""Per program: regular expressions its PTX must match (the idiom lowered, not refused)."""


def test_the_sweep_has_its_programs():
    assert_simt_sweep(PROGRAMS, 25)


def _compile(name):
    return compile_sweep_program(PROGRAMS, name)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_compiles_on_the_simt_path(name):
    assert_on_the_simt_path(_compile(name), name, PTX_NEEDS)


def test_every_program_assembles_without_spills():
    assert_assembles_without_spills(PROGRAMS, _compile)


MEMORY_CODE = re.compile(r"(ld\.global[\w.]*|st\.global[\w.]*|ld\.shared[\w.]*|st\.shared[\w.]*|shfl\.sync[\w.]*"
                         r"|bar\.sync|cp\.async[\w.]*|atom[\w.]*|red\.[\w.]*)")


def _memory_mix(prog) -> collections.Counter:
    """How many of each global / shared memory, shuffle and barrier instruction the PTX holds (the
    inline-assembly masked loads included)."""
    return collections.Counter(MEMORY_CODE.findall(prog.ptx))


@pytest.mark.parametrize("pair", PAIRS, ids=[a.removeprefix("pair2d_") for a, _ in PAIRS])
def test_a_3d_program_compiles_as_its_2d_form(pair):
    """Issue 21: "a program written for 3-D tiles compiles the same as its 2-D form".  The 3-D
    spelling (a leading unit axis on every array and tile) gets the 2-D spelling's thread count,
    programs per warp and memory code; only its extra shape / stride parameters differ.  (Their
    results: test_user_sweep13_interp / _emulated's ``test_pair_*`` against one reference.)"""
    two, three = (_compile(n) for n in pair)
    assert (three.threads, three.warp_programs, three.programs_per_warp) == \
        (two.threads, two.warp_programs, two.programs_per_warp)
    mix2, mix3 = _memory_mix(two), _memory_mix(three)
    assert mix2 and mix3 == mix2, (pair, mix2, mix3)
