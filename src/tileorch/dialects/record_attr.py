"""A lowering's record for the host, held in the IR as a builtin attribute.

The TileAS lowerings leave on each lowered kernel what the host needs to launch it (the GEMM
configuration, which kernel arguments are which operands, remarks).  :func:`encode_record`
turns such a record -- a JSON-like Python value -- into builtin attributes, and
:func:`decode_record` turns them back, so the record prints and parses with the module
(``tileorch-opt``) and is read without a second parser:

=================  ==========================================
Python             attribute
=================  ==========================================
``dict``           ``DictionaryAttr`` (identifier keys, sorted)
``list``/``tuple`` ``ArrayAttr`` (decoded as ``list``)
``bool``           ``IntegerAttr`` of ``i1`` (``true``/``false``)
``int``            ``IntegerAttr`` of ``i64``
``str``            ``StringAttr`` (parsed back as ``BytesAttr`` when it has non-ASCII text)
``None``           ``UnitAttr``
=================  ==========================================

``decode_record(encode_record(v)) == v`` for every such ``v`` (tuples come back as lists);
anything else raises :class:`TypeError` (encoding) or :class:`ValueError` (decoding an attribute
no record holds).
"""

from __future__ import annotations

import re
from typing import Any

from xdsl.dialects.builtin import (ArrayAttr, BytesAttr, DictionaryAttr, IntegerAttr, IntegerType, StringAttr, UnitAttr,
                                   i1, i64)
from xdsl.ir import Attribute

INT_BITS = 64
KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")
"""A record key: a bare identifier (MLIR prints it unquoted, so the record reads like a struct)."""


def encode_record(value: Any) -> Attribute:
    """The attribute holding ``value`` (see the module's table)."""
    if isinstance(value, dict):
        bad = [k for k in value if not (isinstance(k, str) and KEY.fullmatch(k))]
        if bad:
            raise TypeError(f"record keys must be identifiers ([A-Za-z_][A-Za-z0-9_$.]*), got {bad!r}")
        return DictionaryAttr({k: encode_record(value[k]) for k in sorted(value)})  # sorted, as MLIR keeps them
    if isinstance(value, list | tuple):
        return ArrayAttr([encode_record(v) for v in value])
    if isinstance(value, bool):  # before int: bool is an int
        return IntegerAttr(int(value), i1)
    if isinstance(value, int):
        if not -(1 << (INT_BITS - 1)) <= value < 1 << (INT_BITS - 1):
            raise TypeError(f"record integer {value} does not fit in i{INT_BITS}")
        return IntegerAttr(value, i64)
    if isinstance(value, str):
        return StringAttr(value)
    if value is None:
        return UnitAttr()
    raise TypeError(f"a record holds dicts, lists, bools, ints, strings and None, not {type(value).__name__}")


def decode_record(attr: Attribute) -> Any:
    """The Python value :func:`encode_record` made ``attr`` from."""
    if isinstance(attr, DictionaryAttr):
        return {k: decode_record(v) for k, v in attr.data.items()}
    if isinstance(attr, ArrayAttr):
        return [decode_record(v) for v in attr.data]
    if isinstance(attr, IntegerAttr) and isinstance(attr.type, IntegerType):
        value = attr.value.data
        return bool(value) if attr.type.width.data == 1 else value
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, BytesAttr):  # xDSL parses a string with escaped non-ASCII bytes as bytes
        return attr.data.decode("utf-8")
    if isinstance(attr, UnitAttr):
        return None
    raise ValueError(f"{attr} is not a record attribute (a dictionary, array, integer, string or unit)")
