"""IEEE division of an accumulator-shaped tile of the chained consumer loop by one value shared by
all of this thread's elements (the scores divided by a scalar: a soft cap's ``s / cap``, a
temperature), with one reciprocal per thread instead of a ``div.rn.f32`` per element.

The loop's ``a / b`` (``nv_tileaa.divf`` with the default rounding) lowered element by element is
``div.rn.f32`` each: in ptxas's expansion a ``MUFU.RCP``, five ``FFMA``, an ``FCHK`` and a branch
around the slow path, per element and per key tile (d128 soft cap: 64 per thread per tile, the
``MUFU`` pipe's fourth operation per score beside the ``tanh`` and the softmax's ``exp``).

:func:`uniform_quotients` evaluates every element of such a division at once, when the divisor's
value at each of the thread's fragment coordinates is one and the same register (a scalar
broadcast), with :func:`tileorch.transforms.tileaa_to_simt.uniform_division.divide`: a per-thread
test of every numerator and the divisor, then either the shared-reciprocal sequence (three
instructions per element, bit for bit ``div.rn``, zero numerators included) or ``div.rn`` per
element.  The quotients become the tile's registers (``provided``: later reads of any element hit
them).  Only divisions inside the consumer loop take it (the epilogue has
:class:`~tileorch.transforms.tileas.row_division.RowDivision`, whose register budget it decides
itself); ``TILEORCH_UNIFORM_DIV=0`` turns it off (the SIMT path's switch for the same sequence).
"""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type, TensorType
from xdsl.ir import Operation, SSAValue

from tileorch.transforms.tileaa_to_simt import uniform_division
from tileorch.transforms.tileas.row_division import is_ieee_division


def fragment_order(width: int) -> list[tuple[int, int, int]]:
    """(h, g, j) of each register of a ``[64, width]`` accumulator fragment, register ``4 g + 2 h + j``
    (``chained_dots._frag_regs`` for ``width > 1``)."""
    out: list = [None] * (width // 2)
    for g in range(width // 8):
        for h in range(2):
            for j in range(2):
                out[4 * g + 2 * h + j] = (h, g, j)
    return out


def _width(low, v: SSAValue) -> int | None:
    """X of ``v: tensor<R x X x f32>`` whose columns are all the lowering's column coordinates, else None."""
    t = v.type
    if not isinstance(t, TensorType) or not isinstance(t.element_type, Float32Type):
        return None
    shape = list(t.get_shape())
    if len(shape) != 2 or shape[1] % 8 or shape[1] < 8 or len(low.rows) != 2:
        return None
    if any((g, j) not in low.cols for g in range(shape[1] // 8) for j in range(2)):
        return None
    return shape[1]


def loop_tile_places(low, op: Operation, v: SSAValue, coords: tuple) -> list | None:
    """The (row, column) coordinates of every register of this thread's fragment of ``v`` (``op``'s f32
    ``[R, X]`` result, ``op`` inside the consumer loop, read at accumulator coordinates ``coords``), in
    register order (:func:`fragment_order`); None where ``v`` is no such tile (the caller evaluates it
    element by element)."""
    if low.loop_iv is None or not low.loop_iv.block.is_ancestor(op):
        return None
    if len(coords) != 2 or id(coords[0].value) not in low.row_of or id(coords[1].value) not in low.col_of:
        return None
    width = _width(low, v)
    if width is None:
        return None
    from tileorch.transforms.tileas.epilogue import Coord

    return [(Coord(low.rows[h], 0), Coord(low.cols[(g, j)], 1)) for h, g, j in fragment_order(width)]


def uniform_quotients(low, v: SSAValue, coords: tuple) -> SSAValue | None:
    """The element of ``v`` (an IEEE ``divf`` of the consumer loop) at ``coords`` with every element of the
    thread's fragment divided at once (module docstring), or None where the division does not qualify (the
    caller divides element by element).  ``low``: the site's ``FragmentLowering`` (its ``uniform_divs``
    collects the ids of the divisions taken)."""
    op = v.owner
    if low.uniform_divs is None or not isinstance(op, Operation) or not is_ieee_division(op):
        return None
    places = loop_tile_places(low, op, v, coords)
    if places is None:
        return None
    divisors = [low.e.to_f32(low.at(op.operands[1], c)) for c in places]
    if len(set(divisors)) != 1:
        return None
    numerators = [low.e.to_f32(low.at(op.operands[0], c)) for c in places]
    if len(set(numerators)) < uniform_division.MIN_SLOTS:
        return None
    quotients = uniform_division.divide(low.e, numerators, divisors[0])
    low.provided[v] = (2 * len(places), quotients)  # every read of the tile, this one too, finds its element there
    low.uniform_divs.add(id(op))
    return low.at(v, coords)


def enabled() -> bool:
    """``TILEORCH_UNIFORM_DIV`` (on unless ``0``)."""
    return uniform_division.enabled()


__all__ = ["enabled", "fragment_order", "loop_tile_places", "uniform_quotients"]
