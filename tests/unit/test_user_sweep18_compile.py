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

import inspect
import re

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs18  # noqa: E402
from tileorch.testing.user_programs18 import PROGRAMS  # noqa: E402

TENSOR_CORES = {"gemm": "compiled through the TileAS tier to the warp-specialized TMA/WGMMA kernel",
                "chained": "chained dots compiled through the TileAS tier to TMA + WGMMA"}


def compiled(name):
    """The program's compile for sm_90a, shared by the tests of a run (``compile_once``)."""
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)


def test_the_sweep_has_its_programs():
    assert len(PROGRAMS) >= 30
    assert sum(p.path in ("gemm", "chained") for p in PROGRAMS.values()) >= 20
    for name, p in PROGRAMS.items():
        assert p.path in ("gemm", "chained", "simt") and p.outputs, name
        assert p.path != "simt" or p.error, name
        src = inspect.getsource(p.kernel._annotated_function.pyfunc)
        assert p.kernel._annotated_function.pyfunc.__doc__, name
        assert "ct.mma(" in src or "ct.matmul(" in src or " @ " in src, name


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_takes_its_path_and_says_so(name):
    p = PROGRAMS[name]
    prog = compiled(name)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    if p.path != "simt":
        assert any(TENSOR_CORES[p.path] in r for r in remarks), remarks
        assert re.search(r"wgmma\.mma_async", prog.ptx)
        return
    # a refused dot program: the reason, located in the program, and the SIMT path's dot
    here = re.escape(user_programs18.__file__)
    why = [r for r in remarks if p.error in r]
    assert why and all(re.match(here + r":\d+:\d+: warning: ", r) for r in why), remarks
    lines, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    at = [int(re.match(here + r":(\d+):", r).group(1)) for r in why]
    assert all(first < ln < first + len(lines) for ln in at), (at, first)
    assert any("the SIMT path computes this" in r and "on tensor cores with mma.sync" in r for r in remarks), remarks


SPILLS: set[str] = set()
"""Programs whose PTX ptxas assembles with spills (session 24, ptxas 13.0): none.  Listed so that a
spill is not silent; a program joining the list (or leaving it) fails."""


def test_every_program_assembles_without_spills():
    from tileorch.backend.ptxas import ptxas_available, run_ptxas

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    spilled = {name for name in sorted(PROGRAMS) if run_ptxas(compiled(name).ptx, "sm_90a").spill_warnings()}
    assert spilled == SPILLS
