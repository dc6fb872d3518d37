"""The format string of ``cuda_tile.print_tko`` / ``nv_tileaa.print`` (cuTile's ``ct.printf`` and
``ct.print``): C printf conversions, one per tile argument.

Contract (what tileorch takes; cuTile's own front end already refuses the rest):

* a conversion is ``%[flags][width][.precision][length]specifier`` with flags from ``-+ #0``
  (any number), a decimal width and precision (``*`` is refused: it would take an extra
  argument), length ``hh``, ``h``, ``l`` or ``ll`` and an integer (``d i u o x X``) or float
  (``e E f F g G a A``) specifier; ``%%`` is a literal ``%``;
* ``%s``, ``%c``, ``%p``, ``%n``, the lengths ``L q j z t`` and ``*`` widths are refused: tile
  elements print as numbers only;
* there are exactly as many conversions as arguments, and an integer conversion takes a tile of
  integers (or ``i1``), a float conversion a tile of floats.

:func:`parse` splits a format into literal text and :class:`Conversion` s; :func:`check` also
matches them with the arguments' element types.  Both raise :class:`FormatError` with a message
for the user (the callers locate it at the op)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Attribute

INT_SPECIFIERS = "diuoxX"
FLOAT_SPECIFIERS = "eEfFgGaA"
_CONVERSION = re.compile(r"%(?P<flags>[-+ #0]*)(?P<width>\*|\d*)(?:\.(?P<precision>\*|\d*))?"
                         r"(?P<length>hh|h|ll|l|L|q|j|z|t)?(?P<spec>.?)", re.S)


class FormatError(ValueError):
    """A format string tileorch does not print (the message names the conversion)."""


@dataclass(frozen=True)
class Conversion:
    """One ``%...`` conversion of a print format."""

    text: str
    length: str
    specifier: str

    @property
    def is_float(self) -> bool:
        return self.specifier in FLOAT_SPECIFIERS

    @property
    def wide(self) -> bool:
        """An integer conversion that reads a 64-bit argument (``l``, ``ll``: ``long`` is 64-bit
        on the CUDA device, as on Linux hosts)."""
        return self.length in ("l", "ll") and not self.is_float


def parse(fmt: str) -> list[str | Conversion]:
    """``fmt`` as literal text pieces (``%%`` kept as written) and conversions, in order."""
    out: list[str | Conversion] = []
    text, i = "", 0
    while i < len(fmt):
        c = fmt[i]
        if c != "%":
            text += c
            i += 1
            continue
        if fmt.startswith("%%", i):
            text += "%%"
            i += 2
            continue
        m = _CONVERSION.match(fmt, i)
        conv = m.group(0)
        spec, length = m.group("spec"), m.group("length") or ""
        if "*" in (m.group("width") or "") or "*" in (m.group("precision") or ""):
            raise FormatError(f"'{conv}' in the print format: a '*' width or precision is not supported "
                              "(it takes an extra argument)")
        if spec == "":
            raise FormatError(f"unterminated conversion '{conv}' at the end of the print format")
        if spec in "scpn" and spec:
            raise FormatError(f"'{conv}' in the print format is not supported: tile elements print as numbers "
                              f"(integer conversions {' '.join(INT_SPECIFIERS)}, float conversions "
                              f"{' '.join(FLOAT_SPECIFIERS)})")
        if spec not in INT_SPECIFIERS + FLOAT_SPECIFIERS:
            raise FormatError(f"'{conv}' in the print format is not a printf conversion")
        if length not in ("", "hh", "h", "l", "ll"):
            raise FormatError(f"'{conv}' in the print format: the length '{length}' is not supported "
                              "(hh, h, l and ll are)")
        if text:
            out.append(text)
            text = ""
        out.append(Conversion(conv, length, spec))
        i = m.end()
    if text:
        out.append(text)
    return out


def is_integer_element(t: Attribute) -> bool:
    return isinstance(t, IntegerType)


def check(fmt: str, elements: list[Attribute]) -> list[str | Conversion]:
    """:func:`parse` of ``fmt``, checked against the arguments' element types ``elements``."""
    pieces = parse(fmt)
    convs = [p for p in pieces if isinstance(p, Conversion)]
    if len(convs) != len(elements):
        raise FormatError(f"the print format has {len(convs)} conversion{'s' if len(convs) != 1 else ''} but "
                          f"{len(elements)} tile argument{'s were' if len(elements) != 1 else ' was'} given")
    for n, (c, t) in enumerate(zip(convs, elements)):
        if c.is_float == is_integer_element(t):
            kind = "float" if c.is_float else "integer"
            raise FormatError(f"'{c.text}' (argument {n}) is {'a' if kind == 'float' else 'an'} {kind} conversion, "
                              f"but the tile's elements are {t}")
    return pieces


__all__ = ["FLOAT_SPECIFIERS", "INT_SPECIFIERS", "Conversion", "FormatError", "check", "parse"]
