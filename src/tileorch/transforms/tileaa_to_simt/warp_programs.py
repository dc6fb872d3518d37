"""Several tile programs per CTA, one per warp, for SIMT kernels whose program is one warp.

A program whose tiles fit one warp (a short row: a 1 KiB argmax row, a 2 KiB softmax row) is a
32-thread CTA.  An SM holds at most 32 CTAs, so such kernels keep only half the warps an SM
can run in flight, and half the bytes a memory-bound kernel needs to cover the memory's latency
(argmax of 1 KiB rows on an H200: 1.67 -> 3.0 TB/s with two programs per CTA).
:func:`pack_warp_programs` rewrites the lowered kernel so that a CTA of ``32 * W`` threads runs
``W`` consecutive programs along x, one per warp; ``W`` is the launch's choice (``%ntid.x / 32``,
at most :data:`MAX_WARP_PROGRAMS`; ``tileorch.launchers.cutile.warps_per_cta``), so one cubin
serves small and large grids alike.

Contract of the rewritten kernel (attribute :data:`WARP_PROGRAMS_ATTR` = the largest ``W``):

* one extra trailing ``i32`` parameter: the number of programs along x (the tile grid's x);
* launched with block ``(32 * W, 1, 1)`` and grid ``(ceil(programs_x / W), y, z)``;
* program id x = ``%ctaid.x * W + warp``, ``num_programs(0)`` = the parameter, the lane
  (``%tid.x % 32``) is what the program saw as its thread index; a warp past the last program
  does nothing.

Only kernels that never synchronize the CTA (no ``bar.sync``) and use no shared memory are
rewritten: their warps are independent, so the rewrite is exact.
"""

from __future__ import annotations

import os

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import FunctionType, IntegerAttr, i32
from xdsl.ir import Block, Operation, Region

from tileorch.dialects import nvvm

WARP_PROGRAMS_ATTR = "tileorch.warp_programs"
"""On a SIMT kernel: the most programs (warps) one CTA may run; see the module docstring."""
MAX_WARP_PROGRAMS = 2


def enabled() -> bool:
    """``TILEORCH_WARP_PROGRAMS=0`` keeps one program per CTA (for measuring the difference)."""
    return os.environ.get("TILEORCH_WARP_PROGRAMS", "1") != "0"


def eligible(fn: func.FuncOp, threads: int, scratch_bytes: int) -> bool:
    """A one-warp program with no CTA barrier and no shared memory."""
    if threads != 32 or scratch_bytes or not enabled():
        return False
    return not any(isinstance(op, nvvm.BarrierOp) for op in fn.walk())


def _reads(fn: func.FuncOp, reg: str) -> list[Operation]:
    cls = nvvm.SPECIAL_REGISTERS[reg]
    return [op for op in fn.walk() if isinstance(op, cls)]


def pack_warp_programs(fn: func.FuncOp) -> None:
    """Rewrite ``fn`` (a lowered one-warp SIMT kernel, see :func:`eligible`) in place."""
    entry = fn.body.blocks[0]
    programs = entry.insert_arg(i32, len(entry.args))
    fn.function_type = FunctionType.from_lists([*fn.function_type.inputs.data, i32], [])

    prologue = Block()

    def add(op: Operation):
        prologue.add_op(op)
        return op.results[0]

    tid = add(nvvm.SPECIAL_REGISTERS["tid.x"]())
    ntid = add(nvvm.SPECIAL_REGISTERS["ntid.x"]())
    ctaid = add(nvvm.SPECIAL_REGISTERS["ctaid.x"]())
    c5 = add(arith.ConstantOp(IntegerAttr(5, i32)))
    c31 = add(arith.ConstantOp(IntegerAttr(31, i32)))
    lane = add(arith.AndIOp(tid, c31))
    warp = add(arith.ShRUIOp(tid, c5))
    warps = add(arith.ShRUIOp(ntid, c5))
    program = add(arith.AddiOp(add(arith.MuliOp(ctaid, warps)), warp))
    live = add(arith.CmpiOp(program, programs, "ult"))

    for reg, value in (("tid.x", lane), ("ctaid.x", program), ("nctaid.x", programs)):
        for op in _reads(fn, reg):
            if op.results[0] in (tid, ntid, ctaid):
                continue
            op.results[0].replace_all_uses_with(value)
            op.detach()
            op.erase()

    body = Block()
    ret = entry.last_op
    assert isinstance(ret, func.ReturnOp), "a lowered SIMT kernel ends with func.return"
    for op in list(entry.ops):
        if op is ret:
            break
        op.detach()
        body.add_op(op)
    body.add_op(scf.YieldOp())
    guarded = scf.IfOp(live, [], Region(body), Region(Block([scf.YieldOp()])))
    for op in list(prologue.ops):
        op.detach()
        entry.insert_op_before(op, ret)
    entry.insert_op_before(guarded, ret)
    fn.attributes[WARP_PROGRAMS_ATTR] = IntegerAttr(MAX_WARP_PROGRAMS, i32)


__all__ = ["MAX_WARP_PROGRAMS", "WARP_PROGRAMS_ATTR", "eligible", "pack_warp_programs"]
