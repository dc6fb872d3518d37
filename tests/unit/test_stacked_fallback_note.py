"""The driver's fallback when a program whose query heads ``tileas-stack-query-heads`` stacked two a chain does not
take the tensor cores stacked (driver.lower_tileaa_program): compiled as written, and the note says why by cause --
the tier's refusal is a remark (a performance note, no bug report), an exception while lowering the stacked
program a warning that asks for a tileorch bug report (session 35: both said "tileorch bug").  The two lowerings
are stand-ins here (the real ones are exercised by the attention zoo's compile tests)."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")

from xdsl.context import Context  # noqa: E402
from xdsl.dialects.builtin import ModuleOp  # noqa: E402

from tileorch import driver, settings  # noqa: E402
from tileorch.transforms.tileas import stack_query_heads  # noqa: E402

REFUSAL = "prog.py:12:5: error: the dot's operand is not a tile the TMA loads (convert-nv-tileas-to-cutlass)"


def _lower(monkeypatch, stacked):
    """``lower_tileaa_program`` with a stacking the remarks announce, ``stacked`` as the lowering of the stacked
    program and the tier taking the program as written; the remarks."""
    monkeypatch.setattr(stack_query_heads, "stack_query_heads_remarks",
                        lambda module: ["remark: @k: the query-head loop: two heads a chain"])
    calls = []

    def fake(module, ctx, arch, schedule, config, remarks):
        calls.append(settings.value(stack_query_heads.ENV))
        if len(calls) == 1:
            return stacked(remarks)
        return "gemm", module

    monkeypatch.setattr(driver, "_lower_tileaa_program", fake)
    remarks: list[str] = []
    kind, _ = driver.lower_tileaa_program(ModuleOp([]), Context(), remarks=remarks)
    assert kind == "gemm" and calls[1] == "0", calls  # (the second lowering: the rewrite off)
    return remarks


def test_a_tier_refusal_of_the_stacked_program_is_a_remark_not_a_bug_report(monkeypatch):
    def refused(remarks):
        remarks.append(REFUSAL)
        return "simt", None

    note = _lower(monkeypatch, refused)[-1]
    assert note.startswith("remark: "), note
    assert REFUSAL in note and "each head its own chain" in note
    assert "bug" not in note


def test_an_exception_lowering_the_stacked_program_asks_for_a_bug_report(monkeypatch):
    def raises(remarks):
        raise IndexError("list index out of range")

    monkeypatch.setenv("TILEORCH_INTERNAL_ERRORS", "warn")  # a user's default (the suite raises them)
    note = _lower(monkeypatch, raises)[-1]
    assert note.startswith("warning: "), note
    assert "IndexError: list index out of range" in note and "tileorch bug, please report it" in note


def test_a_refusal_without_a_reason_says_so():
    note = driver.stacked_fallback_note(["remark: something else"], None)
    assert note.startswith("remark: ") and "(it gave no reason)" in note
