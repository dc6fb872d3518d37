"""Why a transposed GEMM operand computed in the K loop is refused: the transpose comes *before* the ops
that compute it.

The WGMMA lowering reads an operand stored the other way round (A^T at ``(k, program id 0)``, B^T at
``(program id 1, k)``) when the program's ``ct.transpose`` is the last op before the dot, through layout
conversions only (``ct.transpose(w.astype(f16))``).  Written the other way, ``ct.transpose(w).astype(f16)``
or ``ct.maximum(ct.transpose(a), 0)``, the same values reach the dot but no transpose sits right before
it, and the refusal said the operand "reaches the dot without a transpose", which the program plainly
has.  :func:`transpose_before_ops` finds that transpose so the refusal can say where it is and how to
write it."""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

PERMUTE = "nv_tileaa.permute"


def transpose_before_ops(v: SSAValue) -> Operation | None:
    """The ``permute`` that the dot operand ``v`` reads through ops computing it elementwise (each step
    follows the op's first operand of ``v``'s tile shape), when there is one past at least one such op;
    None when ``v``'s chain reaches no permute, or reaches it through layout conversions only."""
    computed = False
    while isinstance(v.owner, Operation):
        op = v.owner
        if op.name == PERMUTE:
            return op if computed else None
        shape = v.type.get_shape() if isinstance(v.type, TensorType) else None
        nxt = next((o for o in op.operands if isinstance(o.type, TensorType) and shape is not None
                    and o.type.get_shape() == shape), None)
        if nxt is None:
            return None
        computed = computed or op.name != "nv_tileas.convert_layout"
        v = nxt
    return None


def early_transpose_refusal(role: str, where: str, v: SSAValue) -> tuple[Operation, str] | None:
    """Where and why to refuse operand ``v`` (``role`` "A" / "B", read at ``where``) when it is transposed
    before the ops computing it (:func:`transpose_before_ops`): the transpose (the program's line to
    change) and the words; else None."""
    permute = transpose_before_ops(v)
    if permute is None:
        return None
    return permute, (f"{role} tile {where} is transposed before the ops that compute it (f(ct.transpose(x))): the "
                     f"WGMMA lowering reads a transposed {role} only when the transpose is the last op before the "
                     "dot; write ct.transpose(f(x)) (the same values)")


__all__ = ["early_transpose_refusal", "transpose_before_ops"]
