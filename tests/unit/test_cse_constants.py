"""``cse-constants`` after the TileAS tier (issue 22): a fused-epilogue GEMM's kernel keeps one
constant per value, type and block, and its LLVM IR is the same as without the pass (LLVM IR has
no constant instructions), so the PTX cannot change."""

from __future__ import annotations

import collections
import importlib.util

import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

SPEC = [((256, 128), "bfloat16"), ((256, 128), "bfloat16"), ((256,), "bfloat16"), ((256, 256), "bfloat16"),
        128, 128, 64]


def _tier_output(data: bytes):
    from tileorch.driver import compile_program

    program = compile_program(data, "linear_gelu", ptxas=False, codegen=False)
    return program.tier_output


def _constants(module) -> collections.Counter:
    from xdsl.dialects import arith

    return collections.Counter((str(op.value), id(op.parent)) for op in module.walk()
                               if isinstance(op, arith.ConstantOp))


def test_tier_output_has_one_constant_per_value_and_block_and_the_same_llvm_ir(monkeypatch):
    from tileorch import driver
    from tileorch.testing.dot_programs import linear_gelu
    from tileorch.testing.export import cutile_bytecode

    data = cutile_bytecode(linear_gelu, SPEC)
    shared = _tier_output(data)
    monkeypatch.setattr(driver, "TIER_CLEANUP", "reconcile-unrealized-casts")  # the tier without the pass
    per_use = _tier_output(data)
    monkeypatch.undo()
    before, after = _constants(per_use.module), _constants(shared.module)
    # the builders share a constant per value and emitter (session 39: they made one per use, more than twice
    # as many as the pass kept); the pass merges what different emitters of one block still repeat
    assert sum(before.values()) < 1.25 * sum(after.values())
    assert max(after.values()) == 1 and max(before.values()) > 1
    ir = [driver.compile_module(t.module, t.ctx, arch="sm_90a", emit="llvm", kind="gemm").llvm_ir
          for t in (per_use, shared)]
    assert "fmul" in ir[0] and ir[0] == ir[1]


NESTED = """
func.func @f(%c: i1) -> i32 {
  %a = arith.constant 1 : i32
  %b = arith.constant 1 : i32
  %r = scf.if %c -> (i32) {
    %x = arith.constant 1 : i32
    %y = arith.constant 1 : i32
    %s = arith.addi %x, %y : i32
    scf.if %c {
      %p = arith.constant 1 : i32
      %q = arith.constant 1 : i32
      %pq = arith.addi %p, %q : i32
      scf.yield
    }
    scf.yield %s : i32
  } else {
    %z = arith.constant 2 : i32
    %w = arith.constant 2 : i32
    %t = arith.addi %z, %w : i32
    scf.yield %t : i32
  }
  %u = arith.addi %a, %b : i32
  %v = arith.addi %u, %r : i32
  func.return %v : i32
}
"""


def test_constants_shared_per_block_at_every_nesting_level():
    """One constant per value in each block, the blocks of nested regions (two levels down) included, never
    one block's constant used in another (session 45: the nested regions are gathered in the merging walk)."""
    from xdsl.dialects import arith
    from xdsl.parser import Parser

    from tileorch.registry import make_context
    from tileorch.transforms.cse_constants import cse_constants

    module = Parser(make_context(), NESTED).parse_module()
    assert cse_constants(module) == 4
    per_block = collections.Counter(id(op.parent) for op in module.walk() if isinstance(op, arith.ConstantOp))
    assert sorted(per_block.values()) == [1, 1, 1, 1]
    for op in module.walk():
        for operand in op.operands:
            owner = operand.owner
            if isinstance(owner, arith.ConstantOp):
                assert owner.parent is op.parent  # (each add reads its own block's constant)
    module.verify()
