"""``tileas-assign-dot-layouts``: choose each dot's MMA atom and its operand layouts.

A dot still on the placeholder ``fma`` atom gets, by target (``nv_tileaa.target_spec`` /
``nv_tileaa.compute_capability`` on the enclosing module, see ``common.target_sm``):

* sm_90 (Hopper, the only target with warpgroup MMA): ``#nv_tileas.mma.sm90<[64, n, k]>``
  (``wgmma``; n the widest multiple of 8 up to 256 that divides N, k = 256 bits of the operand
  type) when M is a multiple of 64; A and B are read from shared memory (swizzled,
  ``order = [1, 0]``), the accumulator is the MMA fragment
  ``#nv_tileas.layout<reg, atom = mma_acc, instr = [...], warps = [W, 1]>``;
* sm_100 / sm_101 / sm_102 / sm_103 / sm_110 (the datacenter Blackwells, tcgen05): the UMMA atom
  ``#nv_tileas.mma.sm100<[m, n, k]>`` (``tcgen05.mma``, cta_group::1: m = 128 when M allows,
  else 64 -- for a cluster, when a CTA's share of M allows (``tileas-plan-cta``'s rule); n a
  multiple of 16 (m = 128) or 8 (m = 64) up to 256; k = 256 bits), A and B in
  shared memory, the accumulator in tensor memory (``#nv_tileas.layout<tmem>``).  Blackwell has
  no ``wgmma``: it never gets the sm90 atom;
* sm_80+ (Ampere, Ada, the consumer Blackwells sm_120/121, and shapes the atoms above cannot
  take): ``#nv_tileas.mma.sm80<[16, 8, k]>`` with register operands (``mma_a`` / ``mma_b``);
  on a tensor-memory target this fallback is reported by a remark on stderr;
* otherwise (odd shapes, pre-Ampere) the ``fma`` atom stays, layouts blocked.

A dot of rank > 2 (leading batch dimensions) is a batch of independent matrix products over
its last two dimensions: it gets the atom its 2-D form would get, and its layouts keep the
batch dimensions whole (``warps`` 1, ``order`` innermost first as for any rank).

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
from tileorch.transforms.tileas.common import convert_users, note, num_ctas, set_type, targeted_functions
from tileorch.transforms.tileas.layouts import blocked_layout, smem_layout, with_layout


def choose_sm90_atom(m: int, n: int, k: int, bits: int) -> list[int] | None:
    ka = 256 // bits if bits in (8, 16, 32) else 0
    if m % 64 or not ka or k % ka:
        return None
    for na in range(min(n, 256) // 8 * 8, 7, -8):
        if n % na == 0:
            return [64, na, ka]
    return None


def wgmma_target(sm: int) -> bool:
    """Warpgroup MMA (``wgmma.mma_async``) exists on sm_90a only: Blackwell dropped it."""
    return sm == 90


def umma_target(sm: int) -> bool:
    """tcgen05 (UMMA, tensor memory): the datacenter Blackwells sm_100..103 and sm_110 (the
    seed's Blackwell set, as ``tileas-insert-OCG-knobs`` reads it)."""
    return 0 <= sm - 100 <= 3 or sm == 110


def choose_sm100_atom(m: int, n: int, k: int, bits: int) -> list[int] | None:
    """tcgen05.mma (cta_group::1) instruction shape for an M x N x K tile, or None."""
    ka = 256 // bits if bits in (8, 16, 32) else 0
    if not ka or k % ka:
        return None
    for ma, nstep in ((128, 16), (64, 8)):
        if m % ma:
            continue
        for na in range(min(n, 256) // nstep * nstep, nstep - 1, -nstep):
            if n % na == 0:
                return [ma, na, ka]
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


def _warps(rank: int, warps: int) -> list[int]:
    """Warps over the matrix rows; leading batch dimensions stay whole."""
    return [1] * (rank - 2) + [warps, 1]


def assign_dot(dot: ts.DotOp, sm: int, warps: int, ctas: int = 1) -> None:
    if not isinstance(dot.atom, ts.FmaAtomAttr):
        return
    a, b, c = dot.lhs.type, dot.rhs.type, dot.acc.type
    rank = a.get_num_dims()
    if rank < 2:
        return
    m, k = a.get_shape()[-2:]
    n = b.get_shape()[-1]
    bits = ts.bit_width(a.element_type)
    cta = None
    atom = None
    share_m = m
    if wgmma_target(sm):
        instr = choose_sm90_atom(m, n, k, bits)
        if instr is not None:
            atom = ts.MmaSm90AtomAttr(instr)
            la, lb = smem_layout(a, cta), smem_layout(b, cta)
            lc = ts.LayoutAttr("reg", atom="mma_acc", instr=instr, warps=_warps(rank, warps))
    elif umma_target(sm):
        # tileas-plan-cta splits a 2-D tile along M over the cluster, and a CTA's share must be
        # whole atoms: the UMMA M (128 or 64) is chosen for the share
        share_m = m // ctas if rank == 2 and ctas > 1 and m % ctas == 0 else m
        instr = choose_sm100_atom(share_m, n, k, bits)
        if instr is not None:
            atom = ts.MmaSm100AtomAttr(instr)
            la, lb = smem_layout(a, cta), smem_layout(b, cta)
            lc = ts.LayoutAttr("tmem")
    if atom is None:
        instr = choose_sm80_atom(m, n, k, bits) if sm >= 80 else None
        if instr is None:
            return
        if umma_target(sm):
            what = f"this {m}x{n}x{k} dot" if share_m == m else \
                f"a CTA's {share_m}x{n}x{k} share of this {m}x{n}x{k} dot ({ctas} CTAs)"
            note(dot, f"no tcgen05 (UMMA) atom fits {what} on sm_{sm}: it falls back to "
                      f"mma.sync (#nv_tileas.mma.sm80<{instr}>)")
        atom = ts.MmaSm80AtomAttr(instr)
        w = _warps(rank, warps)
        la = ts.LayoutAttr("reg", atom="mma_a", instr=instr, warps=w)
        lb = ts.LayoutAttr("reg", atom="mma_b", instr=instr, warps=w)
        lc = ts.LayoutAttr("reg", atom="mma_acc", instr=instr, warps=w)
    old_result_t = dot.result.type
    new_a = _hook(dot, dot.lhs, la)
    new_b = _hook(dot, dot.rhs, lb)
    new_c = _hook(dot, dot.acc, lc)
    dot.operands = [new_a, new_b, new_c, *([dot.acc_valid] if dot.acc_valid is not None else [])]
    dot.atom = atom
    set_type(dot.result, with_layout(old_result_t, lc))
    convert_users(dot.result, old_result_t, InsertPoint.after(dot), dot)


@dataclass(frozen=True)
class AssignDotLayouts(ModulePass):
    """MMA atoms and operand/accumulator layouts for every dot still on the fma placeholder."""

    name = "tileas-assign-dot-layouts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func, sm, warps in targeted_functions(op):
            for dot in [o for o in func.walk() if isinstance(o, ts.DotOp)]:
                assign_dot(dot, sm, warps, num_ctas(func))
