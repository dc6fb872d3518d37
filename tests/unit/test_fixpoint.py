"""tileorch.transforms.fixpoint: a recursive walker run to its fixpoint leaves the IR xDSL's walker
leaves, with the confirming walk skipped; reconcile_unrealized_casts is xDSL's, same IR and
warnings."""

import warnings

from xdsl.dialects import arith, test
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, UnrealizedConversionCastOp, f32, i32, i64
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.transforms.reconcile_unrealized_casts import reconcile_unrealized_casts as xdsl_reconcile

from tileorch.transforms.fixpoint import reconcile_unrealized_casts, rewrite_to_fixpoint


def _cast(value, typ):
    return UnrealizedConversionCastOp.get([value], [typ])


def _casts_module():
    """A removable round trip (i32 -> i64 -> i32, used), a chain of three, a dead cast, and a cast
    to a type nothing casts back from (not removable: xDSL warns on each walk that meets it)."""
    src = test.TestOp(result_types=[i32])
    v = src.results[0]
    a = _cast(v, i64)
    b = _cast(a.results[0], i32)
    use_b = test.TestOp(operands=[b.results[0]])
    c1 = _cast(v, f32)
    c2 = _cast(c1.results[0], i64)
    c3 = _cast(c2.results[0], i32)
    use_c = test.TestOp(operands=[c3.results[0]])
    dead = _cast(v, i64)
    kept = _cast(v, f32)
    use_kept = test.TestOp(operands=[kept.results[0]])
    return ModuleOp([src, a, b, use_b, c1, c2, c3, use_c, dead, kept, use_kept])


def test_reconcile_leaves_the_ir_and_warnings_of_xdsls():
    results = []
    for fn in (reconcile_unrealized_casts, xdsl_reconcile):
        module = _casts_module()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(module)
        results.append((str(module), sorted(str(w.message) for w in caught)))
    assert results[0] == results[1]
    text = results[0][0]
    assert text.count("unrealized_conversion_cast") == 1  # only the one with a user of the other type
    assert results[0][1] and all("Unable to remove cast" in w for w in results[0][1])  # the kept one, as xDSL


class _Count(RewritePattern):
    """Rewrites each arith.constant 1 into 2, then 2 into 3 (one step per visit)."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter) -> None:
        if isinstance(op, arith.ConstantOp) and op.value.value.data < 3:
            rewriter.replace(op, arith.ConstantOp(IntegerAttr(op.value.value.data + 1, i32)))


def test_plain_pattern_fixpoint_same_ir_without_the_confirming_walk():
    def build():
        return ModuleOp([arith.ConstantOp(IntegerAttr(1, i32)), arith.ConstantOp(IntegerAttr(2, i32))])

    theirs = build()
    walks_theirs = []
    walker = PatternRewriteWalker(_Count())
    real = walker._process_worklist
    walker._process_worklist = lambda listener: walks_theirs.append(1) or real(listener)
    walker.rewrite_module(theirs)

    ours = build()
    walks_ours = []
    walker = PatternRewriteWalker(_Count())
    real2 = walker._process_worklist
    walker._process_worklist = lambda listener: walks_ours.append(1) or real2(listener)
    changed = rewrite_to_fixpoint(walker, ours.body,
                                  lambda op: isinstance(op, arith.ConstantOp) and op.value.value.data < 3)
    assert changed and str(ours) == str(theirs) and str(ours).count("3 : i32") == 2
    assert len(walks_ours) == len(walks_theirs) - 1  # the walk that found nothing to do is not made


class _CountingDouble(RewritePattern):
    """Replaces arith.constant 1 by arith.constant 2 (a candidate: value 1); records every op it is
    tried on."""

    def __init__(self):
        self.tried = []

    def match_and_rewrite(self, op, rewriter: PatternRewriter) -> None:
        self.tried.append(op.name)
        if isinstance(op, arith.ConstantOp) and op.value.value.data == 1:
            rewriter.replace(op, arith.ConstantOp(IntegerAttr(2, i32)))


def _seed_module():
    """Two candidates (constant 1, used), a dead addi, and forty ops no pattern acts on."""
    one = arith.ConstantOp(IntegerAttr(1, i32))
    other = [arith.ConstantOp(IntegerAttr(7, i32)) for _ in range(40)]
    users = [test.TestOp(operands=[one.result, o.result]) for o in other]
    one2 = arith.ConstantOp(IntegerAttr(1, i32))
    dead = arith.AddiOp(one2.result, one2.result)
    use2 = test.TestOp(operands=[one2.result])
    return ModuleOp([one, *other, *users, one2, dead, use2])


def test_greedy_walk_seeds_only_candidates_and_dead_ops_same_ir():
    """The walk tries its patterns only on the ops that may act, the dead ones (erased, not
    tried) and what rewrites create; the IR is that of xDSL's walker, which tries every op."""
    from xdsl.pattern_rewriter import GreedyRewritePatternApplier

    from tileorch.transforms.dead_ops import GreedyApplier

    theirs, ours = _seed_module(), _seed_module()
    p_theirs, p_ours = _CountingDouble(), _CountingDouble()
    PatternRewriteWalker(GreedyRewritePatternApplier([p_theirs])).rewrite_module(theirs)
    changed = rewrite_to_fixpoint(PatternRewriteWalker(GreedyApplier([p_ours])), ours.body,
                                  lambda op: isinstance(op, arith.ConstantOp) and op.value.value.data == 1)
    assert changed and str(ours) == str(theirs)
    assert "arith.addi" not in str(ours) and str(ours).count("2 : i32") == 2
    assert len(p_theirs.tried) > 80  # every op, twice (the confirming walk)
    # ours: the two candidates, the two constants they became (created: pushed by the walker)
    # and the users the replacements touched, never the forty untouched constants
    assert p_ours.tried.count("arith.constant") == 4 and len(p_ours.tried) < len(p_theirs.tried) / 2


def test_skip_without_candidate_makes_no_walk():
    from tileorch.transforms.dead_ops import GreedyApplier

    module = _seed_module()
    before = str(module)
    pattern = _CountingDouble()
    changed = rewrite_to_fixpoint(PatternRewriteWalker(GreedyApplier([pattern])), module.body,
                                  lambda op: False, skip_without_candidate=True)
    assert not changed and str(module) == before and not pattern.tried  # the dead addi stays too
    changed = rewrite_to_fixpoint(PatternRewriteWalker(GreedyApplier([pattern])), module.body, lambda op: False)
    assert changed and "arith.addi" not in str(module) and not pattern.tried  # erased as dead, no pattern tried


def _nested_module():
    """Constants (used, dead), ops without results (never dead by class: test.TestOp has no
    memory-effect traits), an scf.if without results whose body only reads (dead) and one that
    holds a live op, nested two deep."""
    from xdsl.dialects import scf
    from xdsl.dialects.builtin import i1

    def body(ops):
        return [*ops, scf.YieldOp()]

    c = arith.ConstantOp(IntegerAttr(1, i32))
    cond = arith.ConstantOp(IntegerAttr(1, i1))
    dead = arith.AddiOp(c.result, c.result)
    inner_dead = arith.ConstantOp(IntegerAttr(5, i32))
    reads_only = scf.IfOp(cond.result, [], body([arith.ConstantOp(IntegerAttr(3, i32))]))
    keeps = scf.IfOp(cond.result, [], body([test.TestOp(operands=[c.result]), inner_dead,
                                             scf.IfOp(cond.result, [], body([arith.ConstantOp(IntegerAttr(4, i32))]))]))
    uses = [test.TestOp(operands=[c.result]) for _ in range(3)]
    return ModuleOp([c, cond, dead, reads_only, keeps, *uses])


def _reference_seeds(region, reverse, region_first, may_act, dce):
    from tileorch.transforms.dead_ops import is_trivially_dead

    seeds, candidate = [], False
    for op in region.walk(reverse=reverse, region_first=region_first):
        if op.name in may_act if isinstance(may_act, frozenset) else may_act(op):
            seeds.append(op)
            candidate = True
        elif dce and is_trivially_dead(op):
            seeds.append(op)
    return seeds, candidate


def test_seeds_are_the_walk_order_filtered_and_class_facts_asked_once(monkeypatch):
    """The seeds of a walk (both walker orders, names or a test, with and without dead-code
    erasure) are the ops of the walker's order that may act or are dead; ops whose class is never
    dead (no memory-effect traits, terminators) get no dead test (before: one per op without a
    used result)."""
    import tileorch.transforms.fixpoint as fixpoint

    from tileorch.transforms.dead_ops import is_trivially_dead

    asked = []
    monkeypatch.setattr(fixpoint, "is_trivially_dead", lambda op: asked.append(op.name) or is_trivially_dead(op))
    for walk_regions_first in (False, True):
        walker = PatternRewriteWalker(_CountingDouble(), walk_regions_first=walk_regions_first)
        for may_act in (frozenset({"arith.addi", "scf.yield"}), frozenset(), lambda op: op.name == "arith.constant"):
            for dce in (False, True):
                module = _nested_module()
                ours = fixpoint._seeds(walker, module.body, may_act, dce)
                theirs = _reference_seeds(module.body, True, not walk_regions_first, may_act, dce)
                assert [id(o) for o in ours[0]] == [id(o) for o in theirs[0]] and ours[1] == theirs[1]
                if dce and may_act == frozenset():
                    assert {o.name for o in ours[0]} == {"arith.addi", "scf.if", "arith.constant"}
    assert asked and "test.op" not in asked and "scf.yield" not in asked
