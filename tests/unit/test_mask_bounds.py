"""Masks that hold on whole tiles (transforms/tileas/mask_bounds.py): which comparisons of a
chained-dots loop qualify, and the kernel running its interior iterations without them.  The
emulated ragged and causal attention tests (test_chained_emulated.py, test_chained_narrow.py)
check the values of both copies against numpy."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("cuda.tile")
sys.path.insert(0, str(Path(__file__).parent))

from test_chained_dots import _arrays  # noqa: E402
from test_chained_dots import _compile_once as _compile  # noqa: E402


@pytest.mark.parametrize("causal,masks", [(False, 1), (True, 2)])
def test_textbook_attention_runs_interior_tiles_without_masks(causal, masks, monkeypatch):
    """The textbook program masks key columns past the sequence (and, causal, keys after the
    query) in every iteration: the loop body is emitted twice under a scalar test, the copy for
    whole tiles with no compare-and-select on the scores, and the compile says so."""
    from tileorch.testing.attention_programs import attention_fwd

    monkeypatch.setenv("TILEORCH_ATTN_EXP2_FMA", "0")  # every exp2 on the MUFU: the counts below are of ex2
    p = _compile(attention_fwd, _arrays(4, (4, 4096, 64)) + (0.18, 4096, 128, 128, 64, causal))
    assert p.chained["pipelined"] and p.chained["interior_masks"] == masks
    assert any("hold on whole tiles" in r for r in p.remarks)
    ptx = p.ptx
    ex2 = ptx.count("ex2.approx.ftz.f32")
    selects = len(re.findall(r"\bselp\.f32\b", ptx))
    # the peeled first tile, the whole-tile copy and the masked copy each hold the 64 + 2 ex2 of
    # a thread's softmax; only the first tile and the masked copy select per score
    assert ex2 == 3 * 66
    assert selects == 2 * 64 * masks


def test_branchy_program_masks_only_in_its_own_branch():
    """A program that masks inside its own boundary-tile branch has no unconditional mask:
    nothing is versioned."""
    from test_chained_dots import _branchy_args
    from tileorch.testing.attention_programs import attention_fwd_branchy

    p = _compile(attention_fwd_branchy, _branchy_args(64, 128, 128, True, False))
    assert p.chained["interior_masks"] == 0

