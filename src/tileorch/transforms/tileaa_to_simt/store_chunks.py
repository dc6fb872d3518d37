"""Stores interleaved with the loads of a straight-line SIMT kernel (a switch, default off).

The SIMT lowering emits a kernel's ops in the program's order, so a copy-like program (load a tile,
compute on it element by element, store it: a row gather, an axpby) issues every load of the tile
and then every store; each thread holds the whole tile in registers at once (a 4 x 1024 f32 row
gather at 128 threads: 32 words).  tileiras's SASS for the same gather stores each chunk before it
loads the next (issue 21, session 20: 128-thread CTAs, 48 registers, 10 CTAs per SM).  With
``TILEORCH_SIMT_STORE_CHUNK=C`` (C >= 1) the lowering splits each tile store's in-bounds branch into
one branch per group of ``C`` runs (``FunctionLowering.store_groups``), and :func:`interleave_stores`
reorders the kernel's top-level block so that each group's store comes right after the loads it
needs (those of its values, and the index loads their addresses need), each op's scalar arithmetic
just before it: fewer registers live, more CTAs resident.

When it applies (else the kernel is left as it is, and the driver says nothing):

* before the lowering, :func:`unordered_memory` holds for the ``nv_tileaa`` function: its memory
  ops all take the token of one ``create_mem_token`` (cuTile orders two accesses that may touch the
  same memory by threading one's result token into the other; untied accesses are unordered), all
  weak (a ``memory_order`` keeps the kernel as it is), no ``join_mem_token``, no atomic, print or
  assert, no loop: a store may then move above a load;
* after the lowering, the kernel's top-level block holds only loads (an ``llvm.load`` or an
  inline-assembly ``ld.``, alone or under an ``scf.if``), stores (``llvm.store`` or an inline ``st.``,
  under an ``scf.if`` or not), and side-effect-free scalar ops (``arith``, address arithmetic,
  special registers, constants): no barrier, shuffle, call, loop or shared-memory exchange.

The stores keep their order, and so do the loads one store needs; a load no store needs comes after
the stores; every op still follows the ops whose values it uses (those of its regions included).  Read at each compile (a disk-cache key).
The PTX emulator checks the reordered kernels against numpy (tests/unit/test_store_chunks.py).
"""

from __future__ import annotations


from xdsl.ir import Block, Operation

from tileorch import settings
from tileorch.transforms.tileaa_to_simt.prefetch import ordered_access

ENV = "TILEORCH_SIMT_STORE_CHUNK"
ATTR = "tileorch.store_chunk"

_PURE_PREFIXES = ("arith.", "math.", "llvm.getelementptr", "llvm.ptrtoint", "llvm.inttoptr", "llvm.bitcast",
                  "llvm.mlir.", "llvm.extractvalue", "llvm.insertvalue", "llvm.extractelement", "llvm.insertelement", "llvm.zext", "llvm.sext", "llvm.trunc",
                  "nvvm.read.ptx.sreg.", "scf.yield")
_NOT_UNORDERED = ("nv_tileaa.join_mem_token", "nv_tileaa.atomic_rmw", "nv_tileaa.atomic_cas", "nv_tileaa.print",
                  "nv_tileaa.assert", "scf.for", "scf.while", "nv_tileaa.loop")


def chunk_loads() -> int:
    """Loads per chunk (``TILEORCH_SIMT_STORE_CHUNK``: a positive integer), 0 when off (unset or other)."""
    return settings.integer(ENV)


def unordered_memory(fn: Operation) -> bool:
    """Whether the ``nv_tileaa`` function ``fn`` is straight-line and its memory ops are mutually
    unordered: every memory-token operand is the result of a ``create_mem_token`` (none threaded from
    another access), every access is weak (no ``memory_order``), and no op of :data:`_NOT_UNORDERED`
    (joins, atomics, prints, asserts, loops)."""
    from tileorch.dialects.nv_tileaa.attrs import MemTokenType

    for op in fn.walk():
        if op.name in _NOT_UNORDERED:
            return False
        if ordered_access(op):
            return False  # a relaxed / acquire / release access keeps its place
        for v in op.operands:
            if isinstance(v.type, MemTokenType):
                owner = v.owner
                if not isinstance(owner, Operation) or owner.name != "nv_tileaa.create_mem_token":
                    return False
    return True


def _asm(op: Operation) -> str:
    s = op.properties.get("asm_string")
    return s.data if s is not None else ""


def _kind(op: Operation) -> str | None:
    """``"load"``, ``"store"``, ``"pure"`` or None (an op this reordering does not move past)."""
    reads = writes = False
    for inner in op.walk():
        name = inner.name
        if name == "llvm.load":
            reads = True
        elif name == "llvm.store":
            writes = True
        elif name == "llvm.inline_asm":
            text = _asm(inner)
            is_ld, is_st = " ld." in text or "\tld." in text, " st." in text or "\tst." in text
            if not (is_ld or is_st) or any(w in text for w in ("atom.", "red.", "bar.", "shfl.", "fence", "shared")):
                return None
            reads, writes = reads or is_ld, writes or is_st
        elif name != "scf.if" and (inner.regions or not name.startswith(_PURE_PREFIXES)):
            return None  # a loop, a barrier, a shuffle, a call...: not moved past
    if op.name == "scf.if" and not (reads or writes):
        return None  # a branch of scalar ops only: left to the rest of the pipeline
    if reads and writes:
        return None
    return "load" if reads else "store" if writes else "pure"


def _deps(op: Operation, block: Block) -> list[Operation]:
    """The ops of ``block`` whose results ``op`` (or an op of its regions) uses."""
    out: list[Operation] = []
    for inner in op.walk():
        for v in inner.operands:
            owner = v.owner
            if isinstance(owner, Operation) and owner.parent_block() is block and owner is not op:
                out.append(owner)
    return out


def interleave_stores(fn: Operation, chunk: int = 1) -> int:
    """Reorder the top-level block of the lowered kernel ``fn`` (``func.func``) so that each store
    (one branch per group of ``chunk`` runs: ``FunctionLowering.store_groups``) comes right after the
    loads it needs, those loads (and the loads their addresses need) issued then, in their order
    (module docstring).  Returns the number of stores now issued before the block's last load (0:
    nothing moved, the block is as it was)."""
    block = fn.regions[0].blocks.first
    if block is None or len(fn.regions[0].blocks) != 1:
        return 0
    ops = list(block.ops)
    term, body = ops[-1], ops[:-1]
    kinds = {}
    for op in body:
        k = _kind(op)
        if k is None:
            return 0
        kinds[op] = k
    position = {op: i for i, op in enumerate(body)}
    loads = [op for op in body if kinds[op] == "load"]
    stores = [op for op in body if kinds[op] == "store"]
    if not loads or len(stores) < 2:
        return 0
    deps = {op: _deps(op, block) for op in body}

    def loads_needed(op: Operation) -> list[Operation]:
        """The loads ``op`` depends on (through pure ops and other loads), in block order; None if
        it depends on a store (not this reordering's business)."""
        out: set[Operation] = set()
        stack, seen = list(deps[op]), set()
        while stack:
            d = stack.pop()
            if d in seen:
                continue
            seen.add(d)
            if kinds[d] == "store":
                return None
            if kinds[d] == "load":
                out.add(d)
            stack.extend(deps[d])
        return sorted(out, key=position.__getitem__)

    placed: set[Operation] = set()
    order: list[Operation] = []

    def place(op: Operation) -> None:
        stack = [(op, False)]
        while stack:
            cur, expanded = stack.pop()
            if cur in placed:
                continue
            if expanded:
                placed.add(cur)
                order.append(cur)
                continue
            stack.append((cur, True))
            for d in reversed(deps[cur]):
                if d not in placed:
                    stack.append((d, False))

    for store in stores:
        needed = loads_needed(store)
        if needed is None:
            return 0
        for load in needed:
            place(load)
        place(store)
    for op in body:
        place(op)
    last_load = max(order.index(op) for op in loads)
    moved = sum(1 for op in stores if order.index(op) < last_load)
    if moved == 0 or order == body:
        return 0
    for op in order:
        op.detach()
    for op in order:
        block.insert_op_before(op, term)
    return moved


__all__ = ["ATTR", "ENV", "chunk_loads", "interleave_stores", "unordered_memory"]
