"""The ``exp: N op(s) computed by ...`` remark describes the kernel the compile produces (session 32's note: it
was counted before the SIMT path's ``tileaa-sum-after-max`` / ``tileaa-hoist-online-softmax`` take a softmax
sum's terms as ``ex2.approx``, so the three-loop softmax said "2 op(s) computed by full precision" while its
sum loop's exp ran as ex2.approx).  The chained kernel's loop exps (``loop_softmax_exp``) move likewise."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("xdsl")


def _said(remarks):
    """{(form, why): count} of the exp remarks."""
    out = {}
    for r in remarks:
        m = re.match(r"remark: exp: (\d+) op\(s\) computed by (full precision|ex2\.approx\.ftz)[^(]*\(.*\) "
                     r"\((.*)\)$", r)
        if m:
            out[(m.group(2), m.group(3))] = int(m.group(1))
    return out


def test_the_three_loop_softmax_counts_its_sum_term_as_ex2():
    pytest.importorskip("cuda.tile")
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.row_cache_programs import softmax_three_loops as kernel
    from test_row_smem_cache_emulated import BV

    spec = [((3, 2 * BV + 3), "float16"), ((3, 2 * BV + 3), "float16"), BV]
    prog = compile_once(cutile_bytecode(kernel, spec), "sum_after_max", arch="sm_90a", ptxas=False)
    assert any("tileaa-sum-after-max" in r for r in prog.remarks)
    said = _said(prog.remarks)
    full = sum(n for (form, _), n in said.items() if form == "full precision")
    fast = {why: n for (form, why), n in said.items() if form == "ex2.approx.ftz"}
    assert full == 1, prog.remarks  # the write loop's exp
    assert list(fast.values()) == [1] and "tileaa-sum-after-max" in next(iter(fast)), prog.remarks


def test_the_chained_loops_softmax_exps_move_to_the_fast_form():
    from tileorch.transforms.math_mode import math_remarks

    default = "TILEORCH_MATH=approx or rounding_mode=APPROX takes the fast form"
    said = _said(math_remarks(counts={("exp", False, default): 3}, ex2_terms=2))
    assert said[("full precision", default)] == 1
    fast = [n for (form, why), n in said.items() if form == "ex2.approx.ftz" and "TILEORCH_ATTN_SOFTMAX_EXP" in why]
    assert fast == [2]
    assert _said(math_remarks(counts={("exp", False, default): 2}, ex2_terms=2)) == {
        ("ex2.approx.ftz", next(w for f, w in said if f == "ex2.approx.ftz")): 2}
