"""``tileorch.transforms.fast_walk``: ``Operation/Region/Block.walk`` visit the ops xDSL's walks
visit, in the same order, also when the caller erases, adds or nests ops while walking."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp, i32
from xdsl.ir import Block, Region
from xdsl.ir.core import BlockOps

import tileorch.transforms  # noqa: F401  (installs the walks)
from tileorch.diagnostics import parse_module
from tileorch.registry import make_context
from tileorch.transforms import fast_walk

TEXT = """
builtin.module {
  func.func @f(%a: i32, %n: index, %c: i1) -> i32 {
    %lo = arith.constant 0 : index
    %st = arith.constant 1 : index
    %r = scf.for %i = %lo to %n step %st iter_args(%acc = %a) -> (i32) {
      %x = arith.addi %acc, %a : i32
      %y = scf.if %c -> (i32) {
        %z = arith.muli %x, %x : i32
        scf.yield %z : i32
      } else {
        %w = arith.subi %x, %a : i32
        scf.yield %w : i32
      }
      scf.yield %y : i32
    }
    cf.br ^bb1(%r : i32)
  ^bb1(%v: i32):
    %u = arith.addi %v, %v : i32
    func.return %u : i32
  }
  func.func @g() {
    func.return
  }
}
"""

ORDERS = [(False, False), (True, True), (True, False), (False, True)]


def _module() -> ModuleOp:
    return parse_module(make_context(), TEXT, "<walk>")


def _xdsl_walk(obj, reverse, region_first):
    """xDSL's own walk, with xDSL's own iteration of a block's ops while it runs."""
    fn = {ModuleOp: fast_walk._XDSL_OP_WALK, Region: fast_walk._XDSL_REGION_WALK,
          Block: fast_walk._XDSL_BLOCK_WALK}.get(type(obj), fast_walk._XDSL_OP_WALK)

    def walk():
        saved = BlockOps.__iter__, BlockOps.__reversed__
        BlockOps.__iter__, BlockOps.__reversed__ = fast_walk._XDSL_OPS_ITER, fast_walk._XDSL_OPS_REVERSED
        try:
            yield from fn(obj, reverse=reverse, region_first=region_first)
        finally:
            BlockOps.__iter__, BlockOps.__reversed__ = saved

    return walk()


def test_installed_by_the_transforms_package():
    from xdsl.ir import Operation

    assert fast_walk.installed() and Operation.walk is fast_walk.operation_walk
    assert Region.walk is fast_walk.region_walk and Block.walk is fast_walk.block_walk


@pytest.mark.parametrize("reverse,region_first", ORDERS)
def test_same_ops_in_the_same_order(reverse, region_first):
    module = _module()
    func_f = module.body.block.first_op
    for obj in (module, func_f, func_f.body, func_f.body.blocks.first.next_block, module.body.block):
        ours = list(obj.walk(reverse=reverse, region_first=region_first))
        theirs = list(_xdsl_walk(obj, reverse, region_first))
        assert ours == theirs and len(theirs) > 1
    assert len(list(module.walk())) == 17  # counted by hand in TEXT


def _visit_and_mutate(walk, module: ModuleOp) -> list[str]:
    """Walk ``module``, changing it as passes do while the walk runs: erase an unused addi just
    yielded, insert an op after a muli (xDSL's iterators fetched its successor already: not
    visited), and give a constant just yielded a region holding one op (read after the yield in
    pre-order: visited)."""
    seen = []
    for op in walk(module):
        seen.append(op.name)
        if isinstance(op, arith.AddiOp) and not op.result.uses:
            op.detach()
            op.erase()
        elif isinstance(op, arith.MuliOp):
            op.parent.insert_op_after(arith.ConstantOp.from_int_and_width(7, i32), op)
        elif isinstance(op, arith.ConstantOp) and "tagged" not in op.attributes and not op.regions:
            op.attributes["tagged"] = op.value
    return seen


@pytest.mark.parametrize("reverse,region_first", ORDERS[:3])
def test_mutation_while_walking_is_seen_as_xdsl_sees_it(reverse, region_first):
    theirs_module, ours_module = _module(), _module()
    # an unused addi to erase mid-walk
    for m in (theirs_module, ours_module):
        last = m.body.block.first_op.body.blocks.last
        u = last.first_op
        last.insert_op_after(arith.AddiOp(u.result, u.result), u)
    theirs = _visit_and_mutate(lambda m: _xdsl_walk(m, reverse, region_first), theirs_module)
    ours = _visit_and_mutate(lambda m: m.walk(reverse=reverse, region_first=region_first), ours_module)
    assert ours == theirs
    assert str(ours_module) == str(theirs_module)
    assert ours.count("arith.addi") == 3 and str(ours_module).count("arith.addi") == 2  # the unused one erased
    assert "arith.constant 7" in str(ours_module) and ours.count("arith.constant") == 2  # inserted, not visited


def test_a_region_added_to_a_yielded_op_is_walked_in_pre_order():
    def add_region(walk, module):
        seen = []
        for op in walk(module):
            seen.append(op.name)
            if op.name == "func.func" and op.sym_name.data == "g":
                op.body.blocks.first.insert_op_before(arith.ConstantOp.from_int_and_width(1, i32),
                                                      op.body.blocks.first.first_op)
        return seen

    ours = add_region(lambda m: m.walk(), _module())
    theirs = add_region(lambda m: _xdsl_walk(m, False, False), _module())
    assert ours == theirs and ours[-2:] == ["arith.constant", "func.return"]


def test_install_refuses_walks_it_does_not_mirror(monkeypatch):
    def not_a_generator(self, *, reverse=False, region_first=False):
        return iter(())

    monkeypatch.setattr(fast_walk, "_XDSL_OP_WALK", not_a_generator)
    assert not fast_walk._mirrors_xdsl()


def test_block_ops_iteration_installed():
    assert fast_walk._ops_iteration_mirrors_xdsl()
    assert BlockOps.__iter__ is fast_walk.block_ops_iter and BlockOps.__reversed__ is fast_walk.block_ops_reversed


def _numbered_block(n: int = 6) -> Block:
    block = Block(arg_types=[i32])
    for k in range(n):
        block.add_op(arith.ConstantOp.from_int_and_width(k, i32))
    return block


def _value(op) -> int:
    return op.value.value.data


@pytest.mark.parametrize("backward", [False, True])
@pytest.mark.parametrize("change", ["erase", "insert_after", "detach_next", "move_before", "clear"])
def test_block_ops_mutated_while_iterating_as_xdsl(backward, change):
    """Each change made while a loop over ``block.ops`` (or ``reversed``) holds an op: the ops the
    loop sees, and the block after it, as with xDSL's iterator (which reads the next op when it
    hands one out: an op inserted after the held one is not seen, a detached next one is)."""
    def run(make_iter):
        block = _numbered_block()
        seen, changed = [], []
        for op in make_iter(block.ops):
            seen.append(_value(op))
            if _value(op) != 2 or op.parent is not block or changed:  # (once)
                continue
            changed.append(op)
            following = op.prev_op if backward else op.next_op
            if change == "erase":
                block.erase_op(op)
            elif change == "insert_after":
                new = arith.ConstantOp.from_int_and_width(10, i32)
                (block.insert_op_before if backward else block.insert_op_after)(new, op)
            elif change == "detach_next":
                following.detach()
            elif change == "move_before":
                following.detach()
                (block.insert_op_after if backward else block.insert_op_before)(following, op)
            elif change == "clear":
                for other in list(block.ops):
                    other.detach()
        return seen, [_value(o) for o in block.ops]

    if backward:
        ours = run(reversed)
        theirs = run(fast_walk._XDSL_OPS_REVERSED)
    else:
        ours = run(iter)
        theirs = run(fast_walk._XDSL_OPS_ITER)
    assert ours == theirs
    assert len(ours[0]) >= 3 and ours[1] != list(range(6))  # the loop ran and the block changed


def test_iteration_starts_from_the_first_op_when_made():
    """The first op is read when the iteration is made (``iter(block.ops)``), as xDSL's does."""
    for make in (iter, fast_walk._XDSL_OPS_ITER):
        block = _numbered_block(3)
        it = make(block.ops)
        block.insert_op_before(arith.ConstantOp.from_int_and_width(9, i32), block.first_op)
        assert [_value(o) for o in it] == [0, 1, 2]
    assert len(_numbered_block(4).ops) == 4 and list(reversed(Block().ops)) == []


@pytest.mark.parametrize("region_first", [True, False])
def test_fixpoints_seed_order_is_xdsls_reverse_walk(region_first):
    """``rewrite_to_fixpoint``'s seed walk (the walker's worklist orders, read off the links) lists
    the ops xDSL's ``walk(reverse=True, region_first=...)`` yields, in its order, for a module with
    nested regions and several blocks, and for the region of one op."""
    from tileorch.transforms.fixpoint import _LINKED, _seeds_linked

    assert _LINKED  # (this xDSL: else the seeds are walked with Region.walk)
    module = _module()
    func_f = module.body.block.first_op
    for region in (module.body, func_f.body):
        theirs = list(_xdsl_walk(region, True, region_first))
        seeds, candidate = _seeds_linked(region, region_first, lambda op: True, False)
        assert seeds == theirs and candidate and len(theirs) > 1
