"""The ``vprintf`` calls that print one ``nv_tileaa.print`` (pure Python: no IR).

What is printed, per tile block (as tileiras 13.4 prints it; docs/cuda-tile.md):

* the format's literal text as written (``%%`` prints ``%``);
* for each conversion, its argument: a scalar or a 0-d tile as one value; a tile of rank ``k``
  as a nested list in row-major order, ``[`` and ``]`` around each dimension, ``", "`` between
  elements and between sub-lists (``[[0, 1], [2, 3]]``), each element with the conversion.

A ``vprintf`` call takes at most :data:`MAX_ARGS` arguments (tileiras splits rows the same way),
so a print is one or more calls.  :func:`plan` chooses them:

* :class:`Call`: a format and the elements ``(argument, flat index)`` it prints, in order;
* :class:`Loop`: ``units`` calls of one argument of more than :data:`MAX_ARGS` elements, call
  ``u`` printing elements ``u * unit .. u * unit + unit - 1`` with the format
  ``body`` preceded (``u > 0``) by ``seps[m]``, ``m`` the number of ``divisors`` that divide
  ``u * unit`` (the dimensions that end there: ``"]" * m + ", " + "[" * m``).  A unit is some
  consecutive blocks of the trailing dimensions, at most :data:`MAX_ARGS` elements (``_loop``):
  32 elements of a long row, whole rows of short ones.

Literal text and the brackets around a loop join the neighbouring calls' formats, so a print of
at most :data:`MAX_ARGS` elements in all is one call."""

from __future__ import annotations

from dataclasses import dataclass, field

from tileorch.dialects.nv_tileaa.print_format import Conversion

MAX_ARGS = 32
"""Arguments of one ``vprintf`` call (CUDA's ``printf`` takes at most 32 besides the format)."""


@dataclass
class Call:
    """One ``vprintf`` call: its format and the elements ``(argument, flat index)`` it prints, in order."""

    fmt: str = ""
    elems: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class Loop:
    """``units`` ``vprintf`` calls over one argument's elements, ``unit`` elements each (see the module's doc)."""

    arg: int
    unit: int
    units: int
    body: str
    divisors: list[int]
    seps: list[str]


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def nested(shape: tuple[int, ...], spec: str, arg: int, base: int = 0) -> list:
    """The tokens (text, or ``(arg, flat index)``) of a tile of ``shape`` whose first element is
    ``base``: ``[``, elements and ``, `` separators, ``]``, nested by dimension."""
    if not shape:
        return [(arg, base)]
    inner = _numel(shape[1:])
    out: list = ["["]
    for i in range(shape[0]):
        if i:
            out.append(", ")
        out.extend(nested(shape[1:], spec, arg, base + i * inner))
    out.append("]")
    return out


def _text(tokens: list, spec: str) -> str:
    return "".join(spec if isinstance(t, tuple) else t for t in tokens)


def _loop(shape: tuple[int, ...], spec: str, arg: int) -> tuple[str, Loop, str]:
    """(prefix, loop, suffix) printing a tile of ``shape`` (more than MAX_ARGS elements) in
    units: ``c`` consecutive blocks of the trailing ``r`` dimensions, ``r`` the most whose block
    has at most MAX_ARGS elements, ``c`` the largest divisor of the next dimension that keeps the
    unit within MAX_ARGS (a row of 1024: 32 elements; 8x8: one row of 8 ... four rows)."""
    k = len(shape)
    prods = [1]
    for d in reversed(shape):
        prods.append(prods[-1] * d)  # prods[r]: elements of the trailing r dimensions
    r = max(i for i in range(k + 1) if prods[i] <= MAX_ARGS)  # r < k: the tile has more elements
    d = shape[k - r - 1]
    c = max(x for x in range(1, d + 1) if d % x == 0 and x * prods[r] <= MAX_ARGS)
    block = _text(nested(shape[k - r:], spec, arg), spec)
    body = ", ".join([block] * c)
    divisors = [prods[i] for i in range(r + 1, k)]
    seps = ["]" * m + ", " + "[" * m for m in range(len(divisors) + 1)]
    return "[" * (k - r), Loop(arg, c * prods[r], prods[k] // (c * prods[r]), body, divisors, seps), "]" * (k - r)


def plan(pieces: list[str | Conversion], shapes: list[tuple[int, ...]]) -> list[Call | Loop]:
    """The calls printing a format's ``pieces`` (literal text and conversions) with arguments of
    ``shapes`` (``()``: a scalar or 0-d tile)."""
    out: list[Call | Loop] = []
    cur = Call()

    def flush() -> None:
        nonlocal cur
        if cur.fmt or cur.elems:
            out.append(cur)
        cur = Call()

    def add(tokens: list) -> None:
        for t in tokens:
            if isinstance(t, tuple):
                if len(cur.elems) == MAX_ARGS:
                    flush()
                cur.elems.append(t)
                cur.fmt += spec
            else:
                cur.fmt += t

    arg = 0
    for p in pieces:
        if not isinstance(p, Conversion):
            cur.fmt += p
            continue
        spec, shape = p.text, shapes[arg]
        n = _numel(shape)
        if n > MAX_ARGS:
            prefix, loop, suffix = _loop(shape, spec, arg)
            cur.fmt += prefix
            flush()
            out.append(loop)
            cur.fmt = suffix
        else:
            if cur.elems and len(cur.elems) + n > MAX_ARGS:
                flush()  # keep a small tile in one call
            add(nested(shape, spec, arg))
        arg += 1
    flush()
    return out


def calls(steps: list[Call | Loop]) -> list[tuple[str, list[tuple[int, int]]]]:
    """Every ``vprintf`` call of ``steps`` in order, loops unrolled: (format, elements)."""
    out = []
    for s in steps:
        if isinstance(s, Call):
            out.append((s.fmt, list(s.elems)))
            continue
        for u in range(s.units):
            f = u * s.unit
            sep = "" if u == 0 else s.seps[sum(1 for d in s.divisors if f % d == 0)]
            out.append((sep + s.body, [(s.arg, f + j) for j in range(s.unit)]))
    return out


__all__ = ["MAX_ARGS", "Call", "Loop", "calls", "nested", "plan"]
