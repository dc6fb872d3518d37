"""Session 26's cover set (``tileorch.testing.cover26_programs``: dot programs session 25 left off the
tensor-core tiers): each program, exported through cuTile's exporter (no GPU) and compiled for sm_90a,
takes the path its table entry names -- "gemm" (the TileAS tier's TMA + WGMMA kernel, with the tier's
remark), "chained", or "simt" with a *located* warning (``file:line:col`` in the program) saying why
the tensor-core tiers refused it and the SIMT path's mma.sync remark -- and its PTX assembles with
ptxas without spills.  Results: test_cover26_emulated.py (the PTX emulator against numpy) and
tests/gpu/test_cover26_gpu.py (the GPU against torch)."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import cover26_programs  # noqa: E402
from tileorch.testing.cover26_programs import PROGRAMS  # noqa: E402
from dot_sweep_checks import (assert_dot_sweep, assert_pipelines_proved, assert_takes_its_path,  # noqa: E402
                              compiled_with_protocols, spilled_programs)


def compiled(name):
    """The program's compile for sm_90a, shared by the tests of a run with the pipeline protocols of the kernel
    it lowered (``compiled_with_protocols``: the proof below reads them instead of lowering the program again)."""
    return compiled_with_protocols(PROGRAMS, name)[0]


def test_the_set_has_its_programs():
    assert_dot_sweep(PROGRAMS, 10, 6)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_takes_its_path_and_says_so(name):
    assert_takes_its_path(PROGRAMS[name], compiled(name), cover26_programs.__file__)


def test_quantised_outputs_use_the_direct_epilogue():
    """The int8 and fp8 outputs of f16 dots: the direct epilogue (no TMA staging of 8-bit rows), an f16 WGMMA."""
    for name, out in (("gemm_f16_quantised_int8_out", "s8"), ("gemm_f16_fp8_e4m3_out", "e4m3")):
        cfg = compiled(name).gemm_config
        assert (cfg.dtype, cfg.out_dtype, cfg.epilogue) == ("f16", out, "direct"), cfg


def test_lora_keeps_the_programs_256_column_tile():
    """LoRA at tn 256 runs its own tile (the epilogue reads it) with the rank-64 accumulator beside it."""
    cfg = compiled("lora_tn256").gemm_config
    assert (cfg.tile_n, cfg.lora_rank, cfg.accumulator_registers) == (256, 64, 160), cfg


SPILLS: set[str] = set()
"""Programs whose PTX ptxas assembles with spills (ptxas 13.0).  Session 26 listed the three two-A programs,
refusals on their SIMT fallback (two 128 x 64 f32 accumulators beside mma.sync operands in 4 warps); since
session 27 the WGMMA kernel takes them.  A program joining the (empty) list fails."""


def test_every_program_assembles_without_spills():
    assert spilled_programs(PROGRAMS, compiled) == SPILLS
    assert not SPILLS & {n for n, p in PROGRAMS.items() if p.path != "simt"}


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if p.path != "simt"))
def test_the_tensor_core_kernel_is_proved(name):
    """``tileorch check`` on each tensor-core kernel: its pipelines free of deadlocks and races over every trip
    count (the shared computed A's register copies, the low-rank branch's second B, the 8-bit direct stores)."""
    assert_pipelines_proved(PROGRAMS, name)


def test_the_one_trip_key_loop_says_so_at_the_second_dot():
    """The loop-less attention's remark, at the user's ``o = ct.mma(p..., v, ...)`` line."""
    import inspect

    from tileorch.transforms.tileas.loopless_chain import REMARK

    p = PROGRAMS["attn_one_key_tile_no_loop"]
    lines, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    line = first + next(i for i, s in enumerate(lines) if "o = ct.mma(" in s)
    remarks = compiled("attn_one_key_tile_no_loop").remarks
    assert any(r.startswith(f"{cover26_programs.__file__}:{line}:") and REMARK in r for r in remarks), remarks
