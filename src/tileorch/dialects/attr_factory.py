"""Attribute classes that differ only in data, built from that data.

Every tileorch dialect declares families of attributes whose class statements repeat one shape:
an enum attribute is ``EnumAttribute[E]`` plus a syntax mixin (``SpacedOpaqueSyntaxAttribute`` for
``#cutlass<mnemonic value>``, ``AngleBracketEnum`` for ``#nvvm.mnemonic<value>``, ``CtEnumAttr``
for cuda_tile's keywords) and a ``name``; a scheduler family type is its base plus a ``name`` and
a ``FAMILY``.  :func:`attr_class` builds such a class from its bases and class attributes,
:func:`enum_attr` an enum attribute from its name, enum and syntax, :func:`str_enum` an enum from
shared member lists.  The classes are defined in the calling module (repr, pickling).
"""

from __future__ import annotations

import sys
import types
from typing import Any, ClassVar

from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.str_enum import StrEnum


def _caller_module(depth: int = 2) -> str:
    return sys._getframe(depth).f_globals["__name__"]  # noqa: SLF001 - the defining module


def attr_class(cls_name: str, bases: tuple[type, ...], doc: str | None = None, *, module: str | None = None,
               **attrs: Any) -> type:
    """The ``irdl_attr_definition`` class ``cls_name(*bases)`` with class attributes ``attrs``
    (upper-case ones are ``ClassVar`` constants, as IRDL wants them)."""
    body = {"__module__": module or _caller_module(), "__qualname__": cls_name, "__doc__": doc, **attrs,
            "__annotations__": {k: ClassVar[type(v)] for k, v in attrs.items() if k.isupper()}}
    return irdl_attr_definition(types.new_class(cls_name, bases, {}, lambda ns: ns.update(body)))


def enum_attr(name: str, enum: type[StrEnum], *syntax: type, doc: str | None = None) -> type[EnumAttribute]:
    """The enum attribute class ``<Enum>Attr`` of ``EnumAttribute[enum]`` and the ``syntax``
    bases, with attribute name ``name``.  Plain mixins (``parse_parameter``/``print_parameter``
    overrides) come before ``EnumAttribute`` so that they win; attribute markers
    (``SpacedOpaqueSyntaxAttribute``) after it."""
    mixins = tuple(c for c in syntax if not issubclass(c, Attribute))
    markers = tuple(c for c in syntax if issubclass(c, Attribute))
    return attr_class(enum.__name__ + "Attr", (*mixins, EnumAttribute[enum], *markers), doc or f"``{name}``",
                      module=_caller_module(), name=name)


def str_enum(cls_name: str, *values: str) -> type[StrEnum]:
    """The ``StrEnum`` ``cls_name`` whose members are ``VALUE.upper() = value`` for ``values`` (in
    that order); for enums assembled from shared member lists."""
    return StrEnum(cls_name, {v.upper(): v for v in values}, module=_caller_module(), qualname=cls_name)
