"""Pointer-tile ops of ``nv_tileaa``: element-wise global memory through tiles of pointers
(cuda_tile's ``offset``, ``int_to_ptr``, ``load_ptr_tko``, ``store_ptr_tko``, ``atomic_rmw_tko``,
``atomic_cas_tko``; cuTile's ``gather``/``scatter``/``atomic_*``).

A pointer tile is ``tensor<...x!nv_tileaa.ptr<T>>`` (a scalar: ``!nv_tileaa.ptr<T>``).  Every op
here works element by element on operands of one shape; ``mask`` (i1, same shape) turns
elements off: a masked-off load yields ``other`` (zero without it), a masked-off store or
atomic touches no memory.  Memory ops take and return a ``!nv_tileaa.mem_token`` and carry
``mem_semantic`` / ``mem_scope`` (``#nv_tileaa.mem_semantic<acquire>``, ``#nv_tileaa.mem_scope<gpu>``).
"""

from __future__ import annotations

from xdsl.dialects.builtin import AnyFloat, IntegerType, TensorType, i1
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (AttrSizedOperandSegments, IRDLOperation, ParsePropInAttrDict, irdl_attr_definition,
                       irdl_op_definition, operand_def, opt_operand_def, opt_prop_def, prop_def, result_def, traits_def)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from .attrs import KEYWORDS, MemScopeAttr, MemSemanticAttr, MemTokenType, PointerType, _KeywordAttr
from .blocked import check_layout

KEYWORDS["nv_tileaa.rmw_mode"] = ("add", "addf", "max", "min", "umax", "umin", "and", "or", "xor", "xchg")


@irdl_attr_definition
class RmwModeAttr(_KeywordAttr):
    """The operation of an ``atomic_rmw``: ``#nv_tileaa.rmw_mode<add>`` (integer add), ``addf``
    (float add), ``max``/``min`` (signed), ``umax``/``umin``, ``and``/``or``/``xor``, ``xchg``."""

    name = "nv_tileaa.rmw_mode"


def _shape(t: Attribute) -> tuple[int, ...] | None:
    """The shape of a tile type, ``()`` for a scalar."""
    return tuple(t.get_shape()) if isinstance(t, TensorType) else ()


def _elem(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, TensorType) else t


def _pointee(op: IRDLOperation, ptr: SSAValue) -> Attribute:
    p = _elem(ptr.type)
    if not isinstance(p, PointerType):
        raise VerifyException(f"'{op.name}' expects a pointer or a tile of pointers, got {ptr.type}")
    return p.element


def _same_shape(op: IRDLOperation, ptr: SSAValue, others: dict[str, SSAValue | None]) -> None:
    want = _shape(ptr.type)
    for what, v in others.items():
        if v is not None and _shape(v.type) != want:
            raise VerifyException(f"'{op.name}': {what} must have the shape of the pointers "
                                  f"({list(want)}), got {v.type}")


def _check_mask(op: IRDLOperation, mask: SSAValue | None) -> None:
    if mask is not None and _elem(mask.type) != i1:
        raise VerifyException(f"'{op.name}': mask must be i1, got {mask.type}")


_ORDERED = ("relaxed", "acquire", "release", "acq_rel")


def _check_order(op: IRDLOperation, allowed: tuple[str, ...]) -> None:
    sem = op.mem_semantic.value.data if op.mem_semantic is not None else "weak"
    if sem not in allowed:
        raise VerifyException(f"'{op.name}' does not take memory ordering '{sem}' (one of {', '.join(allowed)})")
    if sem == "weak" and op.mem_scope is not None:
        raise VerifyException(f"'{op.name}': a weak access takes no memory scope")


def _optional(v: SSAValue | None) -> list[SSAValue]:
    """An optional operand's operand list (empty when absent)."""
    return [v] if v is not None else []


@irdl_op_definition
class OffsetOp(IRDLOperation):
    """``ptr + offset * sizeof(T)`` element by element (offset: a signed integer)."""

    name = "nv_tileaa.offset"
    ptr = operand_def()
    offset = operand_def()
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset) `->` type($result)"

    def __init__(self, ptr: SSAValue, offset: SSAValue):
        super().__init__(operands=[ptr, offset], result_types=[ptr.type])

    def verify_(self) -> None:
        _pointee(self, self.ptr)
        if self.result.type != self.ptr.type:
            raise VerifyException(f"offset returns the pointers' type {self.ptr.type}, got {self.result.type}")
        if not isinstance(_elem(self.offset.type), IntegerType):
            raise VerifyException(f"offset takes integer offsets, got {self.offset.type}")
        _same_shape(self, self.ptr, {"offset": self.offset})


@irdl_op_definition
class IntToPtrOp(IRDLOperation):
    """An i64 address (or a tile of them) read as a global pointer to ``T`` of the same shape
    (cuda_tile's ``int_to_ptr``: the data pointer of an array of a list-of-arrays parameter)."""

    name = "nv_tileaa.int_to_ptr"
    source = operand_def()
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue, result_type: Attribute):
        super().__init__(operands=[source], result_types=[result_type])

    def verify_(self) -> None:
        _pointee(self, self.result)
        if _elem(self.source.type) != IntegerType(64):
            raise VerifyException(f"int_to_ptr takes i64 addresses, got {self.source.type}")
        _same_shape(self, self.result, {"source": self.source})


class _PlainAccess(IRDLOperation):
    """What ``load`` and ``store`` share, after the subclass's own operands and results (xDSL
    lists a subclass's fields before its bases'): the optional token, the optional ordering
    properties (no semantic: ``weak``) and the result token."""

    token = opt_operand_def(MemTokenType)
    mem_semantic = opt_prop_def(MemSemanticAttr)
    mem_scope = opt_prop_def(MemScopeAttr)
    result_token = result_def(MemTokenType)
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())


@irdl_op_definition
class LoadOp(_PlainAccess):
    """Load the element each pointer points to (``other``, or zero, where ``mask`` is false)."""

    name = "nv_tileaa.load"
    ptr = operand_def()
    mask = opt_operand_def()
    other = opt_operand_def()
    result = result_def()
    traits = traits_def(MemoryReadEffect())
    assembly_format = ("$ptr (`mask` $mask^ `:` type($mask))? (`other` $other^ `:` type($other))? (`token` $token^)? attr-dict "
                       "`:` type($ptr) `->` type($result)")

    def __init__(self, ptr: SSAValue, result_type: Attribute, mask: SSAValue | None = None,
                 other: SSAValue | None = None, token: SSAValue | None = None):
        super().__init__(operands=[ptr, _optional(mask), _optional(other), _optional(token)],
                         result_types=[result_type, MemTokenType()])

    def verify_(self) -> None:
        pointee = _pointee(self, self.ptr)
        if _elem(self.result.type) != pointee or _shape(self.result.type) != _shape(self.ptr.type):
            raise VerifyException(f"load of {self.ptr.type} gives elements of type {pointee} in the pointers' "
                                  f"shape, got {self.result.type}")
        _same_shape(self, self.ptr, {"mask": self.mask})
        _check_mask(self, self.mask)
        if self.other is not None:
            if self.mask is None:
                raise VerifyException("'nv_tileaa.load': other (the masked-off value) needs a mask")
            if self.other.type != self.result.type:
                raise VerifyException(f"'nv_tileaa.load': other must have the result's type {self.result.type}, "
                                      f"got {self.other.type}")
        _check_order(self, ("weak", "relaxed", "acquire"))
        check_layout(self, self.result.type)


@irdl_op_definition
class StoreOp(_PlainAccess):
    """Store each element of ``value`` where its pointer points (not where ``mask`` is false)."""

    name = "nv_tileaa.store"
    ptr = operand_def()
    value = operand_def()
    mask = opt_operand_def()
    traits = traits_def(MemoryWriteEffect())
    assembly_format = ("$value `,` $ptr (`mask` $mask^ `:` type($mask))? (`token` $token^)? attr-dict "
                       "`:` type($value) `,` type($ptr)")

    def __init__(self, ptr: SSAValue, value: SSAValue, mask: SSAValue | None = None, token: SSAValue | None = None):
        super().__init__(operands=[ptr, value, _optional(mask), _optional(token)], result_types=[MemTokenType()])

    def verify_(self) -> None:
        pointee = _pointee(self, self.ptr)
        if _elem(self.value.type) != pointee:
            raise VerifyException(f"store through {self.ptr.type} takes elements of type {pointee}, "
                                  f"got {self.value.type}")
        _same_shape(self, self.ptr, {"value": self.value, "mask": self.mask})
        _check_mask(self, self.mask)
        _check_order(self, ("weak", "relaxed", "release"))
        check_layout(self, self.value.type)


def _check_atomic_type(op: IRDLOperation, mode: str, t: Attribute) -> None:
    width = t.width.data if isinstance(t, IntegerType) else {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}.get(str(t))
    if mode in ("add", "max", "min", "umax", "umin", "and", "or", "xor"):
        ok = isinstance(t, IntegerType) and width in (32, 64)
        what = "i32 or i64"
    elif mode == "addf":
        ok = isinstance(t, AnyFloat) and str(t) in ("f16", "bf16", "f32", "f64")
        what = "f16, bf16, f32 or f64"
    else:  # xchg, cas: any 32- or 64-bit word
        ok = (isinstance(t, IntegerType) or isinstance(t, AnyFloat)) and width in (32, 64)
        what = "a 32- or 64-bit integer or float"
    if not ok:
        raise VerifyException(f"'{op.name}' {mode} takes elements of {what}, got {t}")


class _AtomicOp(IRDLOperation):
    """What ``atomic_rmw`` and ``atomic_cas`` share: the operands after the subclass's own
    (``value``, ``mask``, ``token``; xDSL lists a subclass's fields before its bases'), the
    ordering properties, both results and the verifier (``_verify_values`` checks the values
    against the pointee, ``atomic_mode`` names the operation for the element-type rule)."""

    value = operand_def()
    mask = opt_operand_def()
    token = opt_operand_def(MemTokenType)
    mem_semantic = prop_def(MemSemanticAttr)
    mem_scope = prop_def(MemScopeAttr)
    result = result_def()
    result_token = result_def(MemTokenType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())

    @property
    def atomic_mode(self) -> str:
        raise NotImplementedError

    def _verify_values(self, pointee: Attribute) -> None:
        raise NotImplementedError

    def verify_(self) -> None:
        pointee = _pointee(self, self.ptr)
        self._verify_values(pointee)
        _same_shape(self, self.ptr, {"value": self.value, "mask": self.mask})
        _check_mask(self, self.mask)
        _check_order(self, _ORDERED)
        _check_atomic_type(self, self.atomic_mode, pointee)


@irdl_op_definition
class AtomicRMWOp(_AtomicOp):
    """Atomically ``*p = *p <mode> value`` at each pointer; returns the old values."""

    name = "nv_tileaa.atomic_rmw"
    ptr = operand_def()
    rmw_mode = prop_def(RmwModeAttr)
    assembly_format = ("$ptr `,` $value (`mask` $mask^ `:` type($mask))? (`token` $token^)? attr-dict "
                       "`:` type($ptr) `,` type($value) `->` type($result)")

    def __init__(self, ptr: SSAValue, value: SSAValue, mode: str, semantic: str, scope: str,
                 mask: SSAValue | None = None, token: SSAValue | None = None):
        super().__init__(operands=[ptr, value, _optional(mask), _optional(token)],
                         properties={"rmw_mode": RmwModeAttr(mode), "mem_semantic": MemSemanticAttr(semantic),
                                     "mem_scope": MemScopeAttr(scope)},
                         result_types=[value.type, MemTokenType()])

    @property
    def atomic_mode(self) -> str:
        return self.rmw_mode.value.data

    def _verify_values(self, pointee: Attribute) -> None:
        if _elem(self.value.type) != pointee or self.result.type != self.value.type:
            raise VerifyException(f"'{self.name}' through {self.ptr.type} takes and returns elements of type "
                                  f"{pointee}, got {self.value.type} -> {self.result.type}")


@irdl_op_definition
class AtomicCASOp(_AtomicOp):
    """Atomically ``if *p == cmp: *p = value`` at each pointer; returns the old values."""

    name = "nv_tileaa.atomic_cas"
    ptr = operand_def()
    cmp = operand_def()
    assembly_format = ("$ptr `,` $cmp `,` $value (`mask` $mask^ `:` type($mask))? (`token` $token^)? attr-dict "
                       "`:` type($ptr) `,` type($cmp) `,` type($value) `->` type($result)")

    def __init__(self, ptr: SSAValue, cmp: SSAValue, value: SSAValue, semantic: str, scope: str,
                 mask: SSAValue | None = None, token: SSAValue | None = None):
        super().__init__(operands=[ptr, cmp, value, _optional(mask), _optional(token)],
                         properties={"mem_semantic": MemSemanticAttr(semantic), "mem_scope": MemScopeAttr(scope)},
                         result_types=[value.type, MemTokenType()])

    @property
    def atomic_mode(self) -> str:
        return "cas"

    def _verify_values(self, pointee: Attribute) -> None:
        if _elem(self.value.type) != pointee or self.result.type != self.value.type \
                or self.cmp.type != self.value.type:
            raise VerifyException(f"'{self.name}' through {self.ptr.type} compares, stores and returns elements "
                                  f"of type {pointee}, got {self.cmp.type}, {self.value.type} -> {self.result.type}")


POINTER_OPS = [OffsetOp, IntToPtrOp, LoadOp, StoreOp, AtomicRMWOp, AtomicCASOp]
POINTER_ATTRS = [RmwModeAttr]

__all__ = ["AtomicCASOp", "AtomicRMWOp", "IntToPtrOp", "LoadOp", "OffsetOp", "POINTER_ATTRS", "POINTER_OPS", "RmwModeAttr",
           "StoreOp"]
