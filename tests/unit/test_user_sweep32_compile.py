"""Thirty-second user sweep (``tileorch.testing.user_programs32``): each program, exported through cuTile's exporter (no
GPU) and compiled for sm_90a, takes the path its table entry names with no internal error
(dot_sweep_checks.dot_sweep_compile_tests). The two-dot programs (ALiBi slopes by ``exp2`` of the head, a relative
bias tile per key tile, sliding windows by loop bounds and by ``where``, softcapping by ``tanh`` and by hand, GQA by
``h * HKV // H`` and ``h % HKV``, cross-attention with per-batch key lengths, bottom-right causal, a per-row output
scale, the LSE in ``[B, H, S]``, a bool key-padding mask, V stored ``[BH, D, S]`` read by ``order``, varlen keys by
``.item()``, a prefix-LM mask, two MLP chains of different widths; f16 scores with a bf16
``P @ V`` and a bf16 Q converted to f16 after its load -- found by this sweep: both were refused ("all dot operands
must have the same element type"), now each dot has its own 16-bit type and a Q prologue may convert between them)
take the chained-dots TMA + WGMMA kernel; the GEMMs (residual add, fp8 out saturated, row maxima beside C, A
transposed by ``permute``, B by ``order``, the batch on grid axis 1 or 2, ``num_tiles`` and ``while`` K loops, an
f16 accumulator, ``alpha A B + beta C`` in place, a bf16 B cast in the loop, ``@`` with a 2-D bias, e4m3 with
scales, s8 x u8, TF32 by ``astype``, a K loop in elements, ``check_bounds=False``, a row bias) the TileAS tier; a GEMM
looping over its N tiles inside the kernel is refused at its load with a located warning naming why (found by this
sweep: the message said the tile index must be computed outside the loop, which it was); a GEMM also storing C^T at
the swapped index, a K loop unrolled by hand and attention with e4m3 Q / K are refused with located warnings
(documented limits).  Programs without a dot: the SIMT path.  Results against numpy: test_user_sweep32_interp.py,
test_user_sweep32_emulated.py, tests/gpu/test_user_sweep32_gpu.py."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs32  # noqa: E402
from tileorch.testing.user_programs32 import PROGRAMS  # noqa: E402
from dot_sweep_checks import (assert_assembles_without_spills, assert_pipelines_proved,  # noqa: E402
                              dot_sweep_compile_tests)

SOURCE = user_programs32.__file__
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
WGMMA = r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k\d+\.{}\.{}\.{}"
PTX_NEEDS = {
    "attn_f16_scores_bf16_pv": [WGMMA.format("f32", "f16", "f16"), WGMMA.format("f32", "bf16", "bf16")],
    "attn_q_bf16_cast_to_f16_after_load": [WGMMA.format("f32", "f16", "f16"), r"cvt\.rn\.f16x2\.f32"],
    "attn_softcap_tanh_causal_bf16": [WGMMA.format("f32", "bf16", "bf16")],
    "gemm_e4m3_row_col_scales_bf16_out": [WGMMA.format("f32", "e4m3", "e4m3")],
    "gemm_col_scale_fp8_e4m3_saturated": [r"cvt\.rn(\.satfinite)?\.e4m3x2\.f32"],
    "int8_row_sums_into_int32": [r"cvt\.s32\.s8|ld\.global(\.\w+)*\.s8"],
}
"""Per program: regular expressions its PTX must match (the idiom lowered, not refused)."""

(compiled, test_the_sweep_has_its_programs, test_a_dot_takes_its_path_and_says_so,
 test_program_without_a_dot_compiles_on_the_simt_path, _every_program) = \
    dot_sweep_compile_tests(PROGRAMS, SOURCE, 12, PTX_NEEDS, at_least=45)


def test_the_sweep_is_attention_heavy():
    """Issue 20: at least 15 programs on the chained-dots kernel (attention shapes and the MLP chains)."""
    assert sum(p.path == "chained" for p in PROGRAMS.values()) >= 15


def test_the_mixed_dots_name_each_type_in_the_kernel():
    """The chained kernel of f16 scores and a bf16 ``P @ V`` records both types (the launch record's ``dtype`` /
    ``dtype2``) and says so in a remark at the second dot; a kernel of one type records no ``dtype2``."""
    assert (compiled("attn_f16_scores_bf16_pv").chained["dtype"],
            compiled("attn_f16_scores_bf16_pv").chained.get("dtype2")) == ("f16", "bf16")
    assert "dtype2" not in compiled("attn_q_bf16_cast_to_f16_after_load").chained
    said = [r for r in compiled("attn_f16_scores_bf16_pv").remarks if "the first dot multiplies f16 tiles, this dot "
            "bf16 ones" in r]
    assert said and said[0].startswith(SOURCE + ":") and ": remark: " in said[0], said


SPILLS_IN_CI = {"attn_f16_scores_bf16_pv", "attn_q_bf16_cast_to_f16_after_load"}
"""The chained kernels ptxas checks in CI (this sweep's two new forms); the others with ``TILEORCH_EMULATE_ALL=1``."""
SPILLS_ALLOWED: set[str] = set()
"""(Until session 43 the refused fp8 attention ``attn_qk_e4m3_pv_f16``, whose SIMT fallback spilled; its chained
kernel with the e4m3 first dot assembles without spills: 128 registers, ptxas 13, sm_90a.)"""


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if ALL or p.path == "gemm" or n in SPILLS_IN_CI))
def test_every_program_assembles_without_spills(name):
    """ptxas (sm_90a) without a spill warning: in CI the tier's GEMMs and the chained kernels of
    :data:`SPILLS_IN_CI`, every program with ``TILEORCH_EMULATE_ALL=1`` (but :data:`SPILLS_ALLOWED`).  One test a
    program (CI-sized subsets, tests/ci_case_selection.json: a program none of whose other tests CI runs is not
    compiled for its spill check alone)."""
    assert_assembles_without_spills(name, compiled, SPILLS_ALLOWED)


@pytest.mark.parametrize("name", ["attn_f16_scores_bf16_pv", "attn_q_bf16_cast_to_f16_after_load"])
def test_the_new_chained_forms_pipelines_are_proved(name):
    """``tileorch check``'s model of the kernel's pipelines (mbarrier rings, named barriers) proves the two forms
    this sweep brought onto the chained kernel (dot_sweep_checks.assert_pipelines_proved)."""
    assert_pipelines_proved(PROGRAMS, name)
