"""Enum attributes of the barrier and block-striped families.

* ``#cutlass<generic_barrier_sync K>``: how the threads of a global-memory semaphore
  operation (``cutlass.generic_barrier.*``) synchronise among themselves, CUTLASS's
  ``Sync`` policy of ``GenericBarrier<Sync>``: ``syncthreads`` (``__syncthreads``),
  ``syncwarp`` (``__syncwarp``) or ``named_barrier`` (``bar.sync id, n`` with a raw id).
* ``#cutlass<block_striped_kind K>``: the combining operation of
  ``cutlass.block_striped.reduce``: ``add`` (atomic add, CUTLASS ``BlockStripedReduce``)
  or ``max`` (atomic max).
"""

from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.utils.str_enum import StrEnum

from tileorch.dialects.attr_factory import enum_attr


class GenericBarrierSync(StrEnum):
    SYNCTHREADS = "syncthreads"
    SYNCWARP = "syncwarp"
    NAMED_BARRIER = "named_barrier"


_SPACED = SpacedOpaqueSyntaxAttribute
GenericBarrierSyncAttr = enum_attr("cutlass.generic_barrier_sync", GenericBarrierSync, _SPACED)


class BlockStripedKind(StrEnum):
    ADD = "add"
    MAX = "max"


BlockStripedKindAttr = enum_attr("cutlass.block_striped_kind", BlockStripedKind, _SPACED)


ATTRS: list[type] = [GenericBarrierSyncAttr, BlockStripedKindAttr]
