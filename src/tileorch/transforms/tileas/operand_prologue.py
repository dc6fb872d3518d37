"""A dot operand computed from its tile load by the program's own elementwise ops (a *prologue*):
the analysis both tensor-core tiers share.

:func:`operand_prologue` reads the map between an operand's tile load and the dot
(:class:`QPrologue`): the chained (attention) tier applies it in place to a Q or K tile in shared
memory (``chained_dots.py``); the GEMM tier evaluates it from the raw tile of each pipeline stage
into the WGMMA operand's staging tile (``convert_to_cutlass.py``, :func:`operand_lowering`).
Refusals are located errors raised through the caller's ``fail`` (its pass and tier prefix).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import BlockArgument, Operation, SSAValue

from tileorch.dialects import nv_tileaa as aa
from tileorch.transforms.tileaa_to_simt import ELEMENTWISE
from tileorch.transforms.tileas.common import source_load
from tileorch.transforms.tileas.epilogue import BROADCASTS, EXPANDS, LAYOUT_ONLY, EpilogueLowering


def _strip(v: SSAValue, names=(*LAYOUT_ONLY, "nv_tileaa.reshape", "nv_tileaa.permute")) -> tuple[SSAValue, list[str]]:
    seen = []
    while isinstance(v.owner, Operation) and v.owner.name in names:
        seen.append(v.owner.name)
        v = v.owner.operands[0]
    return v, seen


def _enclosing_loop(op: Operation) -> Operation | None:
    p = op.parent_op()
    while p is not None and not isinstance(p, scf.ForOp):
        p = p.parent_op()
    return p


@dataclass
class QPrologue:
    """A map between a dot operand's tile load and the dot (the first dot's A0, Q; or the first dot's
    B, K): elementwise ops whose other operands are the same at every element (constants, kernel
    scalar arguments, splats and broadcasts of them); with ``rowwise``, also row reductions along
    the tile's contiguous dimension (an RMS norm's sum of squares) and per-column vectors loaded
    before the loop (its weight), combined per element.  The kernel applies it in place to the tile
    in shared memory after each load (:meth:`_Kernel.q_prologue`, :func:`_rowwise_prologue`):
    element ``(r, c)`` becomes ``f(x)`` rounded to the tile's type.  ``top``: the value the dot
    reads (layout ops stripped); ``roots``: the values of the load the map starts from; ``ops``: its
    elementwise ops in program order; ``seen``: the layout ops between ``top`` and the dot;
    ``kinds``: id(value) -> "q" (per element), "row", "col" or "uniform"."""

    top: SSAValue
    roots: list[SSAValue]
    ops: list[Operation]
    seen: list[str]
    rowwise: bool = False
    kinds: dict = field(default_factory=dict)


PROLOGUE_SHAPE_OPS = (*LAYOUT_ONLY, "nv_tileaa.reshape")
ROWWISE_COMBINERS = ("nv_tileaa.addf", "nv_tileaa.maxf", "nv_tileaa.minf", "nv_tileaa.mulf", "arith.addf",
                      "arith.maximumf", "arith.minimumf", "arith.mulf")


def operand_prologue(kernel: aa.FuncOp, d1: Operation, fail: Callable[[Operation, str], None],
                     operand: SSAValue | None = None, what: str = "the first dot's A (Q)",
                     how: str = "applied to the tile in place") -> tuple[SSAValue, QPrologue | None]:
    """(the value to find the dot operand's load at, the prologue or None): when the operand
    (``d1``'s A unless ``operand`` says), stripped of layout ops, is not a tile load but a function
    of one as :class:`QPrologue` says, the load's value and the map; a located error names the first
    op that the kernel cannot apply in place (an iota, a reduction along the rows, a transpose)."""
    operand = d1.lhs if operand is None else operand
    top, seen = _strip(operand)
    if source_load(top) is not None or not isinstance(top.owner, Operation):
        return operand, None
    entry = kernel.body.blocks.first
    roots: list[SSAValue] = []
    ops: list[Operation] = []
    kinds: dict[int, str] = {}
    loads: list[Operation] = []
    top_shape = list(top.type.get_shape()) if isinstance(top.type, TensorType) else []
    cols = top_shape[-1] if top_shape else 0

    def refuse(op: Operation, why: str):
        fail(op, f"{what} is computed from its tile by '{op.name}', {why}; only elementwise ops whose other "
                  "operands are scalars (constants, kernel arguments), row reductions along the tile's contiguous "
                  "dimension and per-column vectors loaded before the loop are " + how)

    def scalar(v: SSAValue) -> None:
        if isinstance(v, BlockArgument) and v.owner is entry:
            return
        o = v.owner
        if isinstance(o, Operation) and not o.regions and not isinstance(o.results[0].type, TensorType) \
                and (o.name.startswith("arith.") or o.name in ELEMENTWISE or o.name == "nv_tileaa.assume"):
            for x in o.operands:
                scalar(x)
            return
        refuse(o if isinstance(o, Operation) else d1, "a scalar other than constants and kernel arguments")

    def wide(v: SSAValue) -> list[int]:
        return [x for x in v.type.get_shape() if x != 1] if isinstance(v.type, TensorType) else []

    def kind(v: SSAValue) -> str:
        """"q": a function of the element at the same position; "row" / "col": the same along a row
        / a column; "uniform": the same everywhere."""
        hit = kinds.get(id(v))
        if hit is not None:
            return hit
        if not isinstance(v.type, TensorType):
            scalar(v)
            return "uniform"
        s, strip_seen = _strip(v)
        ld = source_load(s)
        if ld is not None and wide(s) == [cols]:
            if _enclosing_loop(ld) is not None:
                refuse(ld, "a per-column vector loaded in the loop")
            kinds[id(v)] = "col"  # a weight row: one value per column
            return "col"
        if ld is not None:
            if "nv_tileaa.permute" in strip_seen:
                refuse(s.owner if isinstance(s.owner, Operation) else d1, "a transpose of the tile")
            if loads and ld is not loads[0]:
                refuse(ld, "a second tile")
            loads.append(ld)
            roots.append(v)
            kinds[id(v)] = "q"
            return "q"
        op = v.owner
        if not isinstance(op, Operation):
            fail(d1, f"{what} is computed from a tile carried into a region")
        name = op.name
        if name in PROLOGUE_SHAPE_OPS:
            if name == "nv_tileaa.reshape":
                src, dst = (list(x.type.get_shape()) for x in (op.operands[0], op.results[0]))
                if [x for x in src if x != 1] != [x for x in dst if x != 1]:
                    refuse(op, "which moves the elements")
            k = kind(op.operands[0])
        elif name == "arith.constant":
            if not isinstance(op.value, DenseIntOrFPElementsAttr) or len(set(op.value.get_values())) != 1:
                refuse(op, "a constant that is not the same at every element")
            k = "uniform"
        elif name == "nv_tileaa.splat":
            scalar(op.operands[0])
            k = "uniform"
        elif name in BROADCASTS or name in EXPANDS:
            k = kind(op.operands[0])
            if k == "q":
                refuse(op, "which spreads the tile")
        elif name == "nv_tileaa.reduce":
            body = op.regions[0].blocks.first
            comb = [o for o in body.ops if o is not body.last_op]
            shp = list(op.operands[0].type.get_shape())
            if len(op.operands) != 1 or kind(op.operands[0]) != "q" or len(shp) != 2 or \
                    op.dim.value.data != 1 or len(comb) != 1 or comb[0].name not in ROWWISE_COMBINERS:
                refuse(op, "a reduction other than one along the tile's contiguous dimension with one add, max, "
                           "min or mul")
            k = "row"
        elif not op.regions and (name == "nv_tileaa.fp_to_fp" or name.startswith("arith.") or name in ELEMENTWISE):
            ks = {kind(x) for x in op.operands}
            k = ("q" if "q" in ks or {"row", "col"} <= ks else "row" if "row" in ks else "col" if "col" in ks
                 else "uniform")
            if k == "q":
                ops.append(op)
        else:
            refuse(op, "which depends on the element's position")
        kinds[id(v)] = k
        return k

    if kind(top) != "q":
        return operand, None  # not computed from a load: refused as before
    order = {id(o): i for i, o in enumerate(entry.walk())}
    ops.sort(key=lambda o: order.get(id(o), 0))
    rowwise = any(x in ("row", "col") for x in kinds.values())
    return roots[0], QPrologue(top, roots, ops, seen, rowwise, kinds)


@dataclass
class OperandLowering(EpilogueLowering):
    """A prologue's value at one element: the load's values (``roots``, by id) are ``element``; the
    map is position-independent, so the coordinates are any (the GEMM tier's staging of a computed
    operand, :func:`tileorch.transforms.tileas.convert_to_cutlass.stage_computed_operand`)."""

    roots: set = field(default_factory=set)
    element: SSAValue | None = None

    def _at(self, v: SSAValue, coords) -> SSAValue:
        if id(v) in self.roots:
            return self.element
        return super()._at(v, coords)
