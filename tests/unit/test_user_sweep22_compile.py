"""Twenty-second user sweep (``tileorch.testing.user_programs22``: the principal issue, "every dot program on
tensor cores, correct"): each program, exported through cuTile's exporter (no GPU) and compiled for sm_90a,
takes the path its table entry names: "gemm" (the TileAS tier's TMA + WGMMA kernel, with the tier's remark)
or "simt" with a *located* warning (``file:line:col`` in the program) saying why the tensor-core tiers
refused it and the SIMT path's remark that its dots run on mma.sync tensor cores (no silent fallback); the
f32 product by ``@`` is the documented f32 rule (a located remark: f32 accuracy by 3xTF32 on the SIMT path,
``.astype(ct.tfloat32)`` for the WGMMA kernels).  Every program's PTX assembles with ptxas without spills
(or is listed in :data:`SPILLS`).  :data:`REJECTED_BY_CUTILE` (bf16 x f16 by ``ct.matmul`` and by
``ct.mma``): cuTile's own error at the user's line.  Results against numpy: test_user_sweep22_emulated.py
(the PTX emulator), test_user_sweep22_interp.py (the SIMT interpreter) and
tests/gpu/test_user_sweep22_gpu.py (every program)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs22  # noqa: E402
from tileorch.testing.user_programs22 import PROGRAMS, REJECTED_BY_CUTILE  # noqa: E402
from dot_sweep_checks import (  # noqa: E402
    assert_dot_sweep, assert_spills_as_listed, assert_takes_its_path, compile_sweep_program)
from invalid_sweep_checks import cutile_rejects_tests  # noqa: E402

SOURCE = user_programs22.__file__
F32_RULE = "gemm_f32_operator_no_cast"
"""The program whose reason is the f32 rule's remark (a decision, not a refusal warning)."""


def compiled(name):
    """The program's compile for sm_90a, shared by the tests of a run (``compile_once``)."""
    return compile_sweep_program(PROGRAMS, name)


def test_the_sweep_has_its_programs():
    assert_dot_sweep(PROGRAMS, 26, 16)


@pytest.mark.parametrize("name", sorted(set(PROGRAMS) - {F32_RULE}))
def test_program_takes_its_path_and_says_so(name):
    assert_takes_its_path(PROGRAMS[name], compiled(name), SOURCE)


def test_f32_tiles_by_the_operator_follow_the_documented_f32_rule():
    """f32 operands as loaded: the SIMT path's 3xTF32 mma.sync (f32 accuracy), said at the user's ``@``."""
    prog = compiled(F32_RULE)
    assert prog.kind == "simt"
    rule = [r for r in prog.remarks if PROGRAMS[F32_RULE].error in r]
    assert rule and all(re.match(re.escape(SOURCE) + r":\d+:\d+: remark: ", r) for r in rule), prog.remarks
    assert any("3xTF32" in r and "on tensor cores with mma.sync" in r for r in prog.remarks), prog.remarks


def test_the_static_k_annotation_makes_a_constant_k_loop():
    """``ct.ArrayAnnotation(static_shape_dims=(1,))`` on A: the tier reads a constant K loop (3 tiles of 64)."""
    assert any("range(0, 3, 1)" in r for r in compiled("gemm_static_k_annotated").remarks)


def test_the_samples_kernel_is_one_kernel_for_f32_and_f16():
    """The sample's ``dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype``: tf32 WGMMAs for f32 arrays,
    f16 ones for f16 arrays."""
    assert re.search(r"wgmma\.mma_async\S*\.tf32\.tf32", compiled("samples_matmul_swizzle_helper").ptx)
    assert re.search(r"wgmma\.mma_async\S*\.f16\.f16", compiled("samples_matmul_swizzle_helper_f16").ptx)


SPILLS = {"layernorm_then_linear_k_loop", "splitk_last_program_reduces", "swiglu_dual_gemm_fused_weight_nk"}
"""Programs whose PTX ptxas assembles with spills (session 31, ptxas 13.0), all three the tensor-core tiers'
refusals on their SIMT fallback (the default 4 warps holding the f32 accumulators of 128 x 64 tiles, two of
them for the SwiGLU, beside the operands staged for mma.sync; the LayerNorm's row statistics and the split-K
reduction's second loop besides).  Listed so that the spill is not silent; a program joining the list (or
leaving it) fails."""


def test_the_spill_list_names_programs_of_the_sweep():
    assert SPILLS <= set(PROGRAMS), SPILLS - set(PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_assembles_without_spills_unless_listed(name):
    """Each program's PTX assembles with ptxas with spills exactly when :data:`SPILLS` lists it (one test a
    program: CI's subset skips the programs none of whose other tests it runs, tests/ci_case_selection.json)."""
    assert_spills_as_listed(name, compiled, SPILLS)


test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)


def test_a_k_tail_mask_keeps_the_programs_tiles():
    """A computed operand that reads element positions (the K mask of ``gemm_full_k_loop_masked_past_k``) is
    evaluated at the program's tile coordinates: the compiled program says it may not be retiled (the launcher's
    ``tiles="auto"`` would otherwise run it on tileorch.gemm's tiles, where those positions mean other elements)."""
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.user_programs22 import PROGRAMS as P22

    p = P22["gemm_full_k_loop_masked_past_k"]
    lowered = lower_once(cutile_bytecode(p.kernel, p.spec), "gemm_full_k_loop_masked_past_k", arch="sm_90a")
    assert lowered.kind == "gemm", lowered.remarks
    assert lowered.retile_safe is False
