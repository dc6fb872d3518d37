"""``#nv_tileaa.blocked<...>``: how a tile's elements are spread over a CTA's threads.

Syntax (every key, in this order)::

    #nv_tileaa.blocked<elems = [1, 8], lanes = [4, 8], warps = [4, 1], order = [1, 0]>

One entry per tile dimension (the same parameters as Triton's blocked encoding, under our
names): ``elems[d]`` contiguous elements per thread along dimension ``d`` (a run), ``lanes[d]``
lanes of a warp along ``d`` (their product is 32), ``warps[d]`` warps of the CTA along ``d``
(``32 * prod(warps)`` threads), ``order`` the dimensions from the fastest varying to the
slowest (``[1, 0]``: row-major).  One *sweep* of the layout covers ``elems[d] * lanes[d] *
warps[d]`` elements along ``d``; a tile larger than a sweep is covered by repeating it, fastest
dimension first, the thread's repeats held in its next register slots.

The SIMT lowering (``convert-nv-tileaa-to-simt``) holds tiles in the layouts whose ``order`` is
row-major and whose runs lie along the last dimension only (:meth:`BlockedLayoutAttr.flat_run`),
read *flat*: with ``T`` threads and runs of ``v``, the element of row-major index ``f`` lies in
thread ``(f // v) % T``, register slot ``(f // (v * T)) * v + f % v``.  When every extent of the
tile is a multiple of the sweep (or the sweep ends inside one row, see
:meth:`BlockedLayoutAttr.on_shape`) that is exactly the per-dimension placement above; otherwise
(a row whose run count is not a power of two) a sweep continues into the next row, and
``lanes``/``warps`` only say that the sweep lies along the last dimension.  Threads past the
tile's last element hold nothing (their slots are masked off), they are never replicas.

Where it is attached (``tileas-assign-load-store-layouts`` on the SIMT route,
``transforms/tileas/simt_layouts.py``): :data:`LAYOUT` on loads, stores, reductions and scans
(the layout of the tile they move or reduce), :data:`SOURCE_LAYOUT` beside it on a
``reshape``/``expand_dims`` whose source is held otherwise (a layout conversion: an exchange
through shared memory), and :data:`FUNCTION_LAYOUT` on the function: its thread count and
widest run, as a rank-1 layout of the flattened tile (:meth:`BlockedLayoutAttr.on_shape` gives
any tile shape's layout from it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IntAttr, TensorType
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

LAYOUT = "nv_tileaa.layout"
"""Discardable attribute of a load/store/reduce/scan (and reshape/expand_dims): its tile's layout."""
SOURCE_LAYOUT = "nv_tileaa.source_layout"
"""Discardable attribute of a ``reshape``/``expand_dims``: its source's layout, present only when
it differs from :data:`LAYOUT` (the op then converts; ``tileas-remove-layout-conversions`` drops
it where both place every element in the same thread and slot)."""
FUNCTION_LAYOUT = "nv_tileaa.simt_layout"
"""Discardable attribute of an ``nv_tileaa.func``: the rank-1 layout its tiles are blocked by."""

_KEYS = ("elems", "lanes", "warps", "order")
WARP = 32
MAX_WARPS = 32


def _pow2(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


@irdl_attr_definition
class BlockedLayoutAttr(ParametrizedAttribute):
    """A blocked register layout (see the module docstring)."""

    name = "nv_tileaa.blocked"
    elems: ArrayAttr[IntAttr]
    lanes: ArrayAttr[IntAttr]
    warps: ArrayAttr[IntAttr]
    order: ArrayAttr[IntAttr]

    def __init__(self, elems: Sequence[int], lanes: Sequence[int], warps: Sequence[int], order: Sequence[int]):
        super().__init__(*(ArrayAttr([IntAttr(v) for v in values]) for values in (elems, lanes, warps, order)))

    # -- syntax ---------------------------------------------------------------------------------
    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        values = []
        with parser.in_angle_brackets():
            for i, key in enumerate(_KEYS):
                if i:
                    parser.parse_punctuation(",")
                got = parser.parse_identifier()
                if got != key:
                    parser.raise_error(f"expected '{key}' (the keys of #nv_tileaa.blocked are "
                                       f"{', '.join(_KEYS)}, in this order), got '{got}'")
                parser.parse_punctuation("=")
                ints = parser.parse_comma_separated_list(parser.Delimiter.SQUARE,
                                                         lambda: parser.parse_integer(allow_boolean=False))
                values.append(ArrayAttr([IntAttr(v) for v in ints]))
        return values

    def print_parameters(self, printer: Printer) -> None:
        body = ", ".join(f"{k} = [{', '.join(str(v) for v in getattr(self, k + '_'))}]" for k in _KEYS)
        printer.print_string(f"<{body}>")

    # -- values ---------------------------------------------------------------------------------
    @property
    def elems_(self) -> list[int]:
        return [a.data for a in self.elems.data]

    @property
    def lanes_(self) -> list[int]:
        return [a.data for a in self.lanes.data]

    @property
    def warps_(self) -> list[int]:
        return [a.data for a in self.warps.data]

    @property
    def order_(self) -> list[int]:
        return [a.data for a in self.order.data]

    @property
    def rank(self) -> int:
        return len(self.elems.data)

    @property
    def threads(self) -> int:
        """Threads of the CTA: ``32 * prod(warps)``."""
        return WARP * math.prod(self.warps_)

    def verify(self) -> None:
        arrays = {k: getattr(self, k + "_") for k in _KEYS}
        ranks = {len(v) for v in arrays.values()}
        if len(ranks) != 1:
            raise VerifyException("#nv_tileaa.blocked needs one entry per tile dimension in each of elems, lanes, "
                                  f"warps and order, got {', '.join(f'{k} {len(v)}' for k, v in arrays.items())}")
        if ranks == {0}:
            raise VerifyException("#nv_tileaa.blocked of rank 0: a layout has at least one dimension")
        for k in ("elems", "lanes", "warps"):
            bad = [v for v in arrays[k] if not _pow2(v)]
            if bad:
                raise VerifyException(f"#nv_tileaa.blocked {k} must be positive powers of two, got {arrays[k]}")
        if math.prod(arrays["lanes"]) != WARP:
            raise VerifyException(f"#nv_tileaa.blocked lanes must multiply to {WARP} (one warp), got "
                                  f"{arrays['lanes']} ({math.prod(arrays['lanes'])})")
        if math.prod(arrays["warps"]) > MAX_WARPS:
            raise VerifyException(f"#nv_tileaa.blocked warps {arrays['warps']} make {math.prod(arrays['warps'])} "
                                  f"warps, more than a CTA's {MAX_WARPS}")
        if sorted(arrays["order"]) != list(range(len(arrays["order"]))):
            raise VerifyException(f"#nv_tileaa.blocked order must be a permutation of 0..{len(arrays['order']) - 1}, "
                                  f"got {arrays['order']}")

    # -- the flat reading (the SIMT lowering's) -------------------------------------------------
    def flat_run(self) -> int | None:
        """The run ``v`` when the layout is row-major with runs along the last dimension only
        (what the SIMT lowering holds, read flat: see the module docstring); else None."""
        r = self.rank
        if self.order_ != list(range(r - 1, -1, -1)) or any(e != 1 for e in self.elems_[:-1]):
            return None
        return self.elems_[-1]

    def same_placement(self, other: BlockedLayoutAttr) -> bool:
        """Both layouts, read flat, hold each element of the row-major order in the same thread
        and register slot (tiles of equal size: a reshape between them moves no data)."""
        v = self.flat_run()
        return v is not None and v == other.flat_run() and self.threads == other.threads

    @staticmethod
    def flat(threads: int, run: int) -> BlockedLayoutAttr:
        """The rank-1 layout of ``threads`` threads holding runs of ``run`` elements."""
        return BlockedLayoutAttr([run], [WARP], [threads // WARP], [0])

    def run_of(self, shape: Sequence[int]) -> int:
        """The run a tile of ``shape`` takes under this rank-1 layout (``elems = [v]``): the largest
        power of two ``<= v`` that divides the last extent and leaves every thread at least one
        run (``numel >= threads * run``); 1 for a rank-0 tile."""
        if not shape:
            return 1
        n = math.prod(shape)
        v = self.elems_[-1]
        while v > 1 and (shape[-1] % v or n < self.threads * v):
            v //= 2
        return v

    def on_shape(self, shape: Sequence[int], run: int | None = None) -> BlockedLayoutAttr:
        """The layout of a tile of ``shape`` (rank >= 1) under this rank-1 layout, read flat: runs
        of ``run`` (default :meth:`run_of`) along the last dimension; the 32 lanes, then the
        warps, laid innermost dimension first, each dimension taking as many as it has runs (all
        that remain when it has more, or when its run count is not a power of two: the sweep then
        continues into the next row); what is left after the first dimension goes to it."""
        v = self.run_of(shape) if run is None else run
        r = len(shape)
        extent = list(shape)
        extent[-1] = max(1, extent[-1] // v)
        lanes, warps = [1] * r, [1] * r
        for share, left in ((lanes, WARP), (warps, self.threads // WARP)):
            for d in range(r - 1, -1, -1):
                if left == 1:
                    break
                if d == 0 or extent[d] >= left or not _pow2(extent[d]):
                    take = left
                else:
                    take = extent[d]
                share[d] = take
                extent[d] = max(1, extent[d] // take)
                left //= take
        return BlockedLayoutAttr([1] * (r - 1) + [v], lanes, warps, list(range(r - 1, -1, -1)))

    def describe(self, shape: Sequence[int]) -> str:
        """Rows and threads in words, for remarks: ``4 rows per warp, 8 lanes per row``..."""
        cover = [e * lane * w for e, lane, w in zip(self.elems_, self.lanes_, self.warps_)]
        if len(shape) < 2:
            return f"{cover[-1]} elements per sweep"
        row = shape[-1]
        if self.warps_[-1] > 1:
            return f"a row across {self.warps_[-1]} warps"
        rows_warp = math.prod(self.lanes_[:-1])
        rows_cta = rows_warp * math.prod(self.warps_[:-1])
        if rows_warp > 1:
            return f"{rows_warp} rows per warp, {rows_cta} per CTA ({self.lanes_[-1]} lanes per row of {row})"
        return f"a row per warp, {rows_cta} per CTA"


def check_layout(op, tile: Attribute, key: str = LAYOUT) -> None:
    """Verifier rule of a tile op carrying ``key``: the value is a ``#nv_tileaa.blocked`` of the
    rank of ``tile`` (the tile the op moves or reduces; a rank-0 tile has no layout)."""
    lay = op.attributes.get(key)
    if lay is None:
        return
    if not isinstance(lay, BlockedLayoutAttr):
        raise VerifyException(f"'{op.name}' {key} must be a #nv_tileaa.blocked layout, got {lay}")
    rank = tile.get_num_dims() if isinstance(tile, TensorType) else 0
    if lay.rank != rank:
        raise VerifyException(f"'{op.name}' {key} has rank {lay.rank}, its tile {tile} has rank {rank}")


BLOCKED_ATTRS = [BlockedLayoutAttr]

__all__ = ["BLOCKED_ATTRS", "FUNCTION_LAYOUT", "LAYOUT", "SOURCE_LAYOUT", "BlockedLayoutAttr", "check_layout"]
