"""Rules of the NVPTX target that LLVM IR itself does not have (run with every located
verification through :data:`tileorch.registry.OP_CHECKS`), so that the input is refused at the op
instead of by ptxas at line 1 of the PTX, or compiled to something the author did not write:

* no ``llvm.store`` / ``llvm.atomicrmw`` / ``llvm.cmpxchg`` writes through a constant-space
  pointer (``!llvm.ptr<4>``): constant memory is read-only for kernels (ptxas: "State space
  incorrect for instruction 'st'");
* an atomic's or fence's ``syncscope`` is one NVPTX knows: ``singlethread``, ``block``,
  ``cluster``, ``device`` or none (the system); any other name (a typo of ``block``) compiled to
  the default ``.gpu`` scope, silently.
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

CONSTANT_SPACE = 4
WRITES = {"llvm.store": 1, "llvm.atomicrmw": 0, "llvm.cmpxchg": 0}
"""Op name -> the index of its pointer operand."""
SCOPES = ("", "singlethread", "block", "cluster", "device")


def verify_nvptx_rules(op: Operation) -> None:
    """Raise VerifyException when ``op`` breaks one of the rules above."""
    index = WRITES.get(op.name)
    if index is not None and len(op.operands) > index:
        ptr = op.operands[index].type
        if isinstance(ptr, LLVMPointerType) and getattr(ptr.addr_space, "data", 0) == CONSTANT_SPACE:  # NoneAttr: 0
            raise VerifyException(f"{op.name} writes through !llvm.ptr<4>: constant memory is read-only in a kernel "
                                  "(write to global memory, !llvm.ptr<1>, instead)")
    if not op.name.startswith("llvm."):
        return
    scope = op.properties.get("syncscope")
    if isinstance(scope, StringAttr) and scope.data not in SCOPES:
        raise VerifyException(f"{op.name} syncscope {scope.data!r} is not one NVPTX knows: use \"singlethread\", "
                              "\"block\", \"cluster\" or \"device\", or none for the system scope")
