"""Builds the checker's :class:`~tileorch.analysis.protocol.Protocol` from a kernel in the
cutlass dialect, before lowering.  Ops are matched by name (``docs/dialect-conventions.md``).

* Pipelines: every ``cutlass.pipeline.init`` gives a ring (stages, full / empty arrival counts
  as ``cutlass-stamp-arrive-counts`` derives them, TMA bytes per stage), read from the
  ``PipelineInfo`` that ``convert-pipeline-to-nvvm`` sees: on a copy of the module with
  named-barrier ids allocated (``cutlass-allocate-barrier-ids``, default pool; explicit bases
  kept) and counts stamped.  A ``barrier = named_barrier`` pipeline uses the lowering's ids
  (full ``base + index``, empty after the full side) and thread counts.
* Arrivals, per agent, as lowered: a commit arrives from the agent's threads among the first
  ``producer_arv_count[p]`` of each producer group p (the group leader with ``expect_tx`` of
  the op's ``transaction_bytes``, else ``transaction_size[p]``); a release on a one-CTA cluster
  from its threads among the first ``consumer_arv_count[c]`` (default all) of each consumer
  group c (also for a ``scope = cta`` pipeline on any cluster), on a larger cluster
  ``cluster_release_arrivals(T(c))`` per consumer group c to every CTA of the pipeline's
  multicast set (its row and column for ``row_col``), after the group's ``bar.sync``
  (``release_sync_groups()``).
* Agents: the innermost ``cutlass.async.exec`` region or ``switch_by_executor`` arm holding
  pipeline, named-barrier or fix-up ops.  A region is split into the pipeline's consumer (or
  producer) groups it covers, otherwise into its executor units (each warp group of a
  ``warpgroup`` exec runs on its own); agents are replicated for every CTA of the cluster.
* Programs: ``scf.for`` / ``scf.while`` become loops (a non-constant trip count becomes a
  parameter, checked over a range of values; a lower bound known for the agent, e.g. its group
  id, is kept), handshake ops become protocol steps, a consumer reads its stage right after the
  wait and wherever the state value is used again, a producer fills its stage right before the
  commit with the bytes its bulk copies on the stage's full barrier deliver
  (:mod:`~tileorch.analysis.transfers`).  A producer that issues no copy on a pipeline whose
  commit expects transaction bytes is assumed to load ``transaction_size[p]`` of its producer
  group p, and the assumption is recorded as a located note (``Protocol.notes``); if its
  region asks for the multicast mask (``get_producer_mask``) the loads go to the CTAs of its
  multicast set (row and column for ``row_col``), each of which then receives
  ``transaction_size / N`` bytes of the stage from every one of its N sources.  A copy
  multicast with ``get_producer_mask row`` / ``col`` lands in the CTAs with the issuer's x / y.  Loops whose body has no protocol op are dropped
  (no trip-count parameter).
* ``scf.if``: a condition known for the agent (:mod:`~tileorch.analysis.evaluate`: constants,
  thread ids, the Stream-K split's work-tile facts) selects its branch; otherwise the branches
  become a nondeterministic :class:`Choice`.  An ``scf.if`` that yields a pipeline or seq_bar
  state is rejected.
* ``cutlass.seq_bar.*`` become :class:`SeqWait` / :class:`SeqArrive` on an ordered sequence
  barrier (the group id must be known for each agent); the MODS probes become the cluster
  barrier's arrive (start) and drain + wait (end); ``mods_throttle`` profile 2 is a wait then
  an arrive on that same cluster barrier (as lowered; its timed back-off sleep is not modelled).
* Stream-K fix-up of one output tile split three ways (deterministic mode,
  ``cutlass-semantics.md`` §5.5): the monolithic ``cutlass.tile_scheduler.fixup`` gives the
  reference protocol; user code written with ``fixup_wait`` / ``fixup_increment`` and
  ``cutlass.block_striped.*`` is evaluated once per split (its work-tile body with that split's
  ``k_tile_start`` / ``k_tile_count`` / ``compute_epilogue``), the final split ending with the
  epilogue.
Ops outside this vocabulary do not synchronise and are skipped.  Unsupported shapes raise
:class:`LocatedError` at the op.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue

from tileorch.analysis import catalog, transfers
from tileorch.analysis.evaluate import Evaluator
from tileorch.analysis.fixup_checks import cta_local_tile
from tileorch.analysis.protocol import (Advance, Agent, BarArrive, BarSync, Choice, ClusterArrive, ClusterWait,
                                        ConsumerRead, ConsumerRelease, ConsumerTryWait, ConsumerWait, CounterAdd,
                                        CounterWait, Epilogue, LoadAddPartial, Loop, Op, Pipeline, ProducerAcquire,
                                        ProducerCommit, ProducerTryAcquire, ProducerWrite, Protocol, ReducePartial,
                                        SeqArrive, SeqBar, SeqWait, StateDecl, StorePartial, Trip, tail)
from tileorch.diagnostics import LocatedError, location_str

EXEC = "cutlass.async.exec"
SWITCH = "cutlass.pipeline.switch_by_executor"
P = "cutlass.pipeline."
HANDSHAKE = {P + n for n in ("producer_acquire", "producer_try_acquire", "producer_commit",
                             "producer_tail", "consumer_wait", "consumer_try_wait",
                             "consumer_release", "produce", "consume")}
NAMED = ("cutlass.named_barrier.arrive", "cutlass.named_barrier.arrive_and_wait")
SB = "cutlass.seq_bar."
SEQ = (SB + "wait", SB + "arrive")
TS = "cutlass.tile_scheduler."
MODS_START, MODS_END, THROTTLE = (TS + "mods_report_mainloop_start",
                                  TS + "mods_report_mainloop_end", TS + "mods_throttle")
FIXUP = TS + "fixup"
FIXUP_USER = (TS + "fixup_wait", TS + "fixup_increment", "cutlass.block_striped.store",
              "cutlass.block_striped.reduce", "cutlass.block_striped.load_add",
              "cutlass.block_striped.load")
UNIT_THREADS = {"thread": 1, "warp": 32, "warpgroup": 128}
SPLITS = 3
MERGED = "merged"
STATE_TYPES = ("!cutlass.pipeline_state", "!cutlass.seq_bar_state")


def kernels(module: ModuleOp) -> list[Operation]:
    """Top-level functions that contain executor regions."""
    return [op for op in module.body.block.ops
            if op.name == "func.func" and any(o.name == EXEC for o in op.walk())]


def kernel_name(func: Operation) -> str:
    return func.properties["sym_name"].data


def cluster_shape(module: ModuleOp) -> tuple[int, int, int]:
    attr = module.attributes.get("cutlass.cluster_shape")
    if attr is None:
        return (1, 1, 1)
    x, y, z = (int(v) for v in attr.get_values())
    return (x, y, z)


def _threads(unit: int, mask: int) -> frozenset[int]:
    mask &= (1 << 64) - 1  # an executor mask is an unsigned 64-bit set (bit 63 is a unit, not a sign)
    return frozenset(t for bit in range(mask.bit_length()) if mask >> bit & 1
                     for t in range(bit * unit, (bit + 1) * unit))


def _exec_unit(op: Operation) -> int:
    return op.unit_threads()


@dataclass
class _Region:
    """One executor region: its ops' region, thread set, and the op that defines it."""

    region: Region
    threads: frozenset[int]
    unit: int
    owner: Operation
    pipe_args: dict[SSAValue, SSAValue] = field(default_factory=dict)


def _relevant(op: Operation) -> bool:
    return (op.name in HANDSHAKE or op.name in NAMED or op.name in SEQ or op.name == FIXUP
            or op.name in (MODS_START, MODS_END) or op.name in FIXUP_USER
            or (op.name == THROTTLE and op.profile.value.data == 2))


def _innermost_exec(op: Operation) -> Operation | None:
    parent = op.parent_op()
    while parent is not None and parent.name != EXEC:
        parent = parent.parent_op()
    return parent


def lowered_inits(module: ModuleOp) -> dict[Operation, object]:
    """The ``PipelineInfo`` of every ``cutlass.pipeline.init`` of ``module`` as
    ``convert-pipeline-to-nvvm`` sees it: ids allocated and arrive counts stamped, on a copy."""
    from xdsl.context import Context

    from tileorch.dialects.cutlass.pipeline_facts import pipeline_info
    from tileorch.registry import PASSES, resolve
    copy = module.clone()
    original = dict(zip(copy.walk(), module.walk()))
    try:
        for name in ("cutlass-allocate-barrier-ids", "cutlass-stamp-arrive-counts"):
            resolve(PASSES[name])().apply(Context(), copy)
    except LocatedError as exc:
        raise LocatedError(original.get(exc.op, module), exc.message) from None
    return {original[op]: pipeline_info(op, op.results[0]) for op in copy.walk()
            if op.name == P + "init"}


class _Kernel:
    def __init__(self, module: ModuleOp, func: Operation, iterations: int | None,
                 infos: dict[Operation, object]):
        self.func = func
        self.infos = infos
        self.cluster = cluster_shape(module)
        self.iterations = iterations
        self.inits: dict[Operation, Pipeline] = {}
        self.seqbars: dict[Operation, SeqBar] = {}
        self.params: dict[str, tuple[int, ...]] = {}
        self.trip_names: dict[SSAValue, str] = {}  # one parameter per trip-count value
        self.fixups: list[Operation] = []
        self.fixup_user: list[tuple[Operation, _Region, frozenset[int]]] = []
        self.notes: dict[Operation, str] = {}
        self.fixup_slots: dict[int, tuple[frozenset[int], Operation]] = {}
        for op in func.walk():
            if op.name == P + "init":
                self._pipeline(op)
            elif op.name == SB + "init":
                self._seqbar(op)

    # --- pipelines -----------------------------------------------------------------------

    def _pipeline(self, init: Operation) -> None:
        if getattr(init, "dynamic_participants", None) is not None:
            # the lowering waits / arrives per the participants matrix read at run time (a group that takes no
            # part is neither waited for nor counted): the model's fixed arrival counts would prove a protocol
            # the kernel may not run, so nothing is claimed
            raise LocatedError(init, "the checker cannot model a pipeline whose participants are chosen at run time "
                                     "(dynamic(...) from cutlass.pipeline.make_participants): its arrival counts and "
                                     "the producer's waits depend on the participants matrix's values; nothing is "
                                     "claimed (the static participants/consumers masks are modelled)")
        info = self.infos[init]
        sizes = init.transaction_sizes() or []
        name = init.results[0].name_hint or f"pipe{len(self.inits)}"
        named = (info.full_id(), info.empty_id_base) if info.named else None
        self.inits[init] = Pipeline(name, info.stages, info.full_count, info.empty_count,
                                    sum(sizes), named, origin=init)

    def _seqbar(self, init: Operation) -> None:
        if init.uses_named_barriers():
            raise LocatedError(init, "the checker models seq_bar on mbarriers only; "
                               "barrier = named_barrier is not modelled")
        sb = init.seq_bar_type()
        name = init.results[0].name_hint or f"seq{len(self.seqbars)}"
        self.seqbars[init] = SeqBar(name, sb.depth, sb.length, init.group_size.value.data,
                                    origin=init)

    def fixup_slot(self, op: Operation, threads: frozenset[int]) -> None:
        """Each warp group reduces through its own fix-up slot: ``barrier_idx`` names both its
        ``bar.sync`` barrier (StreamK0 + idx, one warp group of threads) and its lock and
        workspace slice of every tile.  Two agents using one index would meet on one named
        barrier with twice its thread count and race on one lock: a located error."""
        idx = op.properties.get("barrier_idx")
        idx = idx.value.data if idx is not None else 0
        other = self.fixup_slots.setdefault(idx, (threads, op))
        if other[0] != threads:
            a, b = sorted((other[0], threads), key=min)
            raise LocatedError(op, (
                f"{kernel_name(self.func)}: threads {min(a)}..{max(a)} and {min(b)}..{max(b)} "
                f"both use Stream-K fix-up barrier_idx = {idx}: they would share one named "
                f"barrier (StreamK0 + {idx}, synced by each group's own threads) and one lock "
                f"and workspace slice per tile, so their bar.sync counts mix and their partials "
                f"race; give each warp group its own barrier_idx (CUTLASS passes the consumer "
                f"warp group's index)"))

    def seqbar_of(self, op: Operation) -> SeqBar:
        owner = op.operands[0].owner
        if isinstance(owner, Operation) and owner in self.seqbars:
            return self.seqbars[owner]
        raise LocatedError(op, "cannot find the cutlass.seq_bar.init of this sequence barrier")

    def init_of(self, value: SSAValue, rg: _Region) -> Operation:
        value = rg.pipe_args.get(value, value)
        owner = value.owner
        if isinstance(owner, Operation) and owner.name == P + "init":
            return owner
        if isinstance(owner, Operation) and owner.name == P + "create":
            for init in self.inits:
                if init.operands[0] is value:
                    return init
        where = owner if isinstance(owner, Operation) else owner.parent_op()  # a block argument: its op
        raise LocatedError(where, "cannot find the cutlass.pipeline.init of this pipeline value")

    # --- regions -------------------------------------------------------------------------

    @staticmethod
    def _own_ops(region: Region):
        """Ops of ``region`` not inside a nested exec or switch arm."""
        stack = list(region.block.ops)
        while stack:
            op = stack.pop()
            yield op
            if op.name in (EXEC, SWITCH):
                continue
            for r in op.regions:
                for b in r.blocks:
                    stack.extend(b.ops)

    # --- agents --------------------------------------------------------------------------

    def agents(self) -> list[Agent]:
        agents: list[Agent] = []
        for n, rg in enumerate(self._regions()):
            for group, threads in self._groups(rg):
                program, states = _Program(self, rg, threads).build()
                for cta in range(self.ctas):
                    prog = tuple(_with_cta(op, self, cta, threads) for op in program)
                    where = f"cta{cta}." if self.ctas > 1 else ""
                    agents.append(Agent(f"{where}{self._role(rg)}{n}{group}", self._role(rg),
                                        prog, states, threads=len(threads), cta=cta,
                                        origin=rg.owner))
        return agents

    @property
    def ctas(self) -> int:
        x, y, z = self.cluster
        return x * y * z

    def _regions(self) -> list[_Region]:
        found: list[_Region] = []
        self._walk_regions(self.func.regions[0], found, {}, None)
        return [r for r in found if any(_relevant(o) for o in self._own_ops(r.region))]

    def _walk_regions(self, region: Region, out: list[_Region], pipe_args: dict,
                      current: _Region | None) -> None:
        for op in region.block.ops:
            if op.name == EXEC:
                rg = _Region(op.regions[0], _threads(_exec_unit(op), op.mask_bits()),
                             _exec_unit(op), op, dict(pipe_args))
                out.append(rg)
                self._walk_regions(op.regions[0], out, rg.pipe_args, rg)
            elif op.name == SWITCH and current is not None:
                for i, arm in enumerate(op.regions):
                    mask = 0
                    for m in op.arm_masks(i):
                        mask |= m
                    args = dict(pipe_args)
                    for arg, val in zip(arm.block.args, op.arm_pipelines(i)):
                        args[arg] = args.get(val, val)
                    rg = _Region(arm, _threads(current.unit, mask), current.unit, op, args)
                    out.append(rg)
                    self._walk_regions(arm, out, args, rg)
            else:
                for r in op.regions:
                    if r.blocks:
                        for b in r.blocks:
                            self._walk_regions(_BlockRegion(b), out, pipe_args, current)

    def _role(self, rg: _Region) -> str:
        names = {o.name for o in self._own_ops(rg.region)}
        if names & {P + "producer_acquire", P + "producer_commit", P + "produce"}:
            return "producer"
        if names & {P + "consumer_wait", P + "consumer_release", P + "consume"}:
            return "consumer"
        if names & set(SEQ):
            return "math"
        return "agent"

    def _groups(self, rg: _Region) -> list[tuple[str, frozenset[int]]]:
        """Split a region into the pipeline groups (or executor units) it covers."""
        for op in self._own_ops(rg.region):
            if op.name in HANDSHAKE:
                init = self.init_of(op.operands[0], rg)
                unit = UNIT_THREADS.get(init.executor_type().value, 32)
                consumer = op.name.startswith(P + "consum")
                masks = init.consumer_masks() if consumer else init.producer_masks()
                groups = [rg.threads & _threads(unit, m) for m in masks]
                groups = [g for g in groups if g]
                if len(groups) > 1:
                    return [(f".g{i}", g) for i, g in enumerate(groups)]
                return [("", rg.threads)]
        if rg.unit in (32, 128) and len(rg.threads) > rg.unit:
            units = sorted({t // rg.unit for t in rg.threads})
            return [(f".u{u}", frozenset(t for t in rg.threads if t // rg.unit == u))
                    for u in units]
        return [("", rg.threads)]

    # --- protocol ------------------------------------------------------------------------

    def protocols(self) -> list[Protocol]:
        """The kernel's pipeline protocol (if it synchronises) and, when it uses the Stream-K
        fix-up, the fix-up protocol of one output tile."""
        agents = _drop_private_barriers([a for a in self.agents() if a.program])
        agents = [a for a in agents if a.program]
        name = kernel_name(self.func)
        out = []
        if agents:
            out.append(Protocol(name, tuple(self.inits.values()), tuple(agents),
                                tuple(sorted(self.params.items())),
                                seqbars=tuple(self.seqbars.values()), ctas=self.ctas,
                                notes=tuple(self.notes.values()), origin=self.func))
        if self.fixup_user and self._user_fixup_is_streamk():
            out.append(self._user_fixup(name))
            out.append(self._user_unsplit(name))
        elif self.fixups and self._cluster_fixup() is not None:
            from tileorch.analysis.fixup_checks import check_monolithic_fixup

            for fix in self.fixups:
                check_monolithic_fixup(fix)
            fix, size = self.fixups[0], self._cluster_fixup()
            for piece in range(3):  # the modelled cluster holds the first, a middle, the final split
                sk = catalog.sm100_cluster_streamk(size, piece)
                out.append(Protocol(f"{name}.cluster_fixup{piece}", (), tuple(
                    Agent(a.name, a.role, tuple(_origin(o, fix) for o in a.program), a.states,
                          a.threads, a.mask, a.cta, a.partial, origin=fix) for a in sk.agents),
                    deterministic=True, partials=sk.partials, origin=fix, cluster_agents=sk.cluster_agents))
            seq = catalog.sm100_cluster_pieces(size, 2)  # buffers reused by the next piece
            out.append(Protocol(f"{name}.cluster_pieces", (), tuple(
                Agent(a.name, a.role, tuple(_origin(o, fix) for o in a.program), a.states,
                      a.threads, a.mask, a.cta, a.partial, origin=fix) for a in seq.agents),
                deterministic=True, partials=seq.partials, origin=fix))
        elif self.fixups:
            from tileorch.analysis.fixup_checks import check_monolithic_fixup

            for fix in self.fixups:
                check_monolithic_fixup(fix)
            sk = catalog.streamk_fixup(3)
            fix = self.fixups[0]
            out.append(Protocol(f"{name}.fixup", (), tuple(
                Agent(a.name, a.role, tuple(_origin(o, fix) for o in a.program), a.states,
                      a.threads, a.mask, a.cta, a.partial, origin=fix) for a in sk.agents),
                deterministic=True, partials=sk.partials, origin=fix))
        return out


    def _cluster_fixup(self) -> int | None:
        """CTAs per cluster when the fix-up is the SM100 Stream-K one of a multi-CTA cluster
        (in-cluster reduction through the cluster barrier, docs/blackwell.md)."""
        from tileorch.dialects.cutlass.scheduler_context import cta_cluster_of

        shape = cta_cluster_of(self.fixups[0].operands[0])
        return None if shape is None else shape[0] * shape[1]

    def _user_fixup_is_streamk(self) -> bool:
        """Whether the kernel's ``cutlass.block_striped`` ops are a Stream-K fix-up the model checks: the kernel
        walks work tiles of a ``cutlass.tile_scheduler`` (whose splits the model evaluates).  Without one they
        move fragments of one CTA (a reduction into shared memory, a copy), not partial tiles of splits: no
        fix-up protocol (before user sweep 28 the model invented three splits and reported the first block-striped
        reduce as a read of a partial no split had stored).  Shared-memory tiles are left out before this
        (``fixup_checks.cta_local_tile``); a kernel ordering its global ones by ``cutlass.generic_barrier``
        semaphores (a serial split-K over the grid) is a located "cannot model" error at the semaphore, any other
        global one without a scheduler a located "cannot model" error at the op (never "nothing to check")."""
        ops = list(self.func.walk())
        if any(o.name.startswith(TS) for o in ops):
            return True
        for o in ops:
            if o.name.startswith("cutlass.generic_barrier."):
                raise semaphore_fixup_error(o)
        first = self.fixup_user[0][0]  # (shared-memory tiles never get here: fixup_checks.cta_local_tile)
        raise LocatedError(first, f"the checker cannot model {first.name} on global memory in a kernel without a "
                                  "cutlass.tile_scheduler: its fix-up model is the splits of a scheduler's work "
                                  "tile (fixup_wait / fixup_increment); without one it cannot tell which CTAs "
                                  "share this workspace, so nothing is checked")

    def _user_fixup(self, name: str) -> Protocol:
        """The fix-up protocol of one output tile from user code: the work-tile body holding the
        first fix-up op, run by each of :data:`SPLITS` splits with its own work-tile facts."""
        first, rg, threads = self.fixup_user[0]
        body = first.parent_block()
        holder = body.parent_op() if body is not None else None
        while holder is not None and holder is not rg.owner and holder.name not in (
                "scf.for", "scf.while"):
            body = holder.parent_block()
            holder = body.parent_op()
        from tileorch.analysis.fixup_checks import (check_final_value, check_per_tile_workspace, check_stripe_layouts,
                                                    check_thread_indices)

        check_per_tile_workspace(body, holder)
        agents = []
        for j in range(SPLITS):
            work = {"k_tile_start": j, "k_tile_count": 1, "final": int(j == SPLITS - 1)}
            ev = Evaluator((min(threads), max(threads)), work)
            prog = _fixup_block(body, ev)
            check_final_value(body, ev)
            if j == 0:
                check_stripe_layouts(body)
                check_thread_indices(body, lambda t, work=work: Evaluator((t, t), work), threads)
            if work["final"]:
                prog.append(Epilogue("tile", origin=holder))
            agents.append(Agent(f"split{j}", "fixup", tuple(prog), threads=len(threads),
                                partial=j, origin=rg.owner))
        return Protocol(f"{name}.fixup", (), tuple(agents), deterministic=True,
                        partials=(("tile", tuple(range(SPLITS))),), origin=holder)

    def _user_unsplit(self, name: str) -> Protocol:
        from tileorch.analysis.fixup_checks import unsplit_protocol

        return unsplit_protocol(self, name, _fixup_block)


def semaphore_fixup_error(op: Operation) -> LocatedError:
    """The located refusal of a fix-up ordered by the ``cutlass.generic_barrier`` op ``op``."""
    return LocatedError(op, f"the checker cannot model a fix-up ordered by {op.name} yet: its fix-up model orders "
                        "the splits of a tile by tile_scheduler.fixup_wait / fixup_increment (the split of a work "
                        "tile from its k_tile_start), not by a semaphore whose split index comes from the grid; "
                        "without the semaphore the model would read the workspace unordered (a false violation), "
                        "so nothing is checked")


def _fixup_block(block, ev: Evaluator) -> list[Op]:
    """The fix-up ops of ``block`` for one split (conditions evaluated with its facts)."""
    out: list[Op] = []
    for op in block.ops:
        name = op.name
        if cta_local_tile(op):
            continue
        if name == TS + "fixup_wait":
            out.append(CounterWait("lock", ev.work["k_tile_start"], "eq", origin=op))
        elif name == TS + "fixup_increment":
            out.append(CounterAdd("lock", ev.work["k_tile_count"], origin=op))
        elif name == "cutlass.block_striped.store":
            out.append(StorePartial("ws", origin=op))
        elif name == "cutlass.block_striped.reduce":
            out.append(ReducePartial("ws", origin=op))
        elif name == "cutlass.block_striped.load_add":
            out.append(LoadAddPartial("ws", origin=op))
        elif name == "cutlass.block_striped.load":
            from tileorch.analysis.fixup_checks import check_plain_load

            check_plain_load(op)
        elif name.startswith("cutlass.generic_barrier."):
            raise semaphore_fixup_error(op)
        elif name == "scf.if":
            arms = [_fixup_block(r.block, ev) if r.blocks else [] for r in op.regions]
            taken = ev.truth(op.operands[0])
            if taken is not None:
                out.extend(arms[0 if taken else 1])
            elif any(arms):
                out.append(Choice(tuple(tuple(a) for a in arms), origin=op))
        elif any(o.name in FIXUP_USER for o in op.walk()) and op.regions:
            raise LocatedError(op, "the checker cannot model fix-up ops inside this "
                               f"{name} of the work-tile body (only scf.if is modelled)")
    return out


def _compact(ops) -> list[Op]:
    """Fold steps that change nothing another agent can observe: a read of the stage just
    read (same state, nothing in between) and consecutive advances of one state."""
    out: list[Op] = []
    for op in ops:
        if isinstance(op, Loop):
            op = Loop(op.trip, tuple(_compact(op.body)), origin=op.origin)
        elif isinstance(op, Choice):
            op = Choice(tuple(tuple(_compact(b)) for b in op.branches), origin=op.origin)
        last = out[-1] if out else None
        if isinstance(op, ConsumerRead) and isinstance(last, ConsumerRead) and \
                (op.pipe, op.state) == (last.pipe, last.state):
            continue
        if isinstance(op, Advance) and isinstance(last, Advance) and \
                (op.state, op.flip) == (last.state, last.flip):
            out[-1] = Advance(op.state, last.n + op.n, op.flip, origin=last.origin)
            continue
        out.append(op)
    return out


def _bar_ops(ops):
    for op in ops:
        if isinstance(op, Loop):
            yield from _bar_ops(op.body)
        elif isinstance(op, Choice):
            for branch in op.branches:
                yield from _bar_ops(branch)
        elif isinstance(op, (BarSync, BarArrive)):
            yield op


def _drop_private_barriers(agents: list[Agent]) -> list[Agent]:
    """Drop the ``cutlass.named_barrier`` ``bar.sync`` s of a named barrier that only one agent of its CTA uses, always
    declaring exactly that agent's threads: each completes at once and synchronises with
    nobody (e.g. a warp group's epilogue barrier), so it only multiplies the states (and
    keeps otherwise identical agents from being interchangeable).  Barrier 0 (the CTA-wide
    ``bar.sync 0``) is always kept."""
    users: dict[tuple[int, int], set[int]] = {}
    private: dict[tuple[int, int], bool] = {}
    for i, a in enumerate(agents):
        for op in _bar_ops(a.program):
            key = (a.cta, op.barrier)
            users.setdefault(key, set()).add(i)
            ok = (isinstance(op, BarSync) and op.count == a.threads
                  and getattr(op.origin, "name", None) in NAMED)
            private[key] = private.get(key, True) and ok
    drop = {key for key, who in users.items() if len(who) == 1 and private[key] and key[1]}
    if not drop:
        return agents
    out = []
    for a in agents:
        prog = _without_bars(a.program, {b for (cta, b) in drop if cta == a.cta})
        out.append(Agent(a.name, a.role, tuple(prog), a.states, a.threads, a.mask, a.cta,
                         a.partial, origin=a.origin))
    return out


def _dropping(ops, drop) -> list[Op]:
    """``ops`` without the leaf ops for which ``drop(op)`` holds, recursively (loops and
    choices left empty are dropped too)."""
    out: list[Op] = []
    for op in ops:
        if isinstance(op, Loop):
            body = tuple(_dropping(op.body, drop))
            if body:
                out.append(Loop(op.trip, body, origin=op.origin))
        elif isinstance(op, Choice):
            branches = tuple(tuple(_dropping(b, drop)) for b in op.branches)
            if any(branches):
                out.append(Choice(branches, origin=op.origin))
        elif not drop(op):
            out.append(op)
    return out


def _without_bars(ops, ids: set[int]) -> list[Op]:
    if not ids:
        return list(ops)
    return _dropping(ops, lambda op: isinstance(op, BarSync) and op.barrier in ids)


class _BlockRegion:
    """Adapter so nested blocks walk like single-block regions."""

    def __init__(self, block):
        self.block = block


def _origin(op: Op, origin: Operation) -> Op:
    if isinstance(op, Loop):
        return Loop(op.trip, tuple(_origin(o, origin) for o in op.body), origin=origin)
    return type(op)(**{k: v for k, v in vars(op).items() if k != "origin"}, origin=origin)


def _row_col(k: _Kernel, cta: int, direction: str = "row_col") -> tuple[int, ...]:
    """The CTAs in the same cluster row or column as ``cta`` (rank = x + y * cx); with
    ``direction`` ``row`` / ``col`` only those sharing its x / its y (the multicast sets of
    ``pipeline.multicast_peers``)."""
    from tileorch.dialects.cutlass.arrive_counts import multicast_peers
    from tileorch.dialects.cutlass.attrs import MulticastDirection

    return multicast_peers(cta, k.cluster, MulticastDirection(direction))


PEER_SETS = ("row_col", "row", "col")
"""``ConsumerRelease`` / assumed ``ProducerWrite`` destinations fixed per CTA by ``_with_cta``."""


def _with_cta(op: Op, k: _Kernel, cta: int, threads: frozenset[int]) -> Op:
    """Fix the destinations of releases and multicast writes for CTA ``cta`` of the cluster:
    the CTAs of its row and column.  A multicast write lands in each destination its share of
    the stage: the stage bytes split evenly over the destination's row+column sources, the
    remainder from the destination itself."""
    if isinstance(op, Loop):
        return Loop(op.trip, tuple(_with_cta(o, k, cta, threads) for o in op.body),
                    origin=op.origin)
    if isinstance(op, Choice):
        return Choice(tuple(tuple(_with_cta(o, k, cta, threads) for o in b)
                            for b in op.branches), origin=op.origin)
    if isinstance(op, ConsumerRelease) and op.dst and op.dst[0] in PEER_SETS:
        return ConsumerRelease(op.pipe, op.state, op.arrivals, _row_col(k, cta, op.dst[0]),
                               origin=op.origin)
    if isinstance(op, ProducerWrite) and op.dst == (MERGED,):
        shares: dict[int, int] = {}
        for where, n in op.nbytes:
            dsts = ((cta,) if where is None else _row_col(k, cta, transfers.EACH[where])
                    if where in transfers.EACH else where)
            for d in dsts:
                shares[d] = shares.get(d, 0) + n
        dst = tuple(sorted(shares))
        return ProducerWrite(op.pipe, op.state, tuple(shares[d] for d in dst), dst,
                             origin=op.origin)
    if isinstance(op, ProducerWrite) and op.dst and op.dst[0] in transfers.EACH:
        dst = _row_col(k, cta, transfers.EACH[op.dst[0]])
        return ProducerWrite(op.pipe, op.state, op.nbytes, dst, origin=op.origin)
    if isinstance(op, ProducerWrite) and op.dst and op.dst[0] in PEER_SETS:
        dst = _row_col(k, cta, op.dst[0])
        shares = []
        for d in dst:
            sources = len(_row_col(k, d, op.dst[0]))
            share, extra = divmod(op.nbytes, sources)
            shares.append(share + (extra if d == cta else 0))
        return ProducerWrite(op.pipe, op.state, tuple(shares), dst, origin=op.origin)
    return op


class _Program:
    """Translates one agent region into protocol ops."""

    def __init__(self, k: _Kernel, rg: _Region, threads: frozenset[int]):
        self.k, self.rg, self.threads = k, rg, threads
        self.states: list[StateDecl] = []
        self.value: dict[SSAValue, tuple[str, int]] = {}
        self.cur: dict[str, int] = {}
        self.pipe_of: dict[str, Pipeline] = {}
        self.tokens: dict[SSAValue, str] = {}
        self.uses_after_wait: dict[SSAValue, bool] = {}
        self.ev = Evaluator((min(threads), max(threads)))
        self.multicast = {self.k.init_of(o.operands[0], rg) for o in k._own_ops(rg.region)
                          if o.name == P + "get_producer_mask"} if k.ctas > 1 else set()
        self.copying = {self.k.init_of(transfers.stage_barrier(o).operands[0], rg)
                        for o in k._own_ops(rg.region) if o.name in transfers.COPIES}
        self.delivered: dict[tuple[str, int], dict[object, int]] = {}
        self.unsized: dict[tuple[str, int], list[tuple[object, int]]] = {}
        self.copy_ops: dict[tuple[str, int], Operation] = {}
        self.copy_list: dict[tuple[str, int], list] = {}   # key -> (copy, bytes, destination, issues)
        self.rel: dict[str, str] = {}            # state variable -> its release cursor
        self.rel_decls: dict[str, StateDecl] = {}
        self.guards: dict[tuple[SSAValue, SSAValue], object] = {}   # (lb, ub) -> loop trip

    def build(self) -> tuple[tuple[Op, ...], tuple[StateDecl, ...]]:
        ops = self._block(self.rg.region.block)
        for copy in self.copy_ops.values():
            raise LocatedError(copy, "the checker models a bulk copy issued between the "
                               "stage's producer_acquire and its producer_commit; no later "
                               "producer_commit of this state arms the barrier it completes on")
        used = _state_uses(ops)
        ops = _compact(_prune_advances(ops, set(self.rel_decls) - used))
        states = self.states + [d for v, d in self.rel_decls.items() if v in used]
        return tuple(ops), tuple(states)

    def _block(self, block) -> list[Op]:
        out: list[Op] = []
        for op in block.ops:
            out.extend(self._op(op))
        return out

    def _pipe(self, op: Operation) -> tuple[Operation, Pipeline]:
        init = self.k.init_of(op.operands[0], self.rg)
        return init, self.k.inits[init]

    def _sync(self, op: Operation, value: SSAValue, release: bool = False
              ) -> tuple[str, list[Op]]:
        """The state variable of ``value``; Advance ops that bring it to ``value``.  A
        ``consumer_release`` of a state older than the one last waited on (the stage read by
        the previous, still retiring MMA batch) moves the variable's release cursor instead:
        a second variable over the same ring that only releases follow."""
        if value not in self.value:
            raise LocatedError(op, "pipeline state not created by cutlass.pipeline.state.create "
                               "in this executor region")
        var, pos = self.value[value]
        if release and pos < self.cur[var] and var in self.rel:
            var = self.rel[var]
        if pos < self.cur[var]:
            raise LocatedError(op, "uses a pipeline state older than one already used; the "
                               "checker needs each state to be used in order")
        out: list[Op] = []
        if pos > self.cur[var]:
            out.append(Advance(var, pos - self.cur[var], origin=op))
            self.cur[var] = pos
        return var, out

    def _trip(self, op: Operation, lb: SSAValue, ub: SSAValue, step: SSAValue | None,
              stages: int, outer: bool) -> int | str | Trip:
        lo, hi = self.ev.constant(lb), self.ev.constant(ub)
        st = 1 if step is None else self.ev.constant(step)
        if lo is not None and hi is not None and st:
            return max(0, -(-(hi - lo) // st))
        ranged = lo is None or not st  # a non-constant start or step: loops share the count only with the same range
        less = self._less(ub) if not outer and lo is None else None
        if less is not None:  # ``x - c``: c fewer iterations than a loop bounded by x (a peeled last iteration)
            ub, lo = less
        if outer:
            name = "tiles"
        elif ranged:  # (a peeled loop ``lb .. x - c`` shares the count of ``lb .. x``: keyed by x and its start)
            name = self._trip_name(ub, lb, step)
        else:
            name = self._trip_name(ub)
        if outer:
            values = (1, 2)
        elif self.k.iterations:
            values = tuple(range(1, self.k.iterations + 1))
        else:
            values = catalog.trip_counts(stages)
        self.k.params[name] = tuple(sorted(set(self.k.params.get(name, ())) | set(values)))
        if lo is not None and st and st > 0 and (lo, st) != (0, 1):
            return Trip(name, lo, st)
        return name

    def _less(self, ub: SSAValue) -> tuple[SSAValue, int] | None:
        """``(x, c)`` for a bound ``arith.subi x, c`` of a positive constant ``c`` and a non-constant ``x``, else
        None."""
        if not (isinstance(ub.owner, Operation) and ub.owner.name == "arith.subi"):
            return None
        x, c = ub.owner.operands
        less = self.ev.constant(c)
        return (x, less) if less is not None and less > 0 and self.ev.constant(x) is None else None

    def _trip_name(self, ub: SSAValue, lb: SSAValue | None = None, step: SSAValue | None = None) -> str:
        """The parameter of a non-constant bound: loops bounded by the same value (up to adding
        or subtracting a known zero) share it; distinct values never do, even with equal names.
        With ``lb`` / ``step`` (a loop whose start or step is not a constant, e.g. a persistent
        ``for t = ctaid to n step nctaid``): loops share the parameter only when their starts and steps
        are the same values too (a consumer loop from ``ctaid + nctaid`` runs one tile fewer than its
        producer's from ``ctaid``: they were one count before user sweep 36, and ``tileorch check``
        proved the mismatch)."""
        while isinstance(ub.owner, Operation) and ub.owner.name in ("arith.addi", "arith.subi"):
            lhs, rhs = ub.owner.operands
            if self.ev.constant(rhs) == 0:
                ub = lhs
            elif ub.owner.name == "arith.addi" and self.ev.constant(lhs) == 0:
                ub = rhs
            else:
                break
        names = self.k.trip_names
        key = _structure(ub, {})
        if lb is not None:
            key = ("range", _structure(lb, {}), key, None if step is None else _structure(step, {}))
        if key not in names:
            base = ub.name_hint or "n"
            taken = set(names.values())
            names[key] = base if base not in taken else next(
                f"{base}{i}" for i in range(2, len(taken) + 3) if f"{base}{i}" not in taken)
        return names[key]

    def _loop_stages(self, region: Region) -> int:
        """The ring period of the loop's handshakes: pipeline stages, or depth x length of a
        sequence barrier (a group's state comes back to a slot every depth x length ops)."""
        stages = [self.k.inits[self.k.init_of(o.operands[0], self.rg)].stages
                  for o in region.walk() if o.name in HANDSHAKE]
        stages += [sb.depth * sb.length for sb in (self.k.seqbar_of(o) for o in region.walk()
                                                   if o.name in SEQ)]
        return max(stages, default=2)

    def _op(self, op: Operation) -> list[Op]:
        name = op.name
        if name in (EXEC, SWITCH):
            return []
        if name == P + "state.create":
            _init, pipe = self._pipe(op)
            var = f"s{len(self.states)}"
            self.states.append(StateDecl(var, pipe.name, op.start()[1], origin=op))
            self.value[op.results[0]] = (var, 0)
            self.cur[var] = 0
            self.pipe_of[var] = pipe
            rel = f"{var}r"
            self.rel[var] = rel
            self.rel_decls[rel] = StateDecl(rel, pipe.name, op.start()[1], origin=op)
            self.cur[rel] = 0
            self.pipe_of[rel] = pipe
            return []
        if name == SB + "state.create":
            return self._seq_state(op)
        if name in SEQ:
            return self._seq_op(op)
        if name == MODS_START:
            return [ClusterArrive(origin=op)]
        if name == MODS_END:
            return [ClusterWait(drain=True, origin=op)]
        if name == THROTTLE:
            if op.profile.value.data != 2:
                return []
            return [ClusterWait(origin=op), ClusterArrive(origin=op)]
        if name in FIXUP_USER and not cta_local_tile(op):
            self.k.fixup_user.append((op, self.rg, self.threads))
            self.k.fixup_slot(op, self.threads)
            return []
        if name == "scf.if":
            return self._if(op)
        if name == P + "state.increment":
            var, pos = self.value[op.operands[0]]
            n = 1 if len(op.operands) == 1 else self.ev.constant(op.operands[1])
            if n is None:
                raise LocatedError(op, "the checker needs a constant increment amount")
            self.value[op.results[0]] = (var, pos + n)
            return []
        if name.startswith(P + "state.get_") or name.startswith(P + "get_"):
            state = op.operands[-1] if name.startswith(P + "state.") else op.operands[1:2]
            state = state if isinstance(state, SSAValue) else (state[0] if state else None)
            return self._stage_use(op, state)
        if name in HANDSHAKE:
            return self._handshake(op)
        if name in transfers.COPIES:
            self._copy(op)
            return []
        if name in NAMED:
            bid = op.static_barrier_id()
            if bid is None:
                raise LocatedError(op, "the checker needs a static named-barrier id")
            cls = BarSync if name.endswith("arrive_and_wait") else BarArrive
            return [cls(bid, op.arrive_count(), origin=op)]
        if name == FIXUP:
            self.k.fixups.append(op)
            self.k.fixup_slot(op, self.threads)
            return []
        if name == "scf.for":
            return self._for(op)
        if name == "scf.while":
            return self._while(op)
        if len(op.regions) > 1 and any(_relevant(o) for o in op.walk() if o is not op):
            raise LocatedError(op, f"the checker cannot model the control flow of {name} "
                               "around synchronising ops (scf.for, scf.while and scf.if are "
                               "modelled)")
        out: list[Op] = []
        for region in op.regions:
            for block in region.blocks:
                out.extend(self._block(block))
        return out

    def _group(self, op: Operation, value: SSAValue, sb: SeqBar) -> int:
        group = self.ev.constant(value)
        if group is None:
            raise LocatedError(op, "the checker needs the seq_bar group id of every agent: a "
                               "constant or a function of gpu.thread_id it can evaluate")
        if not 0 <= group < sb.length:
            raise LocatedError(op, f"group id {group} of threads {min(self.threads)}.."
                               f"{max(self.threads)} is outside the {sb.length} groups of "
                               f"{sb.name}")
        return group

    def _seq_state(self, op: Operation) -> list[Op]:
        sb = self.k.seqbar_of(op)
        group = self._group(op, op.operands[1], sb)
        var = f"s{len(self.states)}"
        self.states.append(StateDecl(var, sb.name, 1 if group == 0 else 0, origin=op))
        self.value[op.results[0]] = (var, 0)
        self.cur[var] = 0
        return []

    def _seq_op(self, op: Operation) -> list[Op]:
        sb = self.k.seqbar_of(op)
        var, out = self._sync(op, op.operands[1])
        group = self._group(op, op.operands[2], sb)
        if op.name == SB + "wait":
            return out + [SeqWait(sb.name, var, group, origin=op)]
        self.value[op.results[0]] = (var, self.value[op.operands[1]][1] + 1)
        return out + [SeqArrive(sb.name, var, group, origin=op)]

    def _if(self, op: Operation) -> list[Op]:
        """A known condition selects its branch; an unknown one gives a nondeterministic
        choice whose branches leave every state variable at the same position."""
        if any(str(t).startswith(STATE_TYPES) for t in op.result_types):
            raise LocatedError(op, "the checker cannot model an scf.if that yields a pipeline "
                               "or seq_bar state")
        regions = [r for r in op.regions if r.blocks]
        guard = self._guard(op.operands[0])
        taken = self.ev.truth(op.operands[0])
        if taken is not None:
            chosen = op.regions[0 if taken else 1]
            return self._block(chosen.block) if chosen.blocks else []
        start = dict(self.cur)
        arms, ends = [], []
        for region in regions:
            self.cur = dict(start)
            arms.append(self._block(region.block))
            ends.append(dict(self.cur))
        if len(arms) == 1:
            arms.append([])
            ends.append(dict(start))
        self.cur = {var: max(e[var] for e in ends) for var in start}
        for arm, end in zip(arms, ends):
            for var, pos in self.cur.items():
                if end[var] < pos:
                    arm.append(Advance(var, pos - end[var], origin=op))
        if not any(arms):
            return []
        if guard is not None and not arms[1]:
            # taken exactly when the loop with these bounds ran (at least once)
            trip = guard()
            if isinstance(trip, int):
                return arms[0] if trip else []
            return [Loop(_first_trip(trip), tuple(arms[0]), origin=op)]
        return [Choice(tuple(tuple(a) for a in arms), origin=op)]

    def _guard(self, cond: SSAValue):
        """The trip count of an earlier loop whose bounds ``cond`` compares as ``lb < ub``
        (its body ran), else None."""
        o = cond.owner
        if not isinstance(o, Operation) or o.name != "arith.cmpi":
            return None
        pred = o.properties["predicate"].value.data
        a, b = o.operands
        key = (a, b) if pred in (2, 6) else (b, a) if pred in (4, 8) else None
        return self.guards.get(key) if key is not None else None

    def _stage_use(self, op: Operation, state: SSAValue | None) -> list[Op]:
        if state is None or state not in self.value:
            return []
        var, _ = self.value[state]
        if self.uses_after_wait.get(state):
            sync_var, adv = self._sync(op, state)
            return adv + [ConsumerRead(self.pipe_of[var].name, sync_var, origin=op)]
        return []

    def _handshake(self, op: Operation) -> list[Op]:
        init, pipe = self._pipe(op)
        kind = op.name[len(P):]
        var, out = self._sync(op, op.operands[1], release=kind == "consumer_release")
        token = self.tokens.get(op.operands[2]) if len(op.operands) > 2 else None
        tma = self._loads(init)
        if kind == "consumer_try_wait" and pipe.named_ids is not None:
            raise LocatedError(op, "consumer_try_wait cannot probe a named-barrier pipeline")
        if kind in ("producer_acquire", "produce"):
            out.append(ProducerAcquire(pipe.name, var, token=token, origin=op))
        if kind in ("producer_try_acquire", "consumer_try_wait"):
            tok = f"t{len(self.tokens)}"
            self.tokens[op.results[0]] = tok
            cls = ProducerTryAcquire if kind.startswith("producer") else ConsumerTryWait
            out.append(cls(pipe.name, var, tok, origin=op))
        if kind == "produce" and op.regions[0].blocks:
            out.extend(self._block(op.regions[0].block))
        if kind in ("producer_commit", "produce"):
            arrivals, tx = self._commit(init, pipe, op)
            out.extend(self._fill(init, pipe, self.value[op.operands[1]], op, tma, tx))
            out.append(ProducerCommit(pipe.name, var, tx_bytes=tx, arrivals=arrivals, origin=op))
        if kind == "producer_tail":
            out.extend(tail(pipe.name, var, pipe.stages, origin=op))
            self.cur[var] += pipe.stages
        if kind in ("consumer_wait", "consume"):
            out.append(ConsumerWait(pipe.name, var, token=token, origin=op))
            out.append(ConsumerRead(pipe.name, var, origin=op))
            self.uses_after_wait[op.operands[1]] = True
        if kind in ("consumer_release", "consume"):
            out.extend(self._release(init, pipe, var, op))
        return out

    def _copy(self, op: Operation) -> None:
        """Record the bytes a bulk copy delivers to its stage's full barrier, times the
        number of the agent's threads that issue it per stage."""
        getter = transfers.stage_barrier(op)
        init = self.k.init_of(getter.operands[0], self.rg)
        if self.k.inits[init].named_ids is not None:
            raise LocatedError(op, "a barrier = named_barrier pipeline has no full mbarrier for "
                               "a bulk copy to complete on")
        state = getter.operands[1]
        if state not in self.value:
            raise LocatedError(getter, "pipeline state not created by "
                               "cutlass.pipeline.state.create in this executor region")
        key = self.value[state]
        nbytes = transfers.size(op, self.ev)
        dst = transfers.destination(op, self.ev, self.k.ctas)
        leaders = frozenset(r[0] for r in self._ranges(init, init.producer_masks()))
        count = transfers.issuers(op, sorted(self.threads), transfers.scope_of(state), leaders)
        if nbytes is None:
            self.unsized.setdefault(key, []).append((dst, count))
        else:
            by_dst = self.delivered.setdefault(key, {})
            by_dst[dst] = by_dst.get(dst, 0) + nbytes * count
        self.copy_ops.setdefault(key, op)
        self.copy_list.setdefault(key, []).append((op, nbytes, dst, count))

    def _fill(self, init: Operation, pipe: Pipeline, key: tuple[str, int], op: Operation,
              tma: int, tx: int) -> list[Op]:
        """The producer's fill of the stage before ``op`` commits it.  An agent that issues
        copies on this pipeline writes what they deliver to the stage (nothing if none does);
        otherwise, on an mbarrier pipeline whose commit expects transaction bytes, the
        ``transaction_size`` bytes are assumed to land (a note at the commit), else the fill
        is a synchronous store."""
        var = key[0]
        if init in self.copying:
            create = init.operands[0].owner
            storage = getattr(create, "storage", None) if isinstance(create, Operation) else None
            transfers.stage_slots(self.copy_list.pop(key, []), self.k.cluster, self.k.ctas, self.ev.work,
                                  partial(_row_col, self.k),
                                  None if storage is None else (storage, 16 * pipe.stages, pipe.stages),
                                  unmodelled=sorted(self.threads))
            copy = self.copy_ops.pop(key, None)
            delivered = self.delivered.pop(key, {})
            unsized = self.unsized.pop(key, [])
            if unsized:
                delivered = self._assumed_sizes(init, pipe, op, copy, delivered, unsized, tx)
            delivered = {d: n for d, n in delivered.items() if n}
            if len(delivered) > 1 and self.k.ctas > 1:
                # one transfer per destination CTA: the stage's copies are issued together,
                # and only their last byte landing can complete the barrier
                return [ProducerWrite(pipe.name, var, nbytes=tuple(delivered.items()),
                                      dst=(MERGED,), origin=op)]
            return [ProducerWrite(pipe.name, var, nbytes=n,
                                  dst=(dst,) if dst in transfers.EACH else dst,
                                  origin=op)
                    for dst, n in delivered.items() if n]
        if pipe.named_ids is None and (tma or tx) and not any(
                o.name == "func.call" for o in self.rg.region.block.walk()):
            raise LocatedError(op, (
                f"{kernel_name(self.k.func)}: pipeline {pipe.name}: this commit expects {tx} "
                f"transaction bytes per stage but the producer issues no copy that delivers "
                f"them (no bulk or TMA copy completing on get_producer_barrier / "
                f"get_full_barrier of the stage): on hardware the full barrier never completes "
                f"and the consumers wait forever; issue the copies, or commit without "
                f"transaction bytes"))
        if pipe.named_ids is None and (tma or tx):
            assumed = (f"exactly the {tx} expected bytes" if tx == tma else
                       f"transaction_size = {tma} bytes, while this commit expects {tx},")
            self.k.notes.setdefault(op, (
                f"{location_str(op)}: NOTE: {kernel_name(self.k.func)}: pipeline {pipe.name} "
                f"expects transaction bytes but its producer issues no copy visible in the IR "
                f"(no atom.bulk_copy_g2s completing on get_producer_barrier / "
                f"get_full_barrier); checked assuming {assumed} land per stage"
                + (f", split evenly over the CTAs of its multicast set "
                   f"({init.multicast_direction().value})"
                   if init in self.multicast else "")))
        dst = (init.multicast_direction().value,) if init in self.multicast and tma else None
        return [ProducerWrite(pipe.name, var, nbytes=tma, dst=dst, origin=op)]

    def _assumed_sizes(self, init, pipe, op, copy, delivered, unsized, tx) -> dict:
        """Bytes of tensor loads whose box size is not in the IR (no ``cutlass.tx_bytes``):
        counting each load op once per stage (issued by one thread of each CTA), each CTA's
        stage must receive the same number n of them (from its own and its peers'
        multicasts), and each is assumed to deliver ``tx / n``, a located note saying so.  A
        load the agent's threads actually issue more than once per stage delivers that many
        times the share (so an unelected issue still overfills the barrier)."""
        if delivered:
            raise LocatedError(copy, "the checker cannot mix tensor loads without "
                               f"{transfers.TX_ATTR} and sized copies on one stage")
        ctas = self.k.ctas
        landing = [0] * ctas
        for dst, count in unsized:
            n = min(count, 1)
            for d in range(ctas):
                if dst is None:
                    sources = 1
                elif dst in transfers.EACH:
                    sources = len(_row_col(self.k, d, transfers.EACH[dst]))
                else:
                    sources = ctas if d in dst else 0
                landing[d] += n * sources
        if len(set(landing)) != 1 or not landing[0] or tx % landing[0]:
            raise LocatedError(copy, f"the checker cannot size these TMA tensor loads: the "
                               f"CTAs' stages receive {landing} loads for {tx} expected bytes; "
                               f"give each load its bytes as {transfers.TX_ATTR}")
        share = tx // landing[0]
        self.k.notes.setdefault(op, (
            f"{location_str(op)}: NOTE: {kernel_name(self.k.func)}: pipeline {pipe.name}: the "
            f"{landing[0]} TMA tensor loads landing in each CTA's stage carry no "
            f"{transfers.TX_ATTR} (their box sizes are in the host's tensor maps); checked "
            f"assuming each delivers {share} bytes, {tx} in all, as this commit expects"))
        out: dict = {}
        for dst, count in unsized:
            out[dst] = out.get(dst, 0) + count * share
        return out

    def _ranges(self, init: Operation, masks: list[int]) -> list[range]:
        """The threads of each group mask (a contiguous run of executor units)."""
        unit = UNIT_THREADS.get(init.executor_type().value, 32)
        return [range(min(ts), max(ts) + 1) for ts in (_threads(unit, m) for m in masks)]

    def _arriving(self, groups: list[range], counts: list[int]) -> int:
        """This agent's threads among the first ``counts[g]`` threads of each group g."""
        return sum(len(self.threads & frozenset(g[:n])) for g, n in zip(groups, counts))

    def _loads(self, init: Operation) -> int:
        """TMA bytes this agent loads into a stage: ``transaction_size[p]`` of each producer
        group p it covers."""
        groups = self._ranges(init, init.producer_masks())
        sizes = init.transaction_sizes() or [0] * len(groups)
        return sum(size for g, size in zip(groups, sizes) if self.threads & frozenset(g))

    def _commit(self, init: Operation, pipe: Pipeline, op: Operation) -> tuple[int, int]:
        """(arrivals, expect_tx bytes) of this agent's producer_commit on an mbarrier pipeline."""
        if pipe.named_ids is not None:
            return len(self.threads), 0
        groups = self._ranges(init, init.producer_masks())
        explicit = op.properties.get("transaction_bytes")
        sizes = ([explicit.value.data] * len(groups) if explicit is not None
                 else init.transaction_sizes() or [0] * len(groups))
        counts = init.producer_arrive_counts() or [1] * len(groups)
        tx = sum(size for g, size in zip(groups, sizes) if size and g[0] in self.threads)
        return self._arriving(groups, counts), tx

    def _release(self, init: Operation, pipe: Pipeline, var: str, op: Operation) -> list[Op]:
        """consumer_release of this agent: ``bar.arrive`` (named pipeline); local arrivals of
        the first ``consumer_arv_count`` (default all) threads of each group (one-CTA
        cluster); else each consumer group it covers syncs (if it is one of
        ``release_sync_groups()``) and sends ``cluster_release_arrivals(T)`` to each CTA of
        its cluster row and column (``consumer_arv_count`` is rejected on such a cluster by
        ``cutlass-stamp-arrive-counts``, run in :func:`lowered_inits`)."""
        from tileorch.dialects.cutlass.arrive_counts import cluster_release_arrivals
        from tileorch.dialects.cutlass.pipeline_facts import RETIRED_ATTR, release_sync_id
        if pipe.named_ids is not None:
            return [ConsumerRelease(pipe.name, var, len(self.threads), origin=op)]
        groups = self._ranges(init, init.consumer_masks())
        given = init.consumer_arrive_counts()
        if self.k.ctas == 1 or init.is_cta_scoped():
            arrivals = self._arriving(groups, given or [len(g) for g in groups])
            return [ConsumerRelease(pipe.name, var, arrivals, origin=op)]
        out: list[Op] = []
        arrivals = 0
        syncing = init.release_sync_groups()
        for c, g in enumerate(groups):
            if not self.threads & frozenset(g):
                continue
            if c in syncing and RETIRED_ATTR not in op.attributes:
                out.append(BarSync(release_sync_id(op, self.k.infos[init], c), len(g), origin=op))
            arrivals += cluster_release_arrivals(len(g))
        out.append(ConsumerRelease(pipe.name, var, arrivals, (init.multicast_direction().value,),
                                   origin=op))
        return out

    def _for(self, op: Operation) -> list[Op]:
        lb, ub, step, *inits = op.operands
        body = op.regions[0].block
        outer = any(o.name in ("scf.for", "scf.while") and any(_relevant(x) for x in o.walk())
                    for o in body.ops)
        trip = partial(self._trip, op, lb, ub, step, self._loop_stages(op.regions[0]), outer)
        args, results = list(body.args[1:]), list(op.results)
        firsts = _first_iteration_tests(body, body.args[0], lb)
        if not firsts or not any(_relevant(o) for o in body.walk()):
            ops = self._loop(op, trip, inits, args, body, results)
        else:
            ops = self._peeled(op, trip, inits, args, body, results, firsts)
        self.guards[(lb, ub)] = trip
        return ops

    def _peeled(self, op, trip, inits, args, body, results, firsts) -> list[Op]:
        """A loop whose body tests ``iv == lb`` (e.g. releases the previous stage only from
        the second iteration on): the first iteration is extracted with the tests true, the
        rest as a loop with them false."""
        saved = dict(self.ev.memo)
        self.ev.memo.update({v: (int(first),) * 2 for v, (first, _rest) in firsts.items()})
        head = self._loop(op, lambda: _first_trip(trip()), inits, args, body, results,
                          once=True)
        rest_inits = list(body.last_op.operands)
        self.ev.memo = dict(saved)
        self.ev.memo.update({v: (int(rest),) * 2 for v, (_first, rest) in firsts.items()})
        tail_ops = self._loop(op, lambda: _rest_trip(trip()), rest_inits, args, body, results)
        self.ev.memo = saved
        return head + tail_ops

    def _while(self, op: Operation) -> list[Op]:
        before, after = op.regions[0].block, op.regions[1].block
        trip = partial(self._trip, op, op.operands[0], op.operands[0], None, 2, True)
        ops = self._loop(op, trip, list(op.operands), list(before.args), before,
                         list(op.results), after)
        return ops

    def _loop(self, op, trip, inits, args, body, results, after=None, once=False) -> list[Op]:
        """One loop: the state variables carried as iter_args start each iteration where the
        previous one left them (each carried state of a variable advancing by the same step
        per iteration, the variable's cursors realigned at the end of the body); after the
        loop they are at a fresh, unknown position (exact for a constant trip count).
        ``trip`` gives the trip count; it is asked for (and a parametric one registered) only
        when the body has protocol ops.  ``once``: a peeled first iteration, run at most once,
        so its states need not advance uniformly."""
        pre: list[Op] = []
        entry: dict[SSAValue, tuple[str, int]] = {}
        for init, arg in zip(inits, args):
            if init in self.value:
                entry[arg] = self.value[init]
        carried = sorted({var for var, _pos in entry.values()})
        for var in carried:
            lo = min(pos for v, pos in entry.values() if v == var)
            if lo > self.cur[var]:
                pre.append(Advance(var, lo - self.cur[var], origin=op))
                self.cur[var] = lo
        cursors = [c for var in carried for c in (var, self.rel.get(var)) if c is not None]
        start = {c: self.cur[c] for c in cursors}
        self.value.update(entry)
        ops = self._block(body)
        blocks = [body] if after is None else [body, after]
        if after is not None:
            for init, arg in zip(args, after.args):
                if init in self.value:
                    self.value[arg] = self.value[init]
            ops += self._block(after)
        terminator = blocks[-1].last_op
        yielded = list(terminator.operands) if terminator is not None else []
        steps: dict[str, int] = {}
        for arg, value in zip(args, yielded):
            if arg not in entry:
                continue
            var, pos = entry[arg]
            if value not in self.value or self.value[value][0] != var:
                raise LocatedError(op, "the checker needs every loop-carried pipeline state to "
                                   "be yielded as a state of the same pipeline state variable")
            step = self.value[value][1] - pos
            if not once and steps.setdefault(var, step) != step:
                raise LocatedError(op, "the loop-carried states of one pipeline state variable "
                                   "advance by different amounts per iteration; the checker "
                                   "needs them to move together")
        if once:
            if not ops:
                return pre
            count = trip()
            if isinstance(count, int):
                return pre + (ops if count else [])
            return pre + [Loop(count, tuple(ops), origin=op)]
        for var in carried:
            for c in (var, self.rel.get(var)):
                if c is None:
                    continue
                target = start[c] + steps.get(var, 0)
                if self.cur[c] > target:
                    raise LocatedError(op, "the loop body uses a pipeline state beyond the one "
                                       "it yields; the checker needs each iteration to end "
                                       "where the next one starts")
                if self.cur[c] < target:
                    ops.append(Advance(c, target - self.cur[c], origin=op))
                    self.cur[c] = target
        count = trip() if ops else None
        shift = {var: (count * steps.get(var, 0) if isinstance(count, int) else 1 << 20)
                 for var in carried}
        for var in carried:
            for c in (var, self.rel.get(var)):
                if c is not None:
                    self.cur[c] = start[c] + shift[var]
        for res, arg in zip(results, args):
            if arg in entry:
                var, pos = entry[arg]
                self.value[res] = (var, pos + shift[var])
        if not ops:
            return pre
        if isinstance(count, int):
            return pre + [o for _ in range(count) for o in ops]
        return pre + [Loop(count, tuple(ops), origin=op)]


_UNIFORM_READS = frozenset({"llvm.mlir.constant", *(f"nvvm.read.ptx.sreg.{r}.{a}" for r in (
    "ctaid", "nctaid", "clusterid", "nclusterid", "cluster.ctaid", "cluster.nctaid") for a in "xyz"),
    "nvvm.read.ptx.sreg.cluster.ctarank", "nvvm.read.ptx.sreg.cluster.nctarank"})
"""Ops whose value every thread of a CTA reads alike (a constant, the CTA's and cluster's ids and counts): two agents'
reads of one are the same value (a thread id is not)."""

_PURE_PREFIXES = ("arith.", "cutlass.tile_scheduler.get_work_", "cutlass.tile_scheduler.work_tile_",
                  "cutlass.tile_scheduler.create_", "cutlass.tile_scheduler.initial_work_tile_info")


def _structure(value: SSAValue, memo: dict) -> object:
    """A key equal for values that every agent computes alike: the same function argument,
    or the same pure arithmetic / tile-scheduler query of such values (each agent walks the
    same work tiles, so e.g. every agent's ``k_tile_start + k_tile_count`` of its current work
    tile is one trip count).  Anything else is keyed by its own identity."""
    if value in memo:
        return memo[value]
    memo[value] = ("self", id(value))
    owner = value.owner
    key: object = ("self", id(value))
    if isinstance(owner, Block):
        parent = owner.parent_op()
        if parent is not None and parent.name == "func.func":
            key = ("arg", id(parent), value.index)
        elif parent is not None and parent.name == "scf.while" and owner is parent.regions[1].block:
            before = parent.regions[0].block
            cond = before.last_op
            src = cond.operands[value.index + 1] if cond is not None else None
            if src is not None and isinstance(src.owner, Block) and src.owner is before:
                key = ("while", _structure(parent.operands[src.index], memo), src.index)
    elif owner.name == "llvm.load" and _read_only_address(owner.operands[0]):
        props = tuple(sorted((k, str(v)) for k, v in owner.properties.items()))
        key = (owner.name, props, value.index, _structure(owner.operands[0], memo))
    elif owner.name.startswith(_PURE_PREFIXES) or owner.name in _UNIFORM_READS or owner.name in _ADDRESS_OPS:
        props = tuple(sorted((k, str(v)) for k, v in owner.properties.items()))
        key = (owner.name, props, value.index,
               tuple(_structure(o, memo) for o in owner.operands))
    memo[value] = key
    return key


_ADDRESS_OPS = ("llvm.getelementptr", "llvm.addrspacecast", "llvm.bitcast")


def _read_only_address(addr: SSAValue) -> bool:
    """``addr`` is an address into memory the kernel only reads: computed (``getelementptr`` / address-space casts)
    from a kernel argument every use of which, through such address arithmetic, is the address of a plain
    ``llvm.load`` (no store, atomic, copy, inline assembly or call sees the pointer).  Two agents' loads of one such
    address read one value (a guard or bound read from an input array, ``ct.load(...).item()``), which
    :func:`_structure` keys alike (user sweep 36: a grouped GEMM's guard read from its group starts was two trip
    counts, and ``tileorch check`` reported a deadlock of the correct kernel)."""
    v = addr
    while isinstance(v.owner, Operation) and v.owner.name in _ADDRESS_OPS:
        v = v.owner.operands[0]
    if not isinstance(v.owner, Block):
        return False
    parent = v.owner.parent_op()
    if parent is None or parent.name not in ("func.func", "llvm.func") or v.owner is not parent.regions[0].blocks.first:
        return False
    stack, seen = [v], set()
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        for use in x.uses:
            op = use.operation
            if op.name in _ADDRESS_OPS and use.index == 0:
                stack.extend(op.results)
            elif op.name == "llvm.load" and use.index == 0 and not _volatile_or_atomic(op):
                continue
            else:
                return False
    return True


def _volatile_or_atomic(load: Operation) -> bool:
    """An atomic (``ordering`` not 0: not_atomic) or volatile load: another thread's write may come between two."""
    ordering = load.properties.get("ordering")
    return (ordering is not None and getattr(getattr(ordering, "value", None), "data", 0) != 0) or any(
        k in load.properties or k in load.attributes for k in ("volatile_", "volatile", "syncscope"))


_FIRST_TESTS = {0: (True, False), 1: (False, True), 2: (False, False), 3: (True, False),
                4: (False, True), 5: (True, True), 6: (False, False), 7: (True, False),
                8: (False, True), 9: (True, True)}
"""arith.cmpi predicate -> (value when iv == lb, value when iv > lb) of ``cmpi(iv, lb)``."""
_SWAPPED = {2: 4, 3: 5, 4: 2, 5: 3, 6: 8, 7: 9, 8: 6, 9: 7, 0: 0, 1: 1}


def _first_iteration_tests(body, iv: SSAValue, lb: SSAValue) -> dict[SSAValue, tuple[bool, bool]]:
    """``arith.cmpi`` results in ``body`` comparing the induction variable with the lower
    bound: their value in the first iteration and in every later one (positive step)."""
    out = {}
    for o in body.walk():
        if o.name != "arith.cmpi" or set(o.operands) != {iv, lb} or iv is lb:
            continue
        pred = o.properties["predicate"].value.data
        if o.operands[0] is lb:
            pred = _SWAPPED[pred]
        out[o.results[0]] = _FIRST_TESTS[pred]
    return out


def _first_trip(trip):
    if isinstance(trip, int):
        return min(trip, 1)
    if isinstance(trip, Trip):
        return Trip(trip.param, trip.lower, trip.step, cap=1)
    return Trip(trip, cap=1)


def _rest_trip(trip):
    if isinstance(trip, int):
        return max(trip - 1, 0)
    if isinstance(trip, Trip):
        return Trip(trip.param, trip.lower + trip.step, trip.step)
    return Trip(trip, 1)


def _state_uses(ops) -> set[str]:
    """State variables some op other than an Advance uses."""
    out: set[str] = set()
    for op in ops:
        if isinstance(op, Loop):
            out |= _state_uses(op.body)
        elif isinstance(op, Choice):
            for branch in op.branches:
                out |= _state_uses(branch)
        elif not isinstance(op, Advance) and isinstance(getattr(op, "state", None), str):
            out.add(op.state)
    return out


def _prune_advances(ops, unused: set[str]) -> list[Op]:
    """``ops`` without the Advance ops of the variables in ``unused`` (loops and choices left
    empty are dropped)."""
    if not unused:
        return list(ops)
    return _dropping(ops, lambda op: isinstance(op, Advance) and op.state in unused)


MAX_ITERATIONS = 256
"""The largest mainloop trip-count bound a check takes (``tileorch check --iterations``,
``verify-pipelines{iterations=N}``): four times the trip counts the largest pipeline (32 stages)
needs (1..65); what a run can observe repeats with period 2 x stages."""


def load(path: str, kernel: str | None = None, iterations: int | None = None
         ) -> tuple[list[Protocol], list[str]]:
    """Parse, verify and extract ``path``: (protocols, located error lines)."""
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    from tileorch.diagnostics import SourceError, format_exception, parse_module, read_source
    from tileorch.registry import make_context
    try:  # read as the other commands read it: bytecode, a cubin, PTX or a bad byte say what they are
        text = read_source(path)
    except SourceError as exc:
        return [], [exc.format(path)]
    try:
        module = parse_module(make_context(), text, path)
    except (ParseError, DiagnosticException) as exc:
        return [], format_exception(exc)
    return load_module(module, kernel, iterations, path)


def load_module(module: ModuleOp, kernel: str | None = None, iterations: int | None = None,
                path: str = "<module>") -> tuple[list[Protocol], list[str]]:
    """:func:`load` of a module in memory (a lowering a test made: what ``tileorch check`` reads of the
    module's printed text, without printing and parsing it): verify and extract, (protocols, located error
    lines); ``path`` names the module in the error of a missing ``kernel``."""
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    from tileorch.diagnostics import format_exception, verify_located
    try:
        errors = verify_located(module)
        if errors:
            return [], errors
        protocols = extract(module, kernel, iterations)
    except (ParseError, DiagnosticException) as exc:
        return [], format_exception(exc)
    if kernel is not None and not protocols:
        names = ", ".join(kernel_name(f) for f in kernels(module)) or "none"
        return [], [f"{path}: error: no kernel named {kernel!r} with pipelines "
                    f"(kernels: {names})"]
    return protocols, []


def extract(module: ModuleOp, kernel: str | None = None,
            iterations: int | None = None) -> list[Protocol]:
    """The protocols of the module's kernels (or of the one named ``kernel``)."""
    out = []
    if kernels(module):
        from tileorch.analysis.static_copies import check_module

        check_module(module)  # the shared-memory layout rules tileorch compile applies too (session 41)
        from tileorch.analysis import fixup_buffer

        fixup_buffer.check_module(module)  # the cluster fix-up's buffer size, as tileorch compile (session 42)
    infos = lowered_inits(module) if kernels(module) else {}
    for func in kernels(module):
        if kernel is not None and kernel_name(func) != kernel:
            continue
        out.extend(_Kernel(module, func, iterations, infos).protocols())
    from tileorch.analysis.extract_chained import extract_chained  # NVVM-level chained-dots kernels

    out.extend(extract_chained(module, kernel))
    return out
