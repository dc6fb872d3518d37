"""Eleventh user sweep (``tileorch.testing.user_programs11``: dot programs as users write them, issue
20's "the tier as a compiler"): each program exported through the launcher's argument description and
cuTile's exporter (no GPU) and compiled for sm_90a takes the path its entry names (a GEMM-shaped
program the GEMM tier, an attention- or MLP-shaped chain the chained tier); a program a tensor-core
tier refuses says why at the user's line (a remark: no silent slow path), in the program's terms; no
internal error.

Found by this sweep (each test below or in test_user_sweep11_emulated.py failed before its fix):
- ``if ct.bid(2) == 0: acc = acc + bias`` (split-K's bias by split 0) was refused with "a memory
  token is used by an op TileAS does not know", then as "the epilogue op 'scf.if'": the if's token
  is dropped (its branches only read) and the epilogue selects between the branches per element;
- a residual stored before its RMSNorm was refused as "the epilogue op 'nv_tileaa.reduce'": the
  output reading the row reduction is C;
- a persistent loop over a 2-D grid the program linearised was refused as a loop around the store:
  tileas-program-loop-to-tiles takes it;
- an f32 B converted to A's 16-bit type in the K loop was refused ("A and B must have the same
  element type"): a computed B;
- refusals in the tier's terms now say what the program does: a matrix of a 3-D array picked by a
  scalar beside a 2-D C ("every batch would store the same C tile"), a tile the K loop carries beside
  the accumulator ("the epilogue op 'scf.for'"), a gathered tile in the scores ("'nv_tileaa.load'"),
  dot loops in if branches, a hand-unrolled K loop ("MLA's no-position and RoPE parts"), and a dot
  under an if in its loop (an unlocated "the TileAS tier left a kernel unlowered");
- ``X @ W[e]`` with ``e`` a scalar argument: refused, then (session 19) on the GEMM tier, B a view of
  W the launcher addresses (tests/unit/test_operand_views.py)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs11  # noqa: E402
from tileorch.testing.user_programs11 import PROGRAMS  # noqa: E402

SOURCE = str(Path(user_programs11.__file__))

EXPECTED_PATHS = {
    # GEMM-shaped: one K loop of TMA-loadable tiles (or computed from them), one product tile stored
    **dict.fromkeys([
        "mm_at_permute_bt_transpose", "gram_at_a_one_array", "syrk_upper_tiles", "bmm_4d_head_scale_gather",
        "mm_persistent_2d_grid_linearised", "mm_splitk_bias_first_split", "mm_splitk_runtime_chunk",
        "mm_residual_rmsnorm_bf16", "mm_residual_rmsnorm_f16", "mm_bias_row_and_col", "mm_alpha_beta_from_arrays",
        "mm_sigmoid_gate_tile", "mm_rows_masked_by_runtime_count", "mm_bf16_a_f32_b_cast_in_loop",
        "mm_f16_a_f32_b_cast_in_loop", "mm_fp8_a_widened_to_f16",
        "mm_int8_range_step_tk", "mm_early_return_runtime_m", "mm_expert_weight_by_scalar",
        "mm_store_into_column_slice", "bmm_persistent_user_loop", "grouped_equal_groups_bid2"], "gemm"),
    # two chained dots (MLP, attention and its backward's dV)
    **dict.fromkeys([
        "mlp_bias_gelu_bias_bf16", "attn_bwd_dv_recompute", "attn_gemma2_softcap_window_gqa",
        "attn_fa1_normalised_each_step", "attn_k_transposed_by_3d_permute", "xattn_ragged_dv64_bf16",
        "attn_alibi_array_causal_gqa_bf16", "attn_residual_if_flag", "attn_t5_bucket_bias_gather"], "chained"),
    # what the tiers do not take (yet): each refusal located and in the program's terms
    **dict.fromkeys([
        "moe_group_by_offsets_scan", "mm_f32_operands_as_is", "mm_int8_zero_points",
        "trmm_lower_triangular", "mm_banded_k_range", "mm_two_k_tiles_per_iteration", "mm_even_odd_accumulators",
        "bsmm_skip_zero_blocks", "qkv_weight_by_branch", "swiglu_gate_transposed_up_plain",
        "mm_f16_quantised_to_e4m3_in_loop", "attn_scores_in_fp8"], "simt"),
}


def test_the_sweep_has_its_programs():
    assert len(PROGRAMS) >= 40
    assert set(PROGRAMS) == set(EXPECTED_PATHS)
    for name, p in PROGRAMS.items():
        assert p.outputs, name
        assert p.path == EXPECTED_PATHS[name], name
        src = inspect.getsource(p.kernel._annotated_function.pyfunc)
        assert p.kernel._annotated_function.pyfunc.__doc__, name
        assert "ct.mma(" in src or "ct.matmul(" in src or " @ " in src, name


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
                or "#nv_tileas." in r or "epilogue op '" in r], remarks
    refusals = [r for r in remarks if "refused" in r]
    if p.path == "gemm":
        assert not refusals, remarks
        assert "wgmma.mma_async" in prog.ptx
    elif p.path == "chained":
        assert not refusals, remarks
        assert prog.chained is not None and "wgmma.mma_async" in prog.ptx
    else:  # never silently: the tier's refusal, at the user's line, saying why
        assert p.error and any(r.startswith(SOURCE + ":") and p.error in r for r in refusals), remarks


def _line_of(kernel, text: str) -> int:
    lines, first = inspect.getsourcelines(kernel._annotated_function.pyfunc)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


@pytest.mark.parametrize("name, text", [
    ("moe_group_by_offsets_scan", "w = ct.load(W,"),
    ("mm_two_k_tiles_per_iteration", "index=(bm, 2 * k + 1)"),
    ("bsmm_skip_zero_blocks", "acc = ct.mma("),
    ("qkv_weight_by_branch", "for k in range(nk):\n"),
])
def test_a_refusal_names_the_users_line_in_the_users_terms(name, text):
    p = PROGRAMS[name]
    (refusal,) = [r for r in _compile(name).remarks if "refused" in r]
    if text == "for k in range(nk):\n":  # the second of the branches' loops
        lines, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
        line = first + [i for i, ln in enumerate(lines) if ln.strip() == "for k in range(nk):"][1]
    else:
        line = _line_of(p.kernel, text)
    assert refusal.startswith(f"{SOURCE}:{line}:"), refusal
    assert p.error in refusal, refusal
    for old in ("every batch would store the same C tile", "epilogue op", "no-position and RoPE",
                "consecutive ranges", "left a kernel unlowered", "memory token"):
        assert old not in refusal


def test_the_branch_bias_is_a_select_not_a_refusal():
    """The split-K program whose split 0 adds the bias: on the GEMM tier with its atomic epilogue, the
    grid's z walked as L (every split runs)."""
    prog = _compile("mm_splitk_bias_first_split")
    assert prog.kind == "gemm" and prog.gemm_config.grid_l
    assert "atom.global.add.f32" in prog.ptx and "selp" in prog.ptx
