"""Ninth user sweep (``tileorch.testing.user_programs9``: dot-bearing programs as users write them):
each program exported through the launcher's argument description and cuTile's exporter (no GPU)
and compiled for sm_90a takes the path its entry names (written from what the program is: a plain
tile GEMM with its epilogue on the GEMM tier; gathered operands, several dots not sharing A, a K
loop inside another loop of dots on the SIMT path); a program a tensor-core tier refuses says why
at the user's line (a remark: no silent slow path), in the program's terms; no internal error.

Found by this sweep (each test below failed before its fix):
- nested K loops (an outer loop over blocks of K tiles around the loop over a block's tiles, or a
  ``ct.static_iter`` pair inside the K loop) were refused ("this loop carries on the result of a K
  loop nested in it ... an MLP ..."): ``tileas-flatten-nested-k-loops`` makes them one K loop;
- a row logsumexp stored beside the logits (two row reductions, the sum reading the max) was
  refused ("a second output tile [128, 1] at other indices than C's"): now a side output;
- a matrix-vector dot (N = 1) was refused as "the dot's MMA atom is #nv_tileas.fma<[1, 1, 1]>, not a
  WGMMA (mma.sm90) atom": now the product's column count and what to write (f64 dots likewise);
- a dot with a ``ct.ones`` operand was refused as "computed in the kernel (e.g. int4 weights
  unpacked ...)": now "a constant tile";
- DeepSeek-style block scales (a dot from zero per K step, scaled, then added) were refused as "the
  dot does not accumulate into a tile the K loop carries": now what the program does and what the
  tier takes;
- a kernel storing only row reductions of the product (a loss, an argmax) was refused as "the
  stored tile [128, 1] is not the 128x128 accumulator tile": now "the product tile is not stored";
- a column sum added with ``ct.atomic_add`` beside C was refused at the K loop as "expected one tile
  store of C ... found 1 tile stores and 1 atomic updates": now at the atomic add, with what to write."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs9  # noqa: E402
from tileorch.testing.user_programs9 import PROGRAMS  # noqa: E402

SOURCE = str(Path(user_programs9.__file__))

EXPECTED_PATHS = {
    # plain tile GEMMs (one K loop of TMA-loadable tiles, one product tile stored; epilogues of
    # elementwise math, loaded vectors, scalars, row reductions, atomics of the product)
    **dict.fromkeys([
        "mm_persistent_bf16_col_bias", "mm_persistent_group_m_ragged", "mm_persistent_num_ctas2",
        "mm_tile_256x128x32", "mm_tile_64x256", "mm_occupancy_latency_hints", "mm_ragged_k200",
        "mm_k_from_runtime_arg", "mm_full_zero_start", "mm_nested_k_blocks", "mm_nested_k_strided_outer",
        "mm_static_iter_halves", "mm_f16_acc_operator", "mm_decode_one_row", "mm_skinny_m16", "gemv_16_vectors",
        "mm_a_transposed_by_ct_transpose", "mm_b_swapped_indices_permute", "bmm_4d_weight_broadcast_over_batch",
        "bmm_3d_tiles_no_reshape", "mm_int8_i32_ragged_m", "mm_int8_rowcol_scales_f32",
        "mm_int8_i32_bias_then_scales_bf16", "mm_fp8_tensor_scale_args", "mm_fp8_rowwise_scales",
        "mm_e5m2_scale_from_array", "mm_alpha_beta_inplace_f32", "mm_row_bias_column_broadcast",
        "mm_logits_and_row_lse", "mm_row_l2_normalize", "mm_splitk_bid2_scaled_atomic",
        "mm_splitk_interleaved_atomic", "mm_two_dots_shared_a_two_dtypes", "mm_alpha_beta_inplace_f16",
        "mm_bf16_f32_out_k72", "mm_fp8_row_and_nblock_scales", "bmm_a_shared_b_batched", "mm_logit_softcap_bf16",
        "mm_tile_128x256x128_bf16", "mm_two_dots_shared_b", "mm_relu_colsum_atomic"], "gemm"),
    # what the tiers do not take (yet): N = 1, a constant operand, per-K-step math on the product,
    # no product tile stored, a K loop per vocabulary tile, gathered rows (dots not sharing A: taken since
    # session 27, an A tile per dot; an atomic column reduction beside C since session 41)
    **dict.fromkeys([
        "gemv_n1", "mm_dot_with_ones_tile", "mm_fp8_deepseek_block_scales", "mm_cross_entropy_one_vocab_tile",
        "mm_greedy_argmax_per_tile", "ce_vocab_tile_loop", "complex_matmul_four_dots",
        "moe_align_block_gemm", "grouped_gemm_sizes_prefix"], "simt"),
}


def test_the_sweep_has_its_programs():
    assert len(PROGRAMS) >= 50
    assert set(PROGRAMS) == set(EXPECTED_PATHS)
    for name, p in PROGRAMS.items():
        assert p.outputs, name
        assert p.path == EXPECTED_PATHS[name], name
        src = inspect.getsource(p.kernel._annotated_function.pyfunc)
        assert p.kernel._annotated_function.pyfunc.__doc__, name
        assert "ct.mma(" in src or "ct.matmul(" in src or " @ " in src or "_loop(" in src or "_plain(" in src, name


def _compile(name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_compiles_on_its_path(name):
    p = PROGRAMS[name]
    prog = _compile(name)
    remarks = list(prog.remarks)
    assert prog.kind == EXPECTED_PATHS[name], remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    assert not [r for r in remarks if "memory token" in r or "outside the agents" in r or "TMA tile loads" in r
                or "#nv_tileas." in r], remarks
    refusals = [r for r in remarks if "refused" in r]
    if p.path == "gemm":
        assert not refusals, remarks
        assert "wgmma.mma_async" in prog.ptx
    else:  # never silently: the tier's refusal, at the user's line, saying why
        assert p.error and any(r.startswith(SOURCE + ":") and p.error in r for r in refusals), remarks


def _line_of(kernel, text: str) -> int:
    lines, first = inspect.getsourcelines(kernel._annotated_function.pyfunc)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


@pytest.mark.parametrize("name, text", [
    ("mm_nested_k_blocks", "acc = ct.mma("),
    ("mm_nested_k_strided_outer", "acc = ct.mma("),
    ("mm_static_iter_halves", "acc = ct.mma("),
])
def test_flattened_nested_k_loops_say_so_at_the_dot(name, text):
    from tileorch.transforms.tileas.flatten_nested_k_loops import REMARK

    said = [r for r in _compile(name).remarks if REMARK in r]
    assert len(said) == 1, _compile(name).remarks
    assert said[0].startswith(f"{SOURCE}:{_line_of(PROGRAMS[name].kernel, text)}:"), said


@pytest.mark.parametrize("name, text", [
    ("gemv_n1", "acc = ct.mma("),
    ("mm_fp8_deepseek_block_scales", "p = ct.mma("),
    ("mm_cross_entropy_one_vocab_tile", "ct.store(Loss,"),
])
def test_a_refusal_names_the_users_line_in_the_users_terms(name, text):
    p = PROGRAMS[name]
    (refusal,) = [r for r in _compile(name).remarks if "refused" in r]
    assert refusal.startswith(f"{SOURCE}:{_line_of(p.kernel, text)}:"), refusal
    assert p.error in refusal, refusal
    for old in ("MMA atom", "does not accumulate into a tile the K loop carries", "is not the 128x128 accumulator",
                "expected one tile store of C"):
        assert old not in refusal
