"""Named-barrier ids are a per-CTA resource shared across calls (verifier side of
``cutlass-allocate-barrier-ids``).

The 16 hardware named barriers (``bar.sync`` / ``bar.arrive`` ids 0..15) belong to the CTA, not to
a function: every function a kernel calls, transitively, runs on the kernel's CTA while the
kernel's barriers are in use (a pipeline's or sequence barrier's named barriers stay live from its
init to the end of the kernel, and warp-specialised code runs other warps' barrier code at the same
time).  So a kernel and every function it reaches through ``func.call`` / ``llvm.call`` share one id
pool, and the allocator's rule holds across the whole pool:

* an id inside the explicit range ``[barrier_id_base, barrier_id_base + n)`` of a claimant
  (``cutlass.pipeline.init`` / ``cutlass.seq_bar.init`` claiming ``n`` named barriers) is used by no
  barrier op directly (``cutlass.named_barrier.*``, ``cutlass.generic_barrier.*`` with
  ``sync = named_barrier``, a static or constant id), reported at the barrier op;
* the explicit ranges of two claimants of one pool are disjoint, reported at the later claimant
  (module order).

Two direct uses of one id are not a conflict (a barrier two code paths share on purpose, e.g. a
reserved epilogue barrier).  Ranges not fixed yet (no ``barrier_id_base``) are the allocator's; ids
in non-constant values cannot be seen.  Functions that no kernel reaches through calls form their
own pools, as in the allocator.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from xdsl.dialects.builtin import IntegerAttr, StringAttr, SymbolRefAttr
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.cutlass.common import _is_function, _is_module

CALL_OPS = ("func.call", "llvm.call")
NAMED_BARRIER_OPS = ("cutlass.named_barrier.arrive", "cutlass.named_barrier.arrive_and_wait")


def _location(op: Operation) -> str:
    from tileorch.diagnostics import location_str

    return location_str(op)


def _sym_name(op: Operation) -> str | None:
    sym = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return sym.data if isinstance(sym, StringAttr) else None


def _callee(call: Operation) -> str | None:
    ref = call.properties.get("callee") or call.attributes.get("callee")
    if isinstance(ref, SymbolRefAttr):
        return ref.root_reference.data
    return None


def explicit_range(op: Operation) -> range | None:
    """The ids a claimant fixes with ``barrier_id_base`` (None without one or without ids)."""
    base = op.properties.get("barrier_id_base")
    count_of = getattr(op, "num_named_barriers", None)
    if not isinstance(base, IntegerAttr) or not callable(count_of):
        return None
    try:
        count = count_of()
    except Exception:  # noqa: BLE001 - a claimant that does not verify reports itself
        return None
    if count <= 0:
        return None
    return range(base.value.data, base.value.data + count)


def static_use(op: Operation) -> int | None:
    """The named-barrier id a barrier op uses directly, when known at compile time."""
    if op.name in NAMED_BARRIER_OPS:
        try:
            return op.static_barrier_id()  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001
            return None
    if op.name.startswith("cutlass.generic_barrier."):
        attr = op.properties.get("barrier_id")
        return attr.value.data if isinstance(attr, IntegerAttr) else None
    return None


def describe_claimant(op: Operation, ids: range) -> str:
    """``cutlass.pipeline.init of %a (ids 8..11, at file:line:col)`` (the allocator's wording)."""
    hint = op.operands[0].name_hint if op.operands else None
    subject = f"{op.name} of %{hint}" if hint else op.name
    return f"{subject} (ids {ids.start}..{ids.stop - 1}, at {_location(op)})"


@dataclass
class _Function:
    op: Operation
    name: str | None
    calls: list[tuple[str, Operation]] = field(default_factory=list)
    claimants: list[tuple[int, Operation, range]] = field(default_factory=list)


def _function_of(op: Operation) -> Operation | None:
    parent = op.parent_op()
    while parent is not None:
        if _is_function(parent):
            return parent
        if _is_module(parent):
            return None
        parent = parent.parent_op()
    return None


def _collect(table: Operation) -> list[_Function]:
    """The functions directly in ``table`` (a module) with their calls and explicit claimants,
    claimants numbered in module order."""
    functions: list[_Function] = []
    order = 0
    for region in table.regions:
        for block in region.blocks:
            for top in block.ops:
                if not _is_function(top):
                    continue
                fn = _Function(top, _sym_name(top))
                for inner in top.walk():
                    if inner.name in CALL_OPS:
                        callee = _callee(inner)
                        if callee is not None:
                            fn.calls.append((callee, inner))
                    ids = explicit_range(inner)
                    if ids is not None:
                        fn.claimants.append((order, inner, ids))
                        order += 1
                functions.append(fn)
    return functions


def _collect_memoized(table: Operation) -> list[_Function]:
    """:func:`_collect`, once per module while a whole module is verified (every named-barrier
    op's verifier asks for its pool: without the memo, one module walk per barrier op)."""
    from tileorch.diagnostics import verification_memo

    memo = verification_memo()
    if memo is None:
        return _collect(table)
    found = memo.get(("barrier_pool", id(table)))
    if found is None or found[0] is not table:
        found = memo[("barrier_pool", id(table))] = (table, _collect(table))
    return found[1]


class _Pool:
    """The functions sharing a CTA with one function ``home``, and how they are related."""

    def __init__(self, home: Operation):
        self.home = home
        table = home.parent_op()
        self.functions = _collect_memoized(table) if table is not None else []
        self.by_name = {f.name: f for f in self.functions if f.name is not None}
        self.home_fn = next((f for f in self.functions if f.op is home), None)
        self.callers: dict[str, list[tuple[str, Operation]]] = {}
        for f in self.functions:
            for callee, call in f.calls:
                if f.name is not None:
                    self.callers.setdefault(callee, []).append((f.name, call))

    def _reach(self, start: str, forward: bool) -> dict[str, tuple[str, Operation] | None]:
        """name -> (previous name, call op) on a shortest call path from ``start`` (callees when
        ``forward``, callers otherwise)."""
        seen: dict[str, tuple[str, Operation] | None] = {start: None}
        queue = deque([start])
        while queue:
            name = queue.popleft()
            if forward:
                fn = self.by_name.get(name)
                edges = [(callee, call) for callee, call in fn.calls] if fn is not None else []
            else:
                edges = self.callers.get(name, [])
            for other, call in edges:
                if other not in seen and other in self.by_name:
                    seen[other] = (name, call)
                    queue.append(other)
        return seen

    def members(self) -> list[tuple[_Function, str]]:
        """(function, how it shares the home function's CTA) for every pool member but the home."""
        if self.home_fn is None:
            return []
        home = self.home_fn.name
        if home is None:
            return []
        callers = self._reach(home, forward=False)
        result: dict[str, str] = {}
        for root in callers:
            down = self._reach(root, forward=True)
            for name in down:
                if name == home or name in result:
                    continue
                result[name] = self._relation(home, name, root)
        return [(self.by_name[n], why) for n, why in result.items()]

    def _chain(self, root: str, end: str) -> str:
        """``@root calls @a (at loc), which calls @end (at loc)``: a shortest call path."""
        reach = self._reach(root, forward=True)
        steps: list[tuple[str, Operation]] = []
        name = end
        while reach.get(name) is not None:
            prev, call = reach[name]  # type: ignore[misc]
            steps.append((name, call))
            name = prev
        text = f"@{root}"
        for i, (callee, call) in enumerate(reversed(steps)):
            text += f"{', which' if i else ''} calls @{callee} (at {_location(call)})"
        return text

    def _relation(self, home: str, other: str, root: str) -> str:
        if root == home:
            return self._chain(home, other)
        if root == other:
            return self._chain(other, home)
        return f"both run on the CTA of @{root}: {self._chain(root, other)}; {self._chain(root, home)}"


def _home(op: Operation) -> tuple[Operation, _Pool] | None:
    fn = _function_of(op)
    if fn is None or fn.parent_op() is None:
        return None
    return fn, _Pool(fn)


def _pool_claimants(op: Operation) -> list[tuple[int, Operation, range, str | None]]:
    """(order, claimant, ids, relation or None for the op's own function) over the op's pool."""
    found = _home(op)
    if found is None:
        return []
    _fn, pool = found
    if pool.home_fn is None:
        return []
    result = [(o, c, ids, None) for o, c, ids in pool.home_fn.claimants]
    for member, why in pool.members():
        result += [(o, c, ids, why) for o, c, ids in member.claimants]
    return result


def _across(relation: str | None) -> str:
    if relation is None:
        return ""
    return (f" in another function of this CTA ({relation}): named barriers are per CTA, so a kernel and "
            "every function it calls share one id pool")


def check_use(op: Operation, barrier_id: int) -> None:
    """A barrier op's direct id lies in no explicit claimant range of its CTA pool."""
    for _order, claimant, ids, relation in _pool_claimants(op):
        if claimant is not op and barrier_id in ids:
            raise VerifyException(
                f"{op.name}: named barrier {barrier_id} is claimed by {describe_claimant(claimant, ids)}"
                f"{_across(relation)}; use an id that no pipeline or seq_bar claims, or move that op's "
                "barrier_id_base"
            )


def check_claimant(op: Operation) -> None:
    """An explicit claimant range overlaps no earlier explicit range of its CTA pool."""
    mine = explicit_range(op)
    if mine is None:
        return
    entries = _pool_claimants(op)
    own = next((o for o, c, _ids, _r in entries if c is op), None)
    if own is None:
        return
    for order, claimant, ids, relation in sorted(entries, key=lambda e: e[0]):
        if claimant is op or order > own:
            continue
        clash = next((i for i in mine if i in ids), None)
        if clash is not None:
            raise VerifyException(
                f"{op.name}: barrier_id_base = {mine.start} claims named barrier {clash}, which "
                f"{describe_claimant(claimant, ids)} already claims{_across(relation)}; give each op a disjoint range"
            )
