"""Thirty-fourth user sweep (``tileorch.testing.user_programs34``): each program, exported through cuTile's exporter (no
GPU) and compiled for sm_90a, takes the path its table entry names with no internal error
(dot_sweep_checks.dot_sweep_compile_tests).  The two-dot programs (GQA with 4 query heads per K / V head in the
``[B, H, S, D]`` layout over three grid axes, ALiBi with its slope computed from the head index, tanh soft-capping in
bf16, causal with ``Sq < Sk`` aligned bottom-right, head dims 96 and 192 in wider tiles, attention through
``ct.function`` helpers, every call with keywords, GQA decode with a runtime key count, bf16 128 x 64 tiles) take the
chained-dots TMA + WGMMA kernel; the GEMMs (``A^T B`` and ``A^T B^T`` by ``ct.permute``, bf16 in / f32 out, an f32 bias
into f16, f32 inputs as tf32, int8 into raw int32, e4m3 / e5m2 with per-tensor scales, ragged M / N / K, K = 16 and
32, decode GEMMs of 40 and 24 rows, a column-major output, a residual then a clamp, a learned swish beta, a per-row
scale, a lower triangle by an index compare, an e5m2 output saturated by hand, a batch on grid axis 2) the TileAS
tier; programs without a dot the SIMT path.  Each GEMM's launch plan on the spec's contiguous arrays (the launcher's
host logic, no GPU) takes the tier too.  Results against numpy: test_user_sweep34_interp.py,
test_user_sweep34_emulated.py, tests/gpu/test_user_sweep34_gpu.py."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs34  # noqa: E402
from tileorch.testing.user_programs34 import PROGRAMS  # noqa: E402
from dot_sweep_checks import assert_assembles_without_spills, dot_sweep_compile_tests  # noqa: E402

SOURCE = user_programs34.__file__
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
WGMMA = r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k\d+\.{}\.{}\.{}"
PTX_NEEDS = {
    "gemm_int8_int32_out_raw": [WGMMA.format("s32", "s8", "s8")],
    "gemm_e4m3_per_tensor_scales_bf16": [WGMMA.format("f32", "e4m3", "e4m3")],
    "gemm_e5m2_scales_from_arrays_f16": [WGMMA.format("f32", "e5m2", "e5m2")],
    "gemm_f32_inputs_as_tf32": [WGMMA.format("f32", "tf32", "tf32")],
    "gemm_bf16_in_f32_out_keyword_load": [WGMMA.format("f32", "bf16", "bf16")],
    "attn_softcap_tanh_bf16_causal": [WGMMA.format("f32", "bf16", "bf16")],
    "attn_head_dim_192_bf16_in_256": [WGMMA.format("f32", "bf16", "bf16")],
    "gemm_out_e5m2_saturated": [r"cvt\.rn(\.satfinite)?\.e5m2x2\.f32"],
    "sum_of_squares_f16_in_f32": [r"(atom|red)(\.\w+)*\.add(\.\w+)*\.f32"],
}
"""Per program: regular expressions its PTX must match (the idiom lowered, not refused)."""

(compiled, test_the_sweep_has_its_programs, test_a_dot_takes_its_path_and_says_so,
 test_program_without_a_dot_compiles_on_the_simt_path, _every_program) = \
    dot_sweep_compile_tests(PROGRAMS, SOURCE, 15, PTX_NEEDS, at_least=45)


def test_the_sweep_is_attention_heavy():
    """Issue 20: at least 10 programs on the chained-dots kernel."""
    assert sum(p.path == "chained" for p in PROGRAMS.values()) >= 10


GEMMS = sorted(n for n, p in PROGRAMS.items() if p.path == "gemm")


@pytest.mark.parametrize("name", GEMMS if ALL else ["gemm_store_column_major_output", "gemm_decode_m_24_weights_nk"])
def test_the_gemm_launch_plan_takes_the_tier(name):
    """The launcher's host plan of the program's GEMM on the spec's contiguous arrays (``gemm_problem_operand_batches``:
    shapes, batches, layouts) raises no LayoutNotSupported, which would run the launch on the SIMT path; its
    problem's M x N is the output's (transposed for a column-major output)."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.export import described_arguments

    p = PROGRAMS[name]
    args = rc.stored_arguments(described_arguments(p.kernel, p.spec))
    a, b, c, m, n, k, batch, counts = rc.gemm_problem_operand_batches(compiled(name), args)
    out = tuple(p.spec[p.outputs[0]][0][-2:])
    assert (m, n) in (out, out[::-1]), (m, n)


SPILLS_IN_CI = {"attn_head_dim_192_bf16_in_256", "attn_gqa_bhsd_4_q_heads_per_kv_causal"}
"""The kernels ptxas checks in CI (the widest head dim, GQA over three grid axes); every program with
``TILEORCH_EMULATE_ALL=1`` (CI time)."""


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if ALL or n in SPILLS_IN_CI))
def test_every_program_assembles_without_spills(name):
    """ptxas (sm_90a) without a spill warning: in CI the kernels of :data:`SPILLS_IN_CI`, every program with
    ``TILEORCH_EMULATE_ALL=1``.  One test a
    program (CI-sized subsets, tests/ci_case_selection.json: a program none of whose other tests CI runs is not
    compiled for its spill check alone)."""
    assert_assembles_without_spills(name, compiled, frozenset())


REMARKS = {
    # program: (words of the located remark, text of the line it names)
    "gemm_mnk_all_ragged_f16": ("the operands of this f32 dot are f16 tiles widened to f32: computed as a f16 x f16 "
                                "dot accumulating in f32", "acc = acc + ct.load(A"),
    "gemm_f32_inputs_as_tf32": ("this dot's operands converted to tf32 are read by the tf32 WGMMA from their f32 "
                                "bits: the conversion is the tensor cores' truncation", "acc = ct.mma(a, b, acc)"),
}
"""Decisions this sweep made visible (each failed before): an f32 dot of two widened f16 tiles took the SIMT path's
3xTF32 (now the f16 WGMMA, exact products, stated); the tier's tf32 operands are truncated, not rounded (was unstated)."""


@pytest.mark.parametrize("name", sorted(REMARKS))
def test_the_decision_is_a_located_remark(name):
    from invalid_sweep_checks import line_of

    words, line = REMARKS[name]
    p = PROGRAMS[name]
    prog = compiled(name)
    assert prog.kind == "gemm", prog.remarks
    located = [r for r in prog.remarks if words in r]
    assert located and located[0].startswith(f"{SOURCE}:{line_of(p.kernel, line)}:"), prog.remarks
    assert ": remark: " in located[0]
