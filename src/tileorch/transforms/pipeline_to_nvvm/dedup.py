"""Wait-group dedup walker: after the patterns ran, collapse the group waits they emitted.

In every block, per flavour (bulk async = ``cp.async.bulk.wait_group``, WGMMA =
``wgmma.wait.group.sync.aligned``), a run of tagged waits with no commit of that flavour in
between keeps exactly one wait: the first, strengthened to the smallest pending count of the
run (waiting earlier for at least as much is always safe, and with no new commit the later waits
have nothing left to wait for).  mbarrier waits are never touched: each belongs to its own slot.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation

from tileorch.transforms.pipeline_to_nvvm.async_ops import DEDUP_TAG

WAITS = {"nvvm.cp.async.bulk.wait_group": "tma", "nvvm.wgmma.wait.group.sync.aligned": "gmma"}
COMMITS = {"nvvm.cp.async.bulk.commit.group": "tma", "nvvm.wgmma.commit.group.sync.aligned": "gmma"}


def _dedup_block(block: Block) -> None:
    """Dedupe the tagged group waits of ``block`` and drop the tag of each of its ops (read once,
    as the op is reached: only the op itself reads its tag)."""
    open_wait: dict[str, Operation] = {}
    for op in list(block.ops):
        tagged = op.attributes.pop(DEDUP_TAG, None) is not None
        flavor = COMMITS.get(op.name)
        if flavor is not None:
            open_wait.pop(flavor, None)
            continue
        if op.regions or op.name in ("func.call", "llvm.call"):
            open_wait.clear()  # nested code or a callee may commit groups
            continue
        flavor = WAITS.get(op.name)
        if flavor is None or not tagged:
            continue
        first = open_wait.get(flavor)
        if first is None:
            open_wait[flavor] = op
            continue
        pending = min(first.properties["group"].value.data, op.properties["group"].value.data)
        first.properties["group"] = IntegerAttr(pending, first.properties["group"].type)
        op.detach()
        op.erase()


def dedup_wait_groups(module: ModuleOp) -> None:
    """Dedupe the tagged group waits of every block and drop the tags, in one walk: every op but
    the module is in one of the blocks (the dedup erases waits only, adds and moves nothing)."""
    module.attributes.pop(DEDUP_TAG, None)
    for op in list(module.walk()):
        for region in op.regions:
            for block in region.blocks:
                _dedup_block(block)
