"""Reference protocols built by hand after CUTLASS's pipelines (``cutlass-semantics.md`` §3, §5.5,
§6): the correct shapes the checker must accept and the mutation test seeds bugs into.

Every builder takes the knobs a bug class needs (start phase, arrival counts, ...) so a mutant
is the same protocol with one argument changed.
"""

from __future__ import annotations

from tileorch.analysis.protocol import (Accumulate, Advance, Agent, BarSync, ClusterArrive, ClusterWait, ConsumerRead,
                                        ConsumerRelease, ConsumerTryWait, ConsumerWait, CounterAdd, CounterWait,
                                        Epilogue, LoadAddPartial, Loop, Op, Pipeline, ProducerAcquire, ProducerCommit,
                                        ProducerWrite, Protocol, ReducePartial, SeqArrive, SeqBar, SeqWait, StateDecl,
                                        StorePartial, Trip, tail)

WG = 128


def trip_counts(stages: int) -> tuple[int, ...]:
    """k-loop trip counts that cover the steady state of a ring of ``stages`` slots:
    1 .. 2*stages + 1 (every residue of the count modulo 2*stages, plus one full
    wrap of both parities; see docs/model-checking.md)."""
    return tuple(range(1, 2 * stages + 2))


def producer_program(pipe: str, stages: int, tma_bytes: int, expect_tx: bool = True,
                     with_tail: bool = True, flip: bool = True,
                     copy_bytes: int | None = None) -> tuple[Op, ...]:
    """Per stage: acquire, a TMA copy of ``copy_bytes`` (default ``tma_bytes``), commit
    expecting ``tma_bytes``."""
    body = (ProducerAcquire(pipe, "p"),
            ProducerWrite(pipe, "p", nbytes=tma_bytes if copy_bytes is None else copy_bytes),
            ProducerCommit(pipe, "p", tx_bytes=tma_bytes if expect_tx else 0),
            Advance("p", flip=flip))
    prog: tuple[Op, ...] = (Loop("k", body),)
    return prog + (tail(pipe, "p", stages) if with_tail else ())


def consumer_program(pipe: str, arrivals: int, release_first: bool = False,
                     wait_side: str = "full", flip: bool = True, use_try: bool = False,
                     finalize: bool = True) -> tuple[Op, ...]:
    if use_try:
        wait: tuple[Op, ...] = (ConsumerTryWait(pipe, "c", "tok"),)
        if finalize:
            wait += (ConsumerWait(pipe, "c", token="tok"),)
    else:
        wait = (ConsumerWait(pipe, "c", barrier=wait_side),)
    read, release = ConsumerRead(pipe, "c"), ConsumerRelease(pipe, "c", arrivals=arrivals)
    use = (release, read) if release_first else (read, release)
    return (Loop("k", wait + use + (Advance("c", flip=flip),)),)


def tma_warp_specialized(stages: int = 2, consumer_wgs: int = 1, tma_bytes: int = 1024, *,
                         producer_phase: int = 1, empty_count: int | None = None,
                         full_count: int = 1, expect_tx: bool = True, with_tail: bool = True,
                         release_first: bool = False, wait_side: str = "full",
                         producer_flip: bool = True, consumer_flip: bool = True,
                         use_try: bool = False, finalize: bool = True,
                         trips: tuple[int, ...] | None = None,
                         copy_bytes: int | None = None) -> Protocol:
    """PipelineTmaAsync in one CTA: a producer warp (elected lane, one arrive.expect_tx of
    ``tma_bytes`` per stage, its TMA copy delivering ``copy_bytes``, default the same) and
    ``consumer_wgs`` consumer warp groups whose 128 threads all release."""
    pipe = "mainloop"
    agents = [Agent("producer", "producer",
                    producer_program(pipe, stages, tma_bytes, expect_tx, with_tail,
                                     producer_flip, copy_bytes),
                    (StateDecl("p", pipe, producer_phase),), threads=32, mask=0b1)]
    for w in range(consumer_wgs):
        agents.append(Agent(f"consumer{w}", "consumer",
                            consumer_program(pipe, WG, release_first, wait_side, consumer_flip,
                                             use_try, finalize),
                            (StateDecl("c", pipe, 0),), threads=WG, mask=1 << (w + 1)))
    count = WG * consumer_wgs if empty_count is None else empty_count
    return Protocol(f"tma_ws_s{stages}_w{consumer_wgs}",
                    (Pipeline(pipe, stages, full_count, count, tma_bytes),), tuple(agents),
                    params=(("k", trips or trip_counts(stages)),))


def async_two_producers(stages: int = 4, trips: tuple[int, ...] | None = None,
                        full_count: int = 2) -> Protocol:
    """PipelineAsync as in CUTLASS's pipeline.md: two producer threads that store
    synchronously and arrive (count 2), one consumer thread (count 1)."""
    pipe = "ring"
    producers = []
    for t in range(2):
        body = (ProducerAcquire(pipe, "p"), ProducerWrite(pipe, "p"),
                ProducerCommit(pipe, "p"), Advance("p"))
        producers.append(Agent(f"producer{t}", "producer",
                               (Loop("k", body),) + tail(pipe, "p", stages),
                               (StateDecl("p", pipe, 1),), threads=1, mask=1 << t))
    consumer = Agent("consumer", "consumer", consumer_program(pipe, 1),
                     (StateDecl("c", pipe, 0),), threads=1, mask=0b100)
    return Protocol(f"async_s{stages}", (Pipeline(pipe, stages, full_count, 1, 0),),
                    tuple(producers) + (consumer,),
                    params=(("k", trips or (1, 2, 3, 5, 9)),))


def persistent_cooperative(stages: int = 2, epilogue_count: int = 2 * WG,
                           counts: tuple[int, int] | None = None) -> Protocol:
    """A persistent cooperative kernel: a scheduler loop over tiles, the mainloop pipeline
    carried across tiles, and the two consumer WGs meeting at named barrier 1 (the epilogue
    barrier) after each tile.  ``counts`` overrides the bar.sync count of each WG."""
    pipe = "mainloop"
    prod_body = (ProducerAcquire(pipe, "p"), ProducerWrite(pipe, "p", nbytes=512),
                 ProducerCommit(pipe, "p", tx_bytes=512), Advance("p"))
    producer = Agent("producer", "producer", (Loop("tiles", (Loop("k", prod_body),)),)
                     + tail(pipe, "p", stages), (StateDecl("p", pipe, 1),), mask=0b1)
    consumers = []
    for w in range(2):
        count = counts[w] if counts else epilogue_count
        body = consumer_program(pipe, WG) + (BarSync(1, count),)
        consumers.append(Agent(f"consumer{w}", "consumer", (Loop("tiles", body),),
                               (StateDecl("c", pipe, 0),), threads=WG, mask=1 << (w + 1)))
    return Protocol(f"persistent_s{stages}",
                    (Pipeline(pipe, stages, 1, 2 * WG, 512),), (producer, *consumers),
                    params=(("tiles", (1, 2)), ("k", (1, 2, 3))))


def cluster_multicast(stages: int = 2, with_tail: bool = True,
                      empty_count: int = 2) -> Protocol:
    """A 2x1 cluster: each CTA loads its own A slice and half of B, multicasting the B half to
    both CTAs; each consumer WG releases the stage in both CTAs (empty count
    (cx + cy - 1) * 1 = 2, one elected arrive per WG and CTA)."""
    pipe = "mainloop"
    a_bytes, b_half = 512, 256
    agents = []
    for cta in range(2):
        body = (ProducerAcquire(pipe, "p"),
                ProducerWrite(pipe, "p", nbytes=a_bytes),
                ProducerWrite(pipe, "p", nbytes=b_half, dst=(0, 1)),
                ProducerCommit(pipe, "p", tx_bytes=a_bytes + 2 * b_half), Advance("p"))
        prog = (Loop("k", body),) + (tail(pipe, "p", stages) if with_tail else ())
        agents.append(Agent(f"cta{cta}.producer", "producer", prog,
                            (StateDecl("p", pipe, 1),), mask=0b1, cta=cta))
        cons = (Loop("k", (ConsumerWait(pipe, "c"), ConsumerRead(pipe, "c"),
                           ConsumerRelease(pipe, "c", arrivals=1, dst=(0, 1)),
                           Advance("c"))),)
        agents.append(Agent(f"cta{cta}.consumer", "consumer", cons, (StateDecl("c", pipe, 0),),
                            threads=WG, mask=0b10, cta=cta))
    return Protocol(f"cluster2x1_s{stages}",
                    (Pipeline(pipe, stages, 1, empty_count, a_bytes + 2 * b_half),),
                    tuple(agents), params=(("k", (1, 2, 3, 4)),), ctas=2)


def streamk_fixup(splits: int = 3, deterministic: bool = True, reducer_waits: bool = True,
                  release: bool = True, deterministic_order: bool = True) -> Protocol:
    """The Stream-K fix-up of one output tile split ``splits`` ways along K
    (``cutlass-semantics.md`` §5.5): the first split stores its partial, middle splits
    atomically reduce into the workspace, each then adds its share to the tile's lock with
    release semantics; the final split waits for the lock, load-adds and runs the epilogue.
    Deterministic middle splits wait for lock == K_idx, nondeterministic ones for lock >= 1."""
    agents = [Agent("split0", "fixup",
                    (StorePartial("ws"), CounterAdd("lock", 1, release=release)),
                    partial=0)]
    for k in range(1, splits - 1):
        wait = CounterWait("lock", k, "eq") if deterministic_order else \
            CounterWait("lock", 1, "ge")
        agents.append(Agent(f"split{k}", "fixup",
                            (wait, ReducePartial("ws"), CounterAdd("lock", 1, release=release)),
                            partial=k))
    final: tuple[Op, ...] = (CounterWait("lock", splits - 1, "eq"),) if reducer_waits else ()
    final += (LoadAddPartial("ws"), Epilogue("tile"))
    agents.append(Agent(f"split{splits - 1}", "fixup", final, partial=splits - 1))
    return Protocol(f"streamk_{splits}", (), tuple(agents), deterministic=deterministic,
                    partials=(("tile", tuple(range(splits))),))


def sm100_cluster_streamk(size: int = 2, piece: int = 2, splits: int = 3, *,
                          relaxed_publish: bool = False, skip_first_barrier: bool = False) -> Protocol:
    """The SM100 Stream-K fix-up of one output tile (seed 000 ``sub_R01``; docs/blackwell.md):
    ``splits`` clusters hold one piece each; the cluster holding piece ``piece`` is modelled
    CTA by CTA (``size`` CTAs, the protocol's cluster barrier), the other clusters by their
    leaders, whose own in-cluster reduction is the same protocol (their sum is one partial).

    Ranks ``1..size-1`` store their partial in their own shared memory (``smem<r>``), then
    ``barrier.cluster.arrive`` (release) / ``wait`` (acquire); rank 0 adds each ``smem<r>``
    (DSMEM), second arrive/wait, then runs the generic fix-up of its piece
    (:func:`streamk_fixup`).  Mutants: ``relaxed_publish`` (``arrive.relaxed``: the stores are
    not released), ``skip_first_barrier`` (the leader reads before the peers arrive).

    One piece per cluster here; :func:`sm100_cluster_pieces` checks the buffer reuse by the
    next piece (the second barrier's job).  Not modelled: a CTA's exit does not invalidate its
    shared memory in the model."""
    base = streamk_fixup(splits)
    sync1 = () if skip_first_barrier else (ClusterArrive(relaxed=relaxed_publish), ClusterWait())
    sync2 = (ClusterArrive(), ClusterWait())
    agents = [Agent(f"cluster{j}.leader", "fixup", a.program, partial=f"c{j}")
              for j, a in enumerate(base.agents) if j != piece]
    names = []
    for r in range(size):
        if r == 0:
            program = (sync1 + tuple(LoadAddPartial(f"smem{q}") for q in range(1, size)) + sync2
                       + base.agents[piece].program)
        else:
            program = (StorePartial(f"smem{r}"),) + sync1 + sync2
        names.append(f"cluster{piece}.cta{r}")
        agents.append(Agent(names[-1], "fixup", program, threads=128, cta=r, partial=f"c{piece}.r{r}"))
    labels = tuple(f"c{j}" for j in range(splits) if j != piece) + tuple(f"c{piece}.r{r}" for r in range(size))
    return Protocol(f"sm100_streamk_c{size}_p{piece}", (), tuple(agents), deterministic=True,
                    partials=(("tile", labels),), cluster_agents=tuple(names))


def sm100_cluster_pieces(size: int = 2, pieces: int = 2, *, skip_second_barrier: bool = False) -> Protocol:
    """One cluster of ``size`` CTAs doing ``pieces`` whole output tiles one after the other
    (:func:`sm100_cluster_streamk`'s in-cluster reduction, once per piece): each rank's shared
    memory buffer ``smem<r>`` is reused by the next piece.  The second cluster barrier keeps a
    rank from overwriting its buffer before the leader has read it; ``skip_second_barrier``
    (the mutant) drops it."""
    sync = (ClusterArrive(), ClusterWait())
    sync2 = () if skip_second_barrier else sync
    tiles = [f"t{i}" for i in range(pieces)]
    agents = []
    for r in range(size):
        program: tuple[Op, ...] = ()
        for i, tile in enumerate(tiles):
            start = (Accumulate(f"{tile}.r{r}"),) if i else ()
            if r == 0:
                program += start + sync + tuple(LoadAddPartial(f"smem{q}") for q in range(1, size)) + sync2 + (
                    Epilogue(tile),)
            else:
                program += start + (StorePartial(f"smem{r}"),) + sync + sync2
        agents.append(Agent(f"cta{r}", "fixup", program, threads=128, cta=r, partial=f"{tiles[0]}.r{r}"))
    return Protocol(f"sm100_cluster_c{size}_x{pieces}", (), tuple(agents), deterministic=True,
                    partials=tuple((t, tuple(f"{t}.r{r}" for r in range(size))) for t in tiles))


def pingpong_order(depth: int = 2, groups: int = 2, *, group_size: int = WG,
                   skip_mma_arrive: bool = False, group_ids: tuple[int, ...] | None = None
                   ) -> Protocol:
    """CUTLASS's ping-pong math warp groups (cutlass-semantics.md §2.7, §6.2): an
    ``OrderedSequenceBarrier<depth, groups>``; group g takes tiles g, g + groups, ... and per
    tile waits / arrives once for the MMA stage and once for the epilogue stage.
    ``skip_mma_arrive`` replaces the MMA arrive by a bare ``advance()``; ``group_ids``
    overrides the id each warp group passes to the barrier."""
    sb = "order"
    agents = []
    for g in range(groups):
        gid = group_ids[g] if group_ids else g
        mma_done: tuple[Op, ...] = () if skip_mma_arrive else (SeqArrive(sb, "o", gid),)
        body = ((SeqWait(sb, "o", gid),) + mma_done + (Advance("o"),)
                + (SeqWait(sb, "o", gid), SeqArrive(sb, "o", gid), Advance("o")))
        agents.append(Agent(f"math{g}", "math", (Loop(Trip("tiles", g, groups), body),),
                            (StateDecl("o", sb, 1 if gid == 0 else 0),), threads=WG,
                            mask=1 << (g + 1)))
    return Protocol(f"pingpong_d{depth}_l{groups}", (), tuple(agents),
                    params=(("tiles", tuple(range(1, 2 * depth * groups + 2))),),
                    seqbars=(SeqBar(sb, depth, groups, group_size),))


def mods_window(ctas: int = 4, *, start: bool = True, end: bool = True) -> Protocol:
    """The MODS window of seed 004 on every CTA of a cluster: the start probe arrives on the
    cluster barrier, the tile loop throttles cooperatively (``bar.sync 0`` over the warp
    group), the end probe drains and waits on the cluster barrier."""
    body: tuple[Op, ...] = ((ClusterArrive(),) if start else ()) + (
        Loop("tiles", (BarSync(0, WG),)),) + ((ClusterWait(drain=True),) if end else ())
    agents = tuple(Agent(f"cta{c}.wg0", "mods", body, threads=WG, mask=0b1, cta=c)
                   for c in range(ctas))
    return Protocol(f"mods_{ctas}cta", (), agents, params=(("tiles", (1, 2)),), ctas=ctas)


def mods_pipeline(stages: int = 2, *, end_before_tail: bool = False) -> Protocol:
    """A TMA warp-specialized mainloop inside the MODS window: producer and consumer both
    enter (start probe) and leave (end probe); the producer drains its ring (producer_tail)
    before its end probe, as seed 004 requires."""
    pipe = "mainloop"
    loop = producer_program(pipe, stages, 1024, with_tail=False)
    drain = tail(pipe, "p", stages)
    end = (ClusterWait(drain=True),)
    prod = (ClusterArrive(),) + loop + (end + drain if end_before_tail else drain + end)
    cons = (ClusterArrive(),) + consumer_program(pipe, WG) + end
    agents = (Agent("producer", "producer", prod, (StateDecl("p", pipe, 1),), mask=0b1),
              Agent("consumer", "consumer", cons, (StateDecl("c", pipe, 0),), threads=WG,
                    mask=0b10))
    return Protocol(f"mods_tma_ws_s{stages}", (Pipeline(pipe, stages, 1, WG, 1024),), agents,
                    params=(("k", trip_counts(stages)),))
