"""The dynamic shared memory of a SIMT kernel that keeps a row in shared memory between two loops
(``TILEORCH_ROW_SMEM_CACHE=1``, ``transforms/tileaa_to_simt/row_cache_lowering.py``).

:func:`launch_smem`: the kernel's scratch (``program.smem``) plus one slot of ``slot bytes`` per tile of the
row, the row's extent read from the launch's own parameter (``program.row_cache = [parameter index,
elements per slot, slot bytes]``), capped at what a CTA may opt into and at ``TILEORCH_ROW_SMEM_CACHE_BYTES``
(a measuring switch: fewer bytes, more CTAs per SM).  The kernel tests each slot
against ``%dynamic_smem_size``: a row longer than the cap keeps what fits and reloads the rest from
global memory, so the size is a performance choice, never a correctness one.
"""

from __future__ import annotations

import struct

from tileorch import settings
from tileorch.runtime.launch import MAX_DYNAMIC_SMEM


def launch_smem(program, params: list[bytes]) -> int:
    """Bytes of dynamic shared memory to launch ``program`` with, for its packed parameters ``params``."""
    smem = int(getattr(program, "smem", 0) or 0)
    record = getattr(program, "row_cache", None)
    if not record:
        return smem
    index, per_slot, slot_bytes = record
    if index < 0 or index >= len(params) or len(params[index]) != 4:
        return smem  # extent not a parameter: no slot (every read reloads from global memory)
    extent = struct.unpack("<i", params[index])[0]
    tiles = max(0, -(-extent // per_slot))
    room = min(MAX_DYNAMIC_SMEM - smem, int(settings.value("TILEORCH_ROW_SMEM_CACHE_BYTES") or MAX_DYNAMIC_SMEM)) // slot_bytes
    return smem + min(tiles, room) * slot_bytes


__all__ = ["launch_smem"]
