"""``tileas-assign-dot-layouts``: choose each dot's MMA atom and its operand layouts.

A dot still on the placeholder ``fma`` atom gets, by target:

* sm_90: ``#nv_tileas.mma.sm90<[64, n, k]>`` (warpgroup MMA; n the widest multiple of 8 up to
  256 that divides N, k = 256 bits of the operand type) when M is a multiple of 64; A and B are
  read from shared memory (swizzled, ``order = [1, 0]``), the accumulator is the MMA fragment
  ``#nv_tileas.layout<reg, atom = mma_acc, instr = [...], warps = [W, 1]>``;
* sm_80+ (or sm_90 shapes WGMMA cannot take): ``#nv_tileas.mma.sm80<[16, 8, k]>`` with register
  operands (``mma_a`` / ``mma_b``);
* otherwise (batched dots, odd shapes) the ``fma`` atom stays, layouts blocked.

The operand ``convert_layout`` hooks from ``convert-tileaa-to-tileas`` get the chosen layouts
(one is inserted if an operand has none), and a ``convert_layout`` after the dot returns the
result in its previous type; ``tileas-remove-layout-conversions`` then moves the accumulator
layout through the loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileorch.diagnostics import copy_location
from tileorch.dialects import nv_tileas_tile as ts
from tileorch.transforms.tileas.common import functions, num_worker_warps, set_type, target_sm
from tileorch.transforms.tileas.layouts import blocked_layout, smem_layout, with_layout


def choose_sm90_atom(m: int, n: int, k: int, bits: int) -> list[int] | None:
    ka = 256 // bits if bits in (8, 16, 32) else 0
    if m % 64 or not ka or k % ka:
        return None
    for na in range(min(n, 256) // 8 * 8, 7, -8):
        if n % na == 0:
            return [64, na, ka]
    return None


def choose_sm80_atom(m: int, n: int, k: int, bits: int) -> list[int] | None:
    ka = 256 // bits if bits in (8, 16) else (8 if bits == 32 else 0)
    if m % 16 or n % 8 or not ka or k % ka:
        return None
    return [16, 8, ka]


def _hook(dot: Operation, operand: SSAValue, layout) -> SSAValue:
    """Point the operand's convert_layout hook at ``layout`` (insert one if absent)."""
    t = operand.type
    assert isinstance(t, TensorType)
    new_t = with_layout(t, layout)
    owner = operand.owner
    if isinstance(owner, ts.ConvertLayoutOp) and operand.uses.get_length() == 1:
        set_type(owner.result, new_t)
        return operand
    cvt = ts.ConvertLayoutOp(operand, new_t)
    copy_location(dot, [cvt])
    Rewriter.insert_op(cvt, InsertPoint.before(dot))
    return cvt.result


def assign_dot(dot: ts.DotOp, sm: int, warps: int) -> None:
    if not isinstance(dot.atom, ts.FmaAtomAttr):
        return
    a, b, c = dot.lhs.type, dot.rhs.type, dot.acc.type
    if a.get_num_dims() != 2:
        return
    m, k = a.get_shape()
    n = b.get_shape()[1]
    bits = ts.bit_width(a.element_type)
    instr = choose_sm90_atom(m, n, k, bits) if sm >= 90 else None
    cta = None
    if instr is not None:
        atom = ts.MmaSm90AtomAttr(instr)
        la, lb = smem_layout(a, cta), smem_layout(b, cta)
    else:
        instr = choose_sm80_atom(m, n, k, bits) if sm >= 80 else None
        if instr is None:
            return
        atom = ts.MmaSm80AtomAttr(instr)
        la = ts.LayoutAttr("reg", atom="mma_a", instr=instr, warps=[warps, 1])
        lb = ts.LayoutAttr("reg", atom="mma_b", instr=instr, warps=[warps, 1])
    lc = ts.LayoutAttr("reg", atom="mma_acc", instr=instr, warps=[warps, 1])
    old_result_t = dot.result.type
    new_a = _hook(dot, dot.lhs, la)
    new_b = _hook(dot, dot.rhs, lb)
    new_c = _hook(dot, dot.acc, lc)
    dot.operands = [new_a, new_b, new_c, *([dot.acc_valid] if dot.acc_valid is not None else [])]
    dot.atom = atom
    set_type(dot.result, with_layout(old_result_t, lc))
    back = ts.ConvertLayoutOp(dot.result, old_result_t)
    copy_location(dot, [back])
    Rewriter.insert_op(back, InsertPoint.after(dot))
    for use in list(dot.result.uses):
        if use.operation is not back:
            use.operation.operands[use.index] = back.result


@dataclass(frozen=True)
class AssignDotLayouts(ModulePass):
    """MMA atoms and operand/accumulator layouts for every dot still on the fma placeholder."""

    name = "tileas-assign-dot-layouts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in functions(op):
            sm = target_sm(func)
            warps = num_worker_warps(func)
            for dot in [o for o in func.walk() if isinstance(o, ts.DotOp)]:
                assign_dot(dot, sm, warps)
