"""Which parameters of a ``cuda_tile.entry`` the kernel writes through (reads the IR only).

A parameter is *written* when a store (``store_view_tko``, ``store_ptr_tko``) or an atomic
(``atomic_rmw_tko``, ``atomic_cas_tko``, ``atomic_red_view_tko``) addresses memory reached from
it: the store's destination (its view or pointer tile) is traced back through the operands that
carry addresses (pointer tiles, views; ``int_to_ptr``'s integer and whatever computes it up to the
loads it was read by, whose addresses are followed, so a pointer read from a table -- cuTile's list
arguments -- names the table's parameter, not the index array that picked the row) to entry block
arguments.  Index operands (the offsets of ``offset``, a view's indices) are not followed:
an index array is read, not written.  Values crossing a region (loop-carried pointers, ``if``
results) are traced through every address-typed value flowing into them, so the set is an
over-approximation of the parameters written, never an under-approximation.

The launcher uses it (:func:`tileorch.launchers.cutile.check_written_arguments`) to refuse, at
launch, an output array that cannot be written correctly: read-only, elements sharing memory
(an ``expand``-ed view), or overlapping another array without being the same view.
"""

from __future__ import annotations

from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

_STORES = {  # op name -> operand name of the addressed memory
    "cuda_tile.store_view_tko": "view",
    "cuda_tile.store_ptr_tko": "destination",
}
_ATOMICS = {
    "cuda_tile.atomic_rmw_tko": "pointers",
    "cuda_tile.atomic_cas_tko": "pointers",
    "cuda_tile.atomic_red_view_tko": "view",
}


_LOAD_OPERANDS = {"cuda_tile.load_ptr_tko": "source", "cuda_tile.load_view_tko": "view"}
_LOADS = tuple(_LOAD_OPERANDS)


def _addressy(value: SSAValue) -> bool:
    """Whether ``value`` carries addresses: a pointer (tile of pointers) or a view."""
    t = value.type
    name = getattr(t, "name", "")
    if name.endswith("_view") or name == "cuda_tile.ptr":
        return True
    if name == "cuda_tile.tile":
        return getattr(getattr(t, "element_type", None), "name", "") == "cuda_tile.ptr"
    return False


def _region_inflows(op: Operation) -> list[SSAValue]:
    """The values that can flow into ``op``'s results or its blocks' arguments: its operands and the
    operands of its regions' terminators."""
    out = list(op.operands)
    for region in op.regions:
        for block in region.blocks:
            last = block.last_op
            if last is not None:
                out += list(last.operands)
    return out


def _sources(value: SSAValue, entry_block: Block) -> set[int]:
    """The entry block argument indices ``value``'s addresses are derived from."""
    found: set[int] = set()
    seen: set[int] = set()
    work: list[tuple[SSAValue, bool]] = [(value, False)]  # (value, follow every operand)
    while work:
        v, every = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, BlockArgument):
            if v.block is entry_block:
                found.add(v.index)
                continue
            parent = v.block.parent_op()
            if parent is None:
                continue
            work += [(x, every) for x in _region_inflows(parent) if every or _addressy(x)]
            continue
        assert isinstance(v, OpResult)
        op = v.op
        if op.regions:  # a loop or an if: whatever flows into its results
            work += [(x, every) for x in _region_inflows(op) if every or _addressy(x)]
            continue
        if op.name in _LOADS:  # a value read from memory (a table's pointer word): where it was read, not the indices
            work += [(x, False) for x in op.operands if _addressy(x)]
            continue
        follow_all = every or op.name == "cuda_tile.int_to_ptr"
        for x in op.operands:
            if follow_all or _addressy(x):
                work.append((x, follow_all))
    return found


def written_parameters(entry: Operation) -> dict[int, tuple[bool, str]]:
    """Per written entry parameter (block argument index): (written by a plain store -- not only by
    atomics --, the location of its first writing op as ``file:line:col`` or "")."""
    from tileorch.diagnostics import location_str

    block = entry.regions[0].blocks.first
    out: dict[int, tuple[bool, str]] = {}
    if block is None:
        return out
    for op in entry.walk():
        plain = op.name in _STORES
        operand = _STORES.get(op.name) or _ATOMICS.get(op.name)
        if operand is None:
            continue
        for index in sorted(_sources(getattr(op, operand), block)):
            was = out.get(index)
            if was is None:
                out[index] = (plain, location_str(op))
            elif plain and not was[0]:
                out[index] = (True, was[1] or location_str(op))
    return out


def read_parameters(entry: Operation) -> set[int]:
    """The entry parameters (block argument indices) whose memory the kernel loads from (``load_view_tko``,
    ``load_ptr_tko``; atomics read what they write: :func:`written_parameters`).  A parameter used only for its
    extents and strides, or not at all, is not read."""
    block = entry.regions[0].blocks.first
    out: set[int] = set()
    if block is None:
        return out
    for op in entry.walk():
        operand = _LOAD_OPERANDS.get(op.name)
        if operand is not None:
            out |= _sources(getattr(op, operand), block)
    return out


def module_read_parameters(module: Operation) -> set[int] | None:
    """:func:`read_parameters` of the module's one ``cuda_tile.entry`` (None: no single entry)."""
    entries = [op for op in module.walk() if op.name == "cuda_tile.entry"]
    if len(entries) != 1:
        return None
    return read_parameters(entries[0])


def module_written_parameters(module: Operation) -> dict[int, tuple[bool, str]] | None:
    """:func:`written_parameters` of the module's one ``cuda_tile.entry`` (None: no single entry)."""
    entries = [op for op in module.walk() if op.name == "cuda_tile.entry"]
    if len(entries) != 1:
        return None
    return written_parameters(entries[0])
