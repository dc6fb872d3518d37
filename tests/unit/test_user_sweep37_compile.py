"""Thirty-seventh user sweep (``tileorch.testing.user_programs37``: attention-shaped and two-dot programs): every
program exported through cuTile's exporter (no GPU) and lowered for sm_90a takes the path its table entry names with
no internal error: the attention forwards and the chained two-dot programs (MLP, gated MLP, batched two-dot, LM-head
LSE) the chained tier ("chained dots compiled through the TileAS tier to TMA + WGMMA"), the epilogue-dot GEMMs and
the GEMM + softmax the GEMM tier, and the one program the tiers refuse (the row sums of a GEMM over N tiles walked in
the kernel, a K loop nested in an N loop) says why at its line (a located warning), never a silent SIMT fall back.
The chained launches on the spec's arrays are addressed by tensor maps (no launch-time SIMT fallback).

Found by this sweep: ``relu(X W1) W2`` on a 1-D grid (the grid walks M alone; W2 and the output read at column
tile 0) was refused by the GEMM tier ("the second dot's B is read at a column tile index other than program id 1")
and ran on mma.sync; tileas-program-loop-to-tiles now gives that column index program id 1 as it does for a one-dot
GEMM (``single_tile_axes``), and the launcher bounds the output's N by the second dot's tile --
:func:`test_an_epilogue_dot_on_a_1d_grid_takes_the_gemm_tier`, failing before.  And (session 44's noticed list) a
second output stored at the same literal tile index as C (a decode linear's pre-activation beside its activation,
both at ``(0, bn)``) was refused with "a second output tile [16, 64] at other indices than C's" (cuTile emits a
constant per literal 0; the check compared the SSA values) and ran on mma.sync; equal literals are C's indices now
(``test_program_takes_its_path[s37_decode_linear_pre_and_post_activation]``, failing before), and that output's
rows are bounded by the program's 16-row tile in the 64-row kernel (test_user_sweep37_emulated.py).

CI time (issue 22; the brief: the sweep's CI part ~20 CPU s): CI lowers :data:`PATH_IN_CI` (no LLVM);
``TILEORCH_EMULATE_ALL=1`` every program.  Needs cuda-tile."""

from __future__ import annotations

import inspect
import os

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs37  # noqa: E402
from tileorch.testing.user_programs37 import PROGRAMS  # noqa: E402

SOURCE = user_programs37.__file__
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
SAYS = {"chained": "chained dots compiled through the TileAS tier to TMA + WGMMA",
        "gemm": "dot kernel compiled through the TileAS tier to the warp-specialized TMA/WGMMA kernel"}
PATH_IN_CI = {"s37_fmha_sample_causal_pos_gqa2_d64", "s37_gemm_then_second_gemm", "s37_gemm_row_sum_over_n_tiles",
              "s37_decode_linear_pre_and_post_activation",
              "s37_decode_group_in_tile_g4_d128"}
"""The programs whose path CI checks (every program with ``TILEORCH_EMULATE_ALL=1``)."""


def _lowered(name):
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return lower_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a")


def test_the_sweep_has_its_programs():
    assert len(PROGRAMS) >= 50
    assert sum(p.path == "chained" for p in PROGRAMS.values()) >= 42
    assert all(n.startswith("s37_") for n in PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_takes_its_path(name):
    if name not in PATH_IN_CI and not ALL:
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 checks every program")
    p = PROGRAMS[name]
    prog = _lowered(name)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    refusals = [r for r in remarks if "refused" in r or "not supported" in r]
    if p.error:
        assert any(r.startswith(SOURCE + ":") and ": warning: " in r and p.error in r for r in refusals), remarks
    else:
        assert not refusals, remarks
        assert any(SAYS[p.path] in r for r in remarks), remarks


def test_an_epilogue_dot_on_a_1d_grid_takes_the_gemm_tier():
    """``relu(X W1) W2`` with the grid over M alone (W2 and Y at column tile 0): the GEMM tier (before: refused at the
    second dot's B load, the SIMT path's mma.sync), with the tier's remark that the program computes one column tile
    of the second dot's 128 columns, recorded for the launcher (``single_tile``: N bounded by 128, not the first
    dot's 64)."""
    prog = _lowered("s37_gemm_then_second_gemm")
    remarks = list(prog.remarks)
    assert prog.kind == "gemm", remarks
    assert any("one output tile along its columns (tile 0 of 128)" in r for r in remarks), remarks
    single = getattr(prog, "single_tile", None)
    if single is None:
        from tileorch.transforms.tileas.convert_to_cutlass import config_record

        single = next(config_record(op) for op in prog.module.walk() if config_record(op) is not None)["single_tile"]
    assert single == {"m": 0, "n": 128}, single


def test_an_epilogue_dot_launch_of_more_columns_than_its_tile_leaves_the_tier():
    """The 1-D-grid epilogue dot launched with W2 / Y of 200 columns: the program computes columns 0..127 only (its
    column index is 0); the launcher's plan refuses the tier's kernel (LayoutNotSupported: the launch runs the
    program as written on the SIMT path); with 128 columns it plans the tier."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode, described_arguments

    name = "s37_gemm_then_second_gemm"
    p = PROGRAMS[name]
    prog = compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a")
    args = rc.stored_arguments(described_arguments(p.kernel, p.spec))
    _a, _b, _c, m, n, _k, _batch, _counts = rc.gemm_problem_operand_batches(prog, args)
    assert (m, n) == (130, 128)
    wide = [((130, 200), "float16"), ((200, 64), "float16"), ((64, 200), "float16"), ((130, 200), "float16"), 64, 64,
            64, 128]
    with pytest.raises(rc.LayoutNotSupported, match="computes only tile 0 along N"):
        rc.gemm_problem_operand_batches(prog, rc.stored_arguments(described_arguments(p.kernel, wide)))


def test_the_nested_loop_refusal_names_the_n_loop():
    """The row sums of ``X W`` over N tiles walked in the kernel (each a K loop): the tier's refusal is located at
    the N loop's line of the program's file (a warning, the SIMT path compiles it)."""
    p = PROGRAMS["s37_gemm_row_sum_over_n_tiles"]
    src, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    line = first + next(i for i, ln in enumerate(src) if "for n in range" in ln)
    prog = _lowered("s37_gemm_row_sum_over_n_tiles")
    assert any(r.startswith(f"{SOURCE}:{line}:") and ": warning: " in r and p.error in r for r in prog.remarks), \
        list(prog.remarks)


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
    assert len(encoded) == len(prog.chained["tmaps"]) >= 2  # (the LM-head LSE: X and W only)
