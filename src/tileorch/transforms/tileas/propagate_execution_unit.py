"""``propagate-execution-unit``: fold the warp count of agent switches up through the ops that
contain them (``scf.for`` / ``scf.if`` / ``scf.while``, functions), as the attribute
``nv_tileas.num_warps``.

Post-order: an op with regions that is not itself an ``agent_switch`` needs as many warps as
the agent switches and annotated ops nested in it (directly, not inside a deeper agent); if they
disagree the IR is inconsistent.  A function called from an agent (any op with a ``callee``
symbol) must need exactly the warps of that agent.  An agent whose body needs more warps than
the agent has is rejected.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerAttr, ModuleOp, SymbolRefAttr, i32
from xdsl.ir import Operation

from tileorch.diagnostics import LocatedError, post_order
from tileorch.dialects.nv_tileas import AgentSwitchOp
from tileorch.transforms.pass_kinds import ModuleTransform

NUM_WARPS = "nv_tileas.num_warps"
INCONSISTENT = "inconsistent numWarps in the agent switch, maybe it is called in different agents with different numWarps"
TOO_MANY = "expect the number of warps to be less or equal to the number of warps in the pipeline agent switch op"


def switch_warps(sw: AgentSwitchOp) -> int:
    """Warps the switch occupies (placed: highest warp + 1; else the sum), padded to 4."""
    if sw.warp_id is not None:
        top = max((w + 1 for ws in sw.agent_warp_lists() for w in ws), default=0)
    else:
        top = sum(sw.num_warps.get_values())
    return (top + 3) // 4 * 4


def _demands(region_owner: Operation) -> list[tuple[Operation, int]]:
    """(op, warps) for the agent switches and annotated ops directly below ``region_owner``."""
    out: list[tuple[Operation, int]] = []
    for region in region_owner.regions:
        for block in region.blocks:
            for op in block.ops:
                if isinstance(op, AgentSwitchOp):
                    out.append((op, switch_warps(op)))
                elif isinstance(op.attributes.get(NUM_WARPS), IntegerAttr):
                    out.append((op, op.attributes[NUM_WARPS].value.data))
    return out


def _callee(op: Operation) -> str | None:
    ref = op.properties.get("callee") or op.attributes.get("callee")
    if isinstance(ref, SymbolRefAttr):
        return ref.root_reference.data
    return None


def _agent_of(op: Operation) -> tuple[AgentSwitchOp, int] | None:
    child, cur = op, op.parent_op()
    while cur is not None:
        if isinstance(cur, AgentSwitchOp):
            region = child.parent_region()
            idx = [i for i, r in enumerate(cur.agents) if r is region][0]
            return cur, idx
        child, cur = cur, cur.parent_op()
    return None


def propagate_op(op: Operation) -> None:
    """Annotate one non-agent op with regions (its children already done)."""
    if isinstance(op, AgentSwitchOp):
        nw = op.num_warps.get_values()
        for i, region in enumerate(op.agents):
            for block in region.blocks:
                for child in block.ops:
                    need = switch_warps(child) if isinstance(child, AgentSwitchOp) else (
                        child.attributes[NUM_WARPS].value.data if isinstance(child.attributes.get(NUM_WARPS), IntegerAttr) else None)
                    if need is not None and need > nw[i]:
                        raise LocatedError(child, f"{TOO_MANY} (agent {i} has {nw[i]} warps, this needs {need})")
        return
    if not op.regions or isinstance(op, ModuleOp):
        return
    values = {w for _, w in _demands(op)}
    if len(values) > 1:
        raise LocatedError(op, f"{INCONSISTENT} (found {sorted(values)})")
    if values:
        op.attributes[NUM_WARPS] = IntegerAttr(values.pop(), i32)


def check_calls(module: Operation) -> None:
    funcs = {}
    for op in module.walk():
        name = op.properties.get("sym_name") or op.attributes.get("sym_name")
        if name is not None and op.regions:
            funcs[name.data] = op
    callers: dict[str, set[int]] = {}
    for op in module.walk():
        callee = _callee(op)
        if callee is None or callee not in funcs:
            continue
        agent = _agent_of(op)
        if agent is None:
            continue
        sw, idx = agent
        warps = sw.num_warps.get_values()[idx]
        callers.setdefault(callee, set()).add(warps)
        need = funcs[callee].attributes.get(NUM_WARPS)
        if isinstance(need, IntegerAttr) and need.value.data > warps:
            raise LocatedError(op, f"{TOO_MANY} (agent {idx} has {warps} warps, @{callee} needs {need.value.data})")
    for callee, warps in callers.items():
        if len(warps) > 1:
            raise LocatedError(funcs[callee], f"{INCONSISTENT} (@{callee} is called by agents of {sorted(warps)} warps)")


def propagate_execution_unit(module: Operation, place: Callable[[AgentSwitchOp], Operation] | None = None) -> None:
    """Fold numWarps up from the innermost ops, then check the calls; ``place`` (when given)
    rewrites each agent switch first and the fold reads what it returns (the placement of
    ``optimize-execution-unit-mapping``)."""
    for op in list(post_order(module)):
        if place is not None and isinstance(op, AgentSwitchOp):
            op = place(op)
        propagate_op(op)
    check_calls(module)


@dataclass(frozen=True)
class PropagateExecutionUnit(ModuleTransform):
    """Fold numWarps up through scf ops and functions; check agents and their callees agree."""

    name = "propagate-execution-unit"
    transform = staticmethod(propagate_execution_unit)
