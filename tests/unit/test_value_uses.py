"""``tileorch.transforms.value_uses``: xDSL's ``SSAValue.replace_all_uses_with`` and ``SSAValue.get``
with the same results: the same operands, the same use lists in the same order, the same name hints
(issue 22)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import test
from xdsl.dialects.builtin import f32, i32
from xdsl.ir import Attribute, Block, SSAValue

import tileorch.transforms  # noqa: F401  (installs them)
from tileorch.transforms import value_uses


def test_installed_over_the_xdsl_they_mirror():
    assert value_uses._mirrors_xdsl() and value_uses.install()
    assert SSAValue.replace_all_uses_with is value_uses.replace_all_uses_with
    assert SSAValue.get is value_uses.ssa_value_get


def _graph(uses: list[list[int]], names: tuple[str | None, str | None]):
    """Two values (results of ``test.op``s named ``names``) and one user per entry of ``uses``, whose
    operands are those values (0: the old, 1: the new) in the given order."""
    old_def = test.TestOp(result_types=[i32])
    new_def = test.TestOp(result_types=[i32])
    old, new = old_def.results[0], new_def.results[0]
    old.name_hint, new.name_hint = names
    users = [test.TestOp(operands=[(old, new)[k] for k in ops], result_types=[f32]) for ops in uses]
    Block([old_def, new_def, *users])
    return old, new, users


def _state(old, new, users) -> tuple:
    """The users' operands (by value: "old"/"new"), each value's use list in order as (user, index), and
    the name hints."""
    ids = {id(u): i for i, u in enumerate(users)}

    def use_list(v):
        out, use = [], v.first_use
        while use is not None:
            out.append((ids[id(use.operation)], use.index, use is use.operation._operand_uses[use.index]))
            use = use._next_use
        return out

    return ([["old" if o is old else "new" if o is new else "?" for o in u.operands] for u in users],
            use_list(old), use_list(new), old.name_hint, new.name_hint)


@settings(max_examples=60, deadline=None)
@given(uses=st.lists(st.lists(st.integers(0, 1), max_size=4), max_size=5),
       names=st.tuples(st.sampled_from([None, "a", "x_1", "q_2_3"]), st.sampled_from([None, "b"])))
def test_replace_all_uses_with_matches_xdsls(uses, names):
    results = []
    for fn in (value_uses._XDSL_REPLACE_ALL_USES_WITH, value_uses.replace_all_uses_with):
        old, new, users = _graph(uses, names)
        fn(old, new)
        results.append(_state(old, new, users))
    assert results[0] == results[1]
    operands, old_uses, new_uses, _, _ = results[1]
    assert old_uses == [] and all(o == "new" for u in operands for o in u)
    assert len(new_uses) == sum(len(u) for u in uses)


def test_replace_with_itself_changes_nothing():
    old, new, users = _graph([[0, 1, 0]], ("a", None))
    before = _state(old, new, users)
    value_uses.replace_all_uses_with(old, old)
    assert _state(old, new, users) == before


def test_get_same_answers_as_xdsl():
    op = test.TestOp(result_types=[i32])
    two = test.TestOp(result_types=[i32, i32])
    v = op.results[0]
    arg = Block(arg_types=[i32]).args[0]
    for x in (v, arg, op):
        assert value_uses.ssa_value_get(x) is value_uses._XDSL_GET(x)
    assert value_uses.ssa_value_get(v, type=Attribute) is v
    for bad, kw in ((two, {}), (v, {"type": type(f32)})):
        with pytest.raises(ValueError) as ours:
            value_uses.ssa_value_get(bad, **kw)
        with pytest.raises(ValueError) as theirs:
            value_uses._XDSL_GET(bad, **kw)
        assert str(ours.value) == str(theirs.value)


def test_values_getitem_same_items_and_slices():
    from xdsl.ir import SSAValues

    assert SSAValues.__getitem__ is value_uses.values_getitem
    op = test.TestOp(result_types=[i32, f32, i32])
    values = op.results
    theirs = value_uses._XDSL_VALUES_GETITEM
    for idx in (0, 1, 2, -1, True, slice(0, 2), slice(None, None, -1), slice(5, 9)):
        ours, ref = values[idx], theirs(values, idx)
        assert type(ours) is type(ref) and (ours is ref if not isinstance(idx, slice) else ours == ref)
    for bad in (3, "0"):
        with pytest.raises((IndexError, TypeError)) as ours:
            values[bad]
        with pytest.raises((IndexError, TypeError)) as ref:
            theirs(values, bad)
        assert type(ours.value) is type(ref.value)
