"""The shape every ``convert-pipeline-to-nvvm`` pattern shares.

A pattern names the op it lowers (``OP``) and implements :meth:`OpLowering.lower`, which gets
the op and an :class:`Emitter` and returns the lowered values of the op's results (or ``None``
for an op without results).  The base class matches by op name, converts the results back to
their source types for not-yet-lowered users, keeps the source location, adds the emitter's
module-level ops (storage, strings) at the module start and its entry ops (allocas) at the
start of the enclosing function, and replaces the op.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence

from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from tileorch.diagnostics import LocatedError, copy_location
from tileorch.transforms.pipeline_to_nvvm.emit import Emitter
from tileorch.transforms.pipeline_to_nvvm.options import LoweringOptions
from tileorch.transforms.pipeline_to_nvvm.types import as_lowered, as_source


class OpLowering(RewritePattern):
    """Lower every op named ``OP``."""

    OP: str = ""

    @abstractmethod
    def lower(self, op: Operation, e: Emitter) -> Sequence[SSAValue] | None:
        """Emit the replacement of ``op`` into ``e``; return the values of its results."""

    def applies_to(self, op: Operation) -> bool:
        """Extra match condition for patterns sharing an op name (e.g. increment vs bump)."""
        return True

    @staticmethod
    def operand(e: Emitter, value: SSAValue) -> SSAValue:
        return as_lowered(e, value)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.name != self.OP or not self.applies_to(op):
            return
        e = Emitter()
        results = self.lower(op, e) or []
        new_results = [as_source(e, v, r.type) for v, r in zip(results, op.results, strict=True)]
        copy_location(op, e.ops)
        if e.globals:
            module = op.get_toplevel_object()
            rewriter.insert(e.globals, InsertPoint.at_start(module.regions[0].block))
        if e.entry_ops:
            copy_location(op, e.entry_ops)
            rewriter.insert(e.entry_ops, InsertPoint.at_start(function_entry(op)))
        rewriter.replace(op, e.ops, new_results)


class NamedOpRewrite(RewritePattern):
    """A rewrite of the ops named in ``OPS`` (the names :class:`OpNameDispatch` looks it up by):
    :meth:`rewrite` sees only those."""

    OPS: tuple[str, ...] = ()

    @abstractmethod
    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        """Rewrite ``op``, one of ``OPS``."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.name in self.OPS:
            self.rewrite(op, rewriter)


class OptionsLowering(OpLowering):
    """An :class:`OpLowering` whose lowering reads the pass's :class:`LoweringOptions` (``self.options``)."""

    def __init__(self, options: LoweringOptions):
        super().__init__()
        self.options = options


def pattern_ops(pattern: RewritePattern) -> tuple[str, ...] | None:
    """The op names ``pattern`` can match (its ``OP``, or an ``OPS`` tuple), or None when it may
    match any op."""
    ops = getattr(pattern, "OPS", None)
    if ops:
        return tuple(ops)
    op = getattr(pattern, "OP", "")
    return (op,) if op else None


class OpNameDispatch(RewritePattern):
    """The patterns of a :class:`GreedyRewritePatternApplier`, tried only on the ops they name.

    Behaves as trying ``patterns`` in order until one acts, but looks the candidates up by
    ``op.name`` first (a pattern without ``OP``/``OPS`` is a candidate for every op, in its
    place in the order): with sixty name-matched patterns, a lowering otherwise calls sixty
    ``match_and_rewrite`` per op visited."""

    def __init__(self, patterns: Sequence[RewritePattern]):
        self.patterns = list(patterns)
        self.names = {n for p in self.patterns for n in (pattern_ops(p) or ())}
        self._any = [p for p in self.patterns if pattern_ops(p) is None]
        self._by_name: dict[str, list[RewritePattern]] = {}

    def candidates(self, name: str) -> list[RewritePattern]:
        found = self._by_name.get(name)
        if found is None:
            found = self._by_name[name] = [p for p in self.patterns
                                           if (ops := pattern_ops(p)) is None or name in ops]
        return found

    def op_names(self) -> frozenset[str] | None:
        """The names of the ops some pattern may act on; None when a pattern may act on any op."""
        return None if self._any else frozenset(self.names)

    def matches_any(self, names: set[str]) -> bool:
        """Whether some op named in ``names`` has a candidate pattern."""
        return bool(self._any) or not self.names.isdisjoint(names)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        for pattern in self.candidates(op.name):
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


FUNCTION_OPS = ("func.func", "llvm.func", "nv_tileas.kernel")


def function_entry(op: Operation) -> Block:
    """The entry block of the function enclosing ``op`` (where allocas must live)."""
    parent = op.parent_op()
    while parent is not None and parent.name not in FUNCTION_OPS:
        parent = parent.parent_op()
    if parent is None:
        raise LocatedError(op, f"'{op.name}' needs an enclosing function for its debug-timeout report buffer")
    return parent.regions[0].blocks[0]
