"""Rules upstream MLIR enforces on its own ops that xDSL 0.74 does not check (run with every
located verification, see :func:`tileorch.diagnostics.verify_op_located`).

* ``arith.cmpi`` / ``llvm.icmp`` predicates are 0-9 and ``arith.cmpf`` / ``llvm.fcmp`` predicates
  0-15 (upstream's enum attributes accept nothing else; an out-of-range integer otherwise reached
  LLVM translation and crashed there).
* ``llvm.load`` / ``llvm.store`` alignments are powers of two (upstream's verifier and LLVM's
  ``Align`` reject anything else; an alignment below the element size is legal).
* A branch (``cf.br``, ``cf.cond_br``, ``cf.switch``, ``llvm.br``, ``llvm.cond_br``) passes each
  successor exactly as many operands as the block has arguments, of the same types (upstream's
  ``BranchOpInterface``; xDSL checked neither, and an extra operand was dropped silently on the
  way to PTX).
* An atomic ``llvm.load`` / ``llvm.store`` (an ordering other than ``not_atomic``) moves an
  integer of 8-64 bits, a 16-64-bit float or a pointer, a load neither releases nor a store
  acquires, and the ordering is one LLVM has (upstream's ``verifyAtomicMemOp``; an atomic store of
  a vector aborted LLVM's code generation: a fuzz finding).
* ``scf.for`` with a constant step has a positive step (upstream's ``constant step operand must
  be positive``; a zero step compiled to a loop that never ends).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

PREDICATE_RANGES = {"arith.cmpi": 10, "llvm.icmp": 10, "arith.cmpf": 16, "llvm.fcmp": 16}


ALIGNED_OPS = ("llvm.load", "llvm.store")
BRANCH_OPS = ("cf.br", "llvm.br", "cf.cond_br", "llvm.cond_br", "cf.switch")


def successor_operands(op: Operation) -> list[tuple[str, object, tuple]]:
    """(successor name, block, operands passed to it) for each successor of a branch op."""
    if op.name in ("cf.br", "llvm.br"):
        return [("successor", op.successors[0], tuple(op.operands))]
    if op.name in ("cf.cond_br", "llvm.cond_br"):
        return [("'then' successor", op.then_block, tuple(op.then_arguments)),
                ("'else' successor", op.else_block, tuple(op.else_arguments))]
    out = [("default successor", op.default_block, tuple(op.default_operands))]
    cases = op.case_operand if len(op.case_operand_segments.get_values()) == len(op.case_blocks) else ()
    for i, (block, operands) in enumerate(zip(op.case_blocks, cases)):
        out.append((f"case successor {i}", block, tuple(operands)))
    if len(cases) != len(op.case_blocks):
        raise VerifyException(f"cf.switch has {len(op.case_blocks)} case successor(s) but "
                              f"{len(op.case_operand_segments.get_values())} case operand group(s)")
    return out


def _verify_branch(op: Operation) -> None:
    for what, block, operands in successor_operands(op):
        args = block.args
        if len(operands) != len(args):
            raise VerifyException(f"{op.name} passes {len(operands)} operand(s) to its {what}, which has "
                                  f"{len(args)} block argument(s)")
        for i, (value, arg) in enumerate(zip(operands, args)):
            if value.type != arg.type:
                raise VerifyException(f"{op.name} passes {value.type} to block argument #{i} of its {what}, "
                                      f"which has type {arg.type}")


def _verify_for_step(op: Operation) -> None:
    step = op.operands[2] if len(op.operands) >= 3 else None
    owner = getattr(step, "op", None)
    if owner is None or owner.name not in ("arith.constant", "llvm.mlir.constant"):
        return
    value = owner.properties.get("value", owner.attributes.get("value"))
    if isinstance(value, IntegerAttr) and value.value.data <= 0:
        raise VerifyException(f"scf.for constant step operand must be positive, got {value.value.data}")


def _atomic_type(typ) -> bool:
    """A type an atomic load or store moves: an integer of 8 to 64 bits, a 16- to 64-bit float or
    a pointer (upstream's ``isTypeCompatibleWithAtomicOp``; LLVM aborts code generation otherwise)."""
    from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type, IntegerType
    from xdsl.dialects.llvm import LLVMPointerType

    if isinstance(typ, IntegerType):
        return typ.width.data in (8, 16, 32, 64)
    return isinstance(typ, (BFloat16Type, Float16Type, Float32Type, Float64Type, LLVMPointerType))


def _verify_atomic_access(op: Operation) -> None:
    """An ``llvm.load`` / ``llvm.store`` ordering is one LLVM has; an atomic one moves a scalar
    (:func:`_atomic_type`) and a load neither releases nor a store acquires (upstream's
    ``verifyAtomicMemOp``)."""
    from tileorch.dialects.llvm_ext import ORDERING_NAMES, ORDERINGS

    order = op.properties.get("ordering") or op.attributes.get("ordering")
    if not isinstance(order, IntegerAttr):
        return
    name = ORDERING_NAMES.get(order.value.data)
    if name is None:
        raise VerifyException(f"{op.name} ordering must be one of "
                              f"{', '.join(f'{v} ({k})' for k, v in ORDERINGS.items())}, got {order.value.data}")
    if name == "not_atomic":
        return
    load = op.name == "llvm.load"
    typ = op.results[0].type if load else op.operands[0].type
    if not _atomic_type(typ):
        raise VerifyException(f"unsupported type {typ} for atomic access: an atomic {'load' if load else 'store'} "
                              "moves an integer of 8 to 64 bits, a 16- to 64-bit float or a pointer")
    if name in (("release", "acq_rel") if load else ("acquire", "acq_rel")):
        raise VerifyException(f"unsupported ordering '{name}' for an atomic {'load' if load else 'store'}")


def verify_upstream_rules(op: Operation) -> None:
    """Raise VerifyException when ``op`` breaks one of the rules above."""
    if op.name in BRANCH_OPS:
        _verify_branch(op)
        return
    if op.name == "scf.for":
        _verify_for_step(op)
        return
    if op.name in ALIGNED_OPS:
        align = op.properties.get("alignment") or op.attributes.get("alignment")
        if isinstance(align, IntegerAttr):
            a = align.value.data
            if a < 0 or (a & (a - 1)) != 0:
                raise VerifyException(f"{op.name} alignment must be a power of two (or 0: the type's ABI "
                                      f"alignment), got {a}")
        _verify_atomic_access(op)
        return
    bound = PREDICATE_RANGES.get(op.name)
    if bound is None:
        return
    pred = op.properties.get("predicate") or op.attributes.get("predicate")
    if isinstance(pred, IntegerAttr) and not 0 <= pred.value.data < bound:
        raise VerifyException(f"{op.name} predicate must be in [0, {bound - 1}], got {pred.value.data}")
