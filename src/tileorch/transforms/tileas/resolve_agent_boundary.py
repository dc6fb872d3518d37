"""``tileas-resolve-agent-boundary`` (seed 003, D20): legalise values that cross into an agent.

After agent materialization an agent region may use values defined outside its
``agent_switch``.  Scalars, views, pipelines and shared/tensor-memory tiles are read in place.
A register tile is held as fragments by the warps that computed it, so it can stay a direct SSA
value only when the agent runs on exactly those warps (its layout's warp count equals the
agent's ``num_warps`` and the agent starts at warp 0).  Otherwise it is handed over through
shared memory in the shape the destination needs:

    %buf = nv_tileas.alloc_tensor : <smem layout>            (before the switch)
    %s   = nv_tileas.copy %v into %buf                        (before the switch)
    ...agent region...
      %r = nv_tileas.convert_layout %s : smem -> <layout over the agent's warps>

A value defined in one agent and used in another cannot be handed over here (that needs a
pipeline): it is an error.  Named barriers are left to a later pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from tileorch.diagnostics import LocatedError, copy_location
from tileorch.dialects import nv_tileas_tile as ts
from tileorch.dialects.nv_tileas import AgentSwitchOp
from tileorch.transforms.pass_kinds import ModuleTransform
from tileorch.transforms.tileas.layouts import smem_layout, with_layout


def _region_of(value: SSAValue) -> Region | None:
    owner = value.owner
    block = owner if isinstance(owner, Block) else owner.parent_block()
    return block.parent if block is not None else None


def _inside(region: Region, value: SSAValue) -> bool:
    r = _region_of(value)
    while r is not None:
        if r is region:
            return True
        op = r.parent
        r = op.parent_region() if op is not None else None
    return False


def _agent_layout(lay: ts.LayoutAttr, warps: int) -> ts.LayoutAttr:
    d = lay.as_dict()
    w = d.get("warps")
    if w:
        d["warps"] = [warps] + [1] * (len(w) - 1)
    return ts.LayoutAttr(lay.kind, **d)


def resolve_switch(sw: AgentSwitchOp) -> None:
    nw = sw.num_warps.get_values()
    wid = sw.warp_id.get_values() if sw.warp_id is not None else [None] * len(nw)
    regions = list(sw.agents)
    handoffs: dict[SSAValue, SSAValue] = {}
    for i, region in enumerate(regions):
        if AgentSwitchOp.is_hole(region):
            continue
        crossing: dict[SSAValue, list] = {}
        for op in region.walk():
            for idx, v in enumerate(op.operands):
                if _inside(region, v):
                    continue
                for j, other in enumerate(regions):
                    if j != i and _inside(other, v):
                        raise LocatedError(op, f"a value defined in agent {j} is used in agent {i}: "
                                               "hand it over through a pipeline")
                crossing.setdefault(v, []).append((op, idx))
        first = region.block.first_op
        for v, uses in crossing.items():
            lay = ts.layout_of(v.type)
            if lay is None or lay.kind != "reg":
                continue
            w = lay.get("warps")
            held = 1
            for x in (w or []):
                held *= x
            if w is not None and held == nw[i] and wid[i] == 0:
                continue  # the agent's warps hold exactly these fragments
            t = v.type
            assert isinstance(t, TensorType)
            if v not in handoffs:
                plain = TensorType(t.element_type, t.get_shape())
                smem_t = with_layout(plain, smem_layout(plain, lay.cta()))
                buf = ts.AllocTensorOp(smem_t)
                cp = ts.CopyOp(v, smem_t, dst=buf.result, atom=ts.StsAtomAttr(1))
                copy_location(sw, [buf, cp])
                Rewriter.insert_op([buf, cp], InsertPoint.before(sw))
                handoffs[v] = cp.result
            dest_t = with_layout(t, _agent_layout(lay, nw[i]))
            cvt = ts.ConvertLayoutOp(handoffs[v], dest_t)
            copy_location(sw, [cvt])
            Rewriter.insert_op(cvt, InsertPoint.before(first))
            for op, idx in uses:
                op.operands[idx] = cvt.result
                try:
                    op.verify(verify_nested_ops=False)
                except VerifyException:
                    # the user insists on the old type: convert once more inside the agent
                    back = ts.ConvertLayoutOp(cvt.result, t)
                    copy_location(op, [back])
                    Rewriter.insert_op(back, InsertPoint.before(op))
                    op.operands[idx] = back.result


def resolve_agent_boundary(root: Operation) -> None:
    for sw in [o for o in root.walk() if isinstance(o, AgentSwitchOp)]:
        resolve_switch(sw)


@dataclass(frozen=True)
class ResolveAgentBoundary(ModuleTransform):
    """Register tiles entering an agent from outside go through shared memory."""

    name = "tileas-resolve-agent-boundary"
    transform = staticmethod(resolve_agent_boundary)
