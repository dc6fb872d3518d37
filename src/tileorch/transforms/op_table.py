"""A table of functions keyed by op class, filled by a decorator.

>>> table, lowering = op_table()
>>> @lowering(SomeOp, OtherOp)                                   # doctest: +SKIP
... def _lower(op, emitter): ...

The nvvm -> llvm lowering (:mod:`.nvvm_to_llvm`) keeps one such table per op family and merges
the families' tables (``lowerings()`` of :mod:`.nvvm_payload_to_llvm` and
:mod:`.nvvm_tcgen05_to_llvm`): a family module imports no other, and nothing registers by import.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def op_table() -> tuple[dict[type, Callable[..., Any]], Callable[..., Callable[[F], F]]]:
    """An empty table and the decorator that enters a function under each op class it names."""
    table: dict[type, Callable[..., Any]] = {}

    def register(*op_types: type) -> Callable[[F], F]:
        def enter(fn: F) -> F:
            for t in op_types:
                table[t] = fn
            return fn

        return enter

    return table, register
