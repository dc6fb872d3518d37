"""Exhaustive exploration of every interleaving of a protocol.

Breadth-first search over the states of :class:`~tileorch.analysis.machine.Machine`, so the
first violation found has a shortest path in the explored graph.  Two reductions keep it fast:

* **partial-order reduction** — when some agent's next transition can never conflict with any
  op the other agents (or in-flight TMA copies) may still execute, only that transition is
  explored (a persistent set of size one; the state graph is acyclic, so no cycle proviso is
  needed).  Every check is local to the transition's footprint or to terminal states, which
  such persistent sets preserve;
* **symmetry reduction** — agents of one CTA with identical programs are interchangeable,
  and so are the CTAs of a cluster when a permutation of their ranks maps the protocol onto
  itself (:mod:`~tileorch.analysis.symmetry`); states are identified up to these
  permutations.

Parametric trip counts are checked one instance at a time, smallest first, so the reported
counterexample also uses the fewest iterations.
"""

from __future__ import annotations

import io
import itertools
import pickle
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from tileorch.analysis import properties as P
from tileorch.analysis.counterexample import replay
from tileorch.analysis.machine import Machine, Step
from tileorch.analysis.protocol import Protocol


@dataclass
class CheckResult:
    """Outcome of checking a protocol: verdict, effort, the counterexample if any, and the
    located assumptions (``notes``, from the protocol) the verdict rests on."""

    protocol: str
    ok: bool
    states: int = 0
    transitions: int = 0
    seconds: float = 0.0
    instances: list[tuple[dict[str, int], int]] = field(default_factory=list)
    violation: P.Violation | None = None
    trace: list[Step] = field(default_factory=list)
    values: dict[str, int] = field(default_factory=dict)
    agents: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass
class _Search:
    violation: P.Violation | None
    path: list[tuple]
    last: tuple[str, int] | None
    states: int
    transitions: int


MAX_STATES = 5_000_000
"""The states a search explores before it gives up (:class:`StateSpaceTooLarge`) by default."""


class StateSpaceTooLarge(RuntimeError):
    """The search reached its state bound without finishing: the check is inconclusive (a model of
    many CTAs, stages or trip counts; the caller says which bound to change)."""

    def __init__(self, max_states: int):
        super().__init__(max_states)
        self.max_states = max_states

    def __str__(self) -> str:
        return f"state space exceeds {self.max_states} states"


def bfs(m: Machine, por: bool = True, max_states: int = MAX_STATES,
        progress: Callable[[int, int], None] | None = None) -> _Search:
    """``progress(states, transitions)`` is called every 4096 new states; past ``max_states``
    states :class:`StateSpaceTooLarge` is raised."""
    init = m.canonical(m.initial())
    parent: dict[tuple, tuple | None] = {init: None}
    queue = deque([init])
    transitions = 0
    first_outputs: tuple | None = None
    successor, canonical, setdefault = m.successor, m.canonical, parent.setdefault

    def path_to(s: tuple) -> list[tuple]:
        out = []
        node: tuple | None = s
        while node is not None:
            out.append(node)
            node = parent[node]
        return out[::-1]

    while queue:
        s = queue.popleft()
        enabled = m.transitions(s)
        if not enabled:
            v = m.terminal_violation(s)
            if v is None and m.protocol.deterministic:
                if first_outputs is None:
                    first_outputs = s[6]
                elif s[6] != first_outputs:
                    v = P.Violation(P.FIXUP_DETERMINISM,
                                    f"this schedule reduces to {dict(s[6])} while another "
                                    f"reduces to {dict(first_outputs)}")
            if v is not None:
                return _Search(v, path_to(s), None, len(parent), transitions)
            continue
        if por:
            enabled = m.persistent_subset(s, enabled)
        for ch in enabled:
            transitions += 1
            nxt, violation = successor(s, ch)
            if violation is not None:
                return _Search(violation, path_to(s), ch, len(parent), transitions)
            t = canonical(nxt)
            n = len(parent)
            setdefault(t, s)                # one hash per lookup
            if len(parent) > n:
                queue.append(t)
                if progress is not None and not len(parent) & 4095:
                    progress(len(parent), transitions)
                if len(parent) > max_states:
                    raise StateSpaceTooLarge(max_states)
    return _Search(None, [], None, len(parent), transitions)


def instances(protocol: Protocol, overrides: dict[str, tuple[int, ...]] | None = None
              ) -> list[dict[str, int]]:
    """Every combination of the protocol's trip-count values, smallest total first."""
    params = dict(protocol.params)
    params.update(overrides or {})
    names = sorted(params)
    combos = [dict(zip(names, vals)) for vals in itertools.product(*(params[n] for n in names))]
    return sorted(combos, key=lambda d: (sum(d.values()), sorted(d.items())))


class ParallelSearchFailed(RuntimeError):
    """A parallel check (``jobs > 1``) got no answer from its worker processes: one died (killed
    for memory, a signal) or the searches passed the check's ``timeout``.  The message says which
    and what to do (the serial search, ``jobs=1``, runs in the caller's process)."""


_WORKER: tuple | None = None
"""(protocol, por, symmetry, max_states) of the parallel check a worker process serves."""


class _NoIR(pickle.Pickler):
    """Pickles a protocol for the workers with its IR references (the ``origin`` fields that
    locate diagnostics, xDSL operations) as None: a worker only counts states and says whether the
    instance violates a property; the counterexample is replayed in the caller's process."""

    def reducer_override(self, obj):
        from xdsl.ir import Attribute, IRNode, SSAValue

        if isinstance(obj, (IRNode, SSAValue, Attribute)):
            return type(None), ()
        return NotImplemented


def _worker_init(payload: bytes) -> None:
    global _WORKER
    _WORKER = pickle.loads(payload)


def _search_instance(values: dict[str, int]) -> tuple[int, int, bool]:
    """A worker's search of one instance: (states, transitions, violated)."""
    protocol, por, symmetry, max_states = _WORKER
    search = bfs(Machine(protocol, values, symmetry), por=por, max_states=max_states)
    return search.states, search.transitions, search.violation is not None


def _pool_context():
    """The multiprocessing context of a parallel check's workers, None where there is none.

    ``fork`` where the caller runs no other Python thread; else ``forkserver`` (else ``spawn``),
    never a ``fork`` of a threaded caller: a forked child inherits every lock that another thread of
    the caller held at the fork (llvmlite's, logging's, an xdist worker's
    execnet threads) and waits on it forever.  The fork server is a fresh single-threaded process
    that imports this module once; the workers are forked from it."""
    import multiprocessing
    import threading

    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        # no other Python thread here (a `tileorch check` process): nothing can hold a lock at the
        # fork; a fork server started from a process that runs under the tests' tool fork server
        # (python -I -S) never answered (session 18: two CLI tests stalled 10 minutes)
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload([__name__])
        return ctx
    if "spawn" in methods:
        return multiprocessing.get_context("spawn")
    return None


def _stop(pool) -> None:
    """Stop ``pool`` now: queued searches are dropped, running ones killed (after a violation
    their answers are not needed; after a failure they are not waited for)."""
    pool.shutdown(wait=False, cancel_futures=True)
    terminate = getattr(pool, "terminate_workers", None)  # Python >= 3.14
    if terminate is not None:
        terminate()
        return
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        if proc.is_alive():
            proc.terminate()
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        proc.join(5)


def _parallel_searches(protocol: Protocol, todo: list[dict[str, int]], por: bool, symmetry: bool,
                       jobs: int, max_states: int, timeout: float | None, ctx):
    """The instances' (states, transitions, violated), in ``todo``'s order, searched by ``jobs``
    worker processes of ``ctx``.  A worker that dies, or searches still running ``timeout``
    seconds after the start, raise :class:`ParallelSearchFailed` (never a wait without end);
    closing the generator early (after a violation) stops the workers."""
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    buf = io.BytesIO()
    _NoIR(buf, protocol=pickle.HIGHEST_PROTOCOL).dump((protocol, por, symmetry, max_states))
    deadline = None if timeout is None else time.monotonic() + timeout
    pool = ProcessPoolExecutor(min(jobs, len(todo)), mp_context=ctx, initializer=_worker_init,
                               initargs=(buf.getvalue(),))
    try:
        # the largest instances (last in order) start first: the workers finish together
        pending = {i: pool.submit(_search_instance, todo[i]) for i in reversed(range(len(todo)))}
        for i in range(len(todo)):
            future = pending[i]
            while not future.done():
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise ParallelSearchFailed(
                        f"{protocol.name}: the parallel search of {len(todo)} trip-count instances did not "
                        f"finish within {timeout:g} s (instance {values_text(todo[i])} still running); "
                        f"check it serially (jobs=1, tileorch check --jobs 1) to see its progress")
                wait([future], timeout=left, return_when=FIRST_COMPLETED)
            try:
                yield future.result()
            except BrokenProcessPool:
                raise ParallelSearchFailed(
                    f"{protocol.name}: a worker process of the parallel search died (killed for memory or by a "
                    f"signal) while searching instance {values_text(todo[i])}; check it serially (jobs=1, "
                    f"tileorch check --jobs 1), which also reports a search past its state bound") from None
    finally:
        _stop(pool)


def values_text(values: dict[str, int]) -> str:
    """``k=v, ...`` of a trip-count instance (``fixed trip counts`` for none)."""
    return ", ".join(f"{k}={v}" for k, v in sorted(values.items())) or "fixed trip counts"


def check(protocol: Protocol, overrides: dict[str, tuple[int, ...]] | None = None,
          por: bool = True, symmetry: bool = True,
          progress: Callable[[int, int], None] | None = None, jobs: int = 1,
          max_states: int = MAX_STATES, timeout: float | None = None) -> CheckResult:
    """Explore every interleaving of every instance; stop at the first violation.
    ``por`` / ``symmetry`` switch the reductions (for cross-checking); ``progress(states,
    transitions)`` is called periodically with the totals so far (over all instances).
    ``jobs > 1`` searches the instances in that many worker processes (fork server or spawn, never a
    fork of this process: see :func:`_pool_context`); the verdict, the counts and the
    counterexample are the serial ones (results are taken in instance order, and the first
    violating instance is searched again here for its counterexample).  A worker that dies, or a
    parallel search still running after ``timeout`` seconds (None: no limit; the state bound
    ``max_states`` bounds each search), raises :class:`ParallelSearchFailed`; where no process
    pool can be made the instances are searched here, serially."""
    start = time.perf_counter()
    result = CheckResult(protocol.name, True, agents=tuple(a.name for a in protocol.agents),
                         notes=protocol.notes)
    todo = instances(protocol, overrides)
    ctx = _pool_context() if jobs > 1 and len(todo) > 1 else None
    if ctx is not None:
        parallel = _parallel_searches(protocol, todo, por, symmetry, jobs, max_states, timeout, ctx)
        try:
            for values, (states, transitions, violated) in zip(todo, parallel):
                if violated:  # searched again in this process for the counterexample (same search)
                    todo = todo[todo.index(values):]
                    break
                result.states += states
                result.transitions += transitions
                result.instances.append((values, states))
                if progress is not None:
                    progress(result.states, result.transitions)
            else:
                todo = []
        finally:
            parallel.close()  # stops the workers still searching (after a violation)
    for values in todo:
        m = Machine(protocol, values, symmetry)
        done = (result.states, result.transitions)
        search = bfs(m, por=por, max_states=max_states, progress=None if progress is None else
                     (lambda s, t, done=done: progress(done[0] + s, done[1] + t)))
        result.states += search.states
        result.transitions += search.transitions
        result.instances.append((values, search.states))
        if search.violation is not None:
            result.ok = False
            result.values = values
            result.violation, result.trace = replay(m, search.path, search.last,
                                                    search.violation)
            break
    result.seconds = time.perf_counter() - start
    return result
