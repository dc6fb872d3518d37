"""Twenty-sixth user sweep (``tileorch.testing.user_programs26``): each program, exported through cuTile's
exporter (no GPU) and compiled for sm_90a, takes the path its table entry names with no internal error.  The
dots: the TileAS tier's TMA/WGMMA kernel with the tier's remark (the implicit-GEMM convolution's gathered A
included), or -- the int4 weight unpacked in the K loop and the per-head ``(TM, 1, TK)`` A slab -- the SIMT
path's mma.sync after a *located* warning inside the kernel naming why (no silent fallback).  The programs
without a dot: the SIMT path with no refusal, their PTX holding what the idiom needs.  A ``ct.Constant``
specialisation compiles two different kernels (its dead branch gone).  Every program assembles with ptxas
without spills.  Results against numpy: test_user_sweep26_interp.py, test_user_sweep26_emulated.py,
tests/gpu/test_user_sweep26_gpu.py."""

from __future__ import annotations

import inspect

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs26  # noqa: E402
from tileorch.testing.user_programs26 import PROGRAMS  # noqa: E402
from dot_sweep_checks import dot_sweep_compile_tests  # noqa: E402

SOURCE = user_programs26.__file__
WGMMA = r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k\d+\.{}\.{}\.{}"
PTX_NEEDS = {
    "gemm_bias_gelu_tanh_dropout_mask": [WGMMA.format("f32", "bf16", "bf16")],
    "moe_combine_weighted_atomic_add": [r"(red|atom)(\.\w+)*\.global(\.\w+)*\.add(\.\w+)*\.f32"],
    "gemm_128_cubed_tiles": [r"wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.f16\.f16"],
    "w4a16_gemm_nibbles_dequant_in_loop": [r"mma\.sync\.aligned\.m16n8k16\S*\.f16\.f16"],
    "gemm_heads_on_grid_axis2": [WGMMA.format("f32", "f16", "f16")],  # (A batched in its middle dimension)
    "kv_cache_scatter_per_sequence_lengths": [r"st\.global"],
    "quant_fp8_e4m3_per_row_scale": [r"cvt\.rn\.satfinite\.e4m3x2\.f32"],
    "histogram_float_bins_clamped": [r"(red|atom)(\.\w+)*\.global(\.\w+)*\.add(\.\w+)*\.[su]32"],
    "dropout_hash_mask_uint32": [r"mul\.lo\.[su]32", r"shr\.u32", r"cvt\.rn\.f32\.u32"],
    "dequant_int4_nibbles_sign_extend": [r"bfe\.s32\s+%r\d+, %r\d+, 0, 4", r"bfe\.s32\s+%r\d+, %r\d+, 4, 4"],
    "int64_indexed_parameter_offsets": [r"\.u64|\.s64"],
}
"""Per program: regular expressions its PTX must match (the idiom lowered, not refused)."""


@pytest.mark.parametrize("pair", [("linear_bias_silu", "linear_no_bias_relu"),
                                  ("activation_gelu_code_2", "activation_silu_code_3")])
def test_a_constant_specialises_the_kernel(pair):
    """One kernel, two ``ct.Constant`` values: two different programs, each without the other's branch (SiLU's
    ``ex2`` only where ACT selects it)."""
    a, b = (compiled(n).ptx for n in pair)
    assert a != b
    assert ("ex2.approx" in a) != ("ex2.approx" in b) or pair[0].startswith("activation"), pair
    if pair[0].startswith("activation"):  # GELU(tanh) vs SiLU: tanh in one, not the other
        assert ("tanh.approx" in a or "ex2" in a) and "ex2" in b


SPILLS_WITH_PTXAS_13_5 = {"gemm_twelve_arguments", "row_sum_max_512_tile_int16", "attention_lse_stored_by_scatter"}
"""ptxas 13.5 (the wheel CI runs) spills 16 B in the tier kernel's epilogue of the first (232 registers per consumer
thread) and 4 B in the second's SIMT kernel (47 registers, no register limit); ptxas 13.0 (the GPU machine's)
assembles both without a spill (session 34).  The attention whose LSE is scattered ran on the SIMT path's
mma.sync kernel at 255 registers and spilled 140 B with either ptxas until session 43 (now the chained kernel:
tileas-scatter-row-store); it stays allowed here."""


@pytest.mark.parametrize("name, line_text", [
    ("gemm_store_and_scatter_unpermuted_copy", "ct.scatter(D, (dst[:, None]"),
    ("gemm_scatter_rows_only", "ct.scatter(D, (ct.gather(Perm"),
    ("gemm_tile_done_flags_by_cas", "ct.atomic_cas(Done, t, 0, t + 1)")])
def test_a_write_the_tier_would_drop_is_refused_at_its_line(name, line_text):
    """A ``ct.scatter`` or ``ct.atomic_cas`` in a GEMM's work tile: the WGMMA epilogue has no lowering for it (it
    writes C, tiles and reductions of the result at C's tile; the chained (attention) tier, its output tiles and
    row vectors).  Found by this sweep: beside C's tile store the
    tier took the kernel and dropped the write (D never written, no flag set: silently wrong); a scatter alone was
    refused at the kernel's first line as "found 0 tile stores"; the chained tier's refusal named the IR op
    ('nv_tileaa.store').  Now the SIMT path runs it after a warning at the write's own line naming it.  (The
    attention whose LSE is scattered at consecutive rows takes the chained tier since session 43:
    test_scattered_lse_row_takes_the_chained_tier.)"""
    p = PROGRAMS[name]
    lines, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    at = first + next(i for i, t in enumerate(lines) if line_text in t)
    prog = compiled(name)
    said = [r for r in prog.remarks if p.error in r]
    assert prog.kind == "simt" and len(said) == 1 and said[0].startswith(f"{SOURCE}:{at}:"), prog.remarks
    assert ": warning: " in said[0] and ("it would be dropped" in said[0] or "chained-dots" in said[0]), said


def test_scattered_lse_row_takes_the_chained_tier():
    """The LSE scattered at (head, qt BM + arange(BM)): refused before session 43 (the SIMT path, 140 B of spills);
    now tileas-scatter-row-store's located remark at the scatter and the chained kernel."""
    p = PROGRAMS["attention_lse_stored_by_scatter"]
    lines, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    at = first + next(i for i, t in enumerate(lines) if "ct.scatter(LSE, " in t)
    prog = compiled("attention_lse_stored_by_scatter")
    assert prog.kind == "chained", prog.remarks
    assert any(r.startswith(f"{SOURCE}:{at}:") and ": remark: " in r and "scattered at consecutive indices" in r
               for r in prog.remarks), prog.remarks


def test_an_atomic_beside_c_is_refused_at_the_atomics_line():
    """One tile store of C and an ``atomic_max`` of the tile's amax: the tier's refusal (one output by atomics or
    by tiles) was located at the kernel's K loop; found by this sweep, now at the atomic's line."""
    p = PROGRAMS["gemm_amax_by_atomic_max_beside_c"]
    lines, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    at = first + next(i for i, t in enumerate(lines) if "ct.atomic_max(Amax, 0," in t)
    said = [r for r in compiled("gemm_amax_by_atomic_max_beside_c").remarks if p.error in r]
    assert len(said) == 1 and said[0].startswith(f"{SOURCE}:{at}:") and ": warning: " in said[0], said


(compiled, test_the_sweep_has_its_programs, test_a_dot_takes_its_path_and_says_so,
 test_program_without_a_dot_compiles_on_the_simt_path, test_every_program_assembles_without_spills) = \
    dot_sweep_compile_tests(PROGRAMS, SOURCE, 10, PTX_NEEDS, spills_allowed=SPILLS_WITH_PTXAS_13_5)
