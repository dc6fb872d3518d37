"""``tileas-rewrite-pipeline-iterator-types`` (seed 003, DD02): the late pipeline-iterator type
rewriter.

After scheduling has fixed which agent drives which side of every pipeline, each iterator a
``create_pipeline`` hands out (through ``create_iterator``, ``inc_iter``, ``scf.for`` /
``scf.while`` / ``scf.if`` slots and yields) gets its side in its type:
``!nv_tileas.async.pipeline.iterator<any, d, T>`` becomes ``<producer, d, T>`` when the chain
reaches ``producer_acquire`` / ``produce_one`` and ``<consumer, d, T>`` when it reaches
``consumer_wait`` / ``consume_one``.  The rewriter emits no ops; lowering then sees plain,
role-typed values.  A chain used by both sides is an error.  (tileiras' rewriter has no CLI
name; this is ours.)
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.ir import Operation, SSAValue

from tileorch.diagnostics import LocatedError
from tileorch.dialects import nv_tileas_tile as ts
from tileorch.transforms.pass_kinds import ModuleTransform
from tileorch.transforms.tileas.common import set_type

PRODUCER_OPS = (ts.ProducerAcquireOp, ts.ProduceOneOp)
CONSUMER_OPS = (ts.ConsumerWaitOp, ts.ConsumeOneOp)


def _successors(v: SSAValue) -> list[SSAValue]:
    """Values an iterator flows into (same chain)."""
    out: list[SSAValue] = []
    for use in v.uses:
        op, i = use.operation, use.index
        if isinstance(op, ts.IncIterOp | ts.ProduceOneOp):
            out.append(op.results[-1] if isinstance(op, ts.IncIterOp) else op.result)
        elif isinstance(op, ts.ConsumeOneOp):
            out.append(op.res[-1])
        elif isinstance(op, scf.ForOp) and i >= 3:
            out += [op.body.block.args[i - 2], op.results[i - 3]]
        elif isinstance(op, scf.WhileOp):
            out.append(op.before_region.block.args[i])
        elif isinstance(op, scf.ConditionOp):
            loop = op.parent_op()
            out += [loop.after_region.block.args[i - 1], loop.results[i - 1]]
        elif isinstance(op, scf.YieldOp):
            parent = op.parent_op()
            if isinstance(parent, scf.ForOp):
                out += [parent.results[i], parent.body.block.args[i + 1]]
            elif isinstance(parent, scf.WhileOp):
                out.append(parent.before_region.block.args[i])
            elif isinstance(parent, scf.IfOp):
                out.append(parent.results[i])
    return out


def _role(v: SSAValue) -> set[str]:
    roles = set()
    for use in v.uses:
        if isinstance(use.operation, PRODUCER_OPS):
            roles.add("producer")
        elif isinstance(use.operation, CONSUMER_OPS):
            roles.add("consumer")
    return roles


def rewrite_iterators(module: Operation) -> None:
    for create in [o for o in module.walk() if isinstance(o, ts.CreateIteratorOp)]:
        chain: list[SSAValue] = []
        seen: set[int] = set()
        work = [create.result]
        while work:
            v = work.pop()
            if id(v) in seen or not isinstance(v.type, ts.PipelineIteratorType):
                continue
            seen.add(id(v))
            chain.append(v)
            work += _successors(v)
        roles = set().union(*(_role(v) for v in chain))
        if len(roles) > 1:
            raise LocatedError(create, "a pipeline iterator is used by both the producer and the consumer side; "
                                       "create one iterator per side")
        if not roles:
            continue
        role = roles.pop()
        for v in chain:
            t = v.type
            set_type(v, ts.PipelineIteratorType(role, t.depth.data, t.elements))


@dataclass(frozen=True)
class RewritePipelineIteratorTypes(ModuleTransform):
    """Iterator types specialised to the pipeline side that uses them."""

    name = "tileas-rewrite-pipeline-iterator-types"
    transform = staticmethod(rewrite_iterators)
