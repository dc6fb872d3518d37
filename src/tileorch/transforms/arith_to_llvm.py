"""``convert-arith-to-llvm``: ``arith`` ops -> ``llvm`` ops, one small pattern per op family.

``index`` is ``i64`` (see :mod:`index_to_llvm`).  Predicates of ``arith.cmpi``/``cmpf``
use the same integer encoding as ``llvm.icmp``/``fcmp`` and are copied.  min/max become
``icmp`` + ``select``; ``ceildivui`` becomes ``a == 0 ? 0 : (a - 1) / b + 1``.  A shift or division
whose right operand is not a constant where LLVM's op is defined becomes a sequence defined for
every value (:mod:`tileorch.transforms.defined_integer_llvm`: PTX's clamped shift amounts, no
division by zero or signed ``MIN / -1`` left for LLVM to fold into deleted stores).
"""

from __future__ import annotations

import functools

from dataclasses import dataclass

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (AnyFloat, DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr, IntegerType, VectorType,
                                   i1, i64)
from xdsl.ir import Block, Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from tileorch.diagnostics import LocatedError, copy_location
from tileorch.dialects import llvm_ext
from tileorch.dominance import DIRECT_FIELDS as _DIRECT_FIELDS
from tileorch.transforms import defined_integer_llvm as defined
from tileorch.transforms.index_to_llvm import ToLLVMPass, llvm_type

BINARY: dict[type[Operation], type[Operation]] = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
    arith.DivUIOp: llvm.UDivOp,
    arith.DivSIOp: llvm.SDivOp,
    arith.RemUIOp: llvm.URemOp,
    arith.RemSIOp: llvm.SRemOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
    arith.ShLIOp: llvm.ShlOp,
    arith.ShRUIOp: llvm.LShrOp,
    arith.ShRSIOp: llvm.AShrOp,
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
}

CASTS: dict[type[Operation], type[Operation]] = {
    arith.ExtUIOp: llvm.ZExtOp,
    arith.ExtSIOp: llvm.SExtOp,
    arith.TruncIOp: llvm.TruncOp,
    arith.SIToFPOp: llvm.SIToFPOp,
    arith.UIToFPOp: llvm_ext.UIToFPOp,
    arith.FPToSIOp: llvm_ext.FPToSIOp,
    arith.FPToUIOp: llvm_ext.FPToUIOp,
    arith.ExtFOp: llvm.FPExtOp,
    arith.TruncFOp: llvm.FPTruncOp,
    arith.BitcastOp: llvm.BitcastOp,
}

# (icmp predicate choosing lhs) for min/max: slt=2, sgt=4, ult=6, ugt=8
MINMAX: dict[type[Operation], int] = {
    arith.MinSIOp: 2,
    arith.MaxSIOp: 4,
    arith.MinUIOp: 6,
    arith.MaxUIOp: 8,
}


def _bits(t) -> int:
    return t.width.data if isinstance(t, IntegerType) else 64


def _index_cast(op: Operation, signed: bool) -> list[Operation]:
    src, dst = llvm_type(op.input.type), llvm_type(op.result.type)
    if _bits(src) == _bits(dst):
        return []
    if _bits(src) > _bits(dst):
        return [llvm.TruncOp(op.input, dst)]
    return [llvm.SExtOp(op.input, dst) if signed else llvm.ZExtOp(op.input, dst)]


class LowerArith(RewritePattern):
    NAME_PREFIX = "arith."  # acts on no other op (rewrite_once visits only these)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if op.name.startswith("arith.") and _morph(op):
            rewriter.has_done_action = True
            return
        self.replace_by_lowering(op, rewriter)

    def replace_by_lowering(self, op: Operation, rewriter: PatternRewriter) -> None:
        """Replace ``op`` by what :meth:`lower` builds for it (nothing when it builds None)."""
        new = self.lower(op)
        if new is None:
            return
        copy_location(op, new)
        if new:
            rewriter.replace(op, new)
        else:  # a no-op cast (e.g. index_cast i64 <-> index)
            rewriter.replace(op, [], [op.operands[0]])

    @staticmethod
    def lower(op: Operation) -> list[Operation] | None:
        if not op.name.startswith("arith."):  # most ops of a lowered module: no type tests on them
            return None
        t = type(op)
        if t in BINARY:
            if (t in defined.SHIFTS or t in defined.DIVISIONS) and not defined.defined_as_is(op):
                return defined.lowering(op)
            return [BINARY[t](op.lhs, op.rhs)]
        if t in CASTS:
            return [CASTS[t](op.input, llvm_type(op.result.type))]
        if isinstance(op, arith.ConstantOp):
            if isinstance(op.value, DenseIntOrFPElementsAttr) and isinstance(op.result.type, VectorType):
                if not isinstance(op.result.type.element_type, IntegerType | AnyFloat):
                    raise LocatedError(op, f"arith.constant of a {op.result.type} has no llvm lowering (vector "
                                           "constants of integer or float elements only)")
                return [llvm.ConstantOp(op.value, op.result.type)]  # a vector constant (a splat or its elements)
            if not isinstance(op.value, IntegerAttr | FloatAttr):
                raise LocatedError(op, f"arith.constant of {op.value} has no llvm lowering")
            return [llvm.ConstantOp(op.value, llvm_type(op.result.type))]
        if isinstance(op, arith.CmpiOp):
            return [llvm.ICmpOp(op.lhs, op.rhs, IntegerAttr(op.predicate.value.data, i64))]
        if isinstance(op, arith.CmpfOp):
            return [llvm.FCmpOp(op.lhs, op.rhs, IntegerAttr(op.predicate.value.data, i64))]
        if isinstance(op, arith.SelectOp):
            return [llvm.SelectOp(op.cond, op.lhs, op.rhs)]
        if isinstance(op, arith.NegfOp):
            return [llvm.FNegOp(op.operand)]
        if t in MINMAX:
            cmp = llvm.ICmpOp(op.lhs, op.rhs, IntegerAttr(MINMAX[t], i64))
            return [cmp, llvm.SelectOp(cmp, op.lhs, op.rhs)]
        if isinstance(op, arith.CeilDivUIOp):
            return defined.ceil_div_unsigned(op)
        if isinstance(op, arith.IndexCastOp):
            return _index_cast(op, signed=True)
        if op.name == "arith.index_castui":
            return _index_cast(op, signed=False)
        if op.name.startswith("arith."):
            raise LocatedError(op, f"{op.name} has no llvm lowering in tileorch")
        return None


# ---------------------------------------------------------------------------- in-place lowering
#
# Most arith ops lower to one llvm op with the same operands in the same order (BINARY, CASTS,
# constant, cmpi/cmpf, select, negf).  Building that op and replacing the arith op with it
# (xDSL's op builder, then the rewriter's insert / replace-uses / erase) was nearly all of this
# pass.  :func:`_morph` turns the arith op into that llvm op in place instead: its class becomes
# the llvm op's class and its properties and attributes those the llvm op's builder gives; its
# operands, results (their uses and name hints), location and position stay.  The result is the
# op ``lower`` would build, where it lands: it is done only where the op's result types are
# those the builder gives, and :func:`_rules_agree` checks once per process, on sample ops, that
# every rule gives what ``lower`` builds (class, operands, properties, attributes, result
# types); if one does not (another xDSL), nothing is done in place.


_TEMPLATES: dict[type[Operation], dict] = {}


def _template(cls: type[Operation]) -> dict:
    """A copy of the properties the builder of ``cls`` gives a sample op (in the builder's
    order): those a rule does not set are the builder's defaults, the same for every op."""
    props = _TEMPLATES.get(cls)
    if props is None:
        a, b, c = Block(arg_types=[i64, i64, i1]).args
        if cls in _BINARY_TARGETS:
            sample = cls(a, b)
        elif cls is llvm.FNegOp:
            sample = cls(a)
        elif cls is llvm.ConstantOp:
            sample = cls(IntegerAttr(0, i64), i64)
        elif cls in (llvm.ICmpOp, llvm.FCmpOp):
            sample = cls(a, b, IntegerAttr(0, i64))
        elif cls is llvm.SelectOp:
            sample = cls(c, a, b)
        else:
            sample = cls(a, i64)  # a cast
        props = _TEMPLATES[cls] = dict(sample.properties)
    return dict(props)


_BINARY_TARGETS = frozenset(BINARY.values())


@functools.lru_cache(maxsize=64)
def _predicate(value: int) -> IntegerAttr:
    """``IntegerAttr(value, i64)``, a comparison's predicate, built once per value (attributes are
    immutable; building one verifies its type and value: a sixth of lowering a softmax's arith)."""
    return IntegerAttr(value, i64)


def _rule(op: Operation) -> tuple[type[Operation], dict, list] | None:
    """(llvm class, properties, result types) of the one llvm op ``lower`` builds for ``op``
    with ``op``'s operands in order, for the ops where it does; None for the others."""
    t = type(op)
    dst = BINARY.get(t)
    if dst is not None:
        if (t in defined.SHIFTS or t in defined.DIVISIONS) and not defined.defined_as_is(op):
            return None  # lower() builds the sequence defined for every value
        return dst, _template(dst), [op.lhs.type]
    dst = CASTS.get(t)
    if dst is not None:
        return dst, _template(dst), [llvm_type(op.result.type)]
    if t is arith.ConstantOp:
        if not isinstance(op.value, IntegerAttr | FloatAttr):
            return None  # lower() reports it
        props = _template(llvm.ConstantOp)
        props["value"] = op.value
        return llvm.ConstantOp, props, [llvm_type(op.result.type)]
    if t is arith.CmpiOp or t is arith.CmpfOp:
        if t is arith.CmpiOp and isinstance(op.lhs.type, VectorType):
            return None  # llvm.icmp's builder gives a vector of i1 there (xDSL parses the arith op as i1)
        dst = llvm.ICmpOp if t is arith.CmpiOp else llvm.FCmpOp
        props = _template(dst)
        props["predicate"] = _predicate(op.predicate.value.data)
        return dst, props, [i1]
    if t is arith.SelectOp:
        return llvm.SelectOp, _template(llvm.SelectOp), [op.lhs.type]
    if t is arith.NegfOp:
        return llvm.FNegOp, _template(llvm.FNegOp), [op.operand.type]
    return None


_AGREE: list[bool] = []


def _morph(op: Operation) -> bool:
    """Turn ``op`` in place into the llvm op :meth:`LowerArith.lower` would replace it with;
    False (nothing done) where that is not one op of :func:`_rule`, the op's result types are
    not those that op would have, or the rules do not agree with ``lower`` (:func:`_rules_agree`)."""
    rule = _rule(op)
    if rule is None:
        return False
    if not _AGREE:
        _AGREE.append(_rules_agree())
    if not _AGREE[0]:
        return False
    dst, properties, result_types = rule
    results = op.results
    if len(results) != len(result_types) or op.regions or (op._successors if _DIRECT_FIELDS else op.successors):
        return False
    for res, want in zip(results, result_types):
        if res.type is not want and res.type != want:
            return False
    op.__class__ = dst
    op.properties = properties
    op.attributes = {}
    return True


def _rules_agree() -> bool:
    """Whether, on sample ops of every kind :func:`_rule` covers, the rule gives the class,
    properties, attributes and result types of the op ``LowerArith.lower`` builds, with the
    sample's operands in order."""
    from xdsl.dialects.builtin import f32, i32

    ints = Block(arg_types=[i32, i32, i1]).args
    floats = Block(arg_types=[f32, f32]).args
    three = arith.ConstantOp(IntegerAttr(3, i32)).result  # a shift amount / divisor where the llvm op is defined
    samples: list[Operation] = [cls(ints[0], three if cls in defined.SHIFTS or cls in defined.DIVISIONS else ints[1])
                                for cls in BINARY if cls not in (arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp)]
    samples += [cls(*floats) for cls in (arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp)]
    samples += [cls(ints[0], i64) for cls in CASTS]
    samples += [arith.ConstantOp(IntegerAttr(7, i32)), arith.ConstantOp(FloatAttr(0.5, f32)),
                arith.CmpiOp(ints[0], ints[1], "ult"), arith.CmpfOp(floats[0], floats[1], "olt"),
                arith.SelectOp(ints[2], ints[0], ints[1]), arith.NegfOp(floats[0])]
    for sample in samples:
        rule = _rule(sample)
        built = LowerArith.lower(sample)
        if rule is None or built is None or len(built) != 1:
            return False
        new = built[0]
        dst, properties, result_types = rule
        if (type(new) is not dst or list(new.properties.items()) != list(properties.items()) or new.attributes
                or [r.type for r in new.results] != result_types or len(new.operands) != len(sample.operands)
                or any(a is not b for a, b in zip(new.operands, sample.operands))):
            return False
    return True


@dataclass(frozen=True)
class ConvertArithToLLVM(ToLLVMPass):
    """Lower every ``arith`` op to the ``llvm`` dialect (``index`` -> ``i64``)."""

    name = "convert-arith-to-llvm"
    PATTERNS = (LowerArith,)
