"""tileorch.dominance: immediate dominators of a region's blocks (checked against the dominator
sets worked out by hand) and the dominance errors of a module."""

from tileorch.diagnostics import parse_module
from tileorch.dominance import dominance_errors, immediate_dominators
from tileorch.registry import make_context

CFG = """
func.func @f(%c: i1, %a: i32) {
  cf.br ^head
^head:
  cf.cond_br %c, ^left, ^right
^left:
  cf.cond_br %c, ^head, ^join
^right:
  cf.br ^join
^join:
  func.return
^dead:
  cf.br ^join
}
"""


def _blocks():
    module = parse_module(make_context(), CFG, "cfg.mlir")
    func = next(op for op in module.walk() if op.name == "func.func")
    region = func.regions[0]
    return region, list(region.blocks)


def test_immediate_dominators_of_a_loop_and_a_diamond():
    # entry -> head; head -> left, right; left -> head (back edge), join; right -> join; dead -> join
    region, (entry, head, left, right, join, dead) = _blocks()
    idom = immediate_dominators(region)
    assert idom == {entry: None, head: entry, left: head, right: head, join: head}
    assert dead not in idom  # unreachable: not in the tree (its uses are not checked)


def test_errors_name_the_use_and_the_definition():
    text = "func.func @f(%a: i32) {\n  %y = arith.addi %z, %a : i32\n  %z = arith.addi %a, %a : i32\n  func.return\n}\n"
    module = parse_module(make_context(), text, "u.mlir")
    errors = dominance_errors(module, lambda op: op.name)
    assert [(op.name, msg) for op, msg in errors] == [
        ("arith.addi", "operand #0 (%z) of arith.addi does not dominate this use: it is the result of the "
                       "arith.addi at arith.addi, which does not come before this op on every path to it")]


def test_the_operand_tuple_is_read_directly_with_the_same_errors(monkeypatch):
    """With the xDSL this was written for, ``_block`` reads ``op._operands`` (the tuple ``op.operands``
    wraps: a view fetched item by item) and finds what the view gives: the same errors, in order."""
    from tileorch import dominance

    assert dominance.DIRECT_FIELDS
    text = ("func.func @f(%c: i1, %a: i32) {\n  %y = arith.addi %z, %w : i32\n  %z = arith.addi %a, %a : i32\n"
            "  cf.cond_br %c, ^l, ^r\n^l:\n  %w = arith.addi %a, %z : i32\n  cf.br ^j\n^r:\n  cf.br ^j\n"
            "^j:\n  %u = arith.addi %w, %y : i32\n  func.return\n}\n")
    module = parse_module(make_context(), text, "u.mlir")
    direct = [(op.name, msg) for op, msg in dominance_errors(module, lambda op: op.name)]
    monkeypatch.setattr(dominance, "DIRECT_FIELDS", False)
    assert [(op.name, msg) for op, msg in dominance_errors(module, lambda op: op.name)] == direct
    assert [m.split(" of ")[0] for _, m in direct] == ["operand #0 (%z)", "operand #1 (%w)", "operand #0 (%w)"]
