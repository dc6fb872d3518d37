"""Base classes for the passes whose ``apply`` is plumbing around one transformation.

A subclass names the pass and sets ``transform`` (``staticmethod(f)``); the base decides what
``f`` is applied to:

* :class:`ModuleTransform`: the whole module (``states_remarks``: ``f(module, remarks)`` with the list of
  :func:`tileorch.transforms.remark_sink.sink` for the pass, None when no driver collects them);
* :class:`FunctionTransform`: each function with a body (:func:`tileas.common.functions`);
* :class:`OpTransform`: each op of type ``OP``, collected before the first change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from tileorch.transforms.remark_sink import sink
from tileorch.transforms.tileas.common import functions


@dataclass(frozen=True)
class ModuleTransform(ModulePass):
    """``transform(module)`` (``transform(module, remarks)`` where ``states_remarks``)."""

    transform: ClassVar[Callable[..., object]]
    states_remarks: ClassVar[bool] = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.states_remarks:
            self.transform(op, sink(self.name))
        else:
            self.transform(op)


@dataclass(frozen=True)
class FunctionTransform(ModulePass):
    """``transform(func)`` for every function with a body."""

    transform: ClassVar[Callable[[Operation], object]]

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in functions(op):
            self.transform(func)


@dataclass(frozen=True)
class OpTransform(ModulePass):
    """``transform(o)`` for every op ``o`` of type ``OP`` in the module (listed first, so that
    the transformation may replace or erase them)."""

    OP: ClassVar[type[Operation] | tuple[type[Operation], ...]]
    transform: ClassVar[Callable[[Operation], object]]

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in [o for o in op.walk() if isinstance(o, self.OP)]:
            self.transform(o)
