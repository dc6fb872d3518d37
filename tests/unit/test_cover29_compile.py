"""Session 29's cover set (``tileorch.testing.cover29_programs``: an MLP block written as two loops, the second over
the output's column tiles reading the K loop's result): each program, exported through cuTile's exporter (no GPU)
and compiled for sm_90a, takes the path its table entry names -- "gemm" (``tileas-column-loop-to-tiles`` made the
second loop the grid's axis 1; the tier's dot on the K loop's result loops over the column tiles, its remarks
located at the program's second dot) or "simt" with a *located* warning at the second loop saying why not -- its PTX
assembles with ptxas without spills, and ``tileorch check`` proves its pipeline.  A hidden width over the registers'
limit is a located error naming the limit and what to write instead.  Results: test_cover29_emulated.py (the PTX
emulator against numpy) and tests/gpu/test_cover29_gpu.py."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import cover29_programs  # noqa: E402
from tileorch.testing.cover29_programs import ERRORS, PROGRAMS  # noqa: E402
from dot_sweep_checks import (assert_dot_sweep, assert_pipelines_proved, assert_takes_its_path,  # noqa: E402
                              compiled_with_protocols, spilled_programs)

HERE = re.escape(cover29_programs.__file__)


def compiled(name):
    """The program's compile for sm_90a, shared by the tests of a run with the pipeline protocols of the kernel
    it lowered (``compiled_with_protocols``: the proof below reads them instead of lowering the program again)."""
    return compiled_with_protocols(PROGRAMS, name)[0]


def test_the_set_has_its_programs():
    assert_dot_sweep(PROGRAMS, 3, 2)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_takes_its_path_and_says_so(name):
    assert_takes_its_path(PROGRAMS[name], compiled(name), cover29_programs.__file__)


# (program, the hidden width: the second dot's K, E's major)
LOOPS = {"mlp_loops_gelu_bias": (128, "n"), "mlp_loops_gelu_hidden_256": (256, "n"), "mlp_loops_silu_linear_bt": (64, "k")}


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_the_column_loop_is_the_epilogue_dot_over_column_tiles(name):
    """The second loop became the grid's axis 1 (its remark at the program's second dot), and the kernel is the dot
    on the K loop's result looping over C's column tiles (``epi_loop``), its K the hidden width, the first dot's N."""
    prog = compiled(name)
    cfg = prog.gemm_config
    hidden, major = LOOPS[name]
    assert (cfg.epi_loop, cfg.tile_n, cfg.epi_major, cfg.epi_n) == (True, hidden, major, 64), cfg
    said = [r for r in prog.remarks if "tileas-column-loop-to-tiles" in r]
    assert len(said) == 1 and re.match(HERE + r":\d+:\d+: remark: a loop over the output's column tiles", said[0])
    assert any("the first dot once per work tile, the second dot over N tiles" in r for r in prog.remarks)
    assert not any("dot loops over consecutive ranges" in r for r in prog.remarks), prog.remarks
    assert len(re.findall(r"wgmma\.mma_async", prog.ptx)) > 0


def test_the_k_loops_own_trip_count_beside_the_second_dot_says_so():
    """``range(nk)`` beside the second dot (refused until session 29): the K loop's own trip count per work tile,
    the remark naming what an empty range runs."""
    remarks = compiled("mlp_loops_scalar_k").remarks
    said = [r for r in remarks if "runs the program's own trip count per work tile" in r]
    assert said and "an empty range runs the second dot on the program's ops of the zero accumulator" in said[0]


def test_every_program_assembles_without_spills():
    assert spilled_programs(PROGRAMS, compiled) == set()


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if p.path != "simt"))
def test_the_tensor_core_kernel_is_proved(name):
    assert_pipelines_proved(PROGRAMS, name)


def test_a_hidden_width_past_the_registers_is_a_located_error_naming_the_limit():
    """A 512-column hidden tile: no path compiles it (the SIMT path's accumulator needs 512 registers a thread);
    the error's note is the tier's refusal at the second loop, naming the 256-column limit and the rewrites."""
    from tileorch.diagnostics import LocatedError
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    p = ERRORS["mlp_loops_hidden_512"]
    with pytest.raises(LocatedError) as err:
        compile_program(cutile_bytecode(p.kernel, p.spec), "mlp_loops_hidden_512", arch="sm_90a", ptxas=False)
    note = [ln for ln in str(err.value).splitlines() if "tensor-core path refused" in ln]
    assert note and re.match(HERE + r":\d+:\d+: note: ", note[0]), str(err.value)
    assert p.error in note[0] and "at most 256 columns" in note[0], note
    assert "split the hidden dimension into chunks" in note[0] and "as a second GEMM" in note[0], note


def test_the_second_dots_ring_released_by_half_its_readers_is_caught():
    """The column loop's kernel has two rings, the K loop's (the program's stages) and the second dot's B tiles
    (W2's column tiles streamed in 2 stages, released by both consumer warp groups: 256 arrivals).  ``tileorch check``
    proves both; the same protocol with the B ring's empty barrier counting one warp group (128 arrivals) is caught
    (the producer refills a W2 tile the other group still reads)."""
    import dataclasses

    from tileorch.analysis.explore import check
    from tileorch.testing.check_memo import check_once

    _, (proto,) = compiled_with_protocols(PROGRAMS, "mlp_loops_gelu_bias")  # the protocols the proof checks
    ring, e_ring = proto.pipelines
    assert (e_ring.stages, e_ring.empty_count, e_ring.stage_bytes) == (2, 256, 128 * 64 * 2), e_ring
    assert ring.stage_bytes == (128 + 128) * 64 * 2, ring
    assert check_once(proto).ok  # the proof's search (test_the_tensor_core_kernel_is_proved), once per run
    broken = dataclasses.replace(proto, pipelines=(ring, dataclasses.replace(e_ring, empty_count=128)))
    assert not check(broken).ok, "a W2 stage released by half its readers was proved"
