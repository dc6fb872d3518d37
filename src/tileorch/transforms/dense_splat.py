"""Whether a dense constant holds one value at every element, read from its bytes.

``len(set(attr.get_values())) == 1`` unpacked every element into a Python object and hashed them
all: a 128 x 128 splat constant cost about 1 ms, and the attention kernel's epilogue asks for a
few hundred of them (a quarter of its lowering's CPU).  :func:`splat_value` compares the stored
bytes with one element's bytes repeated (one ``bytes`` comparison) and unpacks that one element;
its answers are exactly those of the set test (the set test is still run where the bytes differ:
``0.0`` and ``-0.0`` are one value for it; a NaN splat of several elements is not a splat for it,
its NaN objects being distinct)."""

from __future__ import annotations

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

_NOT_A_SPLAT = (False, None)


def splat_value(attr) -> tuple[bool, object]:
    """(True, the value) when ``attr`` is a :class:`DenseIntOrFPElementsAttr` whose elements make a
    set of one value (``len(set(attr.get_values())) == 1``; the value is the first element), else
    (False, None)."""
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return _NOT_A_SPLAT
    data = attr.data.data
    element = attr.get_element_type()
    size = getattr(element, "compile_time_size", 0)
    count = len(data) // size if size else 0
    if count >= 1 and len(data) == size * count and data == data[:size] * count:
        first = element.unpack(data[:size], 1)[0]
        if count == 1 or first == first:  # (several NaN objects make a set of several)
            return True, first
        return _NOT_A_SPLAT
    values = attr.get_values()
    return (True, values[0]) if len(set(values)) == 1 else _NOT_A_SPLAT


__all__ = ["splat_value"]
