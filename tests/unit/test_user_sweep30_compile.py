"""Thirtieth user sweep (``tileorch.testing.user_programs30``): each program, exported through cuTile's exporter (no
GPU) and compiled for sm_90a, takes the path its table entry names with no internal error
(dot_sweep_checks.dot_sweep_compile_tests, the skeleton sweeps 25-29 share).  The attention-shaped programs (natural
``exp``, causal as a full loop with ``where``, as an additive bias and as a loop bound, a sliding window, ALiBi
slopes, a relative-bias tile, tanh soft-capping, GQA / MQA by index math, cross attention with an LSE at head dim
128 in bf16, varlen through start / length arrays, head dim 256 with f32 out, the Triton tutorial's 1-D row state)
and the MLP's two chained dots: the chained-dots TMA + WGMMA kernel, none on a silent SIMT fallback; the GEMM
epilogues: the TileAS tier's TMA/WGMMA kernel; the 3-D operand tile with a unit middle dim: the SIMT path's
mma.sync after a *located* warning.  The programs without a dot: the SIMT path with no refusal, their PTX holding
what the idiom needs.  Every tensor-core kernel (every program with TILEORCH_EMULATE_ALL=1) assembles with ptxas
without spills.  Results against numpy: test_user_sweep30_interp.py, test_user_sweep30_emulated.py,
tests/gpu/test_user_sweep30_gpu.py."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs30  # noqa: E402
from tileorch.testing.user_programs30 import PROGRAMS  # noqa: E402
from dot_sweep_checks import assert_assembles_without_spills, dot_sweep_compile_tests  # noqa: E402

SOURCE = user_programs30.__file__
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
WGMMA = r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k\d+\.{}\.{}\.{}"
RED = r"(red|atom)(\.\w+)*\.global(\.\w+)*\.add(\.\w+)*\.{}"
PTX_NEEDS = {
    "attn_cross_d128_lse_bf16": [WGMMA.format("f32", "bf16", "bf16")],
    "attn_tanh_softcap": [r"tanh\.approx\.f32|ex2\.approx"],
    "int8_gemm_bias_int32_out": [WGMMA.format("s32", "s8", "s8")],
    "gemm_both_operands_transposed": [WGMMA.format("f32", "bf16", "bf16")],
    "column_sums_by_atomic_add_row_blocks": [RED.format("f32")],
    "histogram_atomic_bins_int32": [RED.format("[su]32")],
    "cumsum_int64_rows_of_int32": [r"add\.s64"],
    "fp8_e4m3_dequant_rows_to_bf16": [r"cvt\S*\.e4m3x2|cvt\.f16x2\.e4m3x2"],
}
"""Per program: regular expressions its PTX must match (the idiom lowered, not refused)."""

(compiled, test_the_sweep_has_its_programs, test_a_dot_takes_its_path_and_says_so,
 test_program_without_a_dot_compiles_on_the_simt_path, _every_program) = \
    dot_sweep_compile_tests(PROGRAMS, SOURCE, 10, PTX_NEEDS, at_least=40)


def test_the_sweep_is_attention_heavy():
    """Issue 20: at least 14 programs on the chained-dots kernel (attention shapes and the MLP chain)."""
    assert sum(p.path == "chained" for p in PROGRAMS.values()) >= 14


SPILLS_IN_CI = {"attn_d256_f32_out", "attn_cross_d128_lse_bf16", "attn_tanh_softcap", "attn_alibi_slopes_from_array",
                "attn_decode_16_query_rows", "mlp_two_dots_relu_chain"}
"""The chained kernels ptxas checks in CI (the widest head dims, the most epilogue / mask work, the MLP chain); the
other chained kernels and the SIMT programs with ``TILEORCH_EMULATE_ALL=1`` (CI time)."""


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if ALL or p.path == "gemm" or n in SPILLS_IN_CI))
def test_every_program_assembles_without_spills(name):
    """ptxas (sm_90a) without a spill warning: in CI the tier's GEMMs and the chained kernels of
    :data:`SPILLS_IN_CI`, every program with ``TILEORCH_EMULATE_ALL=1``.  One test a
    program (CI-sized subsets, tests/ci_case_selection.json: a program none of whose other tests CI runs is not
    compiled for its spill check alone)."""
    assert_assembles_without_spills(name, compiled, frozenset())
