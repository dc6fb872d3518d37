"""``tileorch.dialects.block_sources``: the values a block argument is made of, the one walk the ``block_striped``
verifier and the SIMT lowering's token walks (store_barriers, row_smem_cache) share (session 40's final read: the
verifier followed ``scf.for`` / ``scf.while`` / ``cf`` block arguments by hand, the lowerings ``scf.for`` ones by
hand twice)."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, cf, func, scf, test
from xdsl.dialects.builtin import Builtin
from xdsl.parser import Parser

from tileorch.dialects.block_sources import block_argument_sources, iteration_sources

_IR = """
func.func @f(%a: i32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a) -> (i32) {
    %y = arith.addi %x, %x : i32
    scf.yield %y : i32
  }
  %w = scf.while (%p = %a) : (i32) -> i32 {
    %t = arith.constant true
    scf.condition(%t) %p : i32
  } do {
  ^bb0(%q: i32):
    %s = arith.muli %q, %q : i32
    scf.yield %s : i32
  }
  "test.op"() ({
  ^bb0(%u: i32):
    "test.termop"() : () -> ()
  }) : () -> ()
  %b = arith.constant false
  cf.cond_br %b, ^bb1(%r : i32), ^bb1(%w : i32)
^bb1(%z: i32):
  func.return
}
"""


def _named():
    ctx = Context()
    for d in (Builtin, func.Func, arith.Arith, scf.Scf, cf.Cf, test.Test):
        ctx.load_dialect(d)
    module = Parser(ctx, _IR).parse_module()
    f = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    values = {}
    for op in f.walk():
        for v in op.results:
            if v.name_hint:
                values[v.name_hint] = v
        for region in op.regions:
            for block in region.blocks:
                for v in block.args:
                    values[v.name_hint] = v
    return values


def test_each_kind_of_block_argument():
    v = _named()
    assert block_argument_sources(v["a"]) == []  # a function's parameter: given by the launch
    assert block_argument_sources(v["i"]) == [v["c0"], v["n"], v["c1"]]  # an induction variable: its bounds, step
    assert block_argument_sources(v["x"]) == [v["a"], v["y"]]  # an iteration argument: initial, yielded
    assert block_argument_sources(v["p"]) == [v["a"], v["s"]]  # scf.while before: initial, what after yields
    assert block_argument_sources(v["q"]) == [v["p"]]  # scf.while after: what scf.condition forwards
    assert block_argument_sources(v["z"]) == [v["r"], v["w"]]  # a cf block's: what each branch passes
    assert block_argument_sources(v["u"]) is None  # an op the walk does not know: not followed


def test_iteration_sources_are_the_loop_carried_ones_only():
    v = _named()
    assert iteration_sources(v["x"]) == [v["a"], v["y"]]
    assert iteration_sources(v["p"]) == [v["a"], v["s"]] and iteration_sources(v["q"]) == [v["p"]]
    assert all(iteration_sources(v[n]) is None for n in ("a", "i", "z", "u", "r"))
