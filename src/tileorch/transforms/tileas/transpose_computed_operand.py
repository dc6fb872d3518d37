"""``tileas-transpose-computed-operand``: a dot whose A (or B) operand is the transpose of a tile
computed from another dot's result (``dV += ct.transpose(p) @ dO`` with ``p = exp2(Q K^T * c - m)``:
FlashAttention's backward written in the forward's orientation) computes that tile transposed in
the first place, so the chain reads ``P^T = exp2(K Q^T * c - m^T)`` and the transpose disappears.

The tensor-core tier's chained lowering takes a first dot whose A is loaded once before the loop and
a second dot whose A is computed from its result in the accumulator's registers; ``transpose(p)``
as the second dot's A was refused ("the first dot's A must be a [tm, K] tile loaded once before
the loop": the first dot was ``Q K^T`` with Q loaded in the loop).  Transposing is exact, so the
rewrite holds for any program; it is applied where it removes the operand's transpose:

Matched: ``d2 = dot(X, ...)`` (or ``dot(..., X, ...)``) with ``X = permute(x, [1, 0])`` of a 2-D
tile, where ``x`` is computed, in ``d2``'s block, from a dot ``d1``'s result by ops that map tiles
of ``x``'s shape element by element (pure ``nv_tileaa`` / ``arith`` ops without regions whose tile
operands and results all have that shape: arithmetic, comparisons, selects, casts, ``exp2``), each
of those values used once (the chain: nothing else reads it, so no value is computed twice).
Rewritten: each value ``v`` of the chain is rebuilt transposed, ``T(v)``:

* ``T(permute(y, [1, 0])) = y``;
* ``T(dot(a, b, c)) = dot(T(b), T(a), T(c))`` (``(A B + C)^T = B^T A^T + C^T``);
* an element-wise op: the same op on ``T`` of its tile operands (scalars unchanged);
* ``T(broadcast(y)) = broadcast(T(y))``; a tile with an extent-1 dimension ([n, 1], [1, n]) is its
  reshape to the swapped shape (the same elements in the same order; a reshape of a reshape reads
  the first one's source); a splat constant is the constant of the swapped shape;
* anything else (a loaded tile): ``permute(y, [1, 0])``, the transposed operand the tier reads
  through its shared-memory descriptors (``ct.transpose(k)``).

``T(v)`` is placed right after ``v``'s definition (loop-invariant values stay outside the loop),
``d2`` reads ``T(x)`` and the chain's original ops, now unused, are erased.  The SIMT path keeps the
program as written (the driver clones the module for it before the tier).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseArrayBase, DenseIntOrFPElementsAttr, ModuleOp, TensorType, i32
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import Pure

from tileorch.diagnostics import copy_location
from tileorch.dialects.nv_tileaa.ops import BroadcastOp, ReshapeOp
from tileorch.dialects.nv_tileaa.reduce_scan import PermuteOp
from tileorch.transforms.pass_kinds import ModuleTransform

REMARK = ("this dot's operand is the transpose of a tile computed from another dot's result: the chain is "
          "computed transposed (the first dot's operands swapped and transposed), so the tensor-core tier reads "
          "it from registers (tileas-transpose-computed-operand)")

_SHAPE_OPS = ("nv_tileaa.reshape", "nv_tileaa.broadcast", "nv_tileaa.permute", "nv_tileaa.expand_dims",
              "nv_tileaa.splat", "nv_tileaa.dot", "nv_tileaa.extract", "nv_tileaa.make_range")


def _nuses(v: SSAValue) -> int:
    return sum(1 for _ in v.uses)


def _shape(v: SSAValue) -> list[int] | None:
    return list(v.type.get_shape()) if isinstance(v.type, TensorType) else None


def _swapped(t: TensorType) -> TensorType:
    m, n = t.get_shape()
    return TensorType(t.element_type, [n, m])


def _is_transpose(op: Operation | None) -> bool:
    return isinstance(op, PermuteOp) and list(op.permutation.get_values()) == [1, 0]


def _elementwise(op: Operation, shape: list[int]) -> bool:
    if op.regions or op.name in _SHAPE_OPS or not op.name.startswith(("nv_tileaa.", "arith.")):
        return False
    if not op.has_trait(Pure) or not op.results:
        return False
    tiles = [v for v in (*op.operands, *op.results) if isinstance(v.type, TensorType)]
    has_tile_operand = any(isinstance(v.type, TensorType) for v in op.operands)  # a constant is a leaf
    return has_tile_operand and all(_shape(v) == shape for v in tiles)


def _chain(x: SSAValue, block: Block) -> list[Operation] | None:
    """The ops from ``x`` back to the dots it is computed from (each result used once, in ``block``),
    when one of them is a dot; else None."""
    shape = _shape(x)
    ops: list[Operation] = []
    seen: set[int] = set()
    found_dot = False
    work = [x]
    while work:
        v = work.pop()
        op = v.owner
        if not isinstance(op, Operation) or op.parent_block() is not block or id(op) in seen:
            continue
        if op.name == "nv_tileaa.dot" and _shape(op.results[0]) == shape:
            if _nuses(op.results[0]) != 1:
                return None
            seen.add(id(op))
            ops.append(op)
            found_dot = True
            continue
        if not _elementwise(op, shape):
            continue
        if any(_nuses(r) != 1 for r in op.results):
            return None
        seen.add(id(op))
        ops.append(op)
        work.extend(o for o in op.operands if _shape(o) == shape)
    return ops if found_dot else None


class _Transposer:
    def __init__(self, chain: list[Operation]):
        self.chain = {id(o) for o in chain}
        self.memo: dict[SSAValue, SSAValue] = {}
        self.rw = Rewriter()

    def _after(self, v: SSAValue, op: Operation, like: Operation | None = None) -> SSAValue:
        owner = v.owner
        at = InsertPoint.after(owner) if isinstance(owner, Operation) else InsertPoint.at_start(owner)
        copy_location(like or (owner if isinstance(owner, Operation) else op), [op])
        self.rw.insert_op(op, at)
        return op.results[0]

    def t(self, v: SSAValue) -> SSAValue:
        if v in self.memo:
            return self.memo[v]
        self.memo[v] = r = self._t(v)
        return r

    def _t(self, v: SSAValue) -> SSAValue:
        op = v.owner
        t = v.type
        assert isinstance(t, TensorType) and len(t.get_shape()) == 2
        if _is_transpose(op):
            return op.operands[0]
        if isinstance(op, Operation) and id(op) in self.chain:
            if op.name == "nv_tileaa.dot":
                a, b, c = op.operands[:3]
                new = op.__class__.create(operands=[self.t(b), self.t(a), self.t(c), *op.operands[3:]],
                                          result_types=[_swapped(t)], properties=dict(op.properties),
                                          attributes=dict(op.attributes))
            else:
                operands = [self.t(o) if isinstance(o.type, TensorType) else o for o in op.operands]
                new = op.__class__.create(operands=operands,
                                          result_types=[_swapped(r.type) if isinstance(r.type, TensorType) else r.type
                                                        for r in op.results],
                                          properties=dict(op.properties), attributes=dict(op.attributes))
            return self._after(v, new, op)
        if 1 in t.get_shape():
            src = op.operands[0] if isinstance(op, ReshapeOp) else v
            if _shape(src) == list(reversed(t.get_shape())):
                return src
            return self._after(v, ReshapeOp(src, _swapped(t)))
        if isinstance(op, BroadcastOp) and len(_shape(op.source) or []) == 2:
            return self._after(v, BroadcastOp.create(operands=[self.t(op.source)], result_types=[_swapped(t)]))
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, DenseIntOrFPElementsAttr) and op.value.is_splat():
            vals = op.value.get_values()
            return self._after(v, arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(_swapped(t), [vals[0]])))
        perm = PermuteOp.create(operands=[v], result_types=[_swapped(t)],
                                properties={"permutation": DenseArrayBase.from_list(i32, [1, 0])})
        return self._after(v, perm)


def _candidates(module: ModuleOp):
    for d2 in module.walk():
        if d2.name != "nv_tileaa.dot":
            continue
        for pos in (0, 1):
            p = d2.operands[pos].owner
            if not _is_transpose(p) or _nuses(p.results[0]) != 1:
                continue
            x = p.operands[0]
            if len(_shape(x) or []) != 2 or _nuses(x) != 1:
                continue
            chain = _chain(x, d2.parent_block())
            if chain is not None:
                yield d2, pos, p, x, chain


def transpose_computed_operands(module: ModuleOp, remarks: list[str] | None = None) -> int:
    """Rewrite every matched dot operand of ``module`` (module doc); the number rewritten."""
    from tileorch.diagnostics import format_error

    count = 0
    while True:
        found = next(_candidates(module), None)
        if found is None:
            return count
        d2, pos, perm, x, chain = found
        tx = _Transposer(chain).t(x)
        d2.operands[pos] = tx
        rw = Rewriter()
        dead = [perm, *sorted(chain, key=lambda o: -_index(o))]  # users first
        while dead:  # the chain, then what only it read (its broadcasts, reshapes)
            op = dead.pop(0)
            if op.parent is None or any(_nuses(r) for r in op.results) or op.regions or not op.has_trait(Pure):
                continue
            feeds = [o.owner for o in op.operands if isinstance(o.owner, Operation)]
            rw.erase_op(op)
            dead += feeds
        if remarks is not None:
            remarks.append(format_error(d2, REMARK, "remark"))
        count += 1


def _index(op: Operation) -> int:
    block = op.parent_block()
    return next(i for i, o in enumerate(block.ops) if o is op)


def transpose_computed_operand_remarks(module: Operation) -> list[str]:
    """The located remark (at the dot) for each operand the pass would rewrite (``module`` unchanged)."""
    from tileorch.diagnostics import format_error

    return [format_error(d2, REMARK, "remark") for d2, *_ in _candidates(module)]


class TransposeComputedOperand(ModuleTransform):
    """A dot operand that is the transpose of a tile computed from a dot's result is computed
    transposed (module doc)."""

    name = "tileas-transpose-computed-operand"
    transform = staticmethod(transpose_computed_operands)


__all__ = ["REMARK", "TransposeComputedOperand", "transpose_computed_operand_remarks", "transpose_computed_operands"]
