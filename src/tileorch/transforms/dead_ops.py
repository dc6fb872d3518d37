"""xDSL's trivial dead-code test with an early exit, and the greedy applier that uses it.

xDSL's ``GreedyRewritePatternApplier`` asks ``is_trivially_dead(op)`` of every op its walker
visits before trying the patterns: no result used, not a terminator or symbol, and every memory
effect of the op (``get_effects``: for an op with ``RecursiveMemoryEffect``, the union of the
effects of every op nested in it) a read, or an allocation of a value defined inside it.  The
union is built in full before it is tested, so an ``scf.if``/``scf.for`` without results (a
pipeline stage, a K loop) had its whole body's effects collected each time the walker visited
it, though its first store already decides the answer; nested loops made that quadratic in the
nesting depth.  :func:`is_trivially_dead` gives the same answer and stops at the first effect
that makes the op live (a write, a free, an allocation of an outside value, an op of unknown
effects).

The answer is the same because an unknown effect anywhere makes ``get_effects`` return None
(live) and any other disqualifying effect makes the union fail the test (live): which one is
met first does not matter.  Only the effect traits' ``get_effects`` are called, as xDSL calls
them, but fewer of them (none of them has side effects or raises on a valid op).  What the test
reads of an op's class (terminator or symbol, its effect traits) is kept per class.

:class:`GreedyApplier` is ``GreedyRewritePatternApplier`` (without folding) using it.
"""

from __future__ import annotations

from xdsl.ir import Operation, OpTraits, SSAValue
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter
from xdsl.traits import IsTerminator, MemoryEffect, MemoryEffectKind, RecursiveMemoryEffect, SymbolOpInterface

_READ = MemoryEffectKind.READ
_ALLOC = MemoryEffectKind.ALLOC
_RECURSIVE_EFFECTS = RecursiveMemoryEffect.get_effects.__func__


_CLASS_FACTS: dict[type, tuple] = {}
"""Op class -> (its trait set, whether it is a terminator or a symbol, its memory-effect traits,
each with whether it is ``RecursiveMemoryEffect``'s): what the test reads of the class, computed
again when the class's traits change (``add_trait`` makes a new set)."""
_OPERATION_HAS_TRAIT = Operation.has_trait.__func__
_OPERATION_TRAITS_OF_TYPE = Operation.get_traits_of_type.__func__


def _class_facts(cls: type) -> tuple:
    trait_set = cls.traits.traits
    facts = _CLASS_FACTS.get(cls)
    if facts is None or facts[0] is not trait_set:
        excluded = (cls.has_trait(IsTerminator, value_if_unregistered=False)
                    or cls.has_trait(SymbolOpInterface, value_if_unregistered=False))
        effects = tuple((t, getattr(type(t).get_effects, "__func__", None) is _RECURSIVE_EFFECTS)
                        for t in cls.get_traits_of_type(MemoryEffect))
        facts = _CLASS_FACTS[cls] = (trait_set, excluded, effects)
    return facts


def _plain_traits(cls: type) -> bool:
    """Whether ``cls`` answers trait queries as ``Operation`` does (from its class's traits; not
    ``UnregisteredOp``, whose answers depend on the question's ``value_if_unregistered``)."""
    found = _PLAIN_CLASSES.get(cls)
    if found is None:
        has_trait = getattr(cls.has_trait, "__func__", None)
        traits_of_type = getattr(cls.get_traits_of_type, "__func__", None)
        found = _PLAIN_CLASSES[cls] = (has_trait is _OPERATION_HAS_TRAIT and traits_of_type is _OPERATION_TRAITS_OF_TYPE
                                       and isinstance(getattr(cls, "traits", None), OpTraits))
    return found


_PLAIN_CLASSES: dict[type, bool] = {}
"""Op class -> :func:`_plain_traits` (its trait methods are its class's, fixed when it is defined)."""


def _effect_traits(op: Operation) -> tuple:
    """``op``'s memory-effect traits, each with whether it is ``RecursiveMemoryEffect``'s."""
    cls = type(op)
    if _plain_traits(cls):
        return _class_facts(cls)[2]
    return tuple((t, getattr(type(t).get_effects, "__func__", None) is _RECURSIVE_EFFECTS)
                 for t in op.get_traits_of_type(MemoryEffect))


def _only_local_effects(root: Operation, op: Operation) -> bool:
    """Whether every effect of ``op`` (recursively, as ``get_effects`` collects them) is a read
    or an allocation of a value defined in ``root`` (``result_only_effects(root)`` for ``op is root``)."""
    traits = _effect_traits(op)
    if not traits:
        return False  # unknown effects
    for trait, recursive in traits:
        if recursive:
            for region in op.regions:
                for block in region.blocks:
                    for child in block.ops:
                        if not _only_local_effects(root, child):
                            return False
            continue
        effects = trait.get_effects(op)
        if effects is None:
            return False
        for e in effects:
            if e.kind is _READ:
                continue
            if e.kind is _ALLOC and isinstance(v := e.value, SSAValue) and root.is_ancestor(v.owner):
                continue
            return False
    return True


def is_trivially_dead(op: Operation) -> bool:
    """``xdsl.transforms.dead_code_elimination.is_trivially_dead(op)``, stopping at the first
    effect that decides it (see the module's doc)."""
    for result in op.results:
        if result.first_use is not None:
            return False
    cls = type(op)
    if _plain_traits(cls):
        if _class_facts(cls)[1]:
            return False
    elif (op.has_trait(IsTerminator, value_if_unregistered=False)
          or op.has_trait(SymbolOpInterface, value_if_unregistered=False)):
        return False
    return _only_local_effects(op, op)


def never_dead(cls: type) -> bool:
    """Whether :func:`is_trivially_dead` is False for every op of ``cls``, from the class alone: a
    terminator or a symbol, or an op without memory-effect traits (unknown effects), where the
    class answers trait queries from its traits (what the test reads of the class before it
    reads the op)."""
    if not _plain_traits(cls):
        return False
    _, excluded, effects = _class_facts(cls)
    return excluded or not effects


class GreedyApplier(GreedyRewritePatternApplier):
    """``GreedyRewritePatternApplier(patterns)``: a trivially dead op is erased, else the
    patterns are tried in order until one acts; the dead test is :func:`is_trivially_dead`.
    With folding enabled it is xDSL's applier unchanged."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if self.folding_enabled:
            super().match_and_rewrite(op, rewriter)
            return
        if self.dce_enabled and is_trivially_dead(op):
            rewriter.erase(op)
            return
        for pattern in self.rewrite_patterns:
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


__all__ = ["GreedyApplier", "is_trivially_dead", "never_dead"]
