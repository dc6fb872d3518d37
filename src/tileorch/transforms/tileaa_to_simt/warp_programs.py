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

Several programs per warp (attribute :data:`PROGRAMS_PER_WARP_ATTR` = ``R``, chosen by
:func:`programs_per_warp`): a warp whose program loads little (an argmax row of 1 KiB: two 16-byte
loads per lane) waits for that load, reduces, stores and exits; an SM's 64 warps then keep about
64 KiB nominally but much less actually in flight, as each warp spends most of its life issuing
its reduction or waiting for a new CTA.  The lowering then emits ``R`` consecutive programs per
warp, program ``k`` at id ``warp_program * R + k``: the hoisted loads of all ``R`` programs first
(``hoist.split_loads_first``: weak tiled loads, bounds-checked per element, and scalar index
math, so issuing them for a program past the grid reads nothing it may not), then the other
ops op by op for all ``R`` programs (a tiled store of program ``k > 0`` under ``id < programs``;
a whole-warp reduction of all ``R`` at once, ``FunctionLowering._reduce_copies``: the first
``log2 R`` butterfly steps split the programs between the lanes of each pair, so ``R`` rows cost
about one row's shuffles and folds, bit for bit the same results), or, when an op may not run
past the grid (a loop, a branch, a pointer load, an atomic), each program's ops under
``id < programs``.  The launch divides the grid's
x by ``W * R``.  Programs run by one warp are independent programs of the grid: their order is
not observable, so moving program ``k``'s loads above program ``k - 1``'s store is exact.
"""

from __future__ import annotations


from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import FunctionType, IntegerAttr, i32
from xdsl.ir import Block, Operation, Region

from tileorch import settings
from tileorch.dialects import nvvm
from tileorch.transforms.tileaa_to_simt.emit import cmpi

WARP_PROGRAMS_ATTR = "tileorch.warp_programs"
"""On a SIMT kernel: the most programs (warps) one CTA may run; see the module docstring."""
MAX_WARP_PROGRAMS = 2
PROGRAMS_PER_WARP_ATTR = "tileorch.programs_per_warp"
"""On a SIMT kernel with :data:`WARP_PROGRAMS_ATTR`: the programs each warp runs (absent: 1)."""
TARGET_WARP_LOAD_BYTES = 2048
"""The bytes a warp's hoisted loads should bring: a 2 KiB row per warp (f16 softmax, rmsnorm
and layernorm of 1024-wide rows) runs at the H200's copy rate; an argmax of 1 KiB rows, one per
warp, at 0.72 of it."""
MAX_PROGRAMS_PER_WARP = 4


def enabled() -> bool:
    """``TILEORCH_WARP_PROGRAMS=0`` keeps one program per CTA (for measuring the difference)."""
    return settings.value("TILEORCH_WARP_PROGRAMS") != "0"


def programs_per_warp(load_bytes: int, load_words: int, word_budget: int) -> int:
    """Programs per warp for a one-warp program whose hoisted loads bring ``load_bytes`` per
    warp in ``load_words`` registers per thread: the smallest power of two whose loads reach
    :data:`TARGET_WARP_LOAD_BYTES`, at most :data:`MAX_PROGRAMS_PER_WARP` and within
    ``word_budget`` registers (1 without hoisted loads).  ``TILEORCH_PROGRAMS_PER_WARP=N``
    forces ``N`` (1: one program per warp, for measuring the difference)."""
    forced = settings.value("TILEORCH_PROGRAMS_PER_WARP")
    if forced:
        return max(1, int(forced))
    r = 1
    while (0 < load_bytes * r < TARGET_WARP_LOAD_BYTES and r * 2 <= MAX_PROGRAMS_PER_WARP
           and load_words * r * 2 <= word_budget):
        r *= 2
    return r


def eligible(fn: func.FuncOp, threads: int, scratch_bytes: int) -> bool:
    """A one-warp program with no CTA barrier and no shared memory."""
    if threads != 32 or scratch_bytes or not enabled():
        return False
    barrier = nvvm.BarrierOp.name  # (by name: an op class test is an ABC instance check, per op)
    return not any(op.name == barrier for op in fn.walk())


def _reads(fn: func.FuncOp, regs: tuple[str, ...]) -> dict[str, list[Operation]]:
    """The reads of each special register of ``regs`` in ``fn``, in walk order (one walk; ops
    told by name, one dict lookup per op instead of an ABC instance check per op and register)."""
    names = {nvvm.SPECIAL_REGISTERS[reg].name: reg for reg in regs}
    found: dict[str, list[Operation]] = {reg: [] for reg in regs}
    for op in fn.walk():
        reg = names.get(op.name)
        if reg is not None:
            found[reg].append(op)
    return found


def pack_warp_programs(fn: func.FuncOp, per_warp: int = 1) -> None:
    """Rewrite ``fn`` (a lowered one-warp SIMT kernel, see :func:`eligible`) in place; it runs
    ``per_warp`` programs per warp (``ctaid.x`` read as the warp's index among the grid's warps,
    the lowering derived each program's id from it): the warp runs when its first is a program."""
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
    first = program  # the warp's first program
    if per_warp > 1:
        first = add(arith.MuliOp(program, add(arith.ConstantOp(IntegerAttr(per_warp, i32)))))
    live = add(cmpi(first, programs, "ult"))

    # the reads are found up front: replacing one register's reads adds or removes no other's
    replaced = (("tid.x", lane), ("ctaid.x", program), ("nctaid.x", programs))
    reads = _reads(fn, tuple(reg for reg, _ in replaced))
    for reg, value in replaced:
        for op in reads[reg]:
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
    if per_warp > 1:
        fn.attributes[PROGRAMS_PER_WARP_ATTR] = IntegerAttr(per_warp, i32)


__all__ = ["MAX_PROGRAMS_PER_WARP", "MAX_WARP_PROGRAMS", "PROGRAMS_PER_WARP_ATTR", "TARGET_WARP_LOAD_BYTES",
           "WARP_PROGRAMS_ATTR", "eligible", "pack_warp_programs", "programs_per_warp"]
