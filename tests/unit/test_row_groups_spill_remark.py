"""The default four row groups kept with a spill within row_groups.SPILL_LIMIT: ptxas's spill warning of that kernel
becomes a remark (the compiler's own measured choice is no PerformanceWarning); past the limit it stays a warning."""
from types import SimpleNamespace

import pytest

pytest.importorskip("xdsl")

from tileorch.driver import _row_groups_spill_as_remark  # noqa: E402
from tileorch.transforms.tileas.row_groups import SPILL_LIMIT  # noqa: E402


def _warn(fn, s, l):
    return f"warning: ptxas spilled registers of {fn}: {s} B stores, {l} B loads (112 registers)"


def test_a_spill_within_the_limit_is_a_remark_naming_the_choice():
    remarks = ["remark: ptxas: k0 ...", _warn("k0", 8, 8), _warn("other", 8, 8)]
    _row_groups_spill_as_remark(remarks, "k0", SimpleNamespace(resources={"k0": {"spill_stores": 8, "spill_loads": 8}}))
    assert remarks[1].startswith("remark: ptxas spilled registers of k0: 8 B stores, 8 B loads"), remarks
    assert "TILEORCH_ATTN_ROW_GROUPS=0" in remarks[1] and f"{SPILL_LIMIT} B" in remarks[1], remarks
    assert remarks[2] == _warn("other", 8, 8)  # another kernel's warning is not this rule's


def test_a_spill_past_the_limit_stays_a_warning():
    remarks = [_warn("k0", 140, 284)]
    _row_groups_spill_as_remark(remarks, "k0",
                                SimpleNamespace(resources={"k0": {"spill_stores": 140, "spill_loads": 284}}))
    assert remarks == [_warn("k0", 140, 284)]
