"""The third attention set (``tileorch.testing.attention_programs3``, issue 20: attention-shaped
programs acceptance has not shown us): each program exported through the launcher's argument
description and cuTile's exporter (no GPU), compiled for sm_90a, takes the path its table entry
names with the tensor-core remark (a refusal would say why at the user's line);
every chained kernel assembles with ptxas without spilling; ``tileorch check`` proves the
pipelines of the kernels this set added a lowering for.

Lifted by this set (session 21): a dot loop written as a counted ``while`` (``tileas-while-to-for``;
was refused to the SIMT path), a 1-D ``[tm]`` row state stored as ``[1, tm]`` (Triton's
tutorial LSE store; was refused as "a second store of a [1, tm] tile"), K^T read through a 4-D
``order=`` other than the last two swapped (``tileas-view-order-to-reshape``; was refused as "a
view with dimension order [0, 2, 3, 1]")."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import attention_programs3  # noqa: E402
from tileorch.testing.attention_programs3 import PROGRAMS  # noqa: E402

SOURCE = str(Path(attention_programs3.__file__))
TENSOR_CORES = "chained dots compiled through the TileAS tier to TMA + WGMMA"


def _compile(name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)


def _line_of(kernel, text: str) -> int:
    lines, first = inspect.getsourcelines(kernel._annotated_function.pyfunc)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


def test_the_set_has_its_programs():
    assert len(PROGRAMS) >= 20
    assert sum(p.path == "chained" for p in PROGRAMS.values()) >= 20


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_compiles_on_its_path(name):
    """The path of the table, the tensor-core remark for a chained kernel (never a silent SIMT
    fallback of a dot program), WGMMA in its PTX; no internal error."""
    p = PROGRAMS[name]
    prog = _compile(name)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    refusals = [r for r in remarks if "refused" in r]
    if p.error:
        assert any(r.startswith(SOURCE + ":") and p.error in r for r in refusals), remarks
    else:
        assert not refusals, remarks
    if p.path == "chained":
        assert any(TENSOR_CORES in r for r in remarks), remarks
        assert "wgmma.mma_async" in prog.ptx


@pytest.mark.parametrize("name", sorted(n for n in PROGRAMS if n.startswith("attn_while")))
def test_while_loop_remark_names_the_dot(name):
    from tileorch.transforms.tileas.while_to_for import REMARK

    p = PROGRAMS[name]
    line = _line_of(p.kernel, "s = ct.mma(q, ")
    assert any(r.startswith(f"{SOURCE}:{line}:") and REMARK in r for r in _compile(name).remarks)


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if p.path == "chained"))
def test_chained_kernel_assembles_without_spills(name):
    """Each chained kernel's PTX assembles with ptxas without spills (one test a program: CI's subset skips the
    programs none of whose other tests it runs, tests/ci_case_selection.json)."""
    from dot_sweep_checks import assert_spills_as_listed

    assert_spills_as_listed(name, _compile)


@pytest.mark.parametrize("name", ["attn_while_causal_offset_bf16", "attn_triton_tutorial_causal", "attn_k_order_bshd"])
@pytest.mark.parametrize("persistent", ["0", "1"])
def test_chained_kernel_is_proved(name, persistent, monkeypatch):
    """``tileorch check`` proves the K/V ring's barriers deadlock- and race-free, one instance per
    CTA and persistent, for the kernels this set added a lowering for."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode

    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", persistent)
    p = PROGRAMS[name]
    ctx = make_context()
    kind, lowered = lower_program(load(cutile_bytecode(p.kernel, p.spec), name, ctx), ctx)
    assert kind == "chained"
    (proto,) = extract(lowered)
    result = check(proto)
    assert result.ok, result.violation
