"""Eighteenth user sweep (``tileorch.testing.user_programs18``: issue 20 and the principal tier, dot and
attention-shaped programs of the kinds users write that the earlier sweeps and sets miss): each
program, exported through cuTile's exporter (no GPU) and compiled for sm_90a, takes the path its
table entry names: "gemm" (the TileAS tier's TMA + WGMMA kernel, with the tier's remark), "chained"
(the chained-dots tier's TMA + WGMMA kernel, with its remark) or "simt" with a *located* warning
(``file:line:col`` in the program) saying why the tensor-core tiers refused it, and the SIMT path's
remark that its dots run on mma.sync tensor cores (no silent fallback); every program's PTX
assembles with ptxas without spills (or is listed in :data:`SPILLS`).  Results against numpy:
test_user_sweep18_emulated.py (the PTX emulator, f16 operands) and tests/gpu/test_user_sweep18_gpu.py
(every program)."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs18  # noqa: E402
from tileorch.testing.user_programs18 import PROGRAMS  # noqa: E402
from dot_sweep_checks import (assert_dot_sweep, assert_spills_as_listed, assert_takes_its_path,  # noqa: E402
                              compile_sweep_program)


def compiled(name):
    """The program's compile for sm_90a, shared by the tests of a run (``compile_once``)."""
    return compile_sweep_program(PROGRAMS, name)


def test_the_sweep_has_its_programs():
    assert_dot_sweep(PROGRAMS, 30, 20)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_takes_its_path_and_says_so(name):
    assert_takes_its_path(PROGRAMS[name], compiled(name), user_programs18.__file__)


SPILLS = {"attn_f16_pv_accumulator"}
"""Programs whose PTX ptxas assembles with spills (session 24, ptxas 13.0): the chained tier's refusal of
an f16 PV accumulator, whose SIMT fallback holds the f32 scores, the softmax state and the f16
accumulator of a 64 x 64 tile on the default 4 warps (255 registers, 72 B of spill stores and loads).
Listed so that the spill is not silent; a program joining the list (or leaving it) fails."""


def test_the_spill_list_names_programs_of_the_sweep():
    assert SPILLS <= set(PROGRAMS), SPILLS - set(PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_assembles_without_spills_unless_listed(name):
    """Each program's PTX assembles with ptxas with spills exactly when :data:`SPILLS` lists it (one test a
    program: CI's subset skips the programs none of whose other tests it runs, tests/ci_case_selection.json)."""
    assert_spills_as_listed(name, compiled, SPILLS)
