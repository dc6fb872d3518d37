"""``tileas-guarded-k-loop``: a dot loop that runs only under a runtime test (``if flag: for k in
range(n): acc = mma(...)``) becomes the same loop with no iteration when the test fails, so the
tier pipelines its dots.

cuTile exports ``if c:`` around a K loop whose accumulator is read after the ``if`` as::

    %r:N = scf.if %c -> (T...) {
      (side-effect-free ops: the trip count, views, constants)
      %l:N = scf.for %k = %lb to %ub step %s iter_args(%a = %init...) { ... }
      scf.yield %l...
    } else {
      scf.yield %init...
    }

Matched (nothing GEMM-specific; anything else is left as written): the then-branch is
side-effect-free ops, one ``scf.for`` holding a dot and the yield of that loop's results in order;
the else-branch yields the loop's initial values in the same order and nothing else; the loop's
bounds, step and initial values are defined outside the ``if`` or by the then-branch's
side-effect-free ops.  The rewrite moves those ops and the loop before the ``if`` with the upper
bound ``select(%c, %ub, %lb)`` and replaces the ``if``'s results by the loop's: when ``%c`` holds
the loop runs the program's iterations, otherwise none and its results are the initial values,
the else-branch's.  The meaning is the program's whether or not the tier then takes the kernel
(the compile driver's SIMT fallback is cloned beforehand and keeps the ``if``); the hoisted ops
read no memory.

The test inside the loop, ``for k in range(n): if k < X: acc = mma(...)``, reaches the tier already
split by cuTile into a dot loop over ``[0, min(n, X))`` and an empty loop over the rest, whose body
only yields its carried values back: such an empty loop (anywhere: it computes nothing) is removed,
its results replaced by its initial values, so that the dot loop's result is the one the epilogue
reads.  :func:`guarded_k_loop_remarks` states, per rewrite, the remark the driver prints when the
tier takes the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.rewriter import InsertPoint, Rewriter

from tileorch.diagnostics import copy_location, format_error
from tileorch.transforms.pass_kinds import ModuleTransform
from tileorch.transforms.tileas.common import defined_inside
from tileorch.transforms.tileas.while_to_for import _pure

REMARK = ("this dot loop runs under a runtime test (the accumulator its initial value when the test fails): it "
          "runs as the same loop with no iteration when the test fails, pipelined by the tensor-core tier "
          "(tileas-guarded-k-loop)")
EMPTY_REMARK = ("this dot loop is followed by a loop over the rest of its range that does nothing (a dot under "
                "'if k < X' in the loop): that loop is dropped, the dot loop's result read directly "
                "(tileas-guarded-k-loop)")


@dataclass(frozen=True)
class GuardedLoop:
    """A matched ``if``: ``guard`` whose then-branch runs ``loop`` after the side-effect-free ``prelude``."""

    guard: scf.IfOp
    loop: scf.ForOp
    prelude: tuple[Operation, ...]


def _dot_in(op: Operation) -> Operation | None:
    return next((o for o in op.walk() if o.name == "nv_tileaa.dot"), None)


def match(guard: Operation) -> GuardedLoop | None:
    """The :class:`GuardedLoop` of ``guard`` (module doc), or None."""
    if not isinstance(guard, scf.IfOp) or not guard.results or not guard.false_region.blocks:
        return None
    then_ops = list(guard.true_region.block.ops)
    else_ops = list(guard.false_region.block.ops)
    if len(then_ops) < 2 or len(else_ops) != 1:
        return None
    loop, then_yield, else_yield = then_ops[-2], then_ops[-1], else_ops[0]
    prelude = then_ops[:-2]
    if not isinstance(loop, scf.ForOp) or _dot_in(loop) is None or not all(_pure(o) for o in prelude):
        return None
    if list(then_yield.operands) != list(loop.results) or list(else_yield.operands) != list(loop.iter_args):
        return None
    outer = [loop.lb, loop.ub, loop.step, *loop.iter_args]
    if any(defined_inside(v, guard) and v.owner not in prelude for v in outer):
        return None
    return GuardedLoop(guard, loop, tuple(prelude))


def empty_loop(op: Operation) -> bool:
    """Whether ``op`` is an ``scf.for`` whose body only yields its carried values back, in order."""
    if not isinstance(op, scf.ForOp) or not op.results:
        return False
    body = op.body.block
    ops = list(body.ops)
    return len(ops) == 1 and list(ops[0].operands) == list(body.args[1:])


def _dot_loop_before(loop: scf.ForOp) -> scf.ForOp | None:
    """The dot loop whose results are all of ``loop``'s initial values, if any."""
    owners = {v.owner for v in loop.iter_args}
    if len(owners) == 1:
        (o,) = owners
        if isinstance(o, scf.ForOp) and _dot_in(o) is not None and list(loop.iter_args) == list(o.results):
            return o
    return None


def rewrite(m: GuardedLoop) -> None:
    """Move ``m``'s prelude and loop before the ``if``, the loop's upper bound ``select(test, ub, lb)``,
    and replace the ``if`` by the loop's results."""
    at = InsertPoint.before(m.guard)
    for op in m.prelude:
        op.detach()
        Rewriter.insert_op(op, at)
    bound = arith.SelectOp(m.guard.cond, m.loop.ub, m.loop.lb)
    copy_location(m.loop, [bound])
    Rewriter.insert_op(bound, at)
    m.loop.detach()
    Rewriter.insert_op(m.loop, at)
    m.loop.operands[1] = bound.result
    Rewriter.replace_op(m.guard, [], list(m.loop.results))


def guarded_k_loop(module: ModuleOp, remarks: list[str] | None = None) -> int:
    """Drop every empty loop of ``module`` and rewrite every guarded dot loop (innermost ``if``
    first); the number of rewrites and dropped loops."""
    count = 0
    for op in list(module.walk()):
        if empty_loop(op):
            before = _dot_loop_before(op)
            if before is not None and remarks is not None:
                remarks.append(format_error(_dot_in(before), EMPTY_REMARK, "remark"))
            Rewriter.replace_op(op, [], list(op.iter_args))
            count += 1
    for op in reversed(list(module.walk())):
        m = match(op)
        if m is None:
            continue
        if remarks is not None:
            remarks.append(format_error(_dot_in(m.loop), REMARK, "remark"))
        rewrite(m)
        count += 1
    return count


def guarded_k_loop_remarks(module: Operation) -> list[str]:
    """The located remark (at the loop's first dot) for each ``if`` the pass would rewrite (matched,
    not rewritten: ``module`` is left as it is)."""
    out = [format_error(_dot_in(before), EMPTY_REMARK, "remark") for o in module.walk() if empty_loop(o)
           for before in [_dot_loop_before(o)] if before is not None]
    return out + [format_error(_dot_in(m.loop), REMARK, "remark") for o in module.walk() for m in [match(o)] if m]


class GuardedKLoop(ModuleTransform):
    """Dot loops under a runtime ``if`` become loops with no iteration when the test fails (module doc)."""

    name = "tileas-guarded-k-loop"
    transform = staticmethod(guarded_k_loop)


__all__ = ["EMPTY_REMARK", "REMARK", "GuardedKLoop", "empty_loop", "GuardedLoop", "guarded_k_loop", "guarded_k_loop_remarks", "match", "rewrite"]
