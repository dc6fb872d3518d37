"""The checker's :class:`~tileorch.analysis.protocol.Protocol` of a chained-dots kernel (NVVM
level: a ``func.func`` carrying ``tileorch.chained_config``, docs/chained-dots.md), read from its
ops by name.

The kernel is warp-specialized: the threads below the producer guard (``scf.if`` on
``tid >= C`` whose side runs ``setmaxregister decrease``) are ``C / 128`` consumer warp groups;
one thread of the producer warp group issues every TMA copy.  The K/V ring has ``S`` stages, each
with a *full* mbarrier (``mbarrier.init`` count, armed by ``mbarrier.arrive.expect_tx`` with the
stage's bytes, completed by the ``cp.async.bulk.tensor`` copies issued on it) and an *empty*
mbarrier (init count = the arrivals it waits for).  The producer loop (``scf.for`` over the tiles)
waits on the stage's empty barrier (``mbarrier.try_wait.parity``) only from its ``L``-th
iteration on (the ``scf.if`` on ``iv >= L`` around the wait), then arms and fills the stage; a
skipped wait in the first round over the ring is modelled as the acquire that passes at once on a
fresh barrier, one in a later round (``L > S``) as a fill without acquire.  Before leaving, the
producer waits on ``T`` further empty phases (its tail: a loop from ``n`` to ``n + T``, ``T = S``
so that no release is still in flight when it exits).  The
consumer loop waits on the stage's full barrier, reads it, and every consumer thread arrives on
the stage's empty barrier (``mbarrier.arrive``) after its last read.  A pipelined consumer (the
second dot of tile ``j - 1`` overlaps tile ``j``'s first) peels tile 0 (a full wait on stage 0
before the loop), runs its loop from 1 (wait for tile ``j``, read and release tile ``j - 1``), and
releases the last tile after the loop: two pipeline states, one for the waits and one for the
releases.  Full and empty barriers are
told apart by their address bases: ``getelementptr %smem[stage * 8 + base]`` at the waits, the
arm and the arrive; ``mbarrier.init`` of ``base + 8 i`` gives each side's count.

Agents: the producer thread (``tma``), each consumer warp group (``wg0`` ..; 128 threads that
each arrive once per tile).  The consumer warp groups' ping-pong (``bar.sync`` / ``bar.arrive`` with
a thread count, ``nvvm.barrier`` / ``nvvm.barrier.arrive``) is read per warp group: the barrier
ids and the ``scf.if`` guards around them are evaluated for the group's ``tid / 128`` (a guard
``n > lb`` on the trip count, ``lb`` the consumer loop's lower bound, runs once when the loop runs;
a pipelined consumer's turns cover its loop from tile 1); a sync in the loop after its full wait,
an arrive after the sync and before its release, others before or after the loop.  Bytes per copy come from the record's tensor-map boxes (the copy names
its tensor map by the kernel parameter).  Trip counts ``k = 1 .. 2S + 1``.  The Q tile's
single-use barrier is not modelled (one wait on parity 0 after one ``expect_tx``), except in a
persistent kernel (the record's ``persistent``): there each agent's ring loop sits in a loop over
the CTA's program instances (``m = 1 .. 3``), the K/V ring counts on across instances (the
producer's first-round skip reads ``iv + ring``), and the Q slots are a second ring (``q``): the
producer acquires the slot, arms its full barrier and copies Q per instance and drains every slot
before leaving, each consumer thread waits for Q and releases the slot after its loop.  Named
barriers outside a persistent kernel's loop over instances (``TILEORCH_ATTN_PINGPONG=kernel``:
warp group 1's first turn before it, warp group 0's last sync after it, once per kernel) are the
consumer's program before / after that loop.  A persistent producer that loads each instance's
first ``min(k, A)`` K/V tiles before its Q (the record's ``kv_ahead`` = ``A``,
``TILEORCH_ATTN_KV_AHEAD``) has two ring loops in its work loop, ``0 .. minui(n, A)`` before the Q
arm and the rest after it: modelled as two loops over the same ring around the Q slot's ops.
A kernel whose thread 0 issues the first instance's Q and first ``min(k, S)`` K/V tiles before the CTA barrier
(the record's ``early_tma`` = ``S``, ``TILEORCH_ATTN_EARLY_TMA``: the entry block's ``scf.if`` marked
``tileorch.early_tma``, before the ``nvvm.barrier``) is checked to issue exactly what the producer's first
instance then skips (one Q arm of the producer's bytes, one ring loop ``0 .. minui(n, S)`` without empty waits and
with the producer's stage fill; the producer's ring loops from ``select(it != 0, 0, minui(n, S))`` and its Q arm
under ``scf.if it != 0``), and modelled as the producer's own first-round ops: they are the same arms and copies
on the same fresh barriers, none of them waits, and every wait on those barriers comes after the CTA barrier, so
issuing them earlier can only make tiles land sooner (the model does not represent the other thread nor a first
instance unlike the others).
A consumer loop with several full waits an iteration (``TILEORCH_ATTN_K_AHEAD``: tile ``j``'s and,
ahead, tile ``j + 1``'s) is read op by op with each ring op's tile by
:mod:`tileorch.analysis.chained_tiles` (its waits are ``ConsumerWait(again=True)``: the checker
decides which acquire and which wait again on a held round).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue

from tileorch.analysis.catalog import trip_counts
from tileorch.analysis.extract import _structure
from tileorch.analysis.protocol import (Advance, Agent, BarArrive, BarSync, ConsumerRead, ConsumerRelease, ConsumerWait,
                                        Loop, Pipeline, ProducerAcquire, ProducerCommit, ProducerWrite, Protocol,
                                        StateDecl, Trip)
from tileorch.diagnostics import LocatedError
from tileorch.dialects.record_attr import decode_record

RECORD = "tileorch.chained_config"
INIT = "nvvm.mbarrier.init"
EXPECT_TX = "nvvm.mbarrier.arrive.expect_tx"
COPY = "nvvm.cp.async.bulk.tensor.shared.cluster.global"
WAIT = "nvvm.mbarrier.try_wait.parity"
ARRIVE = "nvvm.mbarrier.arrive"
RING = "kv"
EARLY_ATTR = "tileorch.early_tma"  # (transforms/tileas/chained_dots.py's EARLY_TMA_ATTR: analysis/ reads IR only)
Q_RING = "q"
INSTANCES = (1, 2, 3)
"""Program instances per CTA checked for a persistent kernel (every instance with the same trip
count ``k``): three reach a Q slot's second use with two slots."""
WG = 128


def chained_kernels(module: ModuleOp) -> list[Operation]:
    return [op for op in module.body.block.ops if op.name == "func.func" and RECORD in op.attributes]


def _const(v: SSAValue) -> int | None:
    o = v.owner
    if isinstance(o, Operation) and o.name in ("arith.constant", "llvm.mlir.constant"):
        val = o.properties.get("value")
        val = o.attributes.get("value") if val is None else val  # (an IntegerAttr of 0 is falsy)
        if isinstance(val, IntegerAttr):
            return val.value.data
    return None


def _smem_offset(v: SSAValue) -> int | None:
    """The constant byte offset of a ``getelementptr %smem[c]`` barrier address."""
    o = v.owner
    if isinstance(o, Operation) and o.name == "llvm.getelementptr" and len(o.operands) >= 2:
        return _const(o.operands[1])
    return None


def _ring_base(v: SSAValue) -> int | None:
    """``base`` of a ring barrier address ``getelementptr %smem[addi(stage * 8, base)]``."""
    o = v.owner
    if not (isinstance(o, Operation) and o.name == "llvm.getelementptr" and len(o.operands) >= 2):
        return None
    idx = o.operands[1].owner
    if isinstance(idx, Operation) and idx.name == "arith.addi":
        return _const(idx.operands[1])
    return None


def _through_min(v: SSAValue, depth: int = 8) -> bool:
    """Whether the address ``v`` is computed from an ``arith.minsi`` (within ``depth`` ops): the
    S-ahead consumer's wait on tile ``min(j + 1, n - 1)``."""
    o = v.owner
    if depth == 0 or not isinstance(o, Operation):
        return False
    return o.name == "arith.minsi" or any(_through_min(x, depth - 1) for x in o.operands)


WGMMA_WAIT = "nvvm.wgmma.wait.group.sync.aligned"


def _is_wgmma_issue(op: Operation) -> bool:
    return op.name in ("nvvm.wgmma.mma_async", "nvvm.wgmma.commit.group.sync.aligned") or (
        op.name == "llvm.inline_asm" and "wgmma.mma_async" in str(op.properties.get("asm_string", "")))


def _check_release_after_wgmma(arrive: Operation) -> None:
    """A consumer's release of a stage must follow a ``wgmma.wait_group 0`` that comes after every
    WGMMA issued before it in its block (the WGMMAs read the stage's tiles from shared memory
    asynchronously: releasing earlier lets the producer overwrite a tile still being read).  The
    protocol model has no WGMMA groups, so this is checked on the IR: scanning back from the arrive,
    the first WGMMA operation met must be ``wait_group 0``."""
    op = arrive.prev_op
    while op is not None:
        if op.name == WGMMA_WAIT:
            if op.group.value.data == 0:
                return
            raise LocatedError(arrive, f"check: a stage is released after wgmma.wait_group {op.group.value.data}: "
                                       "WGMMAs reading it may still be in flight (wait_group 0 before the release)")
        if _is_wgmma_issue(op):
            break
        op = op.prev_op
    raise LocatedError(arrive, "check: a stage is released (mbarrier.arrive) without a wgmma.wait_group 0 after "
                               "the WGMMAs before it: they may still read the stage")


def _in_loop(op: Operation) -> bool:
    p = op.parent_op()
    while p is not None and p.name != "func.func":
        if p.name == "scf.for":
            return True
        p = p.parent_op()
    return False


def _region_owner(op: Operation) -> Operation | None:
    return op.parent_op() if op.parent_op() is not None and op.parent_op().name == "scf.if" else None


SYNC = "nvvm.barrier"
HANDOFF = "nvvm.barrier.arrive"
HAS_TILES = "n > 0"


def _agent_value(v: SSAValue, wg: int, n_tiles: SSAValue, at: Operation, lower: int = 0):
    """``v`` for the threads of consumer warp group ``wg``: an int (a bool as 0/1), or
    :data:`HAS_TILES` for ``n_tiles > lower`` (the consumer loop from ``lower`` runs).  Constants,
    ``tid / 128``, integer and boolean arithmetic; anything else is a located error at ``at``."""
    c = _const(v)
    if c is not None:
        return c
    o = v.owner
    name = o.name if isinstance(o, Operation) else None
    if name == "arith.divui" and _const(o.operands[1]) == WG and isinstance(o.operands[0].owner, Operation) \
            and o.operands[0].owner.name == "nvvm.read.ptx.sreg.tid.x":
        return wg
    if name == "arith.cmpi" and o.operands[0] is n_tiles and _const(o.operands[1]) == lower \
            and o.predicate.value.data == 4:  # sgt
        return HAS_TILES
    if name in ("arith.addi", "arith.subi", "arith.muli", "arith.andi", "arith.cmpi"):
        a, b = (_agent_value(x, wg, n_tiles, at, lower) for x in o.operands)
        if name == "arith.andi":
            if HAS_TILES in (a, b):
                other = b if a == HAS_TILES else a
                return HAS_TILES if other in (1, HAS_TILES) else 0
            return a & b
        if HAS_TILES in (a, b):
            raise LocatedError(at, "check: a named barrier's id or guard combines the trip count in a way the "
                                   "checker does not read")
        if name == "arith.addi":
            return a + b
        if name == "arith.subi":
            return a - b
        if name == "arith.muli":
            return a * b
        pred = o.predicate.value.data  # eq ne slt sle sgt sge ult ule ugt uge
        return int([a == b, a != b, a < b, a <= b, a > b, a >= b, a < b, a <= b, a > b, a >= b][pred])
    raise LocatedError(at, "check: a named barrier's id or guard is not a function of the warp group "
                           "(tid / 128) and the trip count")


def _named_ops(fn: Operation, cons_loop: Operation, wg: int, count_ok, full_wait: Operation,
               release: Operation, lower: int = 0, work: Operation | None = None,
               kernel_level: list | None = None) -> tuple[tuple, tuple, tuple, tuple]:
    """(before the loop, the loop's sync, the loop's arrive, after the loop) protocol ops of the
    consumer warp groups' named barriers for warp group ``wg`` (the consumer loop runs from
    ``lower``: a guard ``n > lower`` runs its side once when the loop runs).  With ``work`` (a
    persistent kernel's loop over instances around ``cons_loop``), the named barriers outside it
    (FlashAttention-3's once-per-kernel first turn and last hand-over,
    ``TILEORCH_ATTN_PINGPONG=kernel``) go to ``kernel_level`` as ``("before" | "after", op)``; a guard
    on the trip count there is a located error (no instance's trip count is in scope)."""
    n_tiles = cons_loop.operands[1]
    before, sync, arrive, after = [], [], [], []
    body = cons_loop.regions[0].blocks.first
    order = {id(o): i for i, o in enumerate(body.ops)}
    for op in fn.walk():
        if op.name not in (SYNC, HANDOFF) or len(op.operands) < 2:
            continue  # the CTA barrier (bar.sync 0, every thread) is not the consumers'
        outside = work is not None and not work.is_ancestor(op)
        bid = _agent_value(op.operands[0], wg, n_tiles, op, lower)
        count = _const(op.operands[1])
        if count is None or not count_ok(count):
            raise LocatedError(op, f"check: a consumer named barrier with thread count {count} (the consumer "
                                   "warp groups' threads expected)")
        pop = (BarSync if op.name == SYNC else BarArrive)(bid, count, origin=op)
        guard, runs = _region_owner(op), 1
        if guard is not None and guard.name == "scf.if" and not any(x.name == "nvvm.setmaxregister"
                                                                   for x in guard.walk()):
            side = op.parent_block().parent_region() is guard.regions[0]
            cond = _agent_value(guard.operands[0], wg, n_tiles, guard, lower)
            runs = cond if cond == HAS_TILES else int(bool(cond) == side)
        if runs == 0:
            continue
        if outside:
            if runs != 1:
                raise LocatedError(op, "check: a named barrier outside the loop over instances guarded by a trip "
                                       "count")
            if kernel_level is None:
                raise LocatedError(op, "check: a named barrier outside the loop over instances is not read here")
            kernel_level.append(("before" if _before(op, work) else "after", pop))
            continue
        item = pop if runs == 1 else Loop(Trip("k", lower=lower, cap=1), (pop,), origin=op)
        if op.parent_block() is body:
            if runs != 1:
                raise LocatedError(op, "check: a guarded named barrier inside the consumer loop is not read")
            i = order[id(op)]
            if op.name == SYNC and order[id(full_wait)] < i and not sync:
                sync.append(item)
            elif op.name == HANDOFF and sync and i > order[id(sync[0].origin)] and i < order[id(release)] \
                    and not arrive:
                arrive.append(item)
            else:
                raise LocatedError(op, "check: the consumer loop's named barriers: one sync after the full wait, "
                                       "then one arrive before the release")
        elif cons_loop.is_ancestor(op):
            raise LocatedError(op, "check: a named barrier nested in the consumer loop is not read")
        else:
            (before if _before(op, cons_loop) else after).append(item)
    return tuple(before), tuple(sync), tuple(arrive), tuple(after)


def _on_empty_instance(op: Operation, n_tiles: SSAValue, stop: Operation) -> bool:
    """Whether ``op`` (inside ``stop``) runs only for an instance without K/V tiles: it lies in the
    else side of an ``scf.if`` on ``n_tiles > 0`` (the model's instances have ``k >= 1`` tiles)."""
    x = op
    while x is not None and x is not stop:
        p = x.parent_op()
        if p is not None and p.name == "scf.if":
            cond = p.operands[0].owner
            if isinstance(cond, Operation) and cond.name == "arith.cmpi" and cond.operands[0] is n_tiles \
                    and _const(cond.operands[1]) == 0 and cond.predicate.value.data == 4 \
                    and x.parent_region() is p.regions[1]:
                return True
        x = p
    return False


def _before(op: Operation, loop: Operation) -> bool:
    """Whether ``op`` (in a region nested beside ``loop``) comes before it in their common block."""
    x = op
    while x is not None and x.parent_block() is not loop.parent_block():
        x = x.parent_op()
    if x is None:
        raise LocatedError(op, "check: a named barrier outside the consumer warp groups' code")
    return x.is_before_in_block(loop)


class _Reader:
    def __init__(self, fn: Operation):
        self.fn = fn
        attr = fn.attributes[RECORD]
        self.record = decode_record(attr)
        if not isinstance(self.record, dict) or self.record.get("kind") != "chained":
            raise LocatedError(fn, f"check: '{RECORD}' is not a chained-dots record")
        self.stages = int(self.record["stages"])
        ntid = fn.attributes.get("nvvm.maxntid")
        self.threads = int(list(ntid.get_values())[0]) if ntid is not None else int(self.record["threads"])
        self.tmaps = self.record["tmaps"]

    def copy_bytes(self, copy: Operation) -> int:
        """Bytes one TMA copy delivers: its tensor map's box (``box`` contiguous elements, 64 when
        the record does not say, x rows, x ``group`` where the box also spans a group dimension: packed or
        stacked query heads, ``(1, G, BM, D)`` as one box of ``G BM`` rows), of ``esize`` bytes an element (1: an
        e4m3 / e5m2 Q or K tile; 2, f16 / bf16, when the record does not say)."""
        tmap = next((x for x in copy.operands if isinstance(x, BlockArgument) and x.block is self.fn.body.blocks.first
                     and x.index < len(self.tmaps)), None)
        if tmap is None:
            raise LocatedError(copy, "check: a TMA copy whose tensor map is not one of the kernel's first parameters")
        t = self.tmaps[tmap.index]
        return int(t.get("box", 64)) * int(t["rows"]) * int(t.get("group", 1)) * int(t.get("esize", 2))

    def stage_fill(self, arm: Operation) -> tuple[int, int]:
        """(expected tx bytes, bytes the copies on the same barrier deliver) of one ``expect_tx``."""
        tx = _const(arm.operands[1])
        if tx is None:
            raise LocatedError(arm, "check: expect_tx with a transaction count that is not a constant")
        return tx, self._landed(arm.parent_block(), arm.operands[0])

    def _landed(self, block, bar: SSAValue) -> int:
        """Bytes the copies of ``block`` on barrier ``bar`` deliver; an ``scf.if`` holding copies (the producer's
        choice of a loop operand's tile, e.g. a step's own array at the first tile: ``chained_dots.operand_loads``)
        delivers its sides' bytes, which must be equal (a located error otherwise)."""
        total = 0
        for o in block.ops:
            if o.name == COPY and bar in o.operands:
                total += self.copy_bytes(o)
            elif o.name == "scf.if" and any(x.name == COPY for x in o.walk()):
                sides = [self._landed(r.blocks.first, bar) if r.blocks else 0 for r in o.regions]
                if len(sides) != 2 or sides[0] != sides[1]:
                    raise LocatedError(o, f"check: the sides of a choice between TMA copies on a stage's barrier "
                                          f"deliver different bytes ({' vs '.join(map(str, sides))})")
                total += sides[0]
        return total

    def _ring_side(self, ops: list[Operation], what: str) -> int:
        """The one address base (``stage * 8 + base``) of ``ops``' barrier operand."""
        bases = {_ring_base(o.operands[0]) for o in ops}
        if len(bases) != 1 or None in bases:
            raise LocatedError(ops[0] if ops else self.fn, f"check: {what}: expected one ring barrier address "
                                                          "`stage * 8 + base`")
        return bases.pop()

    def _init_counts(self, base: int, inits: list[Operation], what: str) -> int:
        by_offset = {_smem_offset(o.operands[0]): o for o in inits}
        missing = [i for i in range(self.stages) if base + 8 * i not in by_offset]
        if missing:
            raise LocatedError(self.fn, f"check: the {what} barriers of stages {missing} are never initialised")
        counts = {_const(by_offset[base + 8 * i].operands[1]) for i in range(self.stages)}
        if len(counts) != 1 or None in counts:
            raise LocatedError(by_offset[base], f"check: the ring's {what} barriers have arrival counts "
                                                f"{sorted(map(str, counts))} (one constant count expected)")
        return counts.pop()

    def _consumer_threads(self) -> int:
        """``C`` of the producer guard ``scf.if (tid >= C)`` whose true side decreases registers."""
        for op in self.fn.walk():
            if op.name == "nvvm.setmaxregister" and "decrease" in str(op.properties.get("action")):
                guard = op.parent_op()
                cond = guard.operands[0].owner if guard is not None and guard.name == "scf.if" else None
                if isinstance(cond, Operation) and cond.name == "arith.cmpi" and _const(cond.operands[1]) is not None:
                    return _const(cond.operands[1])
        raise LocatedError(self.fn, "check: no producer warp group (scf.if on tid >= C with setmaxregister "
                                    "decrease)")

    def protocol(self) -> Protocol:
        fn, S = self.fn, self.stages
        early = self._early_block()
        loops = [o for o in fn.walk() if o.name == "scf.for" and not (early is not None and early.is_ancestor(o))]

        def innermost(name: str) -> Operation | None:
            """The first loop holding an op ``name`` with no nested loop holding one."""
            return next((lp for lp in loops if any(o.name == name for o in lp.walk())
                         and not any(x is not lp and x.name == "scf.for" and any(o.name == name for o in x.walk())
                                     for x in lp.walk())), None)

        prod_loop, cons_loop = innermost(COPY), innermost(ARRIVE)
        ahead_loop = None  # TILEORCH_ATTN_KV_AHEAD: a ring loop of each instance's first tiles before its Q
        ahead = (self.record.get("persistent") or {}).get("kv_ahead")
        if ahead and prod_loop is not None:
            ahead_loop = prod_loop
            prod_loop = next((lp for lp in loops if lp is not ahead_loop and any(o.name == COPY for o in lp.walk())
                              and not any(x is not lp and x.name == "scf.for" and any(o.name == COPY for o in x.walk())
                                          for x in lp.walk())), None)
        if prod_loop is None or cons_loop is None or prod_loop is cons_loop:
            raise LocatedError(fn, "check: expected a producer loop (TMA copies) and a consumer loop (empty-barrier "
                                   "arrivals)")
        persistent = self.record.get("persistent")
        prod_work = cons_work = None
        if persistent:  # each agent's loop over the CTA's program instances around its ring loop
            prod_work, cons_work = prod_loop.parent_op(), cons_loop.parent_op()
            while prod_work is not None and prod_work.name != "scf.for":
                prod_work = prod_work.parent_op()
            while cons_work is not None and cons_work.name != "scf.for":
                cons_work = cons_work.parent_op()
            if prod_work is None or cons_work is None:
                raise LocatedError(fn, "check: a persistent kernel without a work-tile loop around the producer's "
                                       "and the consumers' loops")
        if ahead_loop is not None:
            self._check_ahead(ahead_loop, prod_loop, prod_work, int(ahead), early is not None)
        if early is not None:
            self._check_early(early, ahead_loop or prod_loop, prod_loop, prod_work)
        p_waits = [o for o in prod_loop.walk() if o.name == WAIT]
        refills = [o for o in prod_loop.walk() if o.name == EXPECT_TX]
        c_waits = [o for o in cons_loop.walk() if o.name == WAIT]
        arrives = [o for o in cons_loop.walk() if o.name == ARRIVE]
        unrolled = bool(self.record.get("s_ahead_unrolled"))  # TILEORCH_ATTN_S_AHEAD=2: two iterations per trip
        if unrolled and len(c_waits) == len(arrives) == 2:
            c_waits, arrives = c_waits[:1], arrives[:1]  # the same ring ops in the same order, one per tile
        # several full waits an iteration (TILEORCH_ATTN_K_AHEAD: tile j's and, ahead, tile j + 1's): the
        # consumer read op by op with each wait's tile (chained_tiles.py)
        tiles = len(c_waits) > 1 and not unrolled and not self.record.get("s_ahead")
        for ops, what in ((p_waits, "producer empty-barrier wait"), (refills, "producer stage fill"),
                          (c_waits, "consumer full-barrier wait"), (arrives, "consumer release")):
            if len(ops) != 1 and not (tiles and ops is c_waits):
                raise LocatedError(fn, f"check: expected one {what} in its loop, found {len(ops)}")
        full = self._ring_side(c_waits + refills, "the full side (consumer wait, producer arm)")
        for a in (o for o in fn.walk() if o.name == ARRIVE):
            _check_release_after_wgmma(a)
        empty = self._ring_side(p_waits + arrives, "the empty side (producer wait, consumer arrive)")
        inits = [o for o in fn.walk() if o.name == INIT]
        full_count = self._init_counts(full, inits, "full")
        empty_count = self._init_counts(empty, inits, "empty")
        refill = self.stage_fill(refills[0])
        skip = self._skip(prod_loop, p_waits[0], prod_work)
        if ahead_loop is not None:  # the same ring loop from tile 0: the same skip, every acquire modelled
            a_waits = [o for o in ahead_loop.walk() if o.name == WAIT]
            a_refills = [o for o in ahead_loop.walk() if o.name == EXPECT_TX]
            if len(a_waits) != 1 or len(a_refills) != 1:
                raise LocatedError(ahead_loop, "check: expected one empty-barrier wait and one stage fill in the "
                                               "producer's loop of the tiles ahead of Q")
            self._ring_side(c_waits + refills + a_refills, "the full side (consumer wait, producer arms)")
            self._ring_side(p_waits + arrives + a_waits, "the empty side (producer waits, consumer arrive)")
            if self._skip(ahead_loop, a_waits[0], prod_work) != skip or skip > S \
                    or self.stage_fill(a_refills[0]) != self.stage_fill(refills[0]):
                raise LocatedError(ahead_loop, "check: the producer's loop of the tiles ahead of Q differs from its "
                                               "ring loop (skipped waits or stage bytes)")
        # the producer's tail: a loop from n to n + T waiting on the empty side (T = S: every stage's
        # last round released before the producer leaves)
        tails = [lp for lp in loops if lp not in (prod_loop, cons_loop, prod_work, cons_work, ahead_loop)
                 and any(o.name == WAIT and _ring_base(o.operands[0]) == empty for o in lp.walk())]
        q_tails = [lp for lp in loops if persistent and lp not in tails and not prod_work.is_ancestor(lp)
                   and lp is not prod_work and not cons_work.is_ancestor(lp) and lp is not cons_work
                   and any(o.name == WAIT for o in lp.walk())]
        n_tail = 0
        if tails:
            lp = tails[0]
            ub = lp.operands[1].owner
            start = prod_work.results[1] if persistent else prod_loop.operands[1]  # the ring tiles filled
            if not (len(tails) == 1 and lp.operands[0] is start and isinstance(ub, Operation)
                    and ub.name == "arith.addi" and ub.operands[0] is lp.operands[0]
                    and _const(ub.operands[1]) is not None):
                raise LocatedError(lp, "check: the producer's tail is not one loop from n to n + T")
            n_tail = _const(ub.operands[1])
        C = self._consumer_threads()
        if C % WG:
            raise LocatedError(fn, f"check: {C} consumer threads is not a whole number of warp groups")

        def fill(acquire: bool, waits=p_waits, arms=refills):
            return (((ProducerAcquire(RING, "p", origin=waits[0]),) if acquire else ())
                    + (ProducerWrite(RING, "p", nbytes=refill[1], origin=arms[0]),
                       ProducerCommit(RING, "p", tx_bytes=refill[0], origin=arms[0]), Advance("p")))

        # a first-round acquire passes at once on a fresh empty barrier (the producer's phase starts
        # at 1): skipping the wait there is the same; skipping it beyond the first round is not
        first = min(skip, S)
        prod = (Loop(Trip("k", cap=first), fill(True), origin=prod_loop),
                Loop(Trip("k", lower=first, cap=skip - first), fill(False), origin=prod_loop),
                Loop(Trip("k", lower=skip), fill(True), origin=prod_loop),
                Loop(n_tail, (ProducerAcquire(RING, "p", tail=True, origin=tails[0] if tails else None), Advance("p"))))
        agents = [Agent("tma", "producer", prod, (StateDecl("p", RING, 1),), threads=1, mask=0b1)]
        # a pipelined consumer (tile 0 peeled: its full wait before the loop; the loop from 1 releases
        # tile j - 1; the last tile released after it) or one that releases tile j in iteration j
        next_s = bool(persistent and persistent.get("next_s"))
        # per consumer warp group: its named barriers outside a persistent kernel's loop over instances
        # (("before" | "after", op): the once-per-kernel ping-pong turns)
        kernel_level: list[list] = [[] for _ in range(C // WG)]
        n_tiles = cons_loop.operands[1]  # the instance's tile count (the unrolled S-ahead loop runs to n - 1)
        if unrolled and isinstance(n_tiles.owner, Operation) and n_tiles.owner.name == "arith.subi":
            n_tiles = n_tiles.owner.operands[0]
        if persistent:  # outside the ring loop, inside the work loop (an instance with tiles: k >= 1)
            around = [o for o in cons_work.walk() if not cons_loop.is_ancestor(o)
                      and not _on_empty_instance(o, n_tiles, cons_work)]
            pro_waits = [o for o in around if o.name == WAIT and _ring_base(o.operands[0]) == full]
            last_arrives = [o for o in around if o.name == ARRIVE and _ring_base(o.operands[0]) == empty]
        else:
            pro_waits = [o for o in fn.walk() if o.name == WAIT and not _in_loop(o)
                         and _smem_offset(o.operands[0]) == full]
            last_arrives = [o for o in fn.walk() if o.name == ARRIVE and not _in_loop(o)]
        # TILEORCH_ATTN_S_AHEAD: the peeled tile also waits for tile min(1, n - 1) (a computed stage), and the
        # loop's one full wait is tile min(j + 1, n - 1)'s
        ahead_waits = []
        if self.record.get("s_ahead"):
            outside = around if persistent else [o for o in fn.walk() if not _in_loop(o)]
            ahead_waits = [o for o in outside if o.name == WAIT and _ring_base(o.operands[0]) == full
                           and _through_min(o.operands[0])]
            pro_waits = [o for o in pro_waits if o not in ahead_waits]
            if unrolled:  # the odd last tile's iteration after the loop: its wait and release are the loop's
                order = {id(o): i for i, o in enumerate(fn.walk())}
                after_loop = [o for o in ahead_waits if order[id(o)] > order[id(cons_loop)]]
                rest = after_loop[0].parent_op() if len(after_loop) == 1 else None
                if rest is None or rest.name != "scf.if":
                    raise LocatedError(cons_loop, "check: the unrolled S-ahead loop needs its odd last iteration "
                                                  "under one scf.if after it")
                ahead_waits = [o for o in ahead_waits if o not in after_loop]
                last_arrives = [o for o in last_arrives if not rest.is_ancestor(o)]
            if len(ahead_waits) != 1 or len(pro_waits) != 1:
                raise LocatedError(fn, "check: a consumer that issues the next tile's first dot ahead needs one "
                                       "wait on tile 0 and one on tile min(1, n - 1) before its loop")
        prelude = ()
        if tiles:
            programs, states, prelude = self._tile_programs(cons_loop, cons_work, full, empty, C, kernel_level)
            last_arrives = []
        elif pro_waits or last_arrives:
            if len(pro_waits) != 1 or len(last_arrives) != (2 if next_s and len(last_arrives) == 2 else 1) \
                    or any(_ring_base(a.operands[0]) != empty for a in last_arrives):
                raise LocatedError(fn, "check: a pipelined consumer needs one full wait on stage 0 before its loop "
                                       "and one release of the last tile after it")
            c_lb = _const(cons_loop.operands[0])
            if c_lb != 1:
                raise LocatedError(cons_loop, "check: the pipelined consumer loop must start at tile 1")

            def acquire(origin):
                return (ConsumerWait(RING, "c", origin=origin), ConsumerRead(RING, "c", origin=origin), Advance("c"))

            def release(origin):
                return (ConsumerRead(RING, "r", origin=origin), ConsumerRelease(RING, "r", arrivals=WG, origin=origin),
                        Advance("r"))

            programs = []
            for w in range(C // WG):  # the ping-pong turns (if any) cover the loop's dots' issue
                before, sync, arrive, after = _named_ops(fn, cons_loop, w, lambda n: n % WG == 0 and n <= C,
                                                         c_waits[0], arrives[0], lower=1, work=cons_work,
                                                         kernel_level=kernel_level[w])
                ring_loop = (Loop(Trip("k", lower=1), acquire(c_waits[0]) + sync + arrive + release(arrives[0])),)
                if ahead_waits:  # tile 1 before the loop (k >= 2); iteration j takes tile j + 1 but the last
                    # (its wait, on tile n - 1 again, passes: the consumer holds that stage until its tail)
                    ring_loop = (Loop(Trip("k", lower=1, cap=1), acquire(ahead_waits[0])),
                                 Loop(Trip("k", lower=2), acquire(c_waits[0]) + sync + arrive + release(arrives[0])),
                                 Loop(Trip("k", lower=1, cap=1), sync + arrive + release(arrives[0])))
                if next_s:  # built with the Q slots below
                    programs.append((before, ring_loop, after))
                    continue
                programs.append((*before, Loop(Trip("k", cap=1), acquire(pro_waits[0])), *ring_loop, *after,
                                 Loop(Trip("k", cap=1), release(last_arrives[0]))))
            states = (StateDecl("c", RING, 0), StateDecl("r", RING, 0))
        else:
            programs = []
            for w in range(C // WG):
                before, sync, arrive, after = _named_ops(fn, cons_loop, w, lambda n: n % WG == 0 and n <= C,
                                                         c_waits[0], arrives[0], work=cons_work,
                                                         kernel_level=kernel_level[w])
                body = (ConsumerWait(RING, "c", origin=c_waits[0]), ConsumerRead(RING, "c", origin=c_waits[0]),
                        *sync, *arrive, ConsumerRelease(RING, "c", arrivals=WG, origin=arrives[0]), Advance("c"))
                programs.append((*before, Loop("k", body), *after))
            states = (StateDecl("c", RING, 0),)
        pipelines = []
        params = [("k", trip_counts(S))]
        if persistent:
            q_pipe, q_prod, q_cons = self._q_slots(prod_work, [prod_loop, ahead_loop], cons_work, around, inits, C)
            pipelines.append(q_pipe)
            params.append(("m", INSTANCES))
            fills, tail = prod[:-1], prod[-1]
            if ahead_loop is not None:  # tiles 0 .. min(k, A) - 1 before the Q slot, the rest after (skip <= S:
                # every acquire modelled, a first-round one passes at once)
                A = int(ahead)
                q_prod = (Loop(Trip("k", cap=A), fill(True, a_waits, a_refills), origin=ahead_loop), *q_prod)
                fills = (Loop(Trip("k", lower=A), fill(True), origin=prod_loop),)
            q_tail = ()
            if q_tails:  # the wait for each Q slot's last release: a loop from the instances run, slots long
                lp, ub = q_tails[0], q_tails[0].operands[1].owner
                if not (len(q_tails) == 1 and lp.operands[0] is prod_work.results[0] and isinstance(ub, Operation)
                        and ub.name == "arith.addi" and ub.operands[0] is lp.operands[0]
                        and _const(ub.operands[1]) is not None):
                    raise LocatedError(lp, "check: the producer's Q tail is not one loop from m to m + slots")
                q_tail = (Loop(_const(ub.operands[1]), (ProducerAcquire(Q_RING, "q", tail=True, origin=lp),
                                                        Advance("q"))),)
            agents[0] = Agent("tma", "producer", (Loop(Trip("m"), (*q_prod, *fills), origin=prod_work), tail,
                                                  *q_tail),
                              (StateDecl("p", RING, 1), StateDecl("q", Q_RING, 1)), threads=1, mask=0b1)
            if next_s and tiles:
                raise LocatedError(cons_loop, "check: a consumer that takes each instance's tile 0 before it with "
                                              "several full waits an iteration is not read")
            if next_s:
                programs = [self._next_s_program(cons_work, full, q_cons, pro_waits[0], last_arrives, *program,
                                                 acquire, release) for program in programs]
            else:
                order = {id(o): i for i, o in enumerate(cons_work.walk())}
                q_release = order[id(q_cons[1].body[0].origin)]
                q_first = bool(last_arrives) and q_release < order[id(last_arrives[0])]
                kv_first = min((order[id(o)] for o in cons_work.walk() if o.name == WAIT
                                and _ring_base(o.operands[0]) == full), default=len(order))
                # the Q slot released where the kernel has it: after the last tile's release, before
                # it (TILEORCH_ATTN_EARLY_Q: right after the ring loop), or before the instance's first K/V
                # wait (TILEORCH_ATTN_Q_REGS: right after Q was read into registers)
                programs = [(Loop(Trip("m"), (q_cons[0], q_cons[1], *program) if q_release < kv_first
                                  else (q_cons[0], *program[:-1], q_cons[1], program[-1]) if q_first
                                  else (q_cons[0], *program, q_cons[1]), origin=cons_work),)
                            for program in programs]
            states = (*states, StateDecl("cq", Q_RING, 0))
        for w in range(C // WG):
            if kernel_level[w]:  # the once-per-kernel turns around the loop over instances
                programs[w] = (*[op for at, op in kernel_level[w] if at == "before"], *programs[w],
                               *[op for at, op in kernel_level[w] if at == "after"])
            agents.append(Agent(f"wg{w}", "consumer", (*prelude, *programs[w]), states, threads=WG,
                                mask=1 << (w + 1)))
        name = fn.properties["sym_name"].data
        ring_init = next(o for o in inits if _smem_offset(o.operands[0]) == full)
        return Protocol(name, (Pipeline(RING, S, full_count, empty_count, refill[0], origin=ring_init), *pipelines),
                        tuple(agents), params=tuple(params), origin=fn)

    def _tile_programs(self, cons_loop: Operation, cons_work: Operation | None, full: int, empty: int, C: int,
                       kernel_level: list[list]) -> tuple[list, tuple, tuple]:
        """(per consumer warp group its program, the states, the states' advances once per kernel)
        of a consumer loop with several full waits an iteration, read op by op
        (:class:`~tileorch.analysis.chained_tiles.TileReader`); in a persistent kernel the named
        barriers outside the loop over instances go to ``kernel_level``."""
        from tileorch.analysis.chained_tiles import TileReader, resolve

        fn = self.fn
        if cons_work is not None:
            root = cons_work.regions[0].blocks.first
            ring = next((a for a in root.args[1:] if any(
                isinstance(u.operation, Operation) and u.operation.name == "arith.addi" and u.operation.operands[1] is a
                and cons_loop.is_ancestor(u.operation) for u in a.uses)), None)
            if ring is None:
                raise LocatedError(cons_work, "check: the consumers' ring count is not a work-loop argument")
        else:
            x = cons_loop  # up to the consumer side of the producer guard (or the function's body)
            while (p := x.parent_op()) is not None and p.name != "func.func" and not (
                    p.name == "scf.if" and any(o.name == "nvvm.setmaxregister" for o in p.walk())):
                x = p
            root, ring = x.parent_block(), None
        reader = TileReader(self, cons_loop, root, full, empty, ring, C, RING, WG)
        programs = []
        for w in range(C // WG):
            programs.append(reader.program(w, lambda n: n % WG == 0 and n <= C))
        read = {id(o.origin) for p in programs for o in _walk_ops(p)}
        scope = cons_work if cons_work is not None else root.parent_op()
        for o in fn.walk():
            ring_op = (o.name == WAIT and _ring_base(o.operands[0]) == full) or \
                      (o.name == ARRIVE and _ring_base(o.operands[0]) == empty)
            named = o.name in (SYNC, HANDOFF) and len(o.operands) >= 2
            if not (ring_op or named) or id(o) in read:
                continue
            if cons_work is not None and named and not cons_work.is_ancestor(o):
                for w in range(C // WG):  # FlashAttention-3's once-per-kernel turns around the loop over instances
                    guard, runs = _region_owner(o), 1
                    if guard is not None and not any(x.name == "nvvm.setmaxregister" for x in guard.walk()):
                        cond = _agent_value(guard.operands[0], w, cons_loop.operands[1], guard)
                        if cond == HAS_TILES:
                            raise LocatedError(o, "check: a named barrier outside the loop over instances guarded by "
                                                  "a trip count")
                        runs = int(bool(cond) == (o.parent_block().parent_region() is guard.regions[0]))
                    if runs:
                        bid = _agent_value(o.operands[0], w, cons_loop.operands[1], o)
                        kernel_level[w].append(("before" if _before(o, cons_work) else "after",
                                                (BarSync if o.name == SYNC else BarArrive)(bid, _const(o.operands[1]),
                                                                                          origin=o)))
                continue
            if ring_op and scope is not None and scope.is_ancestor(o) and cons_work is not None \
                    and _on_empty_instance(o, cons_loop.operands[1], cons_work):
                continue
            if ring_op or (scope is not None and scope.is_ancestor(o)):
                raise LocatedError(o, "check: a consumer ring op or named barrier the consumer's program does not "
                                      "reach (several full waits an iteration)")
        programs = [resolve(p, reader) for p in programs]
        return programs, reader.states(), reader.prelude()

    def _skip(self, loop: Operation, wait: Operation, prod_work: Operation | None) -> int:
        """``L`` of the guard ``scf.if iv >= L`` (in a persistent kernel ``iv + ring >= L``, ``ring``
        the work loop's tile count) around the producer ring loop's empty wait: the first ``L``
        tiles skip it; 0 without a guard."""
        guard = wait.parent_op()
        if guard is loop:
            return 0
        cond = guard.operands[0].owner if guard.name == "scf.if" else None
        iv = loop.regions[0].blocks.first.args[0]
        counted = cond.operands[0] if isinstance(cond, Operation) and cond.name == "arith.cmpi" else None
        ring = None
        if prod_work is not None and isinstance(counted, SSAValue) and isinstance(counted.owner, Operation) \
                and counted.owner.name == "arith.addi" and counted.owner.operands[0] is iv:
            ring, counted = counted.owner.operands[1], iv  # iv + the ring tiles of earlier instances
            if not (isinstance(ring, BlockArgument) and ring.block.parent_op() is prod_work):
                raise LocatedError(guard, "check: the producer's ring index is not the work loop's tile count")
        if not (counted is iv and _const(cond.operands[1]) is not None):
            raise LocatedError(guard, "check: the producer's empty wait is guarded by other than `iv >= L`")
        skip = _const(cond.operands[1])
        if ring is not None and skip > self.stages:
            raise LocatedError(guard, f"check: a persistent producer skipping its empty wait for {skip} > "
                                      f"{self.stages} ring tiles is not read")
        return skip

    def _check_ahead(self, ahead_loop: Operation, prod_loop: Operation | None, prod_work: Operation | None,
                     ahead: int, early: bool = False) -> None:
        """The kernel the record says loads ``ahead`` tiles of each instance before its Q
        (``TILEORCH_ATTN_KV_AHEAD``): two producer ring loops in the work loop's body, the first
        ``0 .. minui(n, ahead)``, then the Q arm, then the second from that bound.  ``early``
        (``TILEORCH_ATTN_EARLY_TMA``): the first from ``lo`` (:meth:`_check_early` reads it), the
        second from ``maxui(lo, minui(n, ahead))``."""
        body = prod_work.regions[0].blocks.first if prod_work is not None else None
        ub = ahead_loop.operands[1].owner
        if prod_loop is None or body is None or ahead_loop.parent_block() is not body \
                or prod_loop.parent_block() is not body or not ahead_loop.is_before_in_block(prod_loop):
            raise LocatedError(ahead_loop, "check: the tiles ahead of Q need two producer ring loops in the work loop")
        lb, rest = ahead_loop.operands[0], prod_loop.operands[0] if prod_loop is not None else None
        if early:  # the first instance's tiles from thread 0's bound: the second loop from the larger bound
            rest_op = rest.owner if isinstance(rest, SSAValue) else None
            ok_start = (isinstance(rest_op, Operation) and rest_op.name == "arith.maxui"
                        and rest_op.operands[0] is lb and rest_op.operands[1] is ahead_loop.operands[1])
        else:
            ok_start = _const(lb) == 0 and rest is ahead_loop.operands[1]
        if not (ok_start and isinstance(ub, Operation) and ub.name == "arith.minui"
                and _const(ub.operands[1]) == ahead and ub.operands[0] is prod_loop.operands[1]):
            raise LocatedError(ahead_loop, f"check: the producer's tiles ahead of Q are not 0 .. min(n, {ahead}) "
                                           "followed by the ring loop from there")
        order = {id(o): i for i, o in enumerate(prod_work.walk())}
        q_arms = [o for o in prod_work.walk() if o.name == EXPECT_TX and not ahead_loop.is_ancestor(o)
                  and not prod_loop.is_ancestor(o)]
        if not q_arms or not all(order[id(ahead_loop)] < order[id(a)] < order[id(prod_loop)]
                                             for a in q_arms):
            raise LocatedError(ahead_loop, "check: the Q arm is not between the producer's two ring loops")

    def _early_block(self) -> Operation | None:
        """The entry block's ``scf.if`` marked ``tileorch.early_tma`` (None without one), which the record
        must announce (``early_tma`` = the stages) and which must come before the entry's CTA barrier."""
        entry = self.fn.regions[0].blocks.first
        marked = [o for o in self.fn.walk() if o.name == "scf.if" and EARLY_ATTR in o.attributes]
        want = self.record.get("early_tma")
        if not marked and not want:
            return None
        if len(marked) != 1 or want != self.stages or marked[0].parent_block() is not entry:
            raise LocatedError(marked[0] if marked else self.fn,
                               f"check: {len(marked)} early-issue branch(es) in the entry block, the record says "
                               f"early_tma = {want} (expected one branch and the ring's {self.stages} stages)")
        early = marked[0]
        bar = next((o for o in entry.ops if o.name == "nvvm.barrier"), None)
        if bar is None or not early.is_before_in_block(bar):
            raise LocatedError(early, "check: the early issue is not before the entry block's CTA barrier")
        return early

    def _check_early(self, early: Operation, first_loop: Operation, prod_loop: Operation,
                     prod_work: Operation | None) -> None:
        """Thread 0's early issue (``TILEORCH_ATTN_EARLY_TMA``) is exactly what the producer's first instance skips:
        one Q arm of the producer's bytes (persistent: under ``scf.if it != 0`` in the producer), one ring loop
        ``0 .. minui(n, S)`` with no wait and the producer's stage fill, the producer's first ring loop from
        ``select(it != 0, 0, minui(n', S))`` (persistent) or ``minui(n, S)``."""
        S = self.stages
        e_loops = [o for o in early.walk() if o.name == "scf.for"]
        e_arms = [o for o in early.walk() if o.name == EXPECT_TX]
        if any(o.name == WAIT for o in early.walk()) or len(e_loops) != 1:
            raise LocatedError(early, "check: the early issue needs one ring loop and no barrier wait")
        loop = e_loops[0]
        ub = loop.operands[1].owner
        if not (_const(loop.operands[0]) == 0 and isinstance(ub, Operation) and ub.name == "arith.minui"
                and _const(ub.operands[1]) == S):
            raise LocatedError(loop, f"check: the early issue's ring loop is not 0 .. min(n, {S})")
        self._check_early_count(ub.operands[0], loop, [prod_loop.operands[1]], prod_work)
        ring_arms = [o for o in e_arms if loop.is_ancestor(o)]
        q_arms = [o for o in e_arms if not loop.is_ancestor(o)]
        p_fill = [o for o in prod_loop.walk() if o.name == EXPECT_TX]
        if len(ring_arms) != 1 or len(p_fill) != 1 or self.stage_fill(ring_arms[0]) != self.stage_fill(p_fill[0]) \
                or _ring_base(ring_arms[0].operands[0]) != _ring_base(p_fill[0].operands[0]):
            raise LocatedError(loop, "check: the early issue's stage fill differs from the producer's")
        lb = first_loop.operands[0].owner
        if prod_work is None:  # one instance per CTA: the producer from min(n, S), no Q arm of its own
            if len(q_arms) != 1 or not (isinstance(lb, Operation) and lb.name == "arith.minui"
                                        and _const(lb.operands[1]) == S):
                raise LocatedError(first_loop, f"check: the producer's ring loop does not start at min(n, {S}) "
                                               "after the early issue")
            self._check_early_count(e_loops[0].operands[1].owner.operands[0], e_loops[0], [lb.operands[0]], None)
            if any(o.name == EXPECT_TX and _ring_base(o.operands[0]) is None and not prod_loop.is_ancestor(o)
                   for o in self.fn.walk() if not early.is_ancestor(o)):
                raise LocatedError(early, "check: the producer arms the Q barrier again after the early issue")
            return
        p_q = [o for o in prod_work.walk() if o.name == EXPECT_TX and not any(
            lp.name == "scf.for" and lp is not prod_work and lp.is_ancestor(o) for lp in prod_work.walk())]
        sel = lb if isinstance(lb, Operation) and lb.name == "arith.select" else None
        later = sel.operands[0].owner if sel is not None else None
        it = prod_work.regions[0].blocks.first.args[1]
        mn = sel.operands[2].owner if sel is not None else None
        if not (isinstance(later, Operation) and later.name == "arith.cmpi" and later.operands[0] is it
                and _const(later.operands[1]) == 0 and _const(sel.operands[1]) == 0
                and isinstance(mn, Operation) and mn.name == "arith.minui" and _const(mn.operands[1]) == S):
            raise LocatedError(first_loop, f"check: the producer's first ring loop does not start at "
                                           f"select(it != 0, 0, min(n, {S})) after the early issue")
        self._check_early_count(loop.operands[1].owner.operands[0], loop, [mn.operands[0]], prod_work)
        if len(q_arms) != 1 or len(p_q) != 1 or self.stage_fill(q_arms[0]) != self.stage_fill(p_q[0]) \
                or p_q[0].parent_op().name != "scf.if" or p_q[0].parent_op().operands[0] is not later.results[0]:
            raise LocatedError(early, "check: the early Q arm is not the producer's, skipped by its first instance")

    @staticmethod
    def _check_early_count(n_early: SSAValue, loop: Operation, counts: list[SSAValue],
                           prod_work: Operation | None) -> None:
        """The early issue's ``n`` (its ring loop is ``0 .. min(n, S)``) is the producer's ring count of the
        first instance: the same pure arithmetic of the same arguments as the producer loop's bound, the
        persistent work loop's index read as its first value (its lower bound).  An early issue of more
        or fewer tiles than the producer then skips would leave arrivals on the ring's barriers that no
        consumer waits for, or a consumer waiting on a tile nobody loads; the model reads one count."""
        memo: dict = {}
        if prod_work is not None and prod_work.name == "scf.for":
            memo[prod_work.regions[0].blocks.first.args[0]] = _structure(prod_work.operands[0], {})
        if any(_structure(c, dict(memo)) != _structure(n_early, {}) for c in counts):
            raise LocatedError(loop, "check: the early issue's ring count is not the producer's tile count of "
                                     "the first instance")

    def _q_slots(self, prod_work: Operation, prod_loops: list[Operation | None], cons_work: Operation,
                 c_ops: list[Operation], inits: list[Operation], consumer_threads: int):
        """A persistent kernel's Q slots as a ring of their own: (the pipeline, the producer's ops per
        instance, the consumers' (wait + read, release + advance) around each instance).  The
        producer waits on the slot's empty barrier from its second use on (a first use passes at
        once on a fresh barrier: modelled as the acquire), arms the full barrier with the Q tile's
        bytes and issues its copies; each consumer thread waits on the full barrier and arrives on
        the empty one after the instance's loop."""
        slots = int(self.record["persistent"].get("q_slots", 1))
        p_ops = [o for o in prod_work.walk() if not any(lp is not None and lp.is_ancestor(o) for lp in prod_loops)]
        arms = [o for o in p_ops if o.name == EXPECT_TX]
        p_waits = [o for o in p_ops if o.name == WAIT]
        c_arrives = [o for o in c_ops if o.name == ARRIVE]
        if len(arms) != 1 or len(p_waits) != 1:
            raise LocatedError(prod_work, "check: expected one Q arm and one Q-slot empty wait per instance in the "
                               "producer's work loop")
        full_q, empty_q = _ring_base(arms[0].operands[0]), _ring_base(p_waits[0].operands[0])
        c_waits = [o for o in c_ops if o.name == WAIT and _ring_base(o.operands[0]) == full_q]
        c_releases = [o for o in c_arrives if _ring_base(o.operands[0]) == empty_q]
        if full_q is None or empty_q is None or len(c_waits) != 1 or len(c_releases) != 1:
            raise LocatedError(cons_work, "check: expected one Q wait and one Q-slot release per instance in the "
                               "consumers' work loop")
        by_offset = {_smem_offset(o.operands[0]): o for o in inits}
        counts = []
        for base, what in ((full_q, "full"), (empty_q, "empty")):
            got = {_const(by_offset[base + 8 * i].operands[1]) if base + 8 * i in by_offset else None
                   for i in range(slots)}
            if len(got) != 1 or None in got:
                raise LocatedError(self.fn, f"check: the Q slots' {what} barriers are not all initialised with one "
                                            "constant count")
            counts.append(got.pop())
        tx, landed = self.stage_fill(arms[0])
        prod = (ProducerAcquire(Q_RING, "q", origin=p_waits[0]),
                ProducerWrite(Q_RING, "q", nbytes=landed, origin=arms[0]),
                ProducerCommit(Q_RING, "q", tx_bytes=tx, origin=arms[0]), Advance("q"))
        cons = (Loop(1, (ConsumerWait(Q_RING, "cq", origin=c_waits[0]), ConsumerRead(Q_RING, "cq", origin=c_waits[0])),
                     origin=c_waits[0]),
                Loop(1, (ConsumerRelease(Q_RING, "cq", arrivals=WG, origin=c_releases[0]), Advance("cq")),
                     origin=c_releases[0]))
        pipe = Pipeline(Q_RING, slots, counts[0], counts[1], tx, origin=by_offset[full_q])
        return pipe, prod, cons

    def _next_s_program(self, cons_work: Operation, full: int, q_cons: tuple, next_full: Operation,
                        last_arrives: list[Operation], before: tuple, ring_loop: tuple, after: tuple,
                        acquire, release) -> tuple:
        """A consumer warp group's program when each instance's tile 0 was waited for (and its first
        dot issued) before: the first instance's Q and tile 0 before the work loop, then each
        instance's ring loop from tile 1, its Q slot's release, and, for every instance but the
        CTA's last, the next instance's Q and tile-0 waits (``next_full`` and the Q wait in the work
        loop: the first's ``q_cons``) before or after the release of its last tile (``last_arrives``:
        one, or one with a next instance and one without, told apart by the next tile-0 wait's
        ``scf.if``), in the order the kernel has them."""
        top = [o for x in cons_work.parent_block().ops if x is not cons_work for o in x.walk()]
        q_wait = q_cons[0].body[0].origin
        full_q = _ring_base(q_wait.operands[0])
        pre_q = [o for o in top if o.name == WAIT and _ring_base(o.operands[0]) == full_q]
        pre_full = [o for o in top if o.name == WAIT and _ring_base(o.operands[0]) == full]
        if len(pre_q) != 1 or len(pre_full) != 1:
            raise LocatedError(cons_work, "check: a consumer that takes each instance's tile 0 before it needs one "
                                          "Q wait and one tile-0 wait for the first instance before its work loop")
        guard = next_full.parent_op()
        while guard is not None and guard.name != "scf.if":
            guard = guard.parent_op()
        if guard is None or not guard.is_ancestor(q_wait) or not cons_work.is_ancestor(guard):
            raise LocatedError(next_full, "check: the next instance's Q and tile-0 waits are not under one guard")
        inside = [a for a in last_arrives if guard.regions[0].is_ancestor(a)]
        outside = [a for a in last_arrives if not guard.is_ancestor(a)]
        alone = [a for a in last_arrives if guard.regions[1].is_ancestor(a)]
        if not ((len(inside) == len(alone) == 1 and not outside) or (len(outside) == 1 and not inside + alone)):
            raise LocatedError(guard, "check: the last tile's release is neither before the next instance's guard "
                                      "nor on each of its sides")
        with_next, last = (inside[0], alone[0]) if inside else (outside[0], outside[0])
        order = {id(o): i for i, o in enumerate(cons_work.walk())}
        q_acquire, q_release = q_cons[0], q_cons[1]
        first = Loop(1, (ConsumerWait(Q_RING, "cq", origin=pre_q[0]), ConsumerRead(Q_RING, "cq", origin=pre_q[0])),
                     origin=pre_q[0])
        take_next = (q_acquire, *acquire(next_full))
        give_last = release(with_next)
        tail = (*take_next, *give_last) if order[id(next_full)] < order[id(with_next)] else (*give_last, *take_next)
        return (first, *acquire(pre_full[0]),
                Loop(Trip("m", lower=1), (*before, *ring_loop, *after, q_release, *tail), origin=cons_work),
                Loop(Trip("m", cap=1), (*before, *ring_loop, *after, q_release, *release(last)), origin=cons_work))


def _walk_ops(ops):
    for op in ops:
        yield op
        if isinstance(op, Loop):
            yield from _walk_ops(op.body)


IDLE_SLICE = "tileorch.idle_slice"
"""A row-groups kernel's consumer ``scf.if`` (``transforms/tileas/row_groups.py``): its then side runs the instance's
chain, its else side is an idle slice's pass-by (:func:`_check_pass_by`)."""


def _check_pass_by(if_op: Operation) -> None:
    """The else side of an :data:`IDLE_SLICE` branch must be the pass-by of an idle slice, in this order: the Q
    slot's full wait, its release (an ``mbarrier.arrive`` on the slot's empty barrier), then one ``scf.for`` from 0
    over the instance's tiles whose body waits on the ring's full barrier of its tile and releases the same stage's
    empty barrier, nothing else on a barrier.  Such a side is safe beside the proved then side: each release follows
    the same warp group's wait on that round's full barrier, so it lands in that round's empty phase (the producer
    fills round ``r`` only once round ``r - S`` is released), it releases every round the then side would (one
    arrival per thread, in ring order), and it waits only on the producer's fills.  A located error otherwise."""
    side = if_op.regions[1].blocks.first if if_op.regions[1].blocks else None
    if side is None:
        raise LocatedError(if_op, "check: an idle slice's branch without its pass-by side")
    top = [o for o in side.ops if o.name in (WAIT, ARRIVE) or o.name == "scf.for"]
    loops = [o for o in top if o.name == "scf.for"]
    if [o.name for o in top] != [WAIT, ARRIVE, "scf.for"] or len(loops) != 1 or _const(loops[0].operands[0]) != 0:
        raise LocatedError(if_op, "check: an idle slice's pass-by is not the Q wait, its release and one loop over "
                                  "the tiles from 0")
    body = [o for o in loops[0].walk() if o.name in (WAIT, ARRIVE, EXPECT_TX, COPY)]
    if [o.name for o in body] != [WAIT, ARRIVE] or any(o.name == "scf.for" for o in loops[0].body.walk()):
        raise LocatedError(loops[0], "check: an idle slice's loop does not wait for its tile and release it")
    wait, arrive = body
    full, empty = _ring_base(wait.operands[0]), _ring_base(arrive.operands[0])
    st_w, st_a = _stage_of(wait.operands[0]), _stage_of(arrive.operands[0])
    if full is None or empty is None or full == empty or st_w is None or st_w is not st_a:
        raise LocatedError(loops[0], "check: an idle slice releases another stage than the one it waited for")
    for a in [top[1], arrive]:
        _check_release_after_wgmma(a)


def _stage_of(v: SSAValue) -> SSAValue | None:
    """The stage value of a ring barrier's address (``gep(smem, stage * 8 + base)``), else None."""
    for _ in range(6):
        owner = v.owner
        if not isinstance(owner, Operation):
            return None
        if owner.name == "arith.muli" and _const(owner.operands[1]) == 8:
            return owner.operands[0]
        if not owner.operands:
            return None
        v = owner.operands[1] if owner.name == "llvm.getelementptr" and len(owner.operands) > 1 else owner.operands[0]
    return None


def _busy_side(fn: Operation) -> Operation:
    """``fn``, or for a row-groups kernel a copy in which each :data:`IDLE_SLICE` branch is replaced by its then
    side (the instance's chain: what the protocol models) once its else side passed :func:`_check_pass_by`."""
    idle = [o for o in fn.walk() if IDLE_SLICE in o.attributes]
    if not idle:
        return fn
    for op in idle:
        _check_pass_by(op)
    fn = fn.clone()
    for op in [o for o in fn.walk() if IDLE_SLICE in o.attributes]:
        then = op.regions[0].blocks.first
        for inner in list(then.ops)[:-1]:  # (the yield stays)
            inner.detach()
            op.parent_block().insert_op_before(inner, op)
        op.detach()
        op.erase()
    return fn


def extract_chained(module: ModuleOp, kernel: str | None = None) -> list[Protocol]:
    """The protocols of the module's chained-dots kernels (or of the one named ``kernel``); a row-groups kernel's
    idle slices are checked by form (:func:`_check_pass_by`) and the rest proved (:func:`_busy_side`)."""
    return [_Reader(_busy_side(fn)).protocol() for fn in chained_kernels(module)
            if kernel is None or fn.properties["sym_name"].data == kernel]
