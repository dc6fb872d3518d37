"""Twenty-fifth user sweep (``tileorch.testing.user_programs25``): each program, exported through cuTile's
exporter (no GPU) and compiled for sm_90a, takes the path its table entry names with no internal error.  The
dots: the TileAS tier's TMA/WGMMA kernel with the tier's remark (and the operand types' WGMMA in the PTX: e4m3,
e5m2, s8 -> s32, f16 accumulators), or -- the one-row GEMV -- the SIMT path's mma.sync after a *located* warning
inside the kernel naming why (no silent fallback); so does the one-column product.  The programs without a dot: the SIMT path with no refusal,
their PTX holding what the idiom needs (``atom.cas`` / ``atom.exch`` / signed and unsigned ``atom.min`` /
``atom.max`` / ``atom.and|or|xor``, 64-bit ``div`` / ``rem`` / shifts, the saturating fp8 conversions, 8- and
16-bit unsigned min / max).  A float -> bool ``astype`` gets its located warning (truncation, not ``x != 0``).
Every program assembles with ptxas without spills.  :data:`REJECTED_BY_CUTILE`: cuTile's own error at the
user's line.  Results against numpy: test_user_sweep25_interp.py, test_user_sweep25_emulated.py,
tests/gpu/test_user_sweep25_gpu.py."""

from __future__ import annotations

import inspect

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs25  # noqa: E402
from tileorch.testing.user_programs25 import PROGRAMS, REJECTED_BY_CUTILE  # noqa: E402
from dot_sweep_checks import dot_sweep_compile_tests  # noqa: E402
from invalid_sweep_checks import cutile_rejects_tests  # noqa: E402

SOURCE = user_programs25.__file__
WGMMA = r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k\d+\.{}\.{}\.{}"
ATOM = r"atom(\.\w+)*\.global(\.\w+)*\.{}(\.\w+)*\.{}"
PTX_NEEDS = {
    "fp8_e4m3_gemm_scaled_f32_out": [WGMMA.format("f32", "e4m3", "e4m3")],
    "fp8_e5m2_gemm_f16_out": [WGMMA.format("f32", "e5m2", "e5m2")],
    "int8_gemm_int32_accumulate": [WGMMA.format("s32", "s8", "s8")],
    "gemm_f16_accumulator": [WGMMA.format("f32", "f16", "f16")],  # (f32 registers: the remark below)
    "gemm_b_stored_nk_permuted": [WGMMA.format("f32", "bf16", "bf16")],
    "split_k_by_user_atomics": [r"(red|atom)(\.\w+)*\.global(\.\w+)*\.add(\.\w+)*\.f32"],
    "decode_gemv_one_row_tile": [r"mma\.sync\.aligned\.m16n8k16\S*\.f16\.f16"],
    "gemm_one_column_tile": [r"mma\.sync\.aligned\.m16n8k16\S*\.f16\.f16"],
    "atomic_cas_first_wins_and_xchg_last": [ATOM.format("cas", r"b32"), ATOM.format("exch", r"b32")],
    "atomic_min_max_signed_and_unsigned": [ATOM.format("min", "s32"), ATOM.format("max", "s32"),
                                           ATOM.format("min", "u32"), ATOM.format("max", "u32")],
    "atomic_bit_sets_and_or_xor": [ATOM.format(op, "b32") for op in ("and", "or", "xor")],
    "atomic_add_f16_and_uint64_counters": [r"(red|atom)(\.\w+)*\.global(\.\w+)*\.add(\.\w+)*\.(noftz\.)?f16",
                                           r"(red|atom)(\.\w+)*\.global(\.\w+)*\.add(\.\w+)*\.u64"],
    "atomic_cas_f32_and_xchg_f64": [ATOM.format("cas", "b32"), ATOM.format("exch", "b64")],
    "int64_floordiv_mod_negative_divisors": [r"div\.s64"],
    "narrow_int_div_mod_and_unsigned_div": [r"div\.u32", r"rem\.u32"],
    "float_to_narrow_ints_saturating": [r"cvt\.rzi\.s64\.f32"],
    "uint64_and_int64_shifts_bitwise": [r"shl\.b64", r"shr\.u64", r"shr\.s64"],
    "f32_to_fp8_both_formats_saturating": [r"cvt\.rn\.satfinite\.e4m3x2\.f32", r"cvt\.rn\.satfinite\.e5m2x2\.f32"],
    "uint8_uint16_min_max_across_the_sign_bit": [r"min\.u(16|32)", r"max\.u(16|32)"],
}
"""Per program: regular expressions its PTX must match (the idiom lowered, not refused)."""


def test_a_float_to_bool_cast_is_warned_at_its_line():
    """``x.astype(ct.bool_)`` of f32 (cuTile's ``ftoi`` to ``i1``: truncation saturating to [0, 1]) is said at the
    user's line; the bool -> float cast and the bool reductions (``ct.max`` of a bool tile) are not."""
    p = PROGRAMS["bool_to_and_from_numbers"]
    lines, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    at = first + next(i for i, t in enumerate(lines) if "tile=x.astype(ct.bool_)" in t)
    said = [r for r in compiled("bool_to_and_from_numbers").remarks if "astype(bool)" in r]
    assert len(said) == 1 and said[0].startswith(f"{SOURCE}:{at}:") and ": warning: " in said[0], said
    assert "not x != 0" in said[0]
    for other in ("any_all_of_bool_rows", "masked_gather_scatter_permutation"):
        assert not [r for r in compiled(other).remarks if "astype(bool)" in r]


def test_an_f16_accumulator_kept_in_f32_is_said_at_the_dot():
    """The program's ``ct.zeros(..., dtype=ct.float16)`` accumulator: the WGMMA kernel accumulates in f32 (found
    by this sweep: silent before), a located remark at the ``ct.mma`` line; an f32 accumulator gets none."""
    p = PROGRAMS["gemm_f16_accumulator"]
    lines, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    at = first + next(i for i, t in enumerate(lines) if "acc = ct.mma(a, b, acc)" in t)
    said = [r for r in compiled("gemm_f16_accumulator").remarks if "f16 accumulator" in r]
    assert len(said) == 1 and said[0].startswith(f"{SOURCE}:{at}:") and ": remark: " in said[0], said
    assert not [r for r in compiled("gemm_k_not_a_multiple_of_the_tile").remarks if "f16 accumulator" in r]


test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)


(compiled, test_the_sweep_has_its_programs, test_a_dot_takes_its_path_and_says_so,
 test_program_without_a_dot_compiles_on_the_simt_path, test_every_program_assembles_without_spills) = \
    dot_sweep_compile_tests(PROGRAMS, SOURCE, 16, PTX_NEEDS, spills_allowed=set())
