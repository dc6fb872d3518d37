"""The text a ``ct.printf`` prints, computed in Python from the format and the tiles' values (the
reference the print tests compare the device's output with; it shares no code with the
compiler's lowering).

The rules (docs/cuda-tile.md, as tileiras 13.4 prints): a tile prints as a nested list in
row-major order, ``[`` ``]`` around each dimension and ``", "`` between elements and sub-lists,
each element with the conversion; a scalar as one value.  An element reaches C's printf as
``double`` (floats) or as a 32-bit integer (8/16/32-bit elements: the element's bits read as
signed and sign-extended; a bool as 0/1) or 64-bit integer; a conversion with length ``l``/``ll``
reads 64 bits, the others 32 (``hh``/``h`` then narrow as C does)."""

from __future__ import annotations

import re

import numpy as np

_CONV = re.compile(r"%%|%([-+ #0]*)(\d*)(?:\.(\d*))?(hh|h|ll|l)?([diouxXeEfFgGaA])")


def _c_int(value: int, bits: int, length: str, spec: str) -> int:
    """``value`` (an element of ``bits`` bits, its bit pattern) as printf prints it."""
    if bits < 32 and bits > 1:  # sign-extended from the element's width
        value &= (1 << bits) - 1
        if value >> (bits - 1):
            value -= 1 << bits
    width = 64 if length in ("l", "ll") else 32
    value &= (1 << width) - 1
    narrow = {"hh": 8, "h": 16}.get(length, width)
    value &= (1 << narrow) - 1
    if spec in "di" and value >> (narrow - 1):
        value -= 1 << narrow
    return value


def _one(conv: re.Match, value, bits: int | None) -> str:
    flags, width, precision, length, spec = conv.groups()
    py = "%" + (flags or "") + (width or "") + ("." + precision if precision is not None else "")
    if spec in "eEfFgGaA":
        return (py + spec) % float(value)
    v = _c_int(int(value), bits, length or "", spec)
    if spec == "o" and "#" in (flags or ""):  # C: a leading 0 (Python's '#' gives 0o)
        digits = "%o" % v
        digits = digits if digits.startswith("0") else "0" + digits
        return ("%" + ("-" if "-" in flags else "") + (width or "") + "s") % digits
    return (py + ("d" if spec in "iu" else spec)) % v


def _nested(arr: np.ndarray, conv: re.Match, bits: int | None) -> str:
    if arr.ndim == 0:
        return _one(conv, arr.item(), bits)
    return "[" + ", ".join(_nested(a, conv, bits) for a in arr) + "]"


def printf_text(fmt: str, *tiles) -> str:
    """What ``ct.printf(fmt, *tiles)`` prints (one tile block); each tile a numpy array (or a
    Python scalar), integer arrays of their own width (bool: 0/1)."""
    out, i, pos = "", 0, 0
    for m in _CONV.finditer(fmt):
        out += fmt[pos:m.start()]
        pos = m.end()
        if m.group(0) == "%%":
            out += "%"
            continue
        t = np.asarray(tiles[i])
        i += 1
        bits = None if t.dtype.kind == "f" else (1 if t.dtype == np.bool_ else t.dtype.itemsize * 8)
        out += _nested(t, m, bits)
    if i != len(tiles):
        raise ValueError("more tiles than conversions")
    return out + fmt[pos:]


__all__ = ["printf_text"]
