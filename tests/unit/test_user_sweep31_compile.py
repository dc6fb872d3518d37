"""Thirty-first user sweep (``tileorch.testing.user_programs31``): each program, exported through cuTile's exporter (no
GPU) and compiled for sm_90a, takes the path its table entry names with no internal error
(dot_sweep_checks.dot_sweep_compile_tests). The attention-shaped programs (K stored transposed ``[B, H, D, S]``, the
running max folded as ``max(maximum(s, m))``, causal by ``where`` with ``-1e9``, by ``broadcast_to`` index tiles and
by zeroing the probabilities, Q scaled before the loop, ``1 / l`` normalisation, an LSE in natural units, head dims
32 / 128 / 256, 77 queries against 45 keys) and the GELU MLP's two chained dots: the chained-dots TMA + WGMMA kernel;
the GEMMs (split-K by hand, a log-softmax epilogue, K = 100, W8A8 dequantised, an f16 accumulator, a strided batch
view, 3-D tiles, A stored ``[K, M]``, K walked last-first, a 128x256 tile, K written as two loops over its halves,
the last K tile masked or the later K tiles scaled under ``if k >= X`` -- found by this sweep: refused until
tileas-fold-dot-accumulate left the pair to tileas-fuse-split-loops and the tier's computed A took the fused loop's
branch): the TileAS tier's TMA/WGMMA kernel. The dots the tier refuses say so, located at the user's line: V
converted after its load (fp8 -> f16, f32 -> bf16: a warning at the conversion, found by this sweep: the warning
named the dot and not why) and an f32 x f32 dot (the documented f32 rule: a remark). The programs without a dot: the
SIMT path with no refusal, their PTX holding what the idiom needs. Every tensor-core kernel (every program with
TILEORCH_EMULATE_ALL=1) assembles with ptxas without spills. Results against numpy: test_user_sweep31_interp.py,
test_user_sweep31_emulated.py, tests/gpu/test_user_sweep31_gpu.py."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs31  # noqa: E402
from tileorch.testing.user_programs31 import PROGRAMS  # noqa: E402
from dot_sweep_checks import assert_assembles_without_spills, dot_sweep_compile_tests  # noqa: E402

SOURCE = user_programs31.__file__
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
WGMMA = r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k\d+\.{}\.{}\.{}"
RED = r"(red|atom)(\.\w+)*\.global(\.\w+)*\.add(\.\w+)*\.{}"
PTX_NEEDS = {
    "attn_head_dim_256_bf16_bn32": [WGMMA.format("f32", "bf16", "bf16")],
    "int8_gemm_dequant_row_col_scales": [WGMMA.format("s32", "s8", "s8")],
    "gemm_f16_accumulator_bias_f16": [WGMMA.format("f32", "f16", "f16")],  # (kept in f32: the remark below)
    "split_k_by_hand_atomic_f32_runtime_split": [RED.format("f32")],
    "weighted_histogram_atomic_f32": [RED.format("f32")],
    "index_add_rows_scatter_add": [RED.format("f32")],
    "fp8_e4m3_quantize_saturated_per_tensor": [r"cvt\.rn(\.satfinite)?\.e4m3x2\.f32"],
    "fp8_e5m2_gradient_cast_saturated": [r"cvt\.rn(\.satfinite)?\.e5m2x2\.f32"],
}
"""Per program: regular expressions its PTX must match (the idiom lowered, not refused)."""
DECISIONS = {"tf32_linear_weight_nk_bias"}
"""Dots on the SIMT path by a documented rule (a located remark, not a warning): f32 x f32 at f32 accuracy."""

(compiled, test_the_sweep_has_its_programs, test_a_dot_takes_its_path_and_says_so,
 test_program_without_a_dot_compiles_on_the_simt_path, _every_program) = \
    dot_sweep_compile_tests(PROGRAMS, SOURCE, 8, PTX_NEEDS, decisions=DECISIONS, at_least=40)


def test_the_sweep_is_attention_heavy():
    """Issue 20: at least 14 programs on the chained-dots kernel (attention shapes and the MLP chain)."""
    assert sum(p.path == "chained" for p in PROGRAMS.values()) >= 14


def test_the_f16_accumulator_is_kept_in_f32_and_said():
    """The documented rule (docs/cuda-tile.md): the WGMMA kernel keeps an f16 accumulator in f32, with a located
    remark at the dot."""
    said = [r for r in compiled("gemm_f16_accumulator_bias_f16").remarks if "f16 accumulator is kept in f32" in r]
    assert said and said[0].startswith(SOURCE + ":"), said


SPILLS_IN_CI = {"attn_head_dim_256_bf16_bn32", "attn_head_dim_32_bm128", "mlp_gelu_tanh_two_dots_bf16"}
"""The chained kernels ptxas checks in CI (the widest and narrowest head dims, the GELU chain); the other chained
kernels and the SIMT programs with ``TILEORCH_EMULATE_ALL=1`` (CI time)."""


SPILLS_ALLOWED = {"attn_v_fp8_e4m3_cast_in_kernel", "attn_bf16_qk_f16_v_cast"}
"""The refused attention programs: their SIMT fallback (64x64 score and output tiles through mma.sync, one CTA of
128 threads) spills under ptxas (ptxas 13, sm_90a); correct, slow, refused with a located warning."""


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if ALL or p.path == "gemm" or n in SPILLS_IN_CI))
def test_every_program_assembles_without_spills(name):
    """ptxas (sm_90a) without a spill warning: in CI the tier's GEMMs and the chained kernels of
    :data:`SPILLS_IN_CI`, every program with ``TILEORCH_EMULATE_ALL=1`` (but :data:`SPILLS_ALLOWED`).  One test a
    program (CI-sized subsets, tests/ci_case_selection.json: a program none of whose other tests CI runs is not
    compiled for its spill check alone)."""
    assert_assembles_without_spills(name, compiled, SPILLS_ALLOWED)


def test_the_k_stored_transposed_attention_spec_is_addressed_by_tensor_maps(monkeypatch):
    """The chained program's launch on its spec's arrays takes the tier: every tensor map the launcher builds for it
    (``chained_tensor_maps``, the encoding itself stubbed: no driver here) addresses its array.  With 150 f16 keys (the
    spec before session 41) K^T's rows were 300 bytes, no 16-byte multiple: every launch ran the SIMT path (a
    PerformanceWarning), which the GPU twin's launch-path check found."""
    from tileorch.launchers import cutile as rc
    from tileorch.launchers import gemm_host
    from tileorch.testing.export import described_arguments

    name = "attn_bhsd_k_stored_transposed"
    p = PROGRAMS[name]
    program = compiled(name)
    assert program.kind == "chained"
    encoded = []
    monkeypatch.setattr(gemm_host, "encode_tensor_map", lambda *a, **kw: encoded.append(a) or b"")
    rc.chained_tensor_maps(program.chained, rc.stored_arguments(described_arguments(p.kernel, p.spec)))
    assert len(encoded) == len(program.chained["tmaps"]) >= 3
