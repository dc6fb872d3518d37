"""Session 43's attention-shaped sweep (``tileorch.testing.attnsweep43_programs``, issue 20): every program exported
through the launcher's argument description and cuTile's exporter (no GPU) and lowered for sm_90a takes the path its
table entry names: the chained ones say they took the tensor cores (TMA + WGMMA); the ones the tier refuses (varlen
rows gathered; the sink tokens' dot before the loop until session 44) say why at a line of the program's file, never a silent SIMT fallback or an internal error; the chained kernels' launches on their spec's arrays are
addressed by tensor maps (no launch-time SIMT fallback for a row stride TMA cannot take).  CI checks
:data:`PATH_IN_CI`; ``TILEORCH_EMULATE_ALL=1`` every program.  Needs cuda-tile."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import attnsweep43_programs  # noqa: E402
from tileorch.testing.attnsweep43_programs import PROGRAMS  # noqa: E402

SOURCE = str(Path(attnsweep43_programs.__file__))
TENSOR_CORES = "chained dots compiled through the TileAS tier to TMA + WGMMA"
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
QUICK = {"a43_alibi_causal_d64", "a43_sink_state_d64", "a43_varlen_padded_tiles_d64",
         "a43_lse_scatter_d64", "a43_sink_block_dot_before"}
"""test_attnsweep43_emulated.py's CI programs: their compile there is the lowering read here
(``lower_once_compiled``)."""
PATH_IN_CI = QUICK | {n for n, p in PROGRAMS.items() if p.path != "chained"} | {"a43_bias_tile_d64",
                                                                                 "a43_decode_split_sq1_d128",
                                                                                 "a43_varlen_gathered_d64"}
"""The programs whose path CI checks (every program with ``TILEORCH_EMULATE_ALL=1``)."""


def _lowered(name):
    from tileorch.testing.compile_memo import lower_once, lower_once_compiled
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    data = cutile_bytecode(p.kernel, p.spec)
    return lower_once_compiled(data, name, arch="sm_90a") if name in QUICK else lower_once(data, name, arch="sm_90a")


def test_the_sweep_has_its_programs():
    assert len(PROGRAMS) >= 25
    assert sum(p.path == "chained" for p in PROGRAMS.values()) >= 24


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_takes_its_path(name):
    if name not in PATH_IN_CI and not ALL:
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 checks every program")
    p = PROGRAMS[name]
    prog = _lowered(name)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    assert not [r for r in remarks if "refused" in r and ("producer agent" in r or "'nv_tile" in r)], remarks
    refusals = [r for r in remarks if "refused" in r]
    if p.error:
        assert any(r.startswith(SOURCE + ":") and p.error in r for r in refusals), remarks
    else:
        assert not refusals, remarks
        assert any(TENSOR_CORES in r for r in remarks), remarks


def test_scattered_lse_is_stored_as_its_tile():
    """The LSE written by ``ct.scatter`` at ``(b, h, qt BM + arange(BM))``: refused before session 43 ("a store at
    computed element indices", the SIMT path); now tileas-scatter-row-store's remark at the scatter's line and the
    chained kernel (its values: test_attnsweep43_emulated.py)."""
    import inspect

    p = PROGRAMS["a43_lse_scatter_d64"]
    src, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    line = first + next(i for i, ln in enumerate(src) if "ct.scatter(LSE" in ln)
    prog = _lowered("a43_lse_scatter_d64")
    assert prog.kind == "chained", list(prog.remarks)
    assert any(r.startswith(f"{SOURCE}:{line}:") and ": remark: " in r and "stored as the [1, 1, 64] tile" in r
               for r in prog.remarks), list(prog.remarks)


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if p.path == "chained"))
def test_chained_launch_is_addressed_by_tensor_maps(name, monkeypatch):
    """The launch on the spec's arrays takes the tier: every tensor map the launcher builds (``chained_tensor_maps``,
    the encoding stubbed: no driver here) addresses its array (a row stride TMA cannot take raises
    ``LayoutNotSupported``: the SIMT path at launch time)."""
    if name not in PATH_IN_CI and not ALL:
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 checks every program")
    from tileorch.launchers import cutile as rc
    from tileorch.launchers import gemm_host
    from tileorch.testing.export import described_arguments

    p = PROGRAMS[name]
    prog = _lowered(name)
    assert prog.kind == "chained", list(prog.remarks)
    encoded = []
    monkeypatch.setattr(gemm_host, "encode_tensor_map", lambda *a, **kw: encoded.append(a) or b"")
    rc.chained_tensor_maps(prog.chained, rc.stored_arguments(described_arguments(p.kernel, p.spec)))
    assert len(encoded) == len(prog.chained["tmaps"]) >= 3


def test_varlen_gathered_takes_the_chained_tier_by_row_windows():
    """Varlen with rows gathered at ``start + positions`` under a row mask: Q, K and V are row windows of their packed
    arrays (``tileas-row-window-gather``: one TMA tile at row ``start + j BN``, the rows past the sequence's end
    zeroed in shared memory), O put back by its ``ct.scatter``; a located remark at each gather (sessions 43 and 44:
    refused at K's gather, the SIMT path)."""
    import inspect

    p = PROGRAMS["a43_varlen_gathered_d64"]
    src, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    prog = _lowered("a43_varlen_gathered_d64")
    assert prog.kind == "chained", prog.remarks
    for text, what in (("q = ct.gather(Q", "Q"), ("k = ct.gather(K", "K / V"), ("v = ct.gather(V", "K / V")):
        line = first + next(i for i, ln in enumerate(src) if text in ln)
        assert any(r.startswith(f"{SOURCE}:{line}:") and f"{what} rows gathered at consecutive rows" in r
                   for r in prog.remarks), (text, prog.remarks)
