"""Static values of SSA integers in one agent's context, for the IR front end.

:class:`Evaluator` computes an interval ``(lo, hi)`` for an integer / index / i1 SSA value from
what is known about the agent: its thread range (``gpu.thread_id x``,
``nvvm.read.ptx.sreg.tid.x``; for one thread, whether ``nvvm.elect.sync`` elects it: lane 0 of
its warp stands for the elected lane), the facts of the work tile it processes (Stream-K split:
``k_tile_start``, ``k_tile_count``, ``final``), and constants.  A value is *static* when its
interval is a single point.  Anything else (function arguments, loads, unknown ops) is
``None``: unknown.  The checker uses it to resolve ``seq_bar`` group ids, loop bounds and
``scf.if`` conditions per agent; an unknown condition becomes a nondeterministic choice, never
an assumption.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import IntegerAttr, i1
from xdsl.ir import Operation, SSAValue

Interval = tuple[int, int]

# arith.cmpi predicates (MLIR numbering): eq ne slt sle sgt sge ult ule ugt uge
_CMP: dict[int, Callable[[Interval, Interval], bool | None]] = {}


def _decide(always: bool, never: bool) -> bool | None:
    return True if always else False if never else None


_CMP[0] = lambda a, b: _decide(a[0] == a[1] == b[0] == b[1], a[1] < b[0] or b[1] < a[0])
_CMP[1] = lambda a, b: (lambda r: None if r is None else not r)(_CMP[0](a, b))
_CMP[2] = lambda a, b: _decide(a[1] < b[0], a[0] >= b[1])
_CMP[3] = lambda a, b: _decide(a[1] <= b[0], a[0] > b[1])
_CMP[4] = lambda a, b: _CMP[2](b, a)
_CMP[5] = lambda a, b: _CMP[3](b, a)
for _u, _s in ((6, 2), (7, 3), (8, 4), (9, 5)):
    _CMP[_u] = _CMP[_s]          # the values the evaluator knows are never negative


class Evaluator:
    """Intervals of SSA values given a thread range and work-tile facts."""

    def __init__(self, threads: Interval | None = None, work: dict[str, int] | None = None):
        self.threads = threads
        self.work = dict(work or {})
        self.memo: dict[SSAValue, Interval | None] = {}

    def constant(self, value: SSAValue) -> int | None:
        iv = self.interval(value)
        return iv[0] if iv is not None and iv[0] == iv[1] else None

    def truth(self, value: SSAValue) -> bool | None:
        c = self.constant(value)
        return None if c is None else bool(c)

    def interval(self, value: SSAValue) -> Interval | None:
        if value not in self.memo:
            self.memo[value] = self._interval(value)
        return self.memo[value]

    def _interval(self, value: SSAValue) -> Interval | None:
        op = value.owner
        if not isinstance(op, Operation):
            return None
        name = op.name
        if name == "arith.constant":
            attr = op.properties.get("value", op.attributes.get("value"))
            if isinstance(attr, IntegerAttr):
                v = attr.value.data & 1 if attr.type == i1 else attr.value.data
                return (v, v)
            return None
        if name == "gpu.thread_id":
            dim = op.properties.get("dimension")
            return self.threads if dim is not None and dim.data.value == "x" else None
        if name == "nvvm.read.ptx.sreg.tid.x":
            return self.threads
        if name == "nvvm.elect.sync" and not op.operands:
            # one lane of each warp is elected; the checker takes lane 0 (for one thread)
            t = self.threads
            return None if t is None or t[0] != t[1] else (int(t[0] % 32 == 0),) * 2
        if name in ("arith.index_cast", "arith.index_castui", "arith.extui", "arith.extsi",
                    "arith.trunci"):
            return self.interval(op.operands[0])
        if name in _WORK_QUERIES:
            v = self.work.get(_WORK_QUERIES[name])
            return None if v is None else (v, v)
        if name in _CTA_QUERIES:  # known only to an evaluator given the CTA (transfers.stage_slots)
            v = self.work.get(_CTA_QUERIES[name])
            return None if v is None else (v, v)
        if name == "cutlass.tile_scheduler.work_tile_info_get_value":
            field = op.properties.get("field")
            v = self.work.get(field.data.value) if field is not None else None
            return None if v is None else (v, v)
        if name == "arith.select":
            cond = self.truth(op.operands[0])
            if cond is not None:
                return self.interval(op.operands[1 if cond else 2])
            a, b = self.interval(op.operands[1]), self.interval(op.operands[2])
            return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))
        if name == "arith.cmpi":
            a, b = self.interval(op.operands[0]), self.interval(op.operands[1])
            pred = op.properties["predicate"].value.data
            r = None if a is None or b is None else _CMP[pred](a, b)
            return None if r is None else (int(r), int(r))
        return self._binary(op)

    def _binary(self, op: Operation) -> Interval | None:
        if op.name not in _BINARY or len(op.operands) != 2:
            return None
        a, b = self.interval(op.operands[0]), self.interval(op.operands[1])
        if a is None or b is None:
            return None
        return _BINARY[op.name](a, b)


def _div(a: Interval, b: Interval) -> Interval | None:
    if b[0] != b[1] or b[0] <= 0 or a[0] < 0:
        return None
    return (a[0] // b[0], a[1] // b[0])


def _rem(a: Interval, b: Interval) -> Interval | None:
    if b[0] != b[1] or b[0] <= 0 or a[0] < 0:
        return None
    if a[0] // b[0] == a[1] // b[0]:
        return (a[0] % b[0], a[1] % b[0])
    return (0, b[0] - 1)


def _mul(a: Interval, b: Interval) -> Interval:
    products = [x * y for x in a for y in b]
    return (min(products), max(products))


def _point(fn: Callable[[int, int], int]) -> Callable[[Interval, Interval], Interval | None]:
    return lambda a, b: (fn(a[0], b[0]),) * 2 if a[0] == a[1] and b[0] == b[1] else None


_BINARY: dict[str, Callable[[Interval, Interval], Interval | None]] = {
    "arith.addi": lambda a, b: (a[0] + b[0], a[1] + b[1]),
    "arith.subi": lambda a, b: (a[0] - b[1], a[1] - b[0]),
    "arith.muli": _mul,
    "arith.divui": _div,
    "arith.divsi": _div,
    "arith.floordivsi": _div,
    "arith.remui": _rem,
    "arith.remsi": _rem,
    "arith.andi": _point(lambda x, y: x & y),
    "arith.ori": _point(lambda x, y: x | y),
    "arith.xori": _point(lambda x, y: x ^ y),
    "arith.minsi": lambda a, b: (min(a[0], b[0]), min(a[1], b[1])),
    "arith.maxsi": lambda a, b: (max(a[0], b[0]), max(a[1], b[1])),
}

_WORK_QUERIES = {
    "cutlass.tile_scheduler.get_work_k_tile_start": "k_tile_start",
    "cutlass.tile_scheduler.get_work_k_tile_count": "k_tile_count",
    "cutlass.tile_scheduler.compute_epilogue": "final",
}

_CTA_QUERIES = {
    "nvvm.read.ptx.sreg.cluster.ctarank": "cta_rank",
    "nvvm.read.ptx.sreg.cluster.ctaid.x": "cta_x",
    "nvvm.read.ptx.sreg.cluster.ctaid.y": "cta_y",
    "cutlass.pipeline.state.get_index": "stage_index",
}
"""Facts of one CTA of the cluster and one stage, set in ``work`` by the caller that fixes them."""
