"""``tileorch.transforms.llvm_ops.gep`` / ``store`` build the op xDSL's ``llvm.GEPOp`` /
``llvm.StoreOp`` constructors build (operands, result types, properties, the printed op), for any
of their arguments; only the attribute objects are shared."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("xdsl")

from xdsl.dialects import llvm  # noqa: E402
from xdsl.dialects.builtin import IntAttr, ModuleOp, f32, i8, i32, i64  # noqa: E402
from xdsl.dialects import test as xdsl_test  # noqa: E402
from xdsl.utils.exceptions import VerifyException  # noqa: E402

from tileorch.dialects.llvm_ext import ORDERING_NAMES  # noqa: E402
from tileorch.transforms.llvm_ops import gep, store  # noqa: E402

PTRS = [llvm.LLVMPointerType(), llvm.LLVMPointerType(IntAttr(3)), llvm.LLVMPointerType(IntAttr(1))]


def _same(ours, theirs) -> None:
    assert type(ours) is type(theirs)
    assert ours.properties == theirs.properties and set(ours.properties) == set(theirs.properties)
    assert ours.attributes == theirs.attributes
    assert list(ours.operands) == list(theirs.operands)
    assert [r.type for r in ours.results] == [r.type for r in theirs.results]
    try:  # (a constant index into a scalar does not verify: then neither does ours)
        theirs.verify()
    except VerifyException:
        with pytest.raises(VerifyException):
            ours.verify()
    else:
        ours.verify()
    assert str(ModuleOp([ours.clone()])) == str(ModuleOp([theirs.clone()]))


@settings(max_examples=120, deadline=None)
@given(st.lists(st.one_of(st.integers(-4, 40), st.just(llvm.GEP_USE_SSA_VAL)), min_size=1, max_size=3),
       st.sampled_from([i8, i32, f32, i64]), st.sampled_from(PTRS), st.sampled_from(PTRS), st.booleans())
def test_gep_is_xdsls(indices, pointee, ptr_type, result_type, inbounds):
    values = xdsl_test.TestOp(result_types=[ptr_type, i32, i64]).results
    n_ssa = indices.count(llvm.GEP_USE_SSA_VAL)
    ssa = [values[1 + k % 2] for k in range(n_ssa)]
    _same(gep(values[0], indices, pointee, ssa, result_type, inbounds),
          llvm.GEPOp(values[0], indices, pointee, ssa_indices=ssa, result_type=result_type, inbounds=inbounds))


def test_gep_defaults_are_xdsls():
    ptr, off = xdsl_test.TestOp(result_types=[llvm.LLVMPointerType(), i32]).results
    _same(gep(ptr, [llvm.GEP_USE_SSA_VAL], i8, [off]), llvm.GEPOp(ptr, [llvm.GEP_USE_SSA_VAL], i8, ssa_indices=[off]))
    _same(gep(ptr, [3], f32), llvm.GEPOp(ptr, [3], f32))


@settings(max_examples=80, deadline=None)
@given(st.one_of(st.none(), st.sampled_from([1, 2, 4, 8, 16])), st.sampled_from(sorted(ORDERING_NAMES)), st.booleans(), st.booleans(),
       st.sampled_from([i32, f32, i8]))
def test_store_is_xdsls(alignment, ordering, volatile, nontemporal, value_type):
    value, ptr = xdsl_test.TestOp(result_types=[value_type, llvm.LLVMPointerType(IntAttr(1))]).results
    _same(store(value, ptr, alignment, ordering, volatile, nontemporal),
          llvm.StoreOp(value, ptr, alignment=alignment, ordering=ordering, volatile=volatile, nontemporal=nontemporal))


def test_shared_attributes_are_not_mutated_through_an_op():
    ptr, off = xdsl_test.TestOp(result_types=[llvm.LLVMPointerType(IntAttr(3)), i32]).results
    a, b = gep(ptr, [llvm.GEP_USE_SSA_VAL], i8, [off]), gep(ptr, [llvm.GEP_USE_SSA_VAL], i8, [off])
    assert a.properties["rawConstantIndices"] is b.properties["rawConstantIndices"]
    a.properties["noWrapFlags"] = llvm.GEPOp(ptr, [0], i8).properties["noWrapFlags"]  # a new dict entry, b keeps its own
    assert b.properties["noWrapFlags"] == a.properties["noWrapFlags"] and a.properties is not b.properties
