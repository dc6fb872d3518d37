"""Thirty-third user sweep (``tileorch.testing.user_programs33``): each program, exported through cuTile's exporter (no
GPU) and compiled for sm_90a, takes the path its table entry names with no internal error
(dot_sweep_checks.dot_sweep_compile_tests).  The two-dot programs (multi-query attention with one K / V head, a
causal sliding window given as a scalar argument with its first key tile computed from it, an additive bias from a
``[B, H, Sq, Sk]`` tensor, a per-key bias vector, decode with 8 and with 1 query rows padded to a 64-row tile, head
dims 32, 48 (in 64-column tiles) and 160 (in 256-column tiles, bf16), both dots written with ``@``, GQA in the
``[B, S, H, D]`` layout) take the chained-dots TMA + WGMMA kernel; the GEMMs (``ct.mma`` with ragged K and bf16 out,
``ct.matmul`` added per K tile, split-K by hand over K ranges with ``atomic_add``, grouped GEMM through a per-tile
group table read by ``.item()``, a bf16 bias then GELU / SiLU, int8 x int8 into int32 dequantised by row and column
scales, B broadcast from a ``[1, K, N]`` array, SwiGLU of two weights, the GEMM after RMSNorm with ``nn.Linear``'s
``[N, K]`` weight, a runtime ``alpha``, a row scale and a bf16 residual, 128 x 128 x 64 tiles with a squared ReLU,
K = 1000 in 32-wide K tiles, and -- found by this sweep: refused as "a reduction of the result added atomically
beside C is not supported yet" and run on the SIMT path -- C beside its column sums or its ReLU's row sums added
into an ``[N]`` / ``[M]`` array by ``ct.atomic_add``, now a side output the tier adds once per CTA tile) the TileAS
tier; more two-dot programs (decode with GQA's 8 query heads packed into a query tile's rows, 128 x 128 tiles, the
scale applied after the unscaled row maximum, a per-head scale by ``.item()``, left padding by a per-row first key)
the chained kernel; programs without a dot the SIMT path.  Each GEMM's launch plan on the spec's contiguous arrays
(the launcher's host logic, no GPU) takes the tier too: no launch-time SIMT fall back.  Results against numpy:
test_user_sweep33_interp.py, test_user_sweep33_emulated.py, tests/gpu/test_user_sweep33_gpu.py."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs33  # noqa: E402
from tileorch.testing.user_programs33 import PROGRAMS  # noqa: E402
from dot_sweep_checks import (assert_assembles_without_spills, assert_pipelines_proved,  # noqa: E402
                              dot_sweep_compile_tests)

SOURCE = user_programs33.__file__
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
WGMMA = r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k\d+\.{}\.{}\.{}"
PTX_NEEDS = {
    "gemm_int8_int32_acc_dequant_f16": [WGMMA.format("s32", "s8", "s8")],
    "attn_head_dim_160_bf16": [WGMMA.format("f32", "bf16", "bf16")],
    "attn_decode_one_row_causal_tail": [WGMMA.format("f32", "bf16", "bf16")],
    "gemm_mma_bf16_out_k_ragged": [WGMMA.format("f32", "bf16", "bf16")],
    "f32_to_f16_rz_and_int8_to_f32": [r"cvt\.rz\.f16\.f32"],
    "histogram_atomic_add_bins": [r"(atom|red)(\.\w+)*\.add(\.\w+)*\.[su]32"],
    "segment_max_int32_atomic_by_ids": [r"(atom|red)(\.\w+)*\.max(\.\w+)*\.s32"],
    "gemm_c_and_column_sums_by_atomics": [WGMMA.format("f32", "f16", "f16"), r"(atom|red)\.global\.add\.f32"],
    "gemm_relu_and_row_sums_by_atomics": [WGMMA.format("f32", "f16", "f16"), r"(atom|red)\.global\.add\.f32"],
}
"""Per program: regular expressions its PTX must match (the idiom lowered, not refused)."""

(compiled, test_the_sweep_has_its_programs, test_a_dot_takes_its_path_and_says_so,
 test_program_without_a_dot_compiles_on_the_simt_path, _every_program) = \
    dot_sweep_compile_tests(PROGRAMS, SOURCE, 12, PTX_NEEDS, at_least=50)


def test_the_sweep_is_attention_heavy():
    """Issue 20: at least 10 programs on the chained-dots kernel."""
    assert sum(p.path == "chained" for p in PROGRAMS.values()) >= 10


GEMMS = sorted(n for n, p in PROGRAMS.items() if p.path == "gemm")


@pytest.mark.parametrize("name", GEMMS if ALL else ["gemm_grouped_tile_group_table",
                                                     "gemm_batched_b_broadcast_leading_1"])
def test_the_gemm_launch_plan_takes_the_tier(name):
    """The launcher's host plan of the program's GEMM on the spec's contiguous arrays (``gemm_problem_operand_batches``:
    shapes, batches, layouts) raises no LayoutNotSupported, which would run the launch on the SIMT path."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.export import described_arguments

    p = PROGRAMS[name]
    args = rc.stored_arguments(described_arguments(p.kernel, p.spec))
    a, b, c, m, n, k, batch, counts = rc.gemm_problem_operand_batches(compiled(name), args)
    assert (m, n) == tuple(p.spec[p.outputs[0]][0][-2:]), (m, n)


SPILLS_IN_CI = {"attn_head_dim_160_bf16", "attn_causal_window_scalar_arg", "gemm_c_and_column_sums_by_atomics",
                "gemm_relu_and_row_sums_by_atomics"}
"""The kernels ptxas checks in CI (the widest head dim, the guarded window, the two GEMMs adding reductions
atomically beside C: new on the tier); every program with ``TILEORCH_EMULATE_ALL=1`` (CI time)."""


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if ALL or n in SPILLS_IN_CI))
def test_every_program_assembles_without_spills(name):
    """ptxas (sm_90a) without a spill warning: in CI the kernels of :data:`SPILLS_IN_CI`, every program with
    ``TILEORCH_EMULATE_ALL=1``.  One test a
    program (CI-sized subsets, tests/ci_case_selection.json: a program none of whose other tests CI runs is not
    compiled for its spill check alone)."""
    assert_assembles_without_spills(name, compiled, frozenset())


@pytest.mark.parametrize("name", ["attn_causal_window_scalar_arg", "attn_mqa_one_kv_head_bhsd"])
def test_pipelines_are_proved(name):
    """``tileorch check``'s model of the kernel's pipelines proves the window's computed first key tile and the shared
    K / V head (dot_sweep_checks.assert_pipelines_proved)."""
    assert_pipelines_proved(PROGRAMS, name)
