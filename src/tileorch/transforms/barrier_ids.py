"""``cutlass-allocate-barrier-ids``: deterministic named-barrier id allocation.

Every op that claims named barriers (``num_named_barriers() > 0``: ``cutlass.pipeline.init``,
``cutlass.seq_bar.init``) and has no ``barrier_id_base`` gets the lowest base whose
``num_named_barriers()`` consecutive ids lie in [``RESERVED_BARRIER_IDS``, ``pool_size``) and
overlap no id already claimed, in declaration (walk) order.  Each top-level op of the module
(a kernel function) has its own pool, since named barriers are per CTA; ops with an explicit
base claim their ids first.  The same IR always gets the same ids; a pool that cannot fit a
request is a located error.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32
from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation
from xdsl.passes import ModulePass

from tileorch.diagnostics import LocatedError
from tileorch.dialects.cutlass.attrs import HARDWARE_NAMED_BARRIERS, RESERVED_BARRIER_IDS


def barrier_claimants(root: Operation) -> Iterator[Operation]:
    """Ops under ``root`` (in walk order) that claim at least one named barrier."""
    for op in root.walk():
        if (
            isinstance(op, IRDLOperation)
            and "barrier_id_base" in op.get_irdl_definition().properties
            and callable(getattr(op, "num_named_barriers", None))
            and op.num_named_barriers() > 0
        ):
            yield op


def cta_pools(module: ModuleOp) -> list[list[Operation]]:
    """Claimants grouped by pool: one per top-level op with regions, one for the rest."""
    module_level: list[Operation] = []
    pools: list[list[Operation]] = []
    for top in module.body.block.ops:
        claims = list(barrier_claimants(top))
        if top.regions:
            pools.append(claims)
        else:
            module_level += claims
    return [module_level, *pools]


def _explicit_base(op: Operation) -> int | None:
    attr = op.properties.get("barrier_id_base")
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def _format_ids(ids: list[int]) -> str:
    return "none" if not ids else ", ".join(str(i) for i in ids)


def allocate_pool(ops: list[Operation], pool_size: int) -> None:
    """Assign ``barrier_id_base`` to the ops of one CTA pool (mutates the ops)."""
    used: set[int] = set()
    for op in ops:
        base = _explicit_base(op)
        if base is not None:
            used.update(range(base, base + op.num_named_barriers()))
    for op in ops:
        if _explicit_base(op) is not None:
            continue
        need = op.num_named_barriers()
        base = next(
            (
                b
                for b in range(RESERVED_BARRIER_IDS, pool_size - need + 1)
                if used.isdisjoint(range(b, b + need))
            ),
            None,
        )
        if base is None:
            free = [i for i in range(RESERVED_BARRIER_IDS, pool_size) if i not in used]
            raise LocatedError(
                op,
                f"{op.name}: named-barrier pool exhausted: needs {need} consecutive ids in "
                f"[{RESERVED_BARRIER_IDS}, {pool_size}), free ids: {_format_ids(free)}; use fewer stages "
                f"or mbarriers (the hardware has {HARDWARE_NAMED_BARRIERS} named barriers)",
            )
        op.properties["barrier_id_base"] = IntegerAttr(base, i32)
        used.update(range(base, base + need))


@dataclass(frozen=True)
class AllocateBarrierIds(ModulePass):
    """Give every named-barrier claimant without ``barrier_id_base`` one, per kernel pool.

    ``pool_size`` (default and maximum: the 16 hardware barriers) may shrink the pool, e.g. to keep
    the top ids free for hand-written ``cutlass.named_barrier`` ops."""

    name = "cutlass-allocate-barrier-ids"

    pool_size: int = HARDWARE_NAMED_BARRIERS

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not RESERVED_BARRIER_IDS < self.pool_size <= HARDWARE_NAMED_BARRIERS:
            raise LocatedError(
                op,
                f"cutlass-allocate-barrier-ids: pool_size must be in ({RESERVED_BARRIER_IDS}, "
                f"{HARDWARE_NAMED_BARRIERS}] (ids past the reserved ones, up to the hardware's named "
                f"barriers), found {self.pool_size}",
            )
        for pool in cta_pools(op):
            allocate_pool(pool, self.pool_size)
