"""``cutlass-allocate-barrier-ids``: deterministic named-barrier id allocation.

Every op that claims named barriers (``num_named_barriers() > 0``: ``cutlass.pipeline.init``,
``cutlass.seq_bar.init``) and has no ``barrier_id_base`` gets the lowest base whose
``num_named_barriers()`` consecutive ids lie in [``RESERVED_BARRIER_IDS``, ``pool_size``) and
overlap no id already claimed, in declaration (walk) order.  Each top-level op of the module
(a kernel function) has its own pool, since named barriers are per CTA.  Claimed before any
allocation: the ranges of ops with an explicit base, and every constant id that the kernel's
``cutlass.named_barrier.*`` / ``cutlass.generic_barrier.*`` ops use directly.  Located errors:
an explicit id inside a claimant's explicit range (reported at the barrier op, naming the
claimant), two explicit ranges that overlap, and a pool that cannot fit a request.  Ids held in
non-constant SSA values cannot be seen; ``pool_size`` keeps ids free for them.  The same IR
always gets the same ids.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32
from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation
from xdsl.passes import ModulePass

from tileorch.diagnostics import LocatedError, location_str
from tileorch.dialects.cutlass.attrs import HARDWARE_NAMED_BARRIERS, RESERVED_BARRIER_IDS
from tileorch.dialects.cutlass.generic_barrier import GenericBarrierOp
from tileorch.dialects.cutlass.named_barrier import NamedBarrierOp


def barrier_claimants(root: Operation) -> Iterator[Operation]:
    """Ops under ``root`` (in walk order) that claim at least one named barrier."""
    for op in root.walk():
        if _claims(op):
            yield op


_CLAIMING_CLASSES: dict[type, bool] = {}
"""Op class -> whether its ops may claim named barriers (an IRDL op whose definition has a
``barrier_id_base`` property and that has a callable ``num_named_barriers``): fixed when the
class is defined, asked once per class instead of once per op."""


def _may_claim(cls: type) -> bool:
    found = _CLAIMING_CLASSES.get(cls)
    if found is None:
        found = _CLAIMING_CLASSES[cls] = (issubclass(cls, IRDLOperation)
                                          and "barrier_id_base" in cls.get_irdl_definition().properties
                                          and callable(getattr(cls, "num_named_barriers", None)))
    return found


def _claims(op: Operation) -> bool:
    """Whether ``op`` claims at least one named barrier (its class may, and it claims some now)."""
    return _may_claim(type(op)) and op.num_named_barriers() > 0


def static_barrier_use(op: Operation) -> int | None:
    """The named-barrier id that a barrier op uses directly, when it is a compile-time constant."""
    if isinstance(op, NamedBarrierOp):
        return op.static_barrier_id()
    if isinstance(op, GenericBarrierOp) and op.barrier_id is not None:
        return op.barrier_id.value.data
    return None


def barrier_uses(root: Operation) -> Iterator[tuple[Operation, int]]:
    """``(op, id)`` for every op under ``root`` (walk order) that uses a constant named-barrier id."""
    for op in root.walk():
        barrier_id = static_barrier_use(op)
        if barrier_id is not None:
            yield op, barrier_id


@dataclass
class Pool:
    """The named-barrier id space of one CTA: the ops that claim ranges and the direct id uses."""

    claimants: list[Operation]
    uses: list[tuple[Operation, int]]


def cta_pools(module: ModuleOp) -> list[Pool]:
    """One pool per top-level op with regions (a kernel), one for the module-level rest.  Each
    top-level op is walked once for both its claimants and its barrier uses (in walk order, as
    :func:`barrier_claimants` and :func:`barrier_uses` list them: nothing changes the IR
    between the two)."""
    module_level = Pool([], [])
    pools: list[Pool] = []
    for top in module.body.block.ops:
        claimants: list[Operation] = []
        uses: list[tuple[Operation, int]] = []
        for op in top.walk():
            if _claims(op):
                claimants.append(op)
            barrier_id = static_barrier_use(op)
            if barrier_id is not None:
                uses.append((op, barrier_id))
        if top.regions:
            pools.append(Pool(claimants, uses))
        else:
            module_level.claimants += claimants
            module_level.uses += uses
    return [module_level, *pools]


def _explicit_base(op: Operation) -> int | None:
    attr = op.properties.get("barrier_id_base")
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def _format_ids(ids: list[int]) -> str:
    return "none" if not ids else ", ".join(str(i) for i in ids)


def describe_claimant(op: Operation) -> str:
    """``cutlass.pipeline.init of %a (ids 8..11, at file:line:col)``: who owns a range of ids."""
    base, count = _explicit_base(op), op.num_named_barriers()
    hint = op.operands[0].name_hint if op.operands else None
    subject = f"{op.name} of %{hint}" if hint else op.name
    return f"{subject} (ids {base}..{base + count - 1}, at {location_str(op)})"


def _claim_explicit_ranges(claimants: list[Operation]) -> dict[int, Operation]:
    """id -> claimant for every explicit ``barrier_id_base`` range; overlapping ranges are errors."""
    owner: dict[int, Operation] = {}
    for op in claimants:
        base = _explicit_base(op)
        if base is None:
            continue
        for i in range(base, base + op.num_named_barriers()):
            if i in owner:
                raise LocatedError(
                    op,
                    f"{op.name}: barrier_id_base = {base} claims named barrier {i}, which "
                    f"{describe_claimant(owner[i])} already claims; give each op a disjoint range",
                )
            owner[i] = op
    return owner


def allocate_pool(pool: Pool, pool_size: int) -> None:
    """Assign ``barrier_id_base`` to the claimants of one CTA pool (mutates the ops)."""
    owner = _claim_explicit_ranges(pool.claimants)
    for op, barrier_id in pool.uses:
        if barrier_id in owner:
            raise LocatedError(
                op,
                f"{op.name}: named barrier {barrier_id} is claimed by {describe_claimant(owner[barrier_id])}; "
                f"use an id that no pipeline or seq_bar claims, or move that op's barrier_id_base",
            )
    direct = sorted({barrier_id for _, barrier_id in pool.uses})
    used = set(owner) | set(direct)
    for op in pool.claimants:
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
            in_pool = [i for i in direct if RESERVED_BARRIER_IDS <= i < pool_size]
            taken = f" (used directly by barrier ops: {_format_ids(in_pool)})" if in_pool else ""
            raise LocatedError(
                op,
                f"{op.name}: named-barrier pool exhausted: needs {need} consecutive ids in "
                f"[{RESERVED_BARRIER_IDS}, {pool_size}), free ids: {_format_ids(free)}{taken}; use fewer "
                f"stages or mbarriers (the hardware has {HARDWARE_NAMED_BARRIERS} named barriers)",
            )
        op.properties["barrier_id_base"] = IntegerAttr(base, i32)
        used.update(range(base, base + need))


@dataclass(frozen=True)
class AllocateBarrierIds(ModulePass):
    """Give every named-barrier claimant without ``barrier_id_base`` one, per kernel pool.

    ``pool_size`` (default and maximum: the 16 hardware barriers) may shrink the pool, e.g. to keep
    the top ids free for ``cutlass.named_barrier`` ops whose id is not a constant."""

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
