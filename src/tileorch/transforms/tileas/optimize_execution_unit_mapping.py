"""``optimize-execution-unit-mapping`` (seed 003, D12): "Optimize the numWarps and warpId
alignment for each agent".

For every ``agent_switch`` (post-order, so inner switches first; other ops with regions get
their warp count folded up by ``propagate-execution-unit``):

1. agents are stable-partitioned: "normal" agents (``agent_strides[i] & 3 == 0``) first, then
   "interleaved" ones; holes left by an earlier run are dropped;
2. a warp cursor walks the agents; each agent starts at the cursor rounded up to a multiple of
   its own ``num_warps`` (its group: 4 for a Hopper warpgroup, 8 for a 2-CTA UMMA pair);
3. where rounding skips warps a hole record is inserted (``num_warps`` 1, ``warp_id`` the old
   cursor, stride the gap; an empty region), as the seed's rewriter does;
4. the total is padded to a multiple of 4 warps by a final hole (``num_warps`` = the padding);
5. entries with a duplicate ``warp_id`` are compacted (holes give way to agents);
6. the switch is rebuilt with ``num_warps``, ``warp_id``, ``agent_strides`` (and ``max_regs`` /
   ``num_agents_per_group`` extended to the holes) and the old regions spliced in.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, i32
from xdsl.ir import Region
from xdsl.rewriter import InsertPoint, Rewriter

from tileorch.diagnostics import copy_location
from tileorch.dialects.nv_tileas import AgentSwitchOp
from tileorch.transforms.pass_kinds import ModuleTransform
from tileorch.transforms.tileas.propagate_execution_unit import propagate_execution_unit


@dataclass
class Entry:
    """One agent of the warp mapping: warps, first warp id, stride, region (None: a hole), register cap, group."""

    num_warps: int
    warp_id: int
    stride: int
    region: Region | None  # None: a hole
    max_regs: int | None = None
    group: int = 1


def place(agents: list[Entry]) -> list[Entry]:
    """The seed's cursor walk over agents (given in order, holes already removed)."""
    normal = [a for a in agents if a.stride & 3 == 0]
    interleaved = [a for a in agents if a.stride & 3 != 0]
    out: list[Entry] = []
    cursor = 0
    for a in normal + interleaved:
        group = a.num_warps
        nz = 1 if cursor != 0 else 0
        rounded = (nz + (cursor - nz) // group) * group
        if rounded != cursor:
            out.append(Entry(1, cursor, rounded - cursor, None))
        out.append(Entry(a.num_warps, rounded, a.stride, a.region, a.max_regs, a.group))
        span = (a.num_warps - 1) * a.stride + 1 if a.stride > 1 else a.num_warps
        cursor = rounded + span
    padded = (cursor + 3) // 4 * 4
    if padded != cursor:
        out.append(Entry(padded - cursor, cursor, 0, None))
    # compact duplicate warp ids: the first agent with a region wins over holes
    seen: dict[int, Entry] = {}
    compact: list[Entry] = []
    for e in out:
        prev = seen.get(e.warp_id)
        if prev is None:
            seen[e.warp_id] = e
            compact.append(e)
        elif prev.region is None and e.region is not None:
            compact[compact.index(prev)] = e
            seen[e.warp_id] = e
    return compact


def rewrite_switch(sw: AgentSwitchOp) -> AgentSwitchOp:
    nw = sw.num_warps.get_values()
    strides = sw.agent_strides.get_values() if sw.agent_strides is not None else [0] * len(nw)
    regs = sw.max_regs.get_values() if sw.max_regs is not None else None
    groups = sw.num_agents_per_group.get_values() if sw.num_agents_per_group is not None else None
    agents = []
    for i, region in enumerate(sw.agents):
        if AgentSwitchOp.is_hole(region):
            continue
        agents.append(Entry(nw[i], 0, strides[i], region, regs[i] if regs else None, groups[i] if groups else 1))
    entries = place(agents)
    hole_regs = min((e.max_regs for e in entries if e.max_regs is not None), default=None)
    props = {
        "num_warps": DenseArrayBase.from_list(i32, [e.num_warps for e in entries]),
        "warp_id": DenseArrayBase.from_list(i32, [e.warp_id for e in entries]),
        "agent_strides": DenseArrayBase.from_list(i32, [e.stride for e in entries]),
    }
    if regs is not None:
        props["max_regs"] = DenseArrayBase.from_list(i32, [e.max_regs if e.max_regs is not None else hole_regs
                                                          for e in entries])
    if groups is not None:
        props["num_agents_per_group"] = DenseArrayBase.from_list(i32, [e.group if e.region is not None else 1
                                                                       for e in entries])
    # move the region bodies over (xDSL regions belong to one op)
    moved = []
    for e in entries:
        r = Region()
        if e.region is not None:
            e.region.move_blocks(r)
        moved.append(r)
    new = AgentSwitchOp.create(properties=props, attributes=dict(sw.attributes), regions=moved)
    copy_location(sw, [new])
    Rewriter.insert_op(new, InsertPoint.before(sw))
    sw.detach()
    sw.erase(safe_erase=False)
    return new


def optimize_execution_unit_mapping(module: ModuleOp) -> None:
    propagate_execution_unit(module, rewrite_switch)


@dataclass(frozen=True)
class OptimizeExecutionUnitMapping(ModuleTransform):
    """Place agents on warps: group-aligned warp ids, hole records, 4-warp padding."""

    name = "optimize-execution-unit-mapping"
    transform = staticmethod(optimize_execution_unit_mapping)
