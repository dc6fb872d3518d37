"""xDSL's ``SSAValue.replace_all_uses_with``, ``SSAValue.get`` and ``SSAValues.__getitem__`` without their
per-use and per-call overheads.

``value.replace_all_uses_with(new)`` (every pattern's ``rewriter.replace``, ``cse-constants``' merge of
equal constants, the tier's builders) copies the value's uses into a tuple, then sets each use's
operand through ``op.operands[index] = new``: an ``OpOperands`` view per use, whose ``__setitem__``
rebuilds the operand tuple from two ``SSAValues`` slices and unlinks the use from the head of the
old value's list and links it at the head of the new one's.  :func:`replace_all_uses_with` makes the
same changes in the same order (the same ``Use`` objects, linked into ``new``'s list in the same
order; each user's operand tuple rebuilt once per use, as before; the name hint carried over
through the same setter; the same final check) reading the fields directly.

``SSAValue.get(arg)`` (called by xDSL's op builders for every operand they take as an op or a
value: ``arith.AddiOp(a, b)`` and most of the others) subscripts ``SSAValue[AttributeInvT]`` for its
``cast`` on every call (a ``typing`` cache lookup, about a microsecond).  :func:`ssa_value_get`
returns an SSA value given with no required type (``type=Attribute``, the default) at once, as xDSL
does; any other call goes to xDSL's.

``SSAValues.__getitem__`` (``op.results[0]``, ``op.operands`` items) is :func:`values_getitem`: the same
item, or the same ``SSAValues`` for a slice, without the ``super()`` call.

:func:`install` puts them in place, once and only over the xDSL functions they mirror (checked by the
names their code reads); :mod:`tileorch.transforms` installs them.
"""

from __future__ import annotations

from xdsl.ir import Attribute, BlockArgument, OpResult, SSAValue, SSAValues

from tileorch.transforms.xdsl_code import code_names

_XDSL_REPLACE_ALL_USES_WITH = SSAValue.replace_all_uses_with
_XDSL_GET = SSAValue.get
_XDSL_VALUES_GETITEM = SSAValues.__getitem__
_TUPLE_GETITEM = tuple.__getitem__
_VALUES_GETITEM_NAMES = frozenset({"isinstance", "int", "super", "__getitem__", "SSAValues"})
"""The names xDSL 0.74's ``SSAValues.__getitem__`` reads (an int: the tuple's item; a slice: an ``SSAValues``)."""
_VALUE_CLASSES = frozenset({OpResult, BlockArgument})
"""The usual classes of an SSA value (a set look-up before the abstract class's ``isinstance``)."""
_REPLACE_NAMES = frozenset({"tuple", "uses", "operation", "operands", "index", "name_hint", "first_use"})
"""The names xDSL 0.74's ``SSAValue.replace_all_uses_with`` reads."""
_GET_NAMES = frozenset({"xdsl.utils.hints", "isa", "SSAValue", "Attribute", "type", "cast", "AttributeInvT",
                        "ValueError", "Operation", "len", "results", "get"})
"""The names xDSL 0.74's ``SSAValue.get`` reads."""


def replace_all_uses_with(self: SSAValue, value: SSAValue) -> None:
    """``SSAValue.replace_all_uses_with``: every use of ``self`` becomes a use of ``value`` (see the
    module's doc)."""
    if value is self:
        return
    use = self.first_use
    while use is not None:
        following = use._next_use  # (read before the use moves to value's list)
        op = use._operation
        index = use._index
        operands = op._operands
        if operands[index] is not self or op._operand_uses[index] is not use:  # not the layout mirrored
            _XDSL_REPLACE_ALL_USES_WITH(self, value)
            return
        self.remove_use(use)
        value.add_use(use)
        new = list(operands)
        new[index] = value
        op._operands = SSAValues(new)
        use = following
    if value.name_hint is None:
        value.name_hint = self.name_hint
    assert self.first_use is None, "unexpected error in xdsl"


def ssa_value_get(arg, *, type=Attribute):  # noqa: A002 - xDSL's keyword
    """``SSAValue.get``: ``arg`` itself for an SSA value and no required type, else xDSL's answer."""
    if type is Attribute and (arg.__class__ in _VALUE_CLASSES or isinstance(arg, SSAValue)):
        return arg
    return _XDSL_GET(arg, type=type)


def values_getitem(self: SSAValues, idx):
    """``SSAValues.__getitem__``: the tuple's item for an int index (without ``super()``), an
    ``SSAValues`` of the items for a slice; ``op.results[0]``, read some 350 thousand times while the
    program set of ``benchmarks/lower_cpu_ab38.py`` compiles."""
    if idx.__class__ is int or isinstance(idx, int):
        return _TUPLE_GETITEM(self, idx)
    return SSAValues(_TUPLE_GETITEM(self, idx))


def _mirrors_xdsl() -> bool:
    return (code_names(_XDSL_REPLACE_ALL_USES_WITH) == _REPLACE_NAMES and code_names(_XDSL_GET) == _GET_NAMES
            and code_names(_XDSL_VALUES_GETITEM) == _VALUES_GETITEM_NAMES
            and {"_operation", "_index", "_next_use"} <= set(getattr(_use_class(), "__dataclass_fields__", ())))


def _use_class():
    from xdsl.ir import Use

    return Use


def install() -> bool:
    """Use :func:`replace_all_uses_with` and :func:`ssa_value_get` from now on (once; only over the
    xDSL functions they mirror); returns whether they are in place."""
    if SSAValue.replace_all_uses_with is replace_all_uses_with:
        return True
    if (SSAValue.replace_all_uses_with is not _XDSL_REPLACE_ALL_USES_WITH or SSAValue.get is not _XDSL_GET
            or SSAValues.__getitem__ is not _XDSL_VALUES_GETITEM):
        return False
    if not _mirrors_xdsl():
        return False
    SSAValue.replace_all_uses_with = replace_all_uses_with
    SSAValue.get = staticmethod(ssa_value_get)
    SSAValues.__getitem__ = values_getitem
    return True


__all__ = ["install", "replace_all_uses_with", "ssa_value_get", "values_getitem"]
