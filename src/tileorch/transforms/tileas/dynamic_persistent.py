"""``tileas-dynamic-persistent`` (seed 003, D16): "Make the kernel into dynamic persistent
kernels".

The kernel body (everything but its terminator) moves into the after-region of

    %first = nv_tileaa.current_program_id
    scf.while (%pid = %first) {
      %v = nv_tileaa.is_valid_program_id %pid
      scf.condition(%v) %pid
    } do {
    ^bb0(%id):
      <body, every nv_tileaa.get_program_id {axis} now reading %id>
      %next = nv_tileas.cancel_next_program_id
      scf.yield %next
    }

so a CTA keeps claiming tile blocks until the scheduler runs out.  Ops the body recomputes per
tile (allocations, layout conversions, extracts, constants) are re-evaluated each iteration.
Kernels: ``nv_tileaa.func`` with a ``nv_tileaa.kernel_spec`` and ``nv_tileas.kernel``.  A kernel
that already loops on ``is_valid_program_id`` gets the warning "Kernel is already dynamic
persistent" and is left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileorch.diagnostics import copy_location
from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects import nv_tileas_tile as ts
from tileorch.transforms.tileas.common import entry_block, kernel_spec, warn


def is_kernel(op: Operation) -> bool:
    if isinstance(op, aa.FuncOp):
        return kernel_spec(op) is not None
    return op.name == "nv_tileas.kernel"


def is_program_loop(op: Operation) -> bool:
    """Whether ``op`` is the dynamic-persistent loop over program ids this pass builds (an
    ``scf.while`` whose condition asks ``is_valid_program_id``)."""
    return isinstance(op, scf.WhileOp) and any(isinstance(o, aa.IsValidProgramIdOp) for o in op.before_region.walk())


def already_dynamic_persistent(kernel: Operation) -> bool:
    return any(is_program_loop(op) for op in kernel.walk())


def make_dynamic_persistent(kernel: Operation) -> None:
    if already_dynamic_persistent(kernel):
        warn(kernel, "Kernel is already dynamic persistent")
        return
    block = entry_block(kernel)
    term = block.last_op
    body_ops = [o for o in block.ops if o is not term]
    pid_t = aa.ProgramIdType()
    first = aa.CurrentProgramIdOp()
    before = Block(arg_types=[pid_t])
    valid = aa.IsValidProgramIdOp(before.args[0])
    before.add_ops([valid, scf.ConditionOp(valid.result, before.args[0])])
    after = Block(arg_types=[pid_t])
    pid = after.args[0]
    for op in body_ops:
        op.detach()
        after.add_op(op)
    for op in list(after.walk()):
        if isinstance(op, aa.GetProgramIdOp) and op.program_id is None:
            new = aa.GetProgramIdOp(op.axis.value.data, pid)
            copy_location(op, [new])
            Rewriter.insert_op(new, InsertPoint.before(op))
            op.result.replace_all_uses_with(new.result)
            Rewriter.erase_op(op)
    nxt = ts.CancelNextProgramIdOp()
    after.add_ops([nxt, scf.YieldOp(nxt.result)])
    loop = scf.WhileOp([first.result], [pid_t], Region(before), Region(after))
    copy_location(kernel, [first, valid, nxt, loop])
    for o in before.ops:
        copy_location(kernel, [o])
    after.last_op.location = kernel.location
    if term is not None:
        Rewriter.insert_op([first, loop], InsertPoint.before(term))
    else:
        block.add_ops([first, loop])


@dataclass(frozen=True)
class DynamicPersistent(ModulePass):
    """Wrap each kernel body in the is_valid_program_id / cancel_next_program_id loop."""

    name = "tileas-dynamic-persistent"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [o for o in op.walk() if is_kernel(o) and o.regions[0].blocks]:
            make_dynamic_persistent(kernel)
