"""Sixteenth user sweep (``tileorch.testing.user_programs16``: issues 20 and 22, dot and attention-shaped
programs of the kinds users write that the earlier sweeps and sets miss): each program, exported
through cuTile's exporter (no GPU) and compiled for sm_90a, takes the path its table entry names:
"gemm" (the TileAS tier's TMA + WGMMA kernel, with the tier's remark), "chained" (the chained-dots
tier's TMA + WGMMA kernel, with its remark) or "simt" with a *located* warning (``file:line:col`` in
the program) saying why the tensor-core tiers refused it, and the SIMT path's remark that its dots
run on mma.sync tensor cores (no silent fallback); every program's PTX assembles with ptxas without
spills (or is listed in :data:`SPILLS`).  Results against numpy: test_user_sweep16_emulated.py (the
PTX emulator, f16 operands) and tests/gpu/test_user_sweep16_gpu.py (every program)."""

from __future__ import annotations

import inspect

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs16  # noqa: E402
from tileorch.testing.user_programs16 import PROGRAMS  # noqa: E402
from dot_sweep_checks import assert_dot_sweep, assert_takes_its_path, compile_sweep_program, spilled_programs  # noqa: E402


def compiled(name):
    """The program's compile for sm_90a, shared by the tests of a run (``compile_once``)."""
    return compile_sweep_program(PROGRAMS, name)


def test_the_sweep_has_its_programs():
    assert_dot_sweep(PROGRAMS, 30, 20)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_takes_its_path_and_says_so(name):
    assert_takes_its_path(PROGRAMS[name], compiled(name), user_programs16.__file__)


def test_an_expert_read_per_row_tile_is_a_batch_index_per_work_tile():
    """``W[TileExpert[bm]]`` beside a 2-D Y (sorted-token MoE) and ``W[TileGroup[t]]`` from a tile table:
    refused until session 23 ("B is one matrix of a 3-D array picked by the program ... while C is
    2-D"); now the batched kernel reads B's matrix per work tile and stores into the one C."""
    for name in ("moe_sorted_expert_per_tile", "grouped_tile_table_1d"):
        prog = compiled(name)
        assert prog.kind == "gemm", prog.remarks
        assert prog.gemm_config.batched and prog.gemm_config.program_grid, prog.gemm_config
        assert any("batch indices computed by the program" in r for r in prog.remarks), prog.remarks


def test_a_store_outside_the_gemms_work_tile_is_refused_at_its_line():
    """``if e < 0: ct.store(Y, .., zeros); return`` before the K loop: the WGMMA kernel took the early
    return as its tile guard and dropped the branch's store (the padding tiles' rows stayed unwritten
    on the PTX emulator, session 23); now a located refusal at that store, the SIMT path runs it."""
    name = "moe_expert_table_skip_invalid"
    lines, first = inspect.getsourcelines(PROGRAMS[name].kernel._annotated_function.pyfunc)
    line = first + next(i for i, ln in enumerate(lines) if "ct.zeros((tm, tn), dtype=Y.dtype)" in ln)
    prog = compiled(name)
    assert prog.kind == "simt"
    assert any(r.startswith(f"{user_programs16.__file__}:{line}:") and "outside the GEMM's work tile" in r
               for r in prog.remarks), prog.remarks


def test_per_head_weights_launch_with_their_own_batch_count():
    """``[B, H, M, K] @ [H, K, N]``: the launcher's problem holds A's 6 matrices, B's 3 and C's 6 (the
    host built all three tensor maps with C's count and refused the launch until session 23)."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.export import described_arguments

    for name, b_count in (("bmm_bhmk_hkn_head_bias", 3), ("bmm_bhmk_hnk_head_major", 3)):
        p = PROGRAMS[name]
        args = rc.stored_arguments(described_arguments(p.kernel, p.spec))
        *_, batch, counts = rc.gemm_problem_operand_batches(compiled(name), args)
        assert (batch, counts) == (6, (6, b_count)), name


SPILLS = {"attn_prefix_cache_then_new", "attn_varlen_zero_past_end"}
"""Programs whose PTX ptxas assembles with spills (session 23, ptxas 13.0, 255 registers each): four of
the tier's refusals, whose SIMT fallback keeps the f32 accumulators on the default 4 warps -- the hand
unrolled K loop's 128 x 64 accumulator beside two K tiles' operands (12 B of spill stores until review 28's
loop lowering, f0d8a187, when it left the list), the prefix
+ new keys attention's two key loops (420 B) and the varlen attention with its zero-store branch (120 B).
(The differential attention's two chains spilled 976 B there; the chained tier takes them since s23-bwd.)
Listed so that the spill is not silent; a program leaving the list (or joining it) fails."""


def test_every_program_assembles_without_spills():
    assert spilled_programs(PROGRAMS, compiled) == SPILLS
