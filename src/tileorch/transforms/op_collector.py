"""A list of newly built ops in program order, for lowerings that replace one op by several
(:mod:`.store_fragment`, :mod:`.blackwell_cluster_emitters`)."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, i32
from xdsl.ir import Operation, SSAValue

from tileorch.transforms.attr_cache import integer


class OpCollector:
    """Collects the ops that replace one op: :meth:`add` appends an op and returns its first
    result (``None`` for an op without results); :meth:`c` adds an ``arith.constant``."""

    def __init__(self) -> None:
        self.ops: list[Operation] = []

    def add(self, op: Operation) -> SSAValue | None:
        self.ops.append(op)
        return op.results[0] if op.results else None

    def c(self, value: int, typ: IntegerType = i32) -> SSAValue:
        """``arith.constant value : typ`` (i32 by default)."""
        return self.add(arith.ConstantOp(integer(value, typ)))
