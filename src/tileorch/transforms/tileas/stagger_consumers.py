"""A persistent chained-dots kernel's consumer warp groups started out of step (``TILEORCH_ATTN_STAGGER``).

Both consumer warp groups of a 128-row tile read every K/V tile of every program instance, so
they run in step: each instance's serial parts (tile 0's first dot and softmax, with no second
dot to overlap; the last tile's second dot, with no softmax to overlap; the epilogue and its
stores) fall on both groups at once, and the tensor core idles through them.  Session 27's
H100 numbers put that at ~1.6 key tiles of time per instance at head dim 64 (406.9 TFLOP/s at 8
key tiles, 464.9 at 32).  Started ``C`` cycles apart, one group's serial parts run beside the
other's key tiles.

Mechanism: in the CTA's first program instance, right after its Q wait, consumer warp group
``w`` sleeps (``nanosleep`` turns) until lane 0 of its warp has seen ``w * C`` cycles of
``%clock64`` pass.  Only
the groups' timing changes: no barrier is added or moved, every wait and release of the K/V and
Q rings is the same op in the same order, so the protocol ``tileorch check`` proves is the
default kernel's, and the results are bit-identical (a group that runs ahead is held back by
the K/V ring as before: the producer refills a stage once every group released it).  The skew
is a start offset, not enforced afterwards: the ring bounds it by the stages.

``TILEORCH_ATTN_STAGGER=C`` (cycles, read at each compile, part of the disk-cache key); ``0``
(the default) off until a GPU measures it: a probe of whether out-of-step groups hide the
per-instance serial parts, for a barrier-based protocol to replace if it pays.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import i32, i64
from xdsl.ir import Block, Region, SSAValue

from tileorch import settings
from tileorch.dialects import nvvm
from tileorch.transforms.tileaa_to_simt.emit import Emitter, inline_asm

STAGGER_ENV = "TILEORCH_ATTN_STAGGER"
SLEEP_NS = 64
"""``nanosleep`` of one turn of the wait (a sleeping warp issues nothing; the other group's warps
take its issue slots; PTX promises a sleep in ``[0, 2 t]``, so the wait ends by the clock)."""
LANE0 = "shfl.sync.idx.b32 $0, $1, 0, 31, -1;"


def stagger_cycles() -> int:
    """``C`` of ``TILEORCH_ATTN_STAGGER`` (0: off)."""
    return int(settings.value(STAGGER_ENV) or 0)


def emit_stagger(e: Emitter, wg: SSAValue, it: SSAValue, cycles: int) -> None:
    """At ``e``'s insertion point: when ``it`` (the CTA's instance count so far, i32) is 0, consumer
    warp group ``wg`` (i32) sleeps in turns of :data:`SLEEP_NS` until lane 0 of its warp has seen
    ``wg * cycles`` cycles of ``%clock64`` pass (warp group 0 not at all).  The guard and the loop's
    exit are lane 0's values (``shfl.sync.idx``): a value computed from the thread id or a lane's
    own clock made ptxas put divergence checks (``BRA.DIV``) before the key-tile loop's shuffles."""
    first = _named(e.v(arith.CmpiOp(it, e.const(0), "eq")), "stg_first")
    wg = _named(e.v(inline_asm(LANE0, "=r,r", [wg], [i32])), "stg_wg")
    run = _named(e.v(arith.AndIOp(first, e.v(arith.CmpiOp(wg, e.const(0), "ne")))), "stg_run")
    then = Block()
    t = e.nested(then)
    t0 = _named(t.v(nvvm.SPECIAL_REGISTERS["clock64"]()), "stg_t0")
    delay = _named(t.v(arith.MuliOp(t.v(arith.ExtUIOp(wg, i64)), t.v(arith.ConstantOp.from_int_and_width(cycles, 64)))),
                   "stg_delay")
    before = Block()
    b = e.nested(before)
    elapsed = b.v(arith.SubiOp(b.v(nvvm.SPECIAL_REGISTERS["clock64"]()), t0))
    lane = b.v(arith.ExtUIOp(b.v(arith.CmpiOp(elapsed, delay, "ult")), i32))
    waiting = _named(b.v(arith.CmpiOp(b.v(inline_asm(LANE0, "=r,r", [lane], [i32])), b.const(0), "ne")),
                     "stg_waiting")
    before.add_op(scf.ConditionOp(waiting))
    after = Block()
    a = e.nested(after)
    a.add(nvvm.NanosleepOp(a.const(SLEEP_NS)))
    after.add_op(scf.YieldOp())
    t.add(scf.WhileOp([], [], Region(before), Region(after)))
    then.add_op(scf.YieldOp())
    e.add(scf.IfOp(run, [], Region(then), Region()))


def _named(v: SSAValue, name: str) -> SSAValue:
    v.name_hint = name
    return v
