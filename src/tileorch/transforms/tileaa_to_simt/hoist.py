"""The order in which the SIMT lowering emits a kernel's top-level ops: its global tile loads
first.

A row program written as users write it (layernorm: load the row, two reductions, then load
the weight and bias and combine) would issue its loads one after the other, each after the
reductions before it: the weight's load latency adds to the row's.  :func:`loads_first` moves
each such load, with the scalar ops that compute its operands, to the start of the block, so
all of the program's loads are in flight together (the lowering issues each as predicated
vector loads before any branch: ``Emitter.load_words_if``).

A load moves only when it is safe and cheap:

* it is a weak ``nv_tileaa.tiled_load`` and no op before it in the block writes memory or has
  regions other than a ``reduce``/``scan`` combiner (a store, an atomic, a loop, a branch: the
  load then reads what it would have read, and a loop's loads are ``prefetch.py``'s business);
* the ops that define its operands in the block (transitively) are region-free, write nothing,
  load nothing and produce no tile (views, program ids, index arithmetic): cheap to move;
* the moved tiles fit :data:`MAX_HOISTED_WORDS` 32-bit registers per thread together (held
  as packed words until used).

The other ops keep their order; the moved ones keep theirs among themselves, so every op
still follows the ops it uses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from tileorch.transforms.tileaa_to_simt.prefetch import WRITES

MAX_HOISTED_WORDS = 64
_COMBINERS = ("nv_tileaa.reduce", "nv_tileaa.scan")
_LOADS = ("nv_tileaa.tiled_load", "nv_tileaa.load")


def _barrier(op: Operation) -> bool:
    """No load moves above ``op``."""
    if op.name in WRITES:
        return True
    return bool(op.regions) and op.name not in _COMBINERS


def _cheap(op: Operation) -> bool:
    return (not op.regions and op.name not in WRITES and op.name not in _LOADS
            and not any(isinstance(r.type, TensorType) for r in op.results))


def loads_first(ops: Sequence[Operation], words_of: Callable[[Operation], int]) -> list[Operation]:
    """``ops`` (one block, in order) reordered so that the loads that may move (see the module
    docstring) and their operand slices come first; ``words_of(load)`` is the registers per
    thread its tile holds."""
    moved, rest = split_loads_first(ops, words_of)
    return moved + rest


def split_loads_first(ops: Sequence[Operation],
                      words_of: Callable[[Operation], int]) -> tuple[list[Operation], list[Operation]]:
    """:func:`loads_first` as two lists: the moved loads with their slices (in order; weak tiled
    loads, bounds-checked per element, and region-free scalar ops: safe to run for a program id
    past the grid) and the other ops (in order)."""
    ops = list(ops)
    index = {op: i for i, op in enumerate(ops)}
    moved: set[Operation] = set()
    budget = MAX_HOISTED_WORDS
    for op in ops:
        if _barrier(op):
            break
        if op.name != "nv_tileaa.tiled_load":
            continue
        sem = op.mem_semantic
        if sem is not None and sem.value.data != "weak":
            continue
        need: set[Operation] = set()
        stack = [op]
        ok = True
        while stack and ok:
            cur = stack.pop()
            for v in cur.operands:
                owner = v.owner
                if not isinstance(owner, Operation) or owner not in index or owner in moved or owner in need:
                    continue
                if not _cheap(owner):
                    ok = False
                    break
                need.add(owner)
                stack.append(owner)
        words = words_of(op)
        if not ok or words > budget:
            continue
        budget -= words
        moved |= need | {op}
    return [op for op in ops if op in moved], [op for op in ops if op not in moved]


__all__ = ["MAX_HOISTED_WORDS", "loads_first", "split_loads_first"]
