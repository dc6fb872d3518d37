"""``tileorch.transforms.llvm_memory_ops``: ``llvm.getelementptr`` / ``llvm.load`` / ``llvm.store`` built
with shared property attributes are the ops xDSL's constructors build (same properties in the same
order, same operands and result types, same printed text, same errors), and equal indices, orderings
and alignments share one attribute object (issue 22)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import llvm, test
from xdsl.dialects.builtin import IntAttr, IntegerAttr, f32, i8, i32, i64

import tileorch.transforms  # noqa: F401  (installs them)
from tileorch.transforms import llvm_memory_ops as lm


def test_installed_over_the_xdsl_they_mirror():
    assert lm.install()
    assert llvm.GEPOp.__init__ is lm.gep_init
    assert llvm.LoadOp.__init__ is lm.load_init
    assert llvm.StoreOp.__init__ is lm.store_init
    for cls, xdsl in ((llvm.GEPOp, lm._XDSL_GEP_INIT), (llvm.LoadOp, lm._XDSL_LOAD_INIT),
                      (llvm.StoreOp, lm._XDSL_STORE_INIT)):
        assert lm._mirrors(cls, xdsl)


def _values():
    ptr = test.TestOp(result_types=[llvm.LLVMPointerType()]).results[0]
    idx = test.TestOp(result_types=[i32]).results[0]
    val = test.TestOp(result_types=[f32]).results[0]
    return ptr, idx, val


def _same(a, b) -> None:
    """``a`` (built by xDSL's constructor) and ``b`` (by ours) are the same op."""
    assert type(a) is type(b)
    assert list(a.properties.items()) == list(b.properties.items())  # (values and order)
    assert a.attributes == b.attributes
    assert list(a.operands) == list(b.operands)
    assert [r.type for r in a.results] == [r.type for r in b.results]
    assert str(a) == str(b)
    assert _verified(a) == _verified(b)


def _verified(op) -> str:
    try:
        op.verify()
    except Exception as exc:  # noqa: BLE001 - compared: the same error or none
        return f"{type(exc).__name__}: {exc}"
    return "ok"


def _build(init, cls, *args, **kwargs):
    op = cls.__new__(cls)
    init(op, *args, **kwargs)
    return op


@settings(max_examples=80, deadline=None)
@given(consts=st.lists(st.integers(-(2**31) + 1, 2**31 - 1), min_size=1, max_size=4),
       dynamic=st.lists(st.booleans(), min_size=1, max_size=4), inbounds=st.booleans(),
       addr_space=st.sampled_from([None, 1, 3]))
def test_gep_matches_xdsls(consts, dynamic, inbounds, addr_space):
    ptr, idx, _ = _values()
    indices = [llvm.GEP_USE_SSA_VAL if d else c for c, d in zip(consts, dynamic)]
    ssa = [idx for i in indices if i == llvm.GEP_USE_SSA_VAL]
    kwargs = {} if addr_space is None else {"result_type": llvm.LLVMPointerType(IntAttr(addr_space))}
    a = _build(lm._XDSL_GEP_INIT, llvm.GEPOp, ptr, indices, i8, ssa, inbounds=inbounds, **kwargs)
    b = llvm.GEPOp(ptr, indices, i8, ssa, inbounds=inbounds, **kwargs)
    _same(a, b)


@settings(max_examples=60, deadline=None)
@given(alignment=st.one_of(st.none(), st.sampled_from([1, 2, 4, 8, 16])), ordering=st.sampled_from([0, 1, 2, 4, 5, 6, 7]),
       volatile=st.booleans(), nontemporal=st.booleans())
def test_load_and_store_match_xdsls(alignment, ordering, volatile, nontemporal):
    ptr, _, val = _values()
    _same(_build(lm._XDSL_LOAD_INIT, llvm.LoadOp, ptr, f32, alignment, ordering),
          llvm.LoadOp(ptr, f32, alignment, ordering))
    _same(_build(lm._XDSL_STORE_INIT, llvm.StoreOp, val, ptr, alignment, ordering, volatile, nontemporal),
          llvm.StoreOp(val, ptr, alignment, ordering, volatile, nontemporal))


def test_equal_values_share_one_attribute():
    ptr, _, val = _values()
    g1, g2 = llvm.GEPOp(ptr, [0, 5], i8), llvm.GEPOp(ptr, [0, 5], i8)
    assert g1.properties["rawConstantIndices"] is g2.properties["rawConstantIndices"]
    assert g1.properties["noWrapFlags"] is g2.properties["noWrapFlags"]
    l1, l2 = llvm.LoadOp(ptr, f32, alignment=4), llvm.LoadOp(ptr, f32, alignment=4)
    s1 = llvm.StoreOp(val, ptr, alignment=4)
    assert l1.properties["alignment"] is l2.properties["alignment"] is s1.properties["alignment"]
    assert l1.properties["ordering"] is s1.properties["ordering"]


def test_other_forms_are_built_as_xdsl_builds_them():
    ptr, _, val = _values()
    # an IntAttr alignment, a bool ordering: not memoized, the same attribute as xDSL's
    a = llvm.LoadOp(ptr, f32, alignment=IntAttr(8), ordering=True)
    assert a.properties["alignment"] == IntegerAttr(8, i64)
    assert a.properties["ordering"] == IntegerAttr(True, i64)
    # a GEP index out of i32's range: the error xDSL raises
    with pytest.raises(Exception) as mine:
        llvm.GEPOp(ptr, [2**40], i8)
    with pytest.raises(Exception) as theirs:
        _build(lm._XDSL_GEP_INIT, llvm.GEPOp, ptr, [2**40], i8)
    assert type(mine.value) is type(theirs.value) and str(mine.value) == str(theirs.value)


def test_memos_are_bounded(monkeypatch):
    monkeypatch.setattr(lm, "_MAX_ENTRIES", 3)
    lm._I64.clear()
    lm._INDICES.clear()
    for v in range(10):
        assert lm.integer64(v) == IntegerAttr(v, i64)
        assert lm.raw_indices([v, v]).get_values() == (v, v)
        assert len(lm._I64) <= 3 and len(lm._INDICES) <= 3
