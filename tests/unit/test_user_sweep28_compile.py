"""Twenty-eighth user sweep (``tileorch.testing.user_programs28``): each program, exported through cuTile's
exporter (no GPU) and compiled for sm_90a, takes the path its table entry names with no internal error
(dot_sweep_checks.dot_sweep_compile_tests, the skeleton sweeps 25-27 share).  The dots: the TileAS tier's TMA/WGMMA
kernel with the tier's remark (SwiGLU's two dots of one A tile, a bias / channel scale / clamp epilogue, an output
stored transposed or into a strided slice, a batched B of batch stride 0, a K loop by ``ct.num_tiles``, tf32, a GEMV
of N = 16, ``alpha * A @ B + beta * C`` and ``C += A @ B`` in place, default tile arguments, two K loops into one
accumulator, K tiles walked backwards, a row softmax or an int8 requantization in the epilogue, a whole tile skipped
by a scalar ``if``), or the SIMT path's mma.sync after a *located* reason: a warning naming why (GeGLU's gate and
up read from one weight at two column tiles, an operand chosen by an ``if`` on the program id, LoRA's rank 16, a
K loop unrolled by hand) or, for f32 operands, the documented f32 rule's remark.  The
programs without a dot: the SIMT path with no refusal, their PTX holding what the idiom needs.  Every program
assembles with ptxas without spills.  Results against numpy: test_user_sweep28_interp.py,
test_user_sweep28_emulated.py, tests/gpu/test_user_sweep28_gpu.py."""

from __future__ import annotations

import inspect

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs28  # noqa: E402
from tileorch.testing.user_programs28 import PROGRAMS  # noqa: E402
from dot_sweep_checks import dot_sweep_compile_tests  # noqa: E402

SOURCE = user_programs28.__file__
WGMMA = r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k\d+\.{}\.{}\.{}"
RED = r"(red|atom)(\.\w+)*\.global(\.\w+)*\.add(\.\w+)*\.{}"
PTX_NEEDS = {
    "swiglu_two_dots_of_one_a_tile": [WGMMA.format("f32", "f16", "f16")],
    "gemm_fp32_operands_as_tf32": [WGMMA.format("f32", "tf32", "tf32")],
    "gemm_k_loop_by_num_tiles": [WGMMA.format("f32", "bf16", "bf16")],
    "gemm_matmul_operator_bf16_f32_out": [WGMMA.format("f32", "bf16", "bf16")],
    "gemm_fp32_operands_plain": [r"mma\.sync\.aligned\.m16n8k8\S*\.tf32\.tf32"],
    "gemm_last_row_tile_specialised_by_if": [WGMMA.format("f32", "f16", "f16")],
    "gemm_a_from_one_of_two_arrays_by_if": [r"mma\.sync\.aligned\.m16n8k16\S*\.f16\.f16"],
    "histogram_int32_atomic_bins": [RED.format(r"[su]32")],
    "unpack_int4_words_by_shift_arange": [r"shr\.s32|shr\.b32|bfe\.s32"],
    "quantize_rows_int8_symmetric": [r"cvt\.rzi\.s8\.f32|cvt\.rzi\.s32\.f32|cvt\.rmi"],
    "bitonic_sort_rows_of_16": [r"(min|max)\.f32"],
}
"""Per program: regular expressions its PTX must match (the idiom lowered, not refused)."""
F32_RULE = {"gemm_fp32_operands_plain"}
"""The program whose reason is the f32 rule's located remark (a documented decision, not a refusal warning)."""

(compiled, test_the_sweep_has_its_programs, test_a_dot_takes_its_path_and_says_so,
 test_program_without_a_dot_compiles_on_the_simt_path, test_every_program_assembles_without_spills) = \
    dot_sweep_compile_tests(PROGRAMS, SOURCE, 18, PTX_NEEDS, decisions=F32_RULE)


def test_an_operand_chosen_by_an_if_is_named_at_the_if():
    """A GEMM whose A tile comes from one of two arrays by ``if bm == 0``: the tier refuses the ``scf.if`` yielding
    the operand, at the ``if``'s line.  Found by sweep 28: the warning said "this dot operand is computed in the
    kernel (e.g. int4 weights unpacked and scaled in the K loop)" -- nothing the program does; now it names the
    if / else."""
    name = "gemm_a_from_one_of_two_arrays_by_if"
    p = PROGRAMS[name]
    lines, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    at = first + next(i for i, t in enumerate(lines) if "if bm == 0:" in t)
    said = [r for r in compiled(name).remarks if ": warning: " in r]
    assert len(said) == 1 and said[0].startswith(f"{SOURCE}:{at}:"), said
    assert "chosen by an if / else" in said[0], said


def test_an_if_choosing_a_padded_or_unpadded_load_of_one_tile_is_one_load_on_the_tier():
    """Boundary specialisation (``if bm == last`` loads A with ``padding_mode=ZERO``, else without): the same tile
    either way (in bounds the same elements; out of bounds the unpadded load's are undefined), so the ``if`` is
    the padded load (padded_load_choice.py) and the GEMM takes the tier, with a remark at the ``if``.  Before
    session 36 the tier refused the operand and the GEMM ran on mma.sync."""
    name = "gemm_last_row_tile_specialised_by_if"
    p = PROGRAMS[name]
    lines, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    at = first + next(i for i, t in enumerate(lines) if "if bm == last:" in t)
    prog = compiled(name)
    assert prog.kind == "gemm", prog.remarks
    said = [r for r in prog.remarks if "chooses between loads of the same tile" in r]
    assert len(said) == 1 and said[0].startswith(f"{SOURCE}:{at}:") and ": remark: " in said[0], prog.remarks
    assert "padded with zero" in said[0], said
