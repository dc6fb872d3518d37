"""``tileorch.transforms.block_split.split_before`` splits a block as xDSL's ``Block.split_before``
does (same blocks, same op order, same errors) without counting the region's blocks; and
``convert-scf-while-to-cf`` stops walking once a walk would change nothing."""

from __future__ import annotations

import pytest
from xdsl.ir import Block
from xdsl.ir.core import RegionBlocks

from tileorch.backend.compile import parse_text, print_module
from tileorch.registry import make_context
from tileorch.transforms import block_split

XDSL_SPLIT = block_split._XDSL_SPLIT_BEFORE


def chain(n: int) -> str:
    """A function of ``n`` blocks of three constants each."""
    body = "\n".join(f"  ^bb{i}:\n    %a{i} = arith.constant {i} : i32\n    %b{i} = arith.constant {i + 100} : i32\n"
                     f"    %c{i} = arith.addi %a{i}, %b{i} : i32\n    cf.br ^bb{i + 1}" for i in range(1, n))
    return f"func.func @f() {{\n  cf.br ^bb1\n{body}\n  ^bb{n}:\n    func.return\n}}\n"


def blocks_of(module):
    fn = next(iter(module.body.block.ops))
    return fn, list(fn.body.blocks)


@pytest.mark.parametrize("block_index,op_index", [(0, 0), (2, 0), (2, 1), (2, 3), (5, 0), (5, 2), (6, 0)])
def test_split_matches_xdsl(block_index, op_index):
    ours, theirs = (parse_text(make_context(), chain(7), "split.mlir") for _ in range(2))
    results = []
    for module, split in ((ours, block_split.split_before), (theirs, XDSL_SPLIT)):
        fn, blocks = blocks_of(module)
        block = blocks[block_index]
        op = list(block.ops)[op_index]
        new = split(block, op, arg_types=())
        assert new.parent is fn.body and block.next_block is new
        assert all(o.parent is new for o in new.ops)
        assert new.first_op is op and op.prev_op is None
        results.append(print_module(module))
    assert results[0] == results[1]


def test_split_errors_match_xdsl():
    module = parse_text(make_context(), chain(3), "split.mlir")
    _, blocks = blocks_of(module)
    other = blocks[2].first_op
    for split in (block_split.split_before, XDSL_SPLIT):
        with pytest.raises(ValueError, match="outside of the block"):
            split(blocks[1], other)
    lone = Block()
    op = blocks[1].first_op
    op.detach()
    lone.add_op(op)
    for split in (block_split.split_before, XDSL_SPLIT):
        with pytest.raises(ValueError, match="no parent"):
            split(lone, op)


def test_split_does_not_count_blocks(monkeypatch):
    block_split.install()
    module = parse_text(make_context(), chain(200), "split.mlir")
    _, blocks = blocks_of(module)
    counted = []
    real = RegionBlocks.__iter__
    monkeypatch.setattr(RegionBlocks, "__iter__", lambda self: counted.append(1) or real(self))
    for block in blocks[100:150]:
        block.split_before(block.last_op)
    assert not counted  # xDSL's version walks the region's blocks twice per split


IFS = """func.func @g(%c: i1, %x: i32) -> i32 {
  %dead = arith.addi %x, %x : i32
  %r = scf.if %c -> (i32) {
    %y = arith.muli %x, %x : i32
    scf.if %c {
      %z = arith.addi %y, %y : i32
      scf.yield
    }
    scf.yield %y : i32
  } else {
    scf.yield %x : i32
  }
  func.return %r : i32
}
"""


def test_scf_to_cf_same_result_as_xdsls_walker_and_fewer_walks(monkeypatch):
    """The pass's result equals that of xDSL's walker run to its fixpoint (dead ops erased,
    nested ifs lowered); the confirming second whole walk is not made."""
    from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
    from xdsl.transforms.convert_scf_to_cf import ForLowering, IfLowering, SwitchLowering

    from tileorch.transforms.scf_while_to_cf import ConvertScfWhileToCf, LowerWhile

    ctx = make_context()
    ours, theirs = (parse_text(ctx, IFS, "ifs.mlir") for _ in range(2))
    walks = []
    real = PatternRewriteWalker._process_worklist  # one call per walk (ours seeds its worklist itself)
    monkeypatch.setattr(PatternRewriteWalker, "_process_worklist", lambda self, r: walks.append(1) or real(self, r))
    ConvertScfWhileToCf().apply(ctx, ours)
    assert len(walks) == 1
    PatternRewriteWalker(GreedyRewritePatternApplier([LowerWhile(), SwitchLowering(), IfLowering(), ForLowering()]),
                         apply_recursively=True).rewrite_module(theirs)
    assert len(walks) == 3  # xDSL's: the lowering walk, then a walk that changes nothing
    assert print_module(ours) == print_module(theirs)
    assert "scf." not in print_module(ours) and "%dead" not in print_module(ours)


def test_rewrite_once_visits_only_the_ops_named_by_the_prefix():
    """A pattern with ``NAME_PREFIX`` is called on those ops only; without one, on every op."""
    from xdsl.pattern_rewriter import RewritePattern

    from tileorch.transforms.rewrite_once import rewrite_once

    seen = []

    class Record(RewritePattern):
        def match_and_rewrite(self, op, rewriter, /):
            seen.append(op.name)

    class RecordArith(Record):
        NAME_PREFIX = "arith."

    module = parse_text(make_context(), chain(3), "split.mlir")
    rewrite_once(RecordArith(), module.body)
    assert seen and all(n.startswith("arith.") for n in seen) and len(seen) == 6
    seen.clear()
    rewrite_once(Record(), module.body)
    assert {"func.func", "cf.br", "func.return", "arith.addi"} <= set(seen)


def test_rewrite_once_over_ops_walked_by_the_caller_visits_them_as_its_own_walk():
    """``walked`` (the region's ops collected by the caller) gives the same visits, in the same
    order, as rewrite_once's own walk, the prefix applied to them too."""
    from xdsl.pattern_rewriter import RewritePattern

    from tileorch.transforms.rewrite_once import rewrite_once

    seen = []

    class Record(RewritePattern):
        def match_and_rewrite(self, op, rewriter, /):
            seen.append(op)

    class RecordArith(Record):
        NAME_PREFIX = "arith."

    module = parse_text(make_context(), chain(3), "split.mlir")
    for pattern in (Record(), RecordArith()):
        seen.clear()
        rewrite_once(pattern, module.body)
        own = list(seen)
        seen.clear()
        rewrite_once(pattern, module.body, list(module.body.walk()))
        assert seen == own and own


def test_a_to_llvm_pass_converts_index_types_before_its_first_pattern_sees_the_ops(monkeypatch):
    """The std-to-llvm passes hand the ops of their index conversion's walk to their first
    pattern: the pattern sees every op (none missed, none twice), each already without an
    ``index`` result, and the module's lowering is the same as with a walk of its own."""
    from xdsl.dialects.builtin import IndexType
    from xdsl.pattern_rewriter import RewritePattern

    from tileorch.backend.compile import print_module
    from tileorch.transforms import index_to_llvm
    from tileorch.transforms.arith_to_llvm import ConvertArithToLLVM

    src = """
    func.func @f(%a: index, %b: index) -> index {
      %c = arith.addi %a, %b : index
      %d = arith.muli %c, %a : index
      %e = arith.index_cast %d : index to i32
      %f = arith.index_cast %e : i32 to index
      func.return %f : index
    }
    """
    seen = []

    class Record(RewritePattern):
        def match_and_rewrite(self, op, rewriter, /):
            assert not any(isinstance(r.type, IndexType) for r in op.results), op.name
            seen.append(op)

    class Pass(index_to_llvm.ToLLVMPass):
        name = "record"
        PATTERNS = (Record, Record)

    ctx = make_context()
    module = parse_text(ctx, src, "index.mlir")
    Pass().apply(ctx, module)
    ops = list(module.body.walk())
    assert seen == ops + ops  # each pattern: every op once, in walk order
    ours, theirs = (parse_text(ctx, src, "index.mlir") for _ in range(2))
    ConvertArithToLLVM().apply(ctx, ours)
    real = index_to_llvm.rewrite_once
    monkeypatch.setattr(index_to_llvm, "rewrite_once", lambda p, r, walked=None: real(p, r))  # walks itself
    ConvertArithToLLVM().apply(ctx, theirs)
    assert print_module(ours) == print_module(theirs) and "index" not in print_module(ours).split("func.func")[1]
