"""Session 27's cover set (``tileorch.testing.cover27_programs``: dots with different A operands in one K loop,
two K loops one after the other): each program, exported through cuTile's exporter (no GPU) and compiled for
sm_90a, takes the path its table entry names -- "gemm" (the TileAS tier's TMA + WGMMA kernel with an A tile per
dot in each stage, with the tier's remark) or "simt" with a *located* warning (``file:line:col`` at the program's
second loop) saying why not -- its PTX assembles with ptxas without spills, and ``tileorch check`` proves its
pipeline.  Results: test_cover27_emulated.py (the PTX emulator against numpy) and tests/gpu/test_cover27_gpu.py
(the GPU against torch)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import cover27_programs  # noqa: E402
from tileorch.testing.cover27_programs import PROGRAMS  # noqa: E402
from tileorch.testing.gemm_structure import ptx_consumer_bodies  # noqa: E402
from dot_sweep_checks import (assert_dot_sweep, assert_pipelines_proved, assert_takes_its_path,  # noqa: E402
                              compile_sweep_program, spilled_programs)


def compiled(name):
    """The program's compile for sm_90a, shared by the tests of a run (``compile_once``)."""
    return compile_sweep_program(PROGRAMS, name)


def test_the_set_has_its_programs():
    assert_dot_sweep(PROGRAMS, 8, 6)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_takes_its_path_and_says_so(name):
    assert_takes_its_path(PROGRAMS[name], compiled(name), cover27_programs.__file__)


# (program, A operands per stage, one accumulator for all the dots, the K loops fused from two)
SHAPES = {"concat_k_linear_bt": (2, True, False), "summed_products_relu": (2, True, False),
          "dual_input_gated_batched": (2, False, False), "three_operand_pairs": (3, True, False),
          "two_k_loops_two_accumulators": (2, False, True), "two_k_loops_continued_bt": (2, False, True)}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_each_stage_holds_an_a_per_dot(name):
    """The kernel reads an A and a B tile per dot each K tile, a stage per operand pair (``TILEORCH_PAIR_STAGES=1``,
    the default since session 29: each stage's transaction count one pair's tiles, a K tile taking ``a`` stages); a
    chain of dots runs into one accumulator, separate dots (two loops' accumulators too: the second's start hoisted
    to the epilogue) into one each; the remark names the path."""
    cfg = compiled(name).gemm_config
    a, one, fused = SHAPES[name]
    assert (cfg.a_operands, cfg.b_operands, cfg.one_accumulator, cfg.k_segments) == (a, a, one, False), cfg
    assert cfg.pair_stages, cfg
    assert cfg.tx_bytes == (cfg.tile_m + cfg.tile_n) * cfg.tile_k * cfg.element_bytes
    remarks = compiled(name).remarks
    assert any(f"{a} dots each reading an A tile of its own in one K loop" in r for r in remarks), remarks
    assert fused == any("2 K loops one after the other over the same K tiles run as one loop" in r
                        for r in remarks), remarks


def test_two_loops_each_over_its_own_k_are_k_segments():
    """Loops bounded each by its own A's K: K segments, a stage holding one pair's tiles, both remarks."""
    cfg = compiled("two_k_loops_own_bounds").gemm_config
    assert (cfg.a_operands, cfg.b_operands, cfg.k_segments) == (2, 2, True), cfg
    assert cfg.tx_bytes == cfg.stage_bytes == (cfg.tile_m + cfg.tile_n) * cfg.tile_k * cfg.element_bytes
    remarks = compiled("two_k_loops_own_bounds").remarks
    assert any("each bounded by its own operands' K, are one dot kernel of K segments" in r for r in remarks)
    assert any("as K segments: each stage holds one pair's A and B tile" in r for r in remarks), remarks


def test_the_ptx_issues_a_tma_per_operand_tile_and_a_wgmma_batch_per_pair():
    """Three operand pairs: six TMA tile loads per stage, 3 x (tile_k / 16) WGMMAs per K step, one wait per step."""
    ptx = compiled("three_operand_pairs").ptx
    assert len(re.findall(r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global", ptx)) == 6
    cfg = compiled("three_operand_pairs").gemm_config
    per_step = 3 * cfg.tile_k // cfg.mma_k
    # one consumer body for both warp groups (TILEORCH_GEMM_SHARED_CONSUMER, default): one copy of the K step
    assert cfg.consumer_groups == 2 and ptx_consumer_bodies(ptx) == 1
    assert len(re.findall(r"wgmma\.mma_async", ptx)) == per_step


def launch_check(spec: list, program=None):
    """The K of each later segment the launcher passes for ``program`` (``two_k_loops_own_bounds`` by default)
    compiled for ``spec`` (``more_a_operands``, ``more_b_operands``, ``segment_ks``), its operands derived as
    test_user_sweep3_emulated's runner does."""
    import dataclasses

    import test_user_sweep3_emulated as s3

    from tileorch.launchers import cutile as rc
    from tileorch.testing.gemm_emulation import compile_cutile

    p = dataclasses.replace(program or PROGRAMS["two_k_loops_own_bounds"], spec=spec)
    prog = compile_cutile(p.kernel, p.spec, "two_k_loops_own_bounds_k2")
    assert prog.kind == "gemm" and prog.gemm_config.a_operands == 2
    args = s3._described(p, {i: (i + 1) << 32 for i in range(len(spec))})
    a, b = rc.gemm_problem_batched(prog, args)[:2]
    return rc.segment_ks(prog, rc.more_a_operands(prog, args, a), rc.more_b_operands(prog, args, b))


def test_each_segment_runs_its_own_k_and_its_b_must_match_its_a():
    """K segments at launch: the later pair's K is its A's (200 beside K1 = 128); a B whose K is not its A's is the
    launcher's refusal (LayoutNotSupported naming it: the SIMT path runs that launch)."""
    from tileorch.launchers.cutile import LayoutNotSupported

    spec = list(PROGRAMS["two_k_loops_own_bounds"].spec)
    spec[0], spec[1] = ((200, 128), "float16"), ((128, 192), "float16")  # K1 = 128, K2 = 200
    assert launch_check(spec) == (200,)
    spec[3] = ((136, 192), "float16")  # W2 of K 136 beside X2's 200
    with pytest.raises(LayoutNotSupported, match=r"argument 3 \('W2'\).*K = 136.*K = 200"):
        launch_check(spec)


def test_every_program_assembles_without_spills():
    assert spilled_programs(PROGRAMS, compiled) == set()


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if p.path != "simt"))
def test_the_tensor_core_kernel_is_proved(name, monkeypatch):
    """``tileorch check`` on each kernel: its pipeline (several operand tiles per stage on one full barrier) free
    of deadlocks and races over every trip count.  With all pairs' tiles in one stage (``TILEORCH_PAIR_STAGES=0``):
    a stage per pair multiplies the ring's stages (6-9 at the program's tile), past what the checker explores in
    CI's time; ``test_pair_stages.py`` proves that form's pipeline at the launcher's retile.  No compile test
    compiles that form: its protocols come from the lowering alone (no LLVM code generation)."""
    monkeypatch.setenv("TILEORCH_PAIR_STAGES", "0")
    assert_pipelines_proved(PROGRAMS, name, back_end=False)
