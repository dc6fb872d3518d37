"""Nineteenth user sweep (``tileorch.testing.user_programs19``: issue 21 item 1, every cuda_tile op on
programs without a dot): each program, exported through cuTile's exporter (no GPU) and compiled for
sm_90a, takes the SIMT path with no refusal and no internal error, and its PTX holds the
instructions its idiom needs (the global atomics ``or`` / ``and`` / ``xor`` of 32 and 64 bits,
``cas``, ``exch`` of an f32 table, ``add``; the saturating float -> integer conversions of 32 and 64
bits; the saturating e4m3 conversions; unsigned 32-bit remainder and signed 64-bit division; 8- and
16-bit stores); every program's PTX assembles with ptxas without spills but those of :data:`SPILLS`
(one test).  Their results
against numpy: test_user_sweep19_interp.py (the SIMT interpreter), test_user_sweep19_emulated.py (the
PTX emulator) and tests/gpu/test_user_sweep19_gpu.py (the GPU)."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing.user_programs19 import PROGRAMS  # noqa: E402
from simt_sweep_checks import compile_sweep_program, simt_sweep_compile_tests  # noqa: E402

ATOM = r"(atom|red)(\.\w+)*\.global(\.\w+)*\.{}(\.\w+)*\.{}"
PTX_NEEDS = {
    "atomic_or_bitmap_uint32": [ATOM.format("or", "b32")],
    "atomic_and_xor_int64_words": [ATOM.format("and", "b64"), ATOM.format("xor", "b64")],
    "histogram_sum_by_cas_add_loop": [r"atom(\.\w+)*\.global(\.\w+)*\.cas\.b32"],
    "atomic_cas_f32_claims": [r"atom(\.\w+)*\.global(\.\w+)*\.cas\.b32"],
    "scatter_adjacent_bytes_int8_bool": [r"st\.global(\.\w+)*\.(b8|u8|s8)"],
    "atomic_xchg_f32_returns_old": [r"atom(\.\w+)*\.global(\.\w+)*\.exch\.b32"],
    "scatter_duplicates_beside_atomic_add": [ATOM.format("add", "f32")],
    "histogram_of_int8_values": [ATOM.format("add", r"(s32|u32)")],
    "float_to_int_nan_inf_out_of_range": [r"cvt\.rzi\.s32\.f32", r"cvt\.rzi\.s64\.f32", r"cvt\.rzi\.s32\.f64"],
    "e4m3_from_f16_and_bf16_saturating": [r"cvt\.rn\.satfinite\.e4m3x2\.f32"],
    "uint32_divmod_past_2_31": [r"rem\.u32"],
    "int8_int64_floordiv_mod_negatives": [r"div\.s64", r"st\.global(\.\w+)*\.(b8|u8|s8)"],
    "permute_4d_int16_and_reshape": [r"st\.global(\.\w+)*\.(b16|u16|s16)"],
    # the view accesses keep their order (they were plain ld.global / st.global: ordered_views.py)
    "chained_sum_by_acquire_spin_release_flag": [r"ld\.acquire\.gpu\.global\.b32", r"fence\.release\.gpu;"],
    "tf32_rounding_and_f64_bits": [r"cvt\.rn\.tf32\.f32"],
    "ordered_views_of_narrow_and_wide_types": [r"ld\.acquire\.gpu\.global\.(b8|u8|s8)",
                                               r"ld\.acquire\.gpu\.global\.b64", r"ld\.relaxed\.gpu\.global\.b16",
                                               r"st\.relaxed\.\w+\.global\.(b8|u8|s8)",
                                               r"st\.relaxed\.\w+\.global\.b16", r"st\.relaxed\.\w+\.global\.b64"],
    "ordered_view_loads_and_stores": [r"ld\.acquire\.gpu\.global\.b32", r"ld\.relaxed\.gpu\.global\.b32",
                                      r"bar\.sync\s+0;\s*fence\.release\.gpu;", r"st\.relaxed\.\w+\.global\.b32"],
}
"""Per program: regular expressions its PTX must match (the idiom lowered, not refused)."""


test_the_sweep_has_its_programs, test_program_compiles_on_the_simt_path, _ = simt_sweep_compile_tests(
    PROGRAMS, 40, PTX_NEEDS)

SPILLS = {"wide_row_1x65536_int32_sum_argmax"}
"""Programs whose PTX ptxas assembles with spills (session 24, ptxas of the machine, sm_90a): the
``(1, 65536)`` int32 tile is 256 KiB, the whole register file of an SM: the SIMT path loads it whole
(512 threads, 128 elements each, at the 128-register cap) before it reduces (272 B of spill stores;
a sum alone or a max alone spills 188 B, an f32 argmax 256 B; 32768 elements do not spill; sweep
17's bf16 row of 65536 packs two to a register and does not).  Listed so that the spill is not
silent; a program leaving the list (or joining it) fails."""


def test_every_program_assembles_without_spills_but_the_listed():
    from tileorch.backend.ptxas import ptxas_available, run_ptxas

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    spilled = {name for name in sorted(PROGRAMS)
               if run_ptxas(compile_sweep_program(PROGRAMS, name).ptx, "sm_90a").spill_warnings()}
    assert spilled == SPILLS


def test_ordered_view_accesses_are_remarked_at_their_lines():
    """Each view load / store with a memory order is named at its line by a remark: its element-by-element
    lowering (no vector access) and the barrier or fence beside it (ordered_views.ordered_view_remarks)."""
    import inspect
    import re

    from tileorch.testing import user_programs19

    prog = compile_sweep_program(PROGRAMS, "ordered_view_loads_and_stores")
    here = re.escape(user_programs19.__file__)
    said = {}
    for r in prog.remarks:
        m = re.match(rf"{here}:(\d+):\d+: remark: this (\w+) view (load|store) \(gpu scope\) runs element by element "
                     r"as ordered atomic (loads|stores), no vector access(.*)", r)
        if m:
            said[(m.group(2), m.group(3))] = (int(m.group(1)), m.group(5))
    source = inspect.getsource(user_programs19).splitlines()
    expected = {("acquire", "load"): ("x = ct.load(X", "; then the CTA passes a barrier"),
                ("relaxed", "load"): ("w = ct.load(W", ""),
                ("release", "store"): ("ct.store(Y", "; after a CTA barrier and a release fence"),
                ("relaxed", "store"): ("ct.store(Z", "")}
    assert set(said) == set(expected), prog.remarks
    for key, (text, beside) in expected.items():
        line, tail = said[key]
        assert text in source[line - 1] and tail == beside, (key, line, tail)
