"""``sink-negf-through-shapes`` (seed 003, D17 sibling): "Move negf before shape operations".

One pattern (tileiras' ExchangeNegWithBroadcastPattern): ``negf(broadcast(x))`` becomes
``broadcast(negf(x))`` and ``negf(expand_dim(x))`` becomes ``expand_dim(negf(x))`` (``arith.negf``
and ``nv_tileaa.negf``; TileAS and TileAA shape ops), applied until no negf sits on a shape op.
The negation then meets the MMA operand it feeds, where it can fold into a ``.neg`` modifier, and
is computed on the smaller tile.  With ``report-misses=true`` every negf that stays put gets the
seed's note "no broadcast/expand_dim op".
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileorch.diagnostics import copy_location, format_error
from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects import nv_tileas_tile as ts

SHAPE_OPS = (ts.BroadcastOp, ts.ExpandDimOp, aa.BroadcastOp, aa.ExpandDimsOp)
NEG_OPS = (arith.NegfOp, aa.NegFOp)


def _neg_of(op: Operation, value) -> Operation:
    if isinstance(op, arith.NegfOp):
        return arith.NegfOp(value, op.fastmath)
    return aa.NegFOp(value)


def sink_once(neg: Operation) -> bool:
    src = neg.operands[0]
    shape = src.owner
    if not isinstance(shape, SHAPE_OPS):
        return False
    inner = _neg_of(neg, shape.operands[0])
    moved = shape.clone(value_mapper={shape.operands[0]: inner.results[0]})
    copy_location(neg, [inner, moved])
    Rewriter.insert_op([inner, moved], InsertPoint.before(neg))
    neg.results[0].replace_all_uses_with(moved.results[0])
    Rewriter.erase_op(neg)
    if not shape.results[0].uses:
        Rewriter.erase_op(shape)
    return True


def sink_negf(module: Operation, report_misses: bool = False) -> None:
    changed = True
    while changed:
        changed = False
        for op in list(module.walk()):
            if isinstance(op, NEG_OPS) and op.parent is not None and sink_once(op):
                changed = True
    if report_misses:
        import sys

        for op in module.walk():
            if isinstance(op, NEG_OPS):
                print(format_error(op, "no broadcast/expand_dim op", "note"), file=sys.stderr)


@dataclass(frozen=True)
class SinkNegFThroughShapes(ModulePass):
    """negf(broadcast/expand_dim(x)) -> broadcast/expand_dim(negf(x))."""

    name = "sink-negf-through-shapes"
    report_misses: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        sink_negf(op, self.report_misses)
