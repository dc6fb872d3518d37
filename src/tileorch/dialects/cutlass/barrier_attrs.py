"""Enum attributes of the barrier and block-striped families.

* ``#cutlass<generic_barrier_sync K>``: how the threads of a global-memory semaphore
  operation (``cutlass.generic_barrier.*``) synchronise among themselves, CUTLASS's
  ``Sync`` policy of ``GenericBarrier<Sync>``: ``syncthreads`` (``__syncthreads``),
  ``syncwarp`` (``__syncwarp``) or ``named_barrier`` (``bar.sync id, n`` with a raw id).
* ``#cutlass<block_striped_kind K>``: the combining operation of
  ``cutlass.block_striped.reduce``: ``add`` (atomic add, CUTLASS ``BlockStripedReduce``)
  or ``max`` (atomic max).
"""

from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.str_enum import StrEnum


class GenericBarrierSync(StrEnum):
    SYNCTHREADS = "syncthreads"
    SYNCWARP = "syncwarp"
    NAMED_BARRIER = "named_barrier"


@irdl_attr_definition
class GenericBarrierSyncAttr(EnumAttribute[GenericBarrierSync], SpacedOpaqueSyntaxAttribute):
    name = "cutlass.generic_barrier_sync"


class BlockStripedKind(StrEnum):
    ADD = "add"
    MAX = "max"


@irdl_attr_definition
class BlockStripedKindAttr(EnumAttribute[BlockStripedKind], SpacedOpaqueSyntaxAttribute):
    name = "cutlass.block_striped_kind"


ATTRS: list[type] = [GenericBarrierSyncAttr, BlockStripedKindAttr]
