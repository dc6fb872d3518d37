"""``verify_located`` on functions of many blocks: the check xDSL's ``Operation.verify`` makes of
a block's last op in a region of several blocks (it must be a terminator; its successors in the
same region; then the op's own verifier) is made in constant time per block
(``tileorch.diagnostics._verify_alone``: xDSL counts the region's blocks for each terminator,
O(B^2) per function), with xDSL's own messages: each malformed case is compared with what
``Operation.verify`` itself raises on the same op."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, cf
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Operation
from xdsl.ir.core import RegionBlocks
from xdsl.utils.exceptions import VerifyException

from tileorch.backend.compile import parse_text
from tileorch.diagnostics import verify_located, verify_op_located
from tileorch.registry import make_context


def chain(n: int, name: str = "f") -> str:
    """A function of ``n`` blocks, each branching to the next."""
    body = "\n".join(f"  ^bb{i}:\n    %c{i} = arith.constant {i} : i32\n    cf.br ^bb{i + 1}" for i in range(1, n))
    return f"func.func @{name}() {{\n  cf.br ^bb1\n{body}\n  ^bb{n}:\n    func.return\n}}\n"


def module(text: str):
    return parse_text(make_context(), text, "blocks.mlir")


def blocks(module, index: int = 0):
    fn = list(module.body.block.ops)[index]
    return list(fn.body.blocks)


def xdsl_message(op: Operation) -> str:
    """What xDSL's own Operation.verify (without nested ops) raises on ``op``."""
    with pytest.raises((VerifyException, ValueError)) as info:
        Operation.verify(op, verify_nested_ops=False)
    return str(info.value).splitlines()[0]


def test_a_function_of_many_blocks_does_not_count_its_blocks_per_terminator(monkeypatch):
    m = module(chain(300))
    counted = []
    real = RegionBlocks.__len__
    monkeypatch.setattr(RegionBlocks, "__len__", lambda self: counted.append(1) or real(self))
    assert verify_located(m) == []
    assert len(counted) < 10  # xDSL's verify counted the 300 blocks at each of the 300 terminators


def test_a_block_ending_in_no_terminator_is_xdsls_error_located():
    m = module(chain(5))
    middle = blocks(m)[2]
    middle.last_op.detach()
    last = middle.last_op  # the arith.constant now ends the block
    assert isinstance(last, arith.ConstantOp)
    error = verify_op_located(last)
    assert error is not None and error.startswith("blocks.mlir:")
    assert xdsl_message(last) in error and "terminates block in multi-block region but is not a terminator" in error
    assert verify_located(m) == [error]


def test_a_branch_into_another_function_is_xdsls_error_located():
    m = module(chain(4, "f") + chain(3, "g"))
    f_blocks, g_blocks = blocks(m, 0), blocks(m, 1)
    term = f_blocks[1].last_op
    wrong = cf.BranchOp(g_blocks[1])
    wrong.location = term.location
    f_blocks[1].insert_op_before(wrong, term)
    term.detach()
    error = verify_op_located(wrong)
    assert error is not None and error.startswith("blocks.mlir:")
    assert xdsl_message(wrong) in error and "is branching to a block of a different region" in error


def test_a_terminator_failing_its_own_verifier_is_xdsls_error_located():
    m = module(chain(4))
    bbs = blocks(m)
    term = bbs[1].last_op
    value = arith.ConstantOp(IntegerAttr(7, i32))
    bbs[1].insert_op_before(value, term)
    bad = cf.ConditionalBranchOp(value.result, bbs[2], (), bbs[3], ())  # an i32 condition
    bad.location = term.location
    bbs[1].insert_op_before(bad, term)
    term.detach()
    expected = xdsl_message(bad)
    error = verify_op_located(bad)
    assert error is not None and expected.removeprefix("Operation does not verify: ") in error


def test_well_formed_terminators_verify_in_both():
    m = module(chain(6))
    for block in blocks(m):
        Operation.verify(block.last_op, verify_nested_ops=False)
        assert verify_op_located(block.last_op) is None


def test_a_detached_op_with_successors_is_refused_like_xdsls_verify():
    """diagnostics._verify_alone mirrors Operation.verify: an op with block successors outside any
    block (built in Python, never parsed) is refused with xDSL's message."""
    from xdsl.dialects import cf
    from xdsl.ir import Block
    from xdsl.utils.exceptions import VerifyException

    from tileorch.diagnostics import _verify_alone

    br = cf.BranchOp(Block())
    for verify in (_verify_alone, lambda op: op.verify(verify_nested_ops=False)):
        with pytest.raises(VerifyException, match="Operation cf.br with block successors does not belong to a block "
                                                   "or a region"):
            verify(br)
