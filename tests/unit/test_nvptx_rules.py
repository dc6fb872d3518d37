"""tileorch.dialects.nvptx_rules on ops built in Python: a generic pointer built without an address
space (``LLVMPointerType()``, whose ``addr_space`` is NoneAttr, as the lowerings build them) is
not the constant space; one built with space 4 is (the text forms: tests/filecheck/nvvm/nvptx_rules_invalid.mlir)."""

import pytest
from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntAttr, i32
from xdsl.ir import Block
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.nvptx_rules import verify_nvptx_rules


def _store(ptr_type):
    block = Block(arg_types=[i32, ptr_type])
    op = llvm.StoreOp(block.args[0], block.args[1])
    block.add_op(op)
    return op


def test_generic_pointer_without_an_address_space_passes():
    verify_nvptx_rules(_store(llvm.LLVMPointerType()))  # raised AttributeError ('NoneAttr' has no .data)


def test_constant_space_pointer_is_refused():
    with pytest.raises(VerifyException, match=r"llvm.store writes through !llvm.ptr<4>"):
        verify_nvptx_rules(_store(llvm.LLVMPointerType(IntAttr(4))))
