"""Named single operands and results of IRDL ops (``op.lhs``, ``op.result``) read directly.

xDSL reads ``op.lhs`` through ``BeforeVariadicSingleAccessor.__get__``: a ``match`` on the
construct (``get_op_constructs``), an ``OpOperands`` view made for the read, then the view's and
``SSAValues``' ``__getitem__``: about 0.6 us a read, some ten thousand reads per SIMT compile
(every pattern reads its op's operands by name).  For an operand or a result that comes before
any variadic one (the accessor's only case) the value is the op's ``_operands[idx]`` /
``results[idx]``: :func:`fast_get` reads that (0.16 us), and leaves regions and successors to
xDSL's ``__get__``.

:func:`install` puts it in place of xDSL's ``__get__`` once, and only over the xDSL it was
written against (:func:`_mirrors_xdsl`: the accessor's ``__get__``, ``get_op_constructs`` and
``OpOperands.__getitem__`` read what they read in xDSL 0.74); the lowering passes install it
when imported (:mod:`tileorch.transforms`).

The other accessors read the same way: a variadic or optional operand group, a single operand after
a variadic one, a successor (``op.then_arguments``, ``op.successor``) index the op's ``_operands``,
``results`` or ``_successors`` tuple instead of an ``OpOperands`` / ``OpSuccessors`` view made for
the read (:func:`fast_base_get`; the views' items and slices are those tuples' own), and an accessor
of an op with a segment-sizes attribute (``llvm.call_intrinsic``, ``llvm.cond_br``, ``cf.cond_br``:
:func:`fast_attr_get`) unpacks the attribute's sizes once per attribute object (an immutable
``DenseArrayBase``; xDSL unpacked it on every read: two reads per branch in the LLVM IR writer and
the branch checks) rather than per read.  The accessors' ``index`` methods only index, slice and
measure what they get (checked by the names their code reads); regions, and an op of a class whose
tuples are not those fields, go through xDSL's ``__get__``.
"""

from __future__ import annotations

import xdsl.irdl.operations as irdl_ops
from xdsl.ir import Operation
from xdsl.ir.core import OpOperands

from tileorch.transforms.xdsl_code import code_names

_ACCESSOR = irdl_ops.BeforeVariadicSingleAccessor
_XDSL_GET = _ACCESSOR.__get__
_OPERAND = irdl_ops.VarIRConstruct.OPERAND
_RESULT = irdl_ops.VarIRConstruct.RESULT
_ITEM = tuple.__getitem__
_SUCCESSOR = irdl_ops.VarIRConstruct.SUCCESSOR
_BASE = irdl_ops.BaseAccessor
_XDSL_BASE_GET = _BASE.__get__
_ATTR_ACCESSOR = irdl_ops.BaseAttrAccessor
_XDSL_ATTR_GET = _ATTR_ACCESSOR.__get__
_INDEX_READS = frozenset({"idx", "num_defs", "num_variadics", "variadics_encountered", "len", "sum"})
"""What the accessors' ``index`` methods may read (xDSL 0.74's read no more): their own fields and
``len``/``sum``; anything else and the views stay."""
_SEGMENT_VALUES: dict[int, tuple[object, tuple]] = {}
"""id(segment-sizes attribute) -> (the attribute, its ``get_values()``); emptied at
:data:`_SEGMENT_VALUES_MAX` entries (the attribute is kept: its id is not reused meanwhile)."""
_SEGMENT_VALUES_MAX = 4096
_DIRECT_SUCCESSORS = False
"""Whether :func:`fast_get` reads a successor off ``_successors`` (set by :func:`install` where
:func:`_others_mirror_xdsl` holds: the ``OpSuccessors`` view's items are that tuple's)."""


def fast_get(self, obj: Operation | None, objtype=None):
    """``BeforeVariadicSingleAccessor.__get__``: the same value for every op and construct."""
    construct = self.construct
    if obj is not None:
        if construct is _OPERAND:
            return _ITEM(obj._operands, self.idx)
        if construct is _RESULT:
            return _ITEM(obj.results, self.idx)
        if construct is _SUCCESSOR and _DIRECT_SUCCESSORS:  # (``op.successor``, ``op.then_block``)
            return _ITEM(obj._successors, self.idx)
    return _XDSL_GET(self, obj, objtype)


def fast_base_get(self, obj: Operation | None, objtype=None):
    """``BaseAccessor.__get__`` (every accessor but the before-variadic single one and the
    segment-size ones): ``self.index`` of the op's operand, result or successor tuple."""
    if obj is not None:
        construct = self.construct
        if construct is _OPERAND:
            return self.index(obj._operands)
        if construct is _RESULT:
            return self.index(obj.results)
        if construct is _SUCCESSOR:
            return self.index(obj._successors)
    return _XDSL_BASE_GET(self, obj, objtype)


def fast_attr_get(self, obj: Operation | None, objtype=None):
    """``BaseAttrAccessor.__get__``: the segment sizes unpacked once per attribute object, then
    ``self.index`` of the op's operand, result or successor tuple."""
    if obj is not None:
        construct = self.construct
        args = (obj._operands if construct is _OPERAND else obj.results if construct is _RESULT
                else obj._successors if construct is _SUCCESSOR else None)
        if args is not None:
            option = self.option
            attr = option.container(obj)[option.attribute_name]
            entry = _SEGMENT_VALUES.get(id(attr))
            if entry is None or entry[0] is not attr:
                entry = (attr, attr.get_values())
                if len(_SEGMENT_VALUES) >= _SEGMENT_VALUES_MAX:
                    _SEGMENT_VALUES.clear()
                _SEGMENT_VALUES[id(attr)] = entry
            return self.index(entry[1], args)
    return _XDSL_ATTR_GET(self, obj, objtype)


def _accessor_classes(base: type) -> list[type]:
    out, todo = [], [base]
    while todo:
        cls = todo.pop()
        out.append(cls)
        todo.extend(cls.__subclasses__())
    return out


def _others_mirror_xdsl() -> bool:
    """Whether the reads :func:`fast_base_get` and :func:`fast_attr_get` replace are xDSL 0.74's:
    the two ``__get__`` index ``get_op_constructs``' sequence (and read the option's container and
    ``get_values`` of its attribute); the views' items are ``_operands``' / ``_successors``'; no
    accessor class but the before-variadic one has a ``__get__`` of its own, and each ``index`` reads
    only :data:`_INDEX_READS`."""
    from xdsl.ir.core import OpSuccessors

    if not (code_names(_XDSL_BASE_GET) == {"get_op_constructs", "construct", "index"}
            and code_names(_XDSL_ATTR_GET) == {"option", "container", "attribute_name", "get_values",
                                               "get_op_constructs", "construct", "index"}
            and {"operands", "results", "successors"} <= code_names(irdl_ops.get_op_constructs)
            and code_names(Operation.operands.fget) == {"OpOperands"}
            and code_names(Operation.successors.fget) == {"OpSuccessors"}
            and code_names(OpOperands.__getitem__) == {"_op", "_operands"}
            and code_names(OpSuccessors.__getitem__) == {"_op", "_successors"}
            and {"results", "_operands", "_successors"} <= set(getattr(Operation, "__dataclass_fields__", {}))):
        return False
    for base in (_BASE, _ATTR_ACCESSOR):
        for cls in _accessor_classes(base):
            if cls is _ACCESSOR:
                continue
            if "__get__" in vars(cls) and cls is not base:
                return False
            index = vars(cls).get("index")
            if index is not None and not getattr(index, "__isabstractmethod__", False):
                if not code_names(index) <= _INDEX_READS:
                    return False
    return True


def _mirrors_xdsl() -> bool:
    """Whether the reads :func:`fast_get` replaces are xDSL 0.74's: ``__get__`` indexes
    ``get_op_constructs``' sequence, which is ``op.operands`` / ``op.results``; ``op.operands`` is
    an ``OpOperands`` view whose items are ``op._operands``' and ``results`` a plain field
    (checked by the names their code reads; tests/unit/test_op_accessors.py checks that no op
    class of the registry's dialects redefines ``operands`` or ``results``)."""
    return (code_names(_XDSL_GET) == {"get_op_constructs", "construct", "index"}
            and code_names(_ACCESSOR.index) == {"idx"}
            and {"operands", "results"} <= code_names(irdl_ops.get_op_constructs)
            and code_names(Operation.operands.fget) == {"OpOperands"}
            and code_names(OpOperands.__getitem__) == {"_op", "_operands"}
            and "results" in getattr(Operation, "__dataclass_fields__", {}))


def install() -> bool:
    """Use :func:`fast_get` for every named single operand and result from now on, and
    :func:`fast_base_get` / :func:`fast_attr_get` for the other accessors where they mirror xDSL
    (once); returns whether :func:`fast_get` is in place."""
    if _ACCESSOR.__get__ is _XDSL_GET and _mirrors_xdsl():
        _ACCESSOR.__get__ = fast_get  # (first: until then it is the inherited BaseAccessor.__get__)
    if (_ACCESSOR.__get__ is fast_get and _BASE.__get__ is _XDSL_BASE_GET
            and _ATTR_ACCESSOR.__get__ is _XDSL_ATTR_GET and _others_mirror_xdsl()):
        global _DIRECT_SUCCESSORS
        _BASE.__get__ = fast_base_get
        _ATTR_ACCESSOR.__get__ = fast_attr_get
        _DIRECT_SUCCESSORS = True
    return _ACCESSOR.__get__ is fast_get


__all__ = ["fast_attr_get", "fast_base_get", "fast_get", "install"]
