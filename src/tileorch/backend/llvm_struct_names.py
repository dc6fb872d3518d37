"""Identified (named) struct types for the large literal structs of one LLVM IR module (issue 22).

A WGMMA GEMM's accumulator is an ``!llvm.struct`` of 64 or 128 floats, and the LLVM IR text spells
its type at every value, ``insertvalue`` / ``extractvalue``, inline asm return type and ``phi``:
some 1300 times, most of a 1.3 MB text that LLVM then parses.  :class:`StructNames` gives every
distinct literal struct type of at least :data:`MIN_MEMBERS` members one identified type of the
module's ``ir.Context``, defined once at the top of the module by llvmlite
(``%"128xfloat" = type {float, ...}``), so each use is spelled with its short name.

Identified structs are nominal (``{float, ...}`` and ``%"128xfloat"`` are different types to
LLVM), so the naming must be total: :meth:`StructNames.named` maps a type and everything inside it
(struct members, array elements, function signatures) and the translation calls it for every
type it converts, so a literal and its name never meet.  Two exceptions stay literal:

* struct types listed as ``literal`` (the results of intrinsic calls: LLVM's intrinsic signature
  check accepts only literal structs there), everywhere they occur;
* structs of fewer members (their text is short; naming them would only add definitions).

The code LLVM generates does not depend on a struct's name: the PTX is the same.
"""

from __future__ import annotations

import llvmlite.ir as ir

MIN_MEMBERS = 8
"""The fewest members a literal struct type needs to be named."""


class StructNames:
    """The named form of the types of one module (whose ``ir.Context`` is ``context``)."""

    def __init__(self, context: ir.Context, literal: set[str] = frozenset()) -> None:
        self.context = context
        self.literal = literal
        """The text of the struct types kept literal (the translation's intrinsic call results)."""
        self._by_id: dict[int, tuple[ir.Type, ir.Type]] = {}
        """``id(type object)`` -> (the object, its named form): the object keeps its id unique."""
        self._by_text: dict[str, ir.IdentifiedStructType] = {}
        """A literal struct type's text -> its identified type: one name per distinct type."""

    def named(self, typ: ir.Type) -> ir.Type:
        """``typ`` with every literal struct of :data:`MIN_MEMBERS` or more members in it named;
        ``typ`` itself where nothing in it is."""
        entry = self._by_id.get(id(typ))
        if entry is None:
            entry = self._by_id[id(typ)] = (typ, self._rebuilt(typ))
        return entry[1]

    def _rebuilt(self, typ: ir.Type) -> ir.Type:
        if isinstance(typ, ir.LiteralStructType):
            if str(typ) in self.literal:
                return typ
            members = [self.named(m) for m in typ.elements]
            if len(members) >= MIN_MEMBERS:
                return self._identified(typ, members)
            if all(a is b for a, b in zip(members, typ.elements, strict=True)):
                return typ
            return ir.LiteralStructType(members, packed=typ.packed)
        if isinstance(typ, ir.ArrayType):
            element = self.named(typ.element)
            return typ if element is typ.element else ir.ArrayType(element, typ.count)
        if isinstance(typ, ir.FunctionType):
            ret, args = self.named(typ.return_type), [self.named(a) for a in typ.args]
            if ret is typ.return_type and all(a is b for a, b in zip(args, typ.args, strict=True)):
                return typ
            return ir.FunctionType(ret, args, var_arg=typ.var_arg)
        return typ  # scalars, vectors, (opaque) pointers, void

    def _identified(self, typ: ir.LiteralStructType, members: list[ir.Type]) -> ir.IdentifiedStructType:
        key = str(typ)
        ident = self._by_text.get(key)
        if ident is None:
            ident = self.context.get_identified_type(self._name(typ, members), packed=typ.packed)
            ident.set_body(*members)
            self._by_text[key] = ident
        return ident

    def _name(self, typ: ir.LiteralStructType, members: list[ir.Type]) -> str:
        """``<n>x<member>`` for ``n`` members of one scalar type (``128xfloat``: short, as it is
        written at every use), ``struct.<i>`` (the i-th name given) otherwise; ``packed.`` first if
        packed."""
        first = str(members[0])
        prefix = "packed." if typ.packed else ""
        if first.isalnum() and all(m is members[0] or str(m) == first for m in members):
            return f"{prefix}{len(members)}x{first}"
        return f"{prefix}struct.{len(self._by_text)}"
