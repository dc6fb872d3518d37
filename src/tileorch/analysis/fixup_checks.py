"""Checks of hand-written Stream-K fix-ups (``fixup_wait`` / ``fixup_increment`` with
``cutlass.block_striped.*``) beyond the three-way split protocol of :mod:`extract`:

* an output tile that is **not split** runs the same work-tile body once (K tile 0, every K tile,
  final): it must not read or reduce into the workspace, which no split wrote (the model
  checker's fix-up-order property reports the read);
* every output tile needs its **own partial-tile region**: a workspace pointer defined outside the
  work-tile loop is the same for all tiles (rejected with a located error).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation

from tileorch.analysis.evaluate import Evaluator
from tileorch.analysis.protocol import Agent, Epilogue, Protocol
from tileorch.diagnostics import LocatedError
from tileorch.dialects.nvvm_common import address_space

SPLITS = 3  # K tiles of the unsplit tile (as many as the split protocol's splits)


def _work_tile_body(kernel):
    first, rg, threads = kernel.fixup_user[0]
    body = first.parent_block()
    holder = body.parent_op() if body is not None else None
    while holder is not None and holder is not rg.owner and holder.name not in ("scf.for", "scf.while"):
        body = holder.parent_block()
        holder = body.parent_op()
    return body, holder, rg, threads


def unsplit_protocol(kernel, name: str, fixup_block) -> Protocol:
    """The fix-up protocol of an output tile done by one unit of work (not split)."""
    body, holder, rg, threads = _work_tile_body(kernel)
    ev = Evaluator((min(threads), max(threads)), {"k_tile_start": 0, "k_tile_count": SPLITS, "final": 1})
    prog = fixup_block(body, ev) + [Epilogue("tile", origin=holder)]
    agent = Agent("unsplit", "fixup", tuple(prog), threads=len(threads), partial=0, origin=rg.owner)
    return Protocol(f"{name}.fixup_unsplit", (), (agent,), deterministic=True,
                    partials=(("tile", (0,)),), origin=holder)


def cta_local_tile(op: Operation) -> bool:
    """A ``cutlass.block_striped`` op on a shared-memory tile (``!llvm.ptr<3>``, or a memref in address space 3):
    the CTA's own fragments, never a Stream-K workspace partial other splits read."""
    if not op.name.startswith("cutlass.block_striped."):
        return False
    ptr = getattr(op, "ptr", None)
    if ptr is None:
        return False
    if address_space(ptr) == 3:
        return True
    space = getattr(ptr.type, "memory_space", None)
    return isinstance(space, IntegerAttr) and space.value.data == 3


def check_per_tile_workspace(body, holder: Operation | None) -> None:
    """Reject a ``cutlass.block_striped`` workspace pointer defined outside the work-tile loop."""
    if holder is None or holder.name not in ("scf.for", "scf.while") or body is None:
        return
    for top in body.ops:
        for op in top.walk():
            ptr = getattr(op, "ptr", None) if op.name.startswith("cutlass.block_striped.") else None
            if ptr is None or cta_local_tile(op):
                continue
            owner = ptr.owner
            defining = owner if isinstance(owner, Operation) else owner.parent_op()
            if defining is None or not (defining is holder or holder.is_ancestor(defining)):
                raise LocatedError(
                    op, "the partial-tile workspace pointer is defined outside the work-tile loop "
                    f"({holder.name}), so every output tile uses the same region; offset it by the "
                    "work tile (e.g. its linear tile index times the tile size)")
