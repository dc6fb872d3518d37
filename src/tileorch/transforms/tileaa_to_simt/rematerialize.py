"""Tiles recomputed at the coordinates a thread needs instead of exchanged through shared memory.

A ``broadcast`` (or a converting ``expand_dims``/``reshape``) of a tile normally writes the
source to the scratch and reads it back in the result's layout (two ``bar.sync``).  When the
source is a pure function of its coordinates, each thread can compute the elements it needs
itself, as Triton rematerializes cheap producers instead of converting layouts:

* ``make_range``: the coordinate (plus ``start``);
* ``splat`` of a scalar: the scalar;
* ``expand_dims`` / ``reshape`` / ``broadcast`` of such a tile: the source at the mapped
  coordinates;
* an integer cast (``extsi``/``extui``/``trunci``) of such a tile: the cast of the element;
* integer arithmetic, comparisons and logic (:data:`INT_ELEMENTWISE`: ``addi``/``subi``/``muli``,
  ``cmpi``, ``andi``/``ori``/``xori``, ``select``) of such tiles and scalars, with an integer (or
  ``i1``) result: the op on the elements (a gather's ``rows < n`` and ``cols < d`` masks, a row
  index ``arange + program * rows``; no division, which could trap);
* a ``tiled_load`` of an integer tile in the same block with no memory write between it and the
  use (the index tile of a gather): the element loaded again by this thread, bounds-checked, the
  view's padding outside (threads that need the same element read the same address: one
  transaction per warp, served by L1); unless ``TILEORCH_REMATERIALIZE_FLOAT_LOADS=0`` (default 1 since
  session 30) a float tile's too (a rotary's cos / sin table row broadcast over the heads: each thread
  loads the elements it multiplies instead of two ``bar.sync`` and the shared-memory round trip).

:func:`recomputable` decides from the IR alone (a bounded walk, :data:`MAX_DEPTH` ops);
:func:`element_at` emits the scalar code for one element.  ``TILEORCH_REMATERIALIZE=0`` turns it
off (every such conversion through shared memory, as before).
"""

from __future__ import annotations


from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, TensorType, i32
from xdsl.ir import Operation, SSAValue

from tileorch import settings
from tileorch.transforms.tileaa_to_simt.emit import Emitter
from tileorch.transforms.tileaa_to_simt.prefetch import WRITES, ordered_access

ENV = "TILEORCH_REMATERIALIZE"
ATTR = "tileorch.rematerialized"
"""On the lowered kernel: how many shape ops were recomputed (the driver's remark)."""
MAX_DEPTH = 6
"""Ops walked back from a converted tile at most (a chain longer than this is exchanged)."""
INT_CASTS = {"nv_tileaa.extsi": arith.ExtSIOp, "nv_tileaa.extui": arith.ExtUIOp, "nv_tileaa.trunci": arith.TruncIOp}
SHAPES = ("nv_tileaa.expand_dims", "nv_tileaa.reshape", "nv_tileaa.broadcast")
INT_ELEMENTWISE = frozenset({"nv_tileaa.addi", "nv_tileaa.subi", "nv_tileaa.muli", "nv_tileaa.cmpi", "nv_tileaa.select",
                             "arith.addi", "arith.subi", "arith.muli", "arith.cmpi", "arith.select", "arith.andi",
                             "arith.ori", "arith.xori", "arith.extsi", "arith.extui", "arith.trunci"})
"""Element-wise integer ops recomputed from recomputable operands (pure, cannot trap)."""


def enabled() -> bool:
    """Rematerialization is on unless ``TILEORCH_REMATERIALIZE=0``."""
    return settings.value(ENV) != "0"


def float_loads() -> bool:
    """Float ``tiled_load`` tiles are recomputed too (unless ``TILEORCH_REMATERIALIZE_FLOAT_LOADS=0``)."""
    return settings.value("TILEORCH_REMATERIALIZE_FLOAT_LOADS") == "1"


def _static_shape(v: SSAValue) -> tuple[int, ...] | None:
    t = v.type
    if not isinstance(t, TensorType) or any(d <= 0 for d in t.get_shape()):
        return None
    return tuple(t.get_shape())


def _no_write_between(load: Operation, use: Operation) -> bool:
    """``load`` and ``use`` lie in one block, ``load`` first, and no op between them (nor in
    their regions) writes memory or synchronizes."""
    if load.parent is None or load.parent is not use.parent:
        return False
    op = load.next_op
    while op is not None and op is not use:
        if any(o.name in WRITES or o.name.startswith(("nvvm.", "llvm.")) for o in op.walk()):
            return False
        op = op.next_op
    return op is use


def recomputable(v: SSAValue, use: Operation, depth: int = MAX_DEPTH) -> bool:
    """Whether tile ``v`` (an operand of ``use``) can be recomputed element by element (see the
    module docstring)."""
    if depth <= 0 or _static_shape(v) is None or not isinstance(v.owner, Operation):
        return False
    op = v.owner
    name = op.name
    if name == "nv_tileaa.make_range":
        return True
    if name == "nv_tileaa.splat":
        return not isinstance(op.operands[0].type, TensorType)
    if name in SHAPES or name in INT_CASTS:
        return recomputable(op.operands[0], use, depth - 1)
    if name == "nv_tileaa.tiled_load":
        elt = v.type.element_type
        # an ordered load (acquire, relaxed, ...) is one access the program placed: reloaded by each thread as a
        # weak load it could read a newer value than the one ordered (a flag a producer is still writing)
        return ((isinstance(elt, IntegerType) or float_loads()) and not ordered_access(op)
                and _no_write_between(op, use))
    if name in INT_ELEMENTWISE and len(op.results) == 1 and not op.regions:
        return isinstance(v.type.element_type, IntegerType) and all(
            recomputable(x, use, depth - 1) if isinstance(x.type, TensorType) else isinstance(x.type, IntegerType)
            for x in op.operands)
    return False


def element_at(lowering, e: Emitter, v: SSAValue, coords: list[SSAValue]) -> SSAValue:
    """The element of tile ``v`` at ``coords`` (i32 values), recomputed (``v`` passed
    :func:`recomputable`)."""
    op = v.owner
    name = op.name
    shape = _static_shape(v)
    if name == "nv_tileaa.make_range":
        start = op.start.value.data
        x = coords[0] if start == 0 else e.add_i(coords[0], e.const(start))
        return x if v.type.element_type == i32 else lowering._cast_int(e, x, v.type.element_type)
    if name == "nv_tileaa.splat":
        return lowering.get(op.operands[0])
    src = op.operands[0]
    src_shape = _static_shape(src)
    if name == "nv_tileaa.broadcast":
        return element_at(lowering, e, src, [c if d != 1 else e.const(0) for c, d in zip(coords, src_shape)])
    if name in ("nv_tileaa.expand_dims", "nv_tileaa.reshape"):
        return element_at(lowering, e, src, e.unravel(e.ravel(coords, shape), src_shape))
    if name in INT_CASTS:
        x = element_at(lowering, e, src, coords)
        return e.v(INT_CASTS[name](x, v.type.element_type))
    if name in INT_ELEMENTWISE:
        args = [element_at(lowering, e, x, coords) if isinstance(x.type, TensorType) else lowering.get(x)
                for x in op.operands]
        return lowering.scalar_op(e, op, args, v.type.element_type)
    assert name == "nv_tileaa.tiled_load", name
    return lowering.load_element(e, op, coords)


__all__ = ["ATTR", "ENV", "INT_ELEMENTWISE", "MAX_DEPTH", "element_at", "enabled", "float_loads", "recomputable"]
