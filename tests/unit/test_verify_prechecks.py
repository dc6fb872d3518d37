"""tileorch.verify_prechecks: llvm.trunc/zext/sext verified through the cached path give the
same diagnostics as through xDSL's own verify override, valid or not."""

import pytest
from xdsl.dialects import arith, llvm, test
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, VectorType, f32, f64, i8, i32, i64

from tileorch import diagnostics, verify_prechecks


def _cast(cls, src_type, res_type):
    src = test.TestOp(result_types=[src_type])
    return ModuleOp([src, cls(src.results[0], res_type)])


CASES = [
    (llvm.ZExtOp, i32, i64), (llvm.SExtOp, i8, i32), (llvm.TruncOp, i64, i32),  # valid
    (llvm.ZExtOp, i64, i32), (llvm.SExtOp, i32, i32), (llvm.TruncOp, i8, i32),  # widths the wrong way
    (llvm.ZExtOp, VectorType(i8, [4]), VectorType(i32, [4])),  # vectors: the element types compared
    (llvm.TruncOp, VectorType(i8, [4]), VectorType(i32, [4])),
    (llvm.ZExtOp, f32, f64), (llvm.TruncOp, i32, f32),  # not integers: the override's own failure
]


@pytest.mark.parametrize("cls,src,res", CASES)
def test_same_diagnostics_as_xdsls_override(cls, src, res, monkeypatch):
    ours = diagnostics.verify_located(_cast(cls, src, res))
    monkeypatch.setattr(diagnostics, "precheck", lambda cls: None)  # every such op through op.verify
    diagnostics._forget_verified()
    theirs = diagnostics.verify_located(_cast(cls, src, res))
    assert ours == theirs


def test_wrong_widths_are_reported():
    errors = diagnostics.verify_located(_cast(llvm.ZExtOp, i64, i32))
    assert len(errors) == 1 and "invalid cast opcode for cast from i64 to i32" in errors[0]
    assert diagnostics.verify_located(_cast(llvm.TruncOp, i64, i32)) == []


def test_only_the_casts_written_against_have_a_precheck():
    assert verify_prechecks.precheck(llvm.ZExtOp) is not None
    assert verify_prechecks.precheck(llvm.TruncOp) is not None
    assert verify_prechecks.precheck(arith.AddiOp) is None

    class OtherZExt(llvm.ZExtOp):  # a verify of its own: not the one the precheck mirrors
        def verify(self, verify_nested_ops: bool = True):
            super().verify(verify_nested_ops)

    assert verify_prechecks.precheck(OtherZExt) is None


def test_a_cast_is_checked_once_per_signature(monkeypatch):
    """The casts take the cached path: their definition's constraints are checked once."""
    from xdsl.irdl.operations import OpDef

    calls = []
    real = OpDef.verify
    monkeypatch.setattr(OpDef, "verify", lambda self, op: calls.append(op.name) or real(self, op))
    diagnostics._forget_verified()
    src = test.TestOp(result_types=[i32])
    casts = [llvm.ZExtOp(src.results[0], i64) for _ in range(5)]
    c = arith.ConstantOp(IntegerAttr(1, i32))
    assert diagnostics.verify_located(ModuleOp([src, *casts, c])) == []
    assert calls.count("llvm.zext") == 1
