"""``tileas-unpeel-k-loop``: a K loop whose first step the program peeled off becomes one loop again.

Programs sometimes compute the first K step before the loop and start the loop one step later::

    acc = ct.mma(ct.load(A, (i, 0), ...), ct.load(B, (0, j), ...), ct.zeros(...))
    for k in range(1, kt):
        acc = ct.mma(ct.load(A, (i, k), ...), ct.load(B, (k, j), ...), acc)

The tier pipelines one loop over K, so::

    %d0 = nv_tileaa.dot %x0, %y0, %z            (before the loop)
    %r = scf.for %k = %c to %n step 1 iter_args(%acc = %d0) { ... %d = nv_tileaa.dot %x, %y, %acc; yield %d }

becomes ``scf.for %k = %c - 1 to %n iter_args(%acc = %z)`` (and ``%d0`` with the ops only it used is
erased) when, and only when, that is the same computation: ``%c`` is a constant ``>= 1``, the step
is 1, the loop carries only ``%acc`` (read by the dot alone), its body holds nothing but
side-effect-free ops, tile loads and the dot (an extra first iteration writes nothing), the two
dots have the same attributes, and ``%x0`` / ``%y0`` are computed as ``%x`` / ``%y`` are with ``%k``
replaced by the constant ``%c - 1`` (op by op: same name, attributes and types; values outside the
loop the same or computed alike).  The loop then runs the peeled step as its first iteration, on
the same operands in the same order (``dot(x0, y0, z)`` then the rest).  Anything else is left alone.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue

from tileorch.diagnostics import copy_location
from tileorch.transforms.pass_kinds import ModuleTransform
from tileorch.transforms.tileas.common import constant_int, defined_inside

_BODY_OPS = ("arith.", "math.", "nv_tileaa.")
_EFFECTS = ("store", "atomic", "print", "assert", "barrier", "scatter")




def _alike(outer: SSAValue, inner: SSAValue, loop: scf.ForOp, peeled: int, depth: int = 24) -> bool:
    """``outer`` (computed before the loop) is ``inner`` (computed in it) at iteration ``peeled``."""
    if outer is inner:
        return not defined_inside(inner, loop)
    iv = loop.body.block.args[0]
    if inner is iv:
        return constant_int(outer) == peeled
    if isinstance(outer, BlockArgument) or isinstance(inner, BlockArgument) or depth == 0:
        return False
    ox, oy = outer.owner, inner.owner
    if ox.name != oy.name or ox.regions or oy.regions or len(ox.operands) != len(oy.operands):
        return False
    if list(ox.results).index(outer) != list(oy.results).index(inner):
        return False
    if [r.type for r in ox.results] != [r.type for r in oy.results]:
        return False
    if ox.properties != oy.properties or ox.attributes != oy.attributes:
        return False
    return all(_alike(a, b, loop, peeled, depth - 1) for a, b in zip(ox.operands, oy.operands))


def _erase_dead(op: Operation) -> None:
    """Erase ``op`` and then, recursively, the side-effect-free ops (and tile loads) only it read."""
    if any(r.uses for r in op.results):
        return
    feeds = [v.owner for v in op.operands if isinstance(v.owner, Operation)]
    op.detach()
    op.erase()
    for o in feeds:
        if o.parent is not None and not o.regions and o.name.startswith(_BODY_OPS) \
                and not any(e in o.name for e in _EFFECTS):
            _erase_dead(o)


def unpeel(loop: scf.ForOp) -> bool:
    """Rewrite ``loop`` as the module doc says; whether it did."""
    lb, step = constant_int(loop.lb), constant_int(loop.step)
    if lb is None or lb < 1 or step != 1 or len(loop.iter_args) != 1:
        return False
    body = loop.body.block
    acc = body.args[1]
    yielded = body.last_op.operands[0] if isinstance(body.last_op, scf.YieldOp) else None
    d1 = yielded.owner if yielded is not None and isinstance(yielded.owner, Operation) else None
    if d1 is None or d1.name != "nv_tileaa.dot" or d1.parent_block() is not body or d1.operands[2] is not acc:
        return False
    if len(list(acc.uses)) != 1:
        return False
    for o in body.ops:
        if o is body.last_op:
            continue
        if o.regions or not o.name.startswith(_BODY_OPS) or any(e in o.name for e in _EFFECTS):
            return False
    init = loop.iter_args[0]
    d0 = init.owner
    if not isinstance(d0, Operation) or d0.name != "nv_tileaa.dot" or len(list(init.uses)) != 1:
        return False
    if d0.parent_block() is not loop.parent_block() or d0.properties != d1.properties or \
            d0.attributes != d1.attributes:
        return False
    if not all(_alike(d0.operands[x], d1.operands[x], loop, lb - 1) for x in (0, 1)):
        return False
    start = arith.ConstantOp(IntegerAttr(lb - 1, loop.lb.type))
    copy_location(loop, [start])
    loop.parent_block().insert_op_before(start, loop)
    loop.operands = [start.result, loop.ub, loop.step, d0.operands[2]]
    _erase_dead(d0)
    return True


def unpeel_k_loops(module: ModuleOp) -> int:
    """Every loop of ``module`` :func:`unpeel` rewrites; the number rewritten."""
    return sum(unpeel(loop) for loop in [o for o in module.walk() if isinstance(o, scf.ForOp)])


class UnpeelKLoop(ModuleTransform):
    """A K loop started after a peeled first dot step becomes one loop over every step (module doc)."""

    name = "tileas-unpeel-k-loop"
    transform = staticmethod(unpeel_k_loops)
