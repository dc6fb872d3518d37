"""Twenty-seventh user sweep (``tileorch.testing.user_programs27``): each program, exported through cuTile's
exporter (no GPU) and compiled for sm_90a, takes the path its table entry names with no internal error.  The
dots: the TileAS tier's TMA/WGMMA kernel with the tier's remark (a persistent GEMM grouped from ``pid``, split-K by
atomics, ragged K and tiny M / N, int8 -> int32, fp8 with scales, a 4-D batched GEMM with a broadcast batch,
epilogues reading a residual or a bool mask, an early return, ``IndexedWithInt64`` operands), or -- the GEMM with a
``ct.assert_`` -- the SIMT path's mma.sync after a *located* warning inside the kernel naming why, its assertion
compiled (``__assertfail``).  The programs without a dot: the SIMT path with no refusal, their PTX holding what the
idiom needs.  Every program assembles with ptxas without spills.  Results against numpy:
test_user_sweep27_interp.py, test_user_sweep27_emulated.py, tests/gpu/test_user_sweep27_gpu.py."""

from __future__ import annotations

import inspect
import re

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs27  # noqa: E402
from tileorch.testing.user_programs27 import PROGRAMS  # noqa: E402
from dot_sweep_checks import dot_sweep_compile_tests  # noqa: E402

SOURCE = user_programs27.__file__
WGMMA = r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k\d+\.{}\.{}\.{}"
PTX_NEEDS = {
    "gemm_swizzled_1d_grid_triton03": [WGMMA.format("f32", "bf16", "bf16")],
    "split_k_gemm_atomic_add_axis2": [r"(red|atom)(\.\w+)*\.global(\.\w+)*\.add(\.\w+)*\.f32"],
    "int8_gemm_int32_out": [WGMMA.format("s32", "s8", "s8")],
    "w8a8_gemm_nk_weight_dequant_scales": [WGMMA.format("s32", "s8", "s8")],
    "fp8_gemm_rowwise_colwise_scales": [WGMMA.format("f32", "e4m3", "e4m3")],
    "gemm_assert_no_nan_in_operands": [r"__assertfail", r"mma\.sync\.aligned\.m16n8k16\S*\.f16\.f16"],
    "seeded_dropout_pcg_hash": [r"mul\.lo\.[su]32", r"shr\.b32|shr\.u32"],
    "bincount_weighted_int64_ids_atomic": [r"(red|atom)(\.\w+)*\.global(\.\w+)*\.add(\.\w+)*\.f32"],
    "layernorm_backward_dw_db_atomic": [r"(red|atom)(\.\w+)*\.global(\.\w+)*\.add(\.\w+)*\.f32"],
    "int64_arithmetic_past_2_pow_32": [r"\.[su]64"],
    "bool_tiles_xor_and_count": [r"(red|atom)(\.\w+)*\.global(\.\w+)*\.add(\.\w+)*\.[su]32"],
}
"""Per program: regular expressions its PTX must match (the idiom lowered, not refused)."""


def test_the_assert_in_a_gemm_is_not_dropped():
    """``ct.assert_`` inside a GEMM's K loop: the tier's kernels evaluate no assertion, so the program takes the
    SIMT path after a warning at the assert's own line, and its PTX calls ``__assertfail`` (session 34's review
    asked whether the tier dropped it)."""
    p = PROGRAMS["gemm_assert_no_nan_in_operands"]
    lines, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    at = first + next(i for i, t in enumerate(lines) if "ct.assert_(a == a" in t)
    prog = compiled("gemm_assert_no_nan_in_operands")
    said = [r for r in prog.remarks if p.error in r]
    assert prog.kind == "simt" and len(said) == 1 and said[0].startswith(f"{SOURCE}:{at}:"), prog.remarks
    assert "call" in prog.ptx and "__assertfail" in prog.ptx


def test_the_tier_pass_refuses_an_assert_it_would_drop():
    """The tier's passes run directly (as ``tileorch-opt -p convert-cudatile-to-tileaa,tileas-tier,
    convert-nv-tileas-to-cutlass`` runs them, past the driver's refusal above) on the GEMM with a ``ct.assert_``:
    a located error at the assert's line naming it.  Found by this sweep: ``convert_to_cutlass.UNLOWERED_WRITES``
    lacked ``nv_tileaa.assert``, and the pass built the WGMMA kernel without the assertion, silently."""
    from tileorch.backend.pipeline import parse_pipeline, run_passes
    from tileorch.diagnostics import LocatedError
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS["gemm_assert_no_nan_in_operands"]
    lines, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    at = first + next(i for i, t in enumerate(lines) if "ct.assert_(a == a" in t)
    ctx = make_context()
    module = load(cutile_bytecode(p.kernel, p.spec), "gemm_assert", ctx)
    run_passes(ctx, module, parse_pipeline("convert-cudatile-to-tileaa{compute_capability=sm_90a}"))
    with pytest.raises(LocatedError) as info:
        run_passes(ctx, module, parse_pipeline("tileas-tier,convert-nv-tileas-to-cutlass"))
    message = str(info.value)
    assert message.startswith(f"{SOURCE}:{at}:") and "a device assertion (ct.assert_)" in message, message
    assert "it would be dropped (tileorch compile runs such a kernel on the SIMT path)" in message, message


SPILLS = {"layernorm_backward_dw_db_atomic"}
"""Programs whose PTX as compiled here (no ptxas step) ptxas assembles with a spill: the layernorm dW / dB by atomics
runs several program instances a CTA with the resident-CTA hint ``.minnctapersm 32`` (64-thread CTAs: 32 registers a
thread), under which ptxas 13.0 spills 372 B; the driver's ptxas step drops the hint where it spills
(backend/compile.py ``HINT_ATTRS``: 56 registers, no spill, session 35), which
:func:`test_the_combined_atomics_hint_is_dropped_where_it_spills` checks."""


def test_the_combined_atomics_hint_is_dropped_where_it_spills():
    from tileorch.backend.ptxas import ptxas_available
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    p = PROGRAMS["layernorm_backward_dw_db_atomic"]
    prog = compile_program(cutile_bytecode(p.kernel, p.spec), "ln_dw_db", arch="sm_90a", ptxas=True)
    assert any("the resident-CTA hint (.minnctapersm) dropped" in r for r in prog.remarks), prog.remarks
    assert any(re.search(r"ptxas: .*: \d+ registers, 0 spills", r) for r in prog.remarks), prog.remarks


(compiled, test_the_sweep_has_its_programs, test_a_dot_takes_its_path_and_says_so,
 test_program_without_a_dot_compiles_on_the_simt_path, test_every_program_assembles_without_spills) = \
    dot_sweep_compile_tests(PROGRAMS, SOURCE, 15, PTX_NEEDS, spills_allowed=SPILLS)
