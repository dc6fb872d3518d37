"""Thirty-sixth user sweep (``tileorch.testing.user_programs36``, kernels of LLM inference / training stacks): each
program, exported through cuTile's exporter (no GPU) and compiled for sm_90a, takes the path its table entry names
with no internal error (dot_sweep_checks.dot_sweep_compile_tests): the GEMMs (fp8 / int8 scaled-mm, bias + GELU /
SiLU / residual epilogues, gated pairs, grouped GEMM over group starts, split-K's workspace, ``X^T dY``, 4-D
batches, decode GEMVs in 16-row tiles) the TileAS tier; LoRA of rank 16 and a fused QKV projection storing three
outputs refused at their line (a located warning) and run on the SIMT path's mma.sync; programs without a dot the
SIMT path.

Found by this sweep: a decode GEMM whose grid walks N alone (``bn = ct.bid(0)``, rows at tile index 0) in a 16-row
tile with any epilogue beyond a plain store (a cast, a bias, SiLU, a gated pair) was refused by the tier ("the
program's 16x64 tile ... cannot be retiled") and ran on mma.sync; now it runs as a 64-row WGMMA tile (its rows past
the output's read zeros and are not stored; the launcher's single-tile check runs an output of more than 16 rows on
the SIMT path) -- :func:`test_a_16_row_decode_tile_runs_as_a_64_row_tile`, failing before.

CI time (issue 22, the brief: the sweep's CI part ~20 CPU s): CI compiles :data:`CI_COMPILE` (each with LLVM) and
only lowers every other program (``compile_memo.lower_once``: the driver's path decision and its remarks, no LLVM
code generation); ``TILEORCH_EMULATE_ALL=1`` compiles every program, checks every PTX pattern and runs ptxas on
every kernel.  Results against numpy: test_user_sweep36_interp.py, test_user_sweep36_emulated.py,
tests/gpu/test_user_sweep36_gpu.py."""

from __future__ import annotations

import os
import re

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs36  # noqa: E402
from tileorch.testing.user_programs36 import PROGRAMS  # noqa: E402
from dot_sweep_checks import TENSOR_CORES, dot_sweep_compile_tests  # noqa: E402

SOURCE = user_programs36.__file__
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
WGMMA = r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k\d+\.{}\.{}\.{}"
PTX_NEEDS = {
    "fp8_scaled_mm_weight_nk_token_channel_scales": [WGMMA.format("f32", "e4m3", "e4m3")],
    "int8_scaled_mm_bias_f16_out": [WGMMA.format("s32", "s8", "s8")],
    "decode_gemv_m3_weight_nk_bf16": [WGMMA.format("f32", "bf16", "bf16")],
    "weight_grad_x_transposed_by_order": [WGMMA.format("f32", "f16", "f16")],
    "embedding_backward_atomic_add_rows": [r"(atom|red)(\.\w+)*\.add(\.\w+)*\.f32"],
    "amax_per_tensor_atomic_max_of_float_bits": [r"(atom|red)(\.\w+)*\.max(\.\w+)*\.s32"],
    "per_channel_fp8_quant_amax_over_row_tiles": [r"cvt\.rn\.satfinite\.e4m3x2\.f32"],
}
"""Per program: regular expressions its PTX must match (the idiom lowered as written, not refused or widened)."""

CI_COMPILE = {"decode_gemv_m3_weight_nk_bf16", "embedding_backward_atomic_add_rows"}
"""The programs CI compiles to PTX (the 16-row decode tile on the tier, atomics on the SIMT path); every program
with ``TILEORCH_EMULATE_ALL=1``."""
COMPILED = {n: p for n, p in PROGRAMS.items() if ALL or n in CI_COMPILE}

test_the_sweep_has_its_programs = dot_sweep_compile_tests(PROGRAMS, SOURCE, 14, {}, at_least=38)[1]
(compiled, _unused, test_a_dot_takes_its_path_and_says_so, test_program_without_a_dot_compiles_on_the_simt_path,
 _every_program) = dot_sweep_compile_tests(COMPILED, SOURCE, 0, PTX_NEEDS, at_least=0)


def _lowered(name):
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return lower_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a")


@pytest.mark.parametrize("name", sorted(set(PROGRAMS) - set(COMPILED)))
def test_the_lowering_takes_its_path(name):
    """The programs CI does not compile: the driver's lowering (no LLVM) takes the table's path, with the tier's
    remark for a dot, no internal error; a refused dot's warning located in the program's lines."""
    from invalid_sweep_checks import line_of  # noqa: F401

    p = PROGRAMS[name]
    prog = _lowered(name)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r], remarks
    if p.path in TENSOR_CORES:
        assert any(TENSOR_CORES[p.path] in r for r in remarks), remarks
        assert not [r for r in remarks if "refused" in r or "not supported" in r], remarks
    elif p.error:
        assert [r for r in remarks if p.error in r and r.startswith(f"{SOURCE}:") and ": warning: " in r], remarks
    else:
        assert not [r for r in remarks if "refused" in r or "not supported" in r], remarks


DECODE_16_ROWS = ["decode_gemv_m3_weight_nk_bf16", "linear_bias_silu_bf16_decode_m7", "swiglu_pair_decode_m5_bf16"]


@pytest.mark.parametrize("name", DECODE_16_ROWS)
def test_a_16_row_decode_tile_runs_as_a_64_row_tile(name):
    """A decode GEMM in 16-row tiles whose grid walks N alone takes the tier (it ran on mma.sync before this sweep:
    "cannot be retiled"), says how it runs (a 64-row tile, one consumer warp group), and its record tells the
    launcher that it computes only row tile 0 of 16 rows (an output of more rows runs the program on the SIMT
    path)."""
    from tileorch.testing.compile_memo import lower_once  # noqa: F401

    prog = _lowered(name)
    remarks = list(prog.remarks)
    assert prog.kind == "gemm", remarks
    assert any("16x64 tile is its only row tile (row index 0): it runs as a 64x64 tile" in r for r in remarks), remarks
    single = getattr(prog, "single_tile", None)
    if single is None:
        from tileorch.transforms.tileas.convert_to_cutlass import config_record

        single = next(config_record(op) for op in prog.module.walk() if config_record(op) is not None)["single_tile"]
    assert single["m"] == 16, single


GEMMS = sorted(n for n, p in PROGRAMS.items() if p.path == "gemm")


@pytest.mark.parametrize("name", GEMMS if ALL else ["decode_gemv_m3_weight_nk_bf16"])
def test_the_gemm_launch_plan_takes_the_tier(name):
    """The launcher's host plan of the program's GEMM on the spec's contiguous arrays (``gemm_problem_operand_batches``:
    shapes, batches, layouts) raises no LayoutNotSupported, which would run the launch on the SIMT path; its
    problem's M x N is the output's."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.export import described_arguments

    p = PROGRAMS[name]
    args = rc.stored_arguments(described_arguments(p.kernel, p.spec))
    a, b, c, m, n, k, batch, counts = rc.gemm_problem_operand_batches(compiled(name), args)
    out = tuple(p.spec[p.outputs[0]][0][-2:])
    assert m <= out[0] or (m, n) == out[::-1], (m, n, out)


def test_a_decode_launch_of_more_rows_than_the_tile_leaves_the_tier():
    """The 16-row decode program launched on an output of 40 rows: the program computes rows 0..15 only (its row
    index is 0), the 64-row kernel would write 40; the launcher's plan refuses it (LayoutNotSupported: the launch
    runs the program as written on the SIMT path)."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.export import described_arguments

    name = "decode_gemv_m3_weight_nk_bf16"
    p = PROGRAMS[name]
    spec = [((40, 512), "bfloat16"), ((200, 512), "bfloat16"), ((40, 200), "bfloat16"), 16, 64, 64]
    args = rc.stored_arguments(described_arguments(p.kernel, spec))
    with pytest.raises(rc.LayoutNotSupported, match="computes only tile 0 along M"):
        rc.gemm_problem_operand_batches(compiled(name), args)


SPILLS_IN_CI = set()
"""Kernels ptxas checks in CI (none: CI time); every program with ``TILEORCH_EMULATE_ALL=1``."""


@pytest.mark.parametrize("name", sorted(PROGRAMS) if ALL else sorted(SPILLS_IN_CI))
def test_the_kernel_assembles_without_spills(name):
    """The program compiled as a launch compiles it (ptxas for sm_90a run by the driver): its ptxas remark reports no
    spill."""
    from tileorch.backend.ptxas import ptxas_available
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    p = PROGRAMS[name]
    prog = compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=True)
    said = [r for r in prog.remarks if r.startswith("remark: ptxas: ")]
    stores = [int(m.group(1)) for r in said for m in [re.search(r"(\d+) B spill stores", r)] if m]
    assert said and sum(stores) == 0, said
