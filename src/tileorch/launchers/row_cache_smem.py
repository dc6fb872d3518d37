"""The dynamic shared memory of a SIMT kernel that keeps a row in shared memory between two loops
(``TILEORCH_ROW_SMEM_CACHE=auto`` -- the default -- or ``1``, ``transforms/tileaa_to_simt/row_cache_lowering.py``).

:func:`launch_smem`: the kernel's scratch (``program.smem``) plus one slot of ``slot bytes`` per tile of the
row, the row's extent read from the launch's own parameter (``program.row_cache = [parameter index,
elements per slot, slot bytes]``), capped at what a CTA may opt into and at ``TILEORCH_ROW_SMEM_CACHE_BYTES``
(a measuring switch: fewer bytes, more CTAs per SM).  :func:`auto_declines`: under the default
``TILEORCH_ROW_SMEM_CACHE=auto``, the launches whose row is too long to gain from the cache.  The kernel tests each slot
against ``%dynamic_smem_size``: a row longer than the cap keeps what fits and reloads the rest from
global memory, so the size is a performance choice, never a correctness one.
"""

from __future__ import annotations

import struct

from tileorch import settings
from tileorch.runtime.launch import MAX_DYNAMIC_SMEM


def _extent(record, params: list[bytes]) -> int | None:
    """The row's extent (elements along the axis) this launch passes, or None when it is not a parameter."""
    index = record[0]
    if index < 0 or index >= len(params) or len(params[index]) != 4:
        return None
    return struct.unpack("<i", params[index])[0]


def row_bytes(program, params: list[bytes]) -> int | None:
    """Shared-memory bytes the row of this launch takes when all of it is kept (a slot per tile of the row);
    None when ``program`` keeps no row or the row's extent is not one of its parameters."""
    record = getattr(program, "row_cache", None)
    if not record:
        return None
    extent = _extent(record, params)
    return None if extent is None else max(0, -(-extent // record[1])) * record[2]


def _rows_aligned(record, params: list[bytes]) -> bool:
    """The rows of this launch start 16-byte aligned when the first does (the row's bytes, its extent times the
    element size ``slot bytes / elements per slot``, a multiple of 16: a contiguous array's row pitch), so the
    bulk fill copies every row; otherwise most rows take the cache's loaded path, whose fill is no faster than
    reading the row again (``row_bulk_fill``'s run-time test; the session 31 review)."""
    per_slot, slot_bytes = record[1:3]
    extent = _extent(record, params)
    return extent is not None and not slot_bytes % per_slot and extent * (slot_bytes // per_slot) % 16 == 0


def auto_declines(program, params: list[bytes]) -> str | None:
    """Under ``TILEORCH_ROW_SMEM_CACHE=auto`` (the default): why this launch of ``program`` (compiled with the
    cache) should run the kernel compiled without it, or None to run it as it is.  Measured on an H100
    (session 31, ``benchmarks/session31_rowcap.sh``): a 16 KiB row (log-softmax, 8192 bf16 columns) 0.67 -> 1.00
    of the copy rate with the cache; a 64 KiB row (32000 columns) leaves 3 CTAs an SM and loses (CE forward +
    backward 0.64 -> 0.57, a three-loop softmax 0.46 -> 0.42, also with the cache capped or given no bytes: the
    cached kernel's own code), so rows above ``TILEORCH_ROW_SMEM_CACHE_AUTO_BYTES`` (32 KiB) run without it --
    unless the kernel bulk-copies the row into its slots (``program.row_cache[3]``, ``TILEORCH_ROW_BULK_FILL``,
    the default): then the 32000-column rows win too (log-softmax 0.64 -> 0.95 of copy, CE forward + backward
    0.63 -> 0.77, three loops 0.46 -> 0.48; ``benchmarks/session31_bulkfill.sh``) and every row keeps the cache."""
    record = getattr(program, "row_cache", None)
    if not record or settings.value("TILEORCH_ROW_SMEM_CACHE") != "auto":
        return None
    if len(record) > 3 and record[3] and _rows_aligned(record, params):
        return None  # bulk-filled (row_bulk_fill.py): the whole row in flight at once, any length
    size = row_bytes(program, params)
    limit = settings.integer("TILEORCH_ROW_SMEM_CACHE_AUTO_BYTES")
    if size is None:
        return "the row's length is not a parameter of the launch (no shared memory is sized for it)"
    if size > limit:
        return (f"its row takes {size} bytes of shared memory, more than TILEORCH_ROW_SMEM_CACHE_AUTO_BYTES={limit} "
                "(fewer CTAs an SM: slower than reading the row again)")
    return None


def launch_smem(program, params: list[bytes]) -> int:
    """Bytes of dynamic shared memory to launch ``program`` with, for its packed parameters ``params``."""
    smem = int(getattr(program, "smem", 0) or 0)
    record = getattr(program, "row_cache", None)
    if not record:
        return smem
    need = row_bytes(program, params)
    if need is None:
        return smem  # extent not a parameter: no slot (every read reloads from global memory)
    slot_bytes = record[2]
    room = min(MAX_DYNAMIC_SMEM - smem, int(settings.value("TILEORCH_ROW_SMEM_CACHE_BYTES") or MAX_DYNAMIC_SMEM)) // slot_bytes
    return smem + min(need // slot_bytes, room) * slot_bytes


__all__ = ["auto_declines", "launch_smem", "row_bytes"]
