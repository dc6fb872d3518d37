"""The register layout of the SIMT lowering's tiles, as the layout passes attached it.

The decisions are made by ``tileas-assign-load-store-layouts`` and
``tileas-remove-layout-conversions`` (``transforms/tileas/simt_layouts.py``) and stated in the
IR as ``#nv_tileaa.blocked`` attributes (``dialects/nv_tileaa/blocked.py``); this module reads
them.  A tile is held *blocked*: with ``T`` threads and a run of ``v`` elements, the row-major
flat index ``f`` of an element splits into

    f = (slot // v) * v * T  +  tid * v  +  slot % v

so each thread owns runs of ``v`` contiguous elements of the tile's innermost dimension, and
consecutive threads own consecutive runs: a warp's accesses of one run each are 32 * v * size
contiguous bytes.  ``v = 1`` is the plain cyclic distribution (element ``f`` in thread
``f % T``).

:meth:`SimtLayout.of_function` takes ``T`` and the widest run from the function's
``nv_tileaa.simt_layout`` and the run of each tile shape from the ``nv_tileaa.layout`` /
``nv_tileaa.source_layout`` of its ops (a shape no op states takes the function layout's rule,
``BlockedLayoutAttr.run_of``).  Every tile of one shape is held in one layout; an attached layout
the lowering cannot hold that way is a located error, as is a function without layouts.

Whether a given access *is* vectorized is decided per run at run time (the run in bounds,
its address aligned to the vector's size, the last stride 1), with scalar, masked accesses
otherwise: a ragged or misaligned tile is never read or written by a vector access.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from xdsl.ir import Operation

from tileorch.diagnostics import LocatedError
from tileorch.dialects.nv_tileaa.blocked import FUNCTION_LAYOUT, LAYOUT, SOURCE_LAYOUT, BlockedLayoutAttr
from tileorch.transforms.tileas.simt_layouts import COMBINES, MOVES, RESHAPES, moved_tile

PASS = "convert-nv-tileaa-to-simt"


@lru_cache(maxsize=64)
def _flat(threads: int, vec: int) -> BlockedLayoutAttr:
    """``BlockedLayoutAttr.flat(threads, vec)``, made once per pair (an immutable attribute; the
    lowering asks for a function's base layout for every tile it places: ~800 times in a large
    kernel, each building and verifying four arrays)."""
    return BlockedLayoutAttr.flat(threads, vec)


@dataclass(frozen=True)
class SimtLayout:
    """The blocked layout of a function's tiles (see the module docstring)."""

    threads: int
    vec: int
    """The function's widest run (``nv_tileaa.simt_layout``)."""
    runs: dict = field(default_factory=dict)
    """Tile shape -> its run, as the ops' layouts state."""

    @property
    def base(self) -> BlockedLayoutAttr:
        return _flat(self.threads, self.vec)

    def vec_of(self, shape) -> int:
        """Contiguous elements per thread run for a tile of ``shape`` (a power of two)."""
        shape = tuple(shape)
        v = self.runs.get(shape)
        return v if v is not None else self.base.run_of(shape)

    def max_run(self) -> int:
        return max([self.vec, *self.runs.values()])

    def slots(self, shape) -> int:
        """Register slots per thread of a tile of ``shape``: whole runs."""
        n = 1
        for d in shape:
            n *= d
        v = self.vec_of(shape)
        return -(-n // (v * self.threads)) * v

    def same_order(self, a, b) -> bool:
        """Tiles of shapes ``a`` and ``b`` with equal numbers of elements hold element ``f`` of
        the row-major order in the same thread and slot."""
        return self.vec_of(a) == self.vec_of(b)

    @staticmethod
    def of_function(fn: Operation) -> SimtLayout:
        """The layout the layout passes attached to ``fn`` (see the module docstring)."""
        base = fn.attributes.get(FUNCTION_LAYOUT)
        if not isinstance(base, BlockedLayoutAttr) or base.rank != 1 or base.flat_run() is None:
            raise LocatedError(fn, f"{PASS}: @{fn.sym_name.data} has no {FUNCTION_LAYOUT} (a rank-1 "
                                   "#nv_tileaa.blocked): run tileas-assign-load-store-layouts first")
        layout = SimtLayout(base.threads, base.flat_run())
        for op in fn.walk():
            for key in (LAYOUT, SOURCE_LAYOUT):
                lay = op.attributes.get(key)
                if lay is None:
                    continue
                if op.name in RESHAPES:
                    t = (op.results[0] if key == LAYOUT else op.operands[0]).type
                elif op.name in MOVES or op.name in COMBINES:
                    t = moved_tile(op)
                else:
                    raise LocatedError(op, f"{PASS}: {key} on '{op.name}' (only on loads, stores, reductions, "
                                           "scans, reshapes and expand_dims)")
                layout._take(op, key, tuple(t.get_shape()), lay)
        return layout

    def _take(self, op: Operation, key: str, shape: tuple, lay: BlockedLayoutAttr) -> None:
        v = lay.flat_run()
        if v is None:
            raise LocatedError(op, f"'{op.name}' is not supported yet by {PASS}: {key} {lay} (the SIMT lowering "
                                   "holds row-major layouts with runs along the last dimension only)")
        if lay.threads != self.threads:
            raise LocatedError(op, f"{PASS}: {key} {lay} spreads the tile over {lay.threads} threads, the "
                                   f"function's {FUNCTION_LAYOUT} over {self.threads}")
        if shape[-1] % v:
            raise LocatedError(op, f"{PASS}: {key} {lay}: runs of {v} do not divide the last extent of {shape}")
        want = self.base.on_shape(shape, v)
        if lay != want:
            raise LocatedError(op, f"{PASS}: {key} {lay} is not how the SIMT lowering holds a {shape} tile with "
                                   f"runs of {v} over {self.threads} threads: {want}")
        held = self.runs.setdefault(shape, v)
        if held != v:
            raise LocatedError(op, f"{PASS}: {key} gives {shape} tiles runs of {v}, another op runs of {held} "
                                   "(the SIMT lowering holds every tile of one shape in one layout)")

    def describe(self) -> str:
        return (f"SIMT layout: {self.threads} threads, blocked along the tile's last dimension, up to "
                f"{self.vec} contiguous elements per thread")


__all__ = ["SimtLayout"]
