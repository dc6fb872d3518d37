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
    remarks: list[str] = field(default_factory=list)
    """How the search ran where it differs from what was asked (``jobs > 1`` searched serially)."""


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
"""(protocol, por, symmetry, max_states, instances) of the parallel check a worker process serves."""


class _NoIR(pickle.Pickler):
    """Pickles a protocol for the workers with its IR references (the ``origin`` fields that
    locate diagnostics, xDSL operations) as None: a worker only counts states and says whether the
    instance violates a property; the counterexample is replayed in the caller's process."""

    def reducer_override(self, obj):
        from xdsl.ir import Attribute, IRNode, SSAValue

        if isinstance(obj, (IRNode, SSAValue, Attribute)):
            return type(None), ()
        return NotImplemented


def without_ir(value):
    """A copy of ``value`` (a protocol, a list of them) with every IR reference (the ``origin``
    fields, xDSL operations) None, as the parallel check's workers get it: picklable, checked the
    same (``origin`` takes no part in a protocol's steps), its diagnostics without locations."""
    buf = io.BytesIO()
    _NoIR(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return pickle.loads(buf.getvalue())


def _worker_main(payload: bytes, conn) -> None:
    """A worker process: take the parallel check from ``payload``, then answer each instance index
    received on ``conn`` with ``(index, states, transitions, violated)`` (``(index,
    StateSpaceTooLarge)`` for a search past its bound) until ``None`` arrives."""
    global _WORKER
    from tileorch.analysis import machine

    *_WORKER, machine.CAUSAL_WINDOWS = pickle.loads(payload)  # (the caller's reduction, patched or not)
    todo = _WORKER[-1]
    while True:
        index = conn.recv()
        if index is None:
            return
        try:
            answer = (index, *_search_instance(todo[index]))
        except StateSpaceTooLarge as exc:  # the caller raises it, as a serial search does
            answer = (index, exc)
        conn.send(answer)


def _search_instance(values: dict[str, int]) -> tuple[int, int, bool]:
    """A worker's search of one instance: (states, transitions, violated)."""
    protocol, por, symmetry, max_states, _todo = _WORKER
    search = bfs(Machine(protocol, values, symmetry), por=por, max_states=max_states)
    return search.states, search.transitions, search.violation is not None


def _pool_context():
    """The multiprocessing context of a parallel check's workers, None where there is none.

    ``fork`` where the caller runs no other Python thread (a ``tileorch check`` process: nothing
    can hold a lock at the fork; the workers leave no thread behind, so this holds for every
    protocol of a file); else ``forkserver`` (else ``spawn``), never a ``fork`` of a threaded caller:
    a forked child inherits every lock that another thread of the caller held at the fork
    (llvmlite's, logging's, an xdist worker's execnet threads) and waits on it forever.  The fork
    server is a fresh single-threaded process that imports this module once; the workers are forked
    from it."""
    import multiprocessing
    import threading

    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload([__name__])
        return ctx
    if "spawn" in methods:
        return multiprocessing.get_context("spawn")
    return None


class _NoPool(Exception):
    """No worker process could be started (the caller searches serially, with a remark)."""


def _stop(workers) -> None:
    """Kill the ``(process, connection)`` workers and wait for them: none outlives the check (an
    idle worker would otherwise wait for work forever, and an exit handler that joins the caller's
    children with it)."""
    for proc, conn in workers:
        if proc.is_alive():
            proc.kill()
        conn.close()
    for proc, _ in workers:
        proc.join()


def _died(protocol: Protocol, todo: list[dict[str, int]], proc, index: int) -> ParallelSearchFailed:
    """The error of a worker that died while given instance ``todo[index]``."""
    proc.join(5)  # its exit status, where it has one
    return ParallelSearchFailed(
        f"{protocol.name}: a worker process of the parallel search died (exit status {proc.exitcode}: "
        f"killed for memory or by a signal) while searching instance {values_text(todo[index])}; check it "
        f"serially (jobs=1, tileorch check --jobs 1), which also reports a search past its state bound")


def _give(protocol: Protocol, todo: list[dict[str, int]], busy: dict, proc, conn, index: int) -> None:
    """Send instance ``index`` to the worker ``proc`` on ``conn`` and note it busy with it."""
    try:
        conn.send(index)
    except OSError:  # the worker is gone (its end of the pipe closed)
        raise _died(protocol, todo, proc, index) from None
    busy[conn] = (proc, index)


def _parallel_searches(protocol: Protocol, todo: list[dict[str, int]], por: bool, symmetry: bool,
                       jobs: int, max_states: int, timeout: float | None, ctx):
    """The instances' (states, transitions, violated), in ``todo``'s order, searched by ``jobs``
    worker processes of ``ctx``, each fed one instance at a time over its own pipe (no thread in
    this process).  Raises :class:`_NoPool` on the first ``next`` when no worker can be started.  A
    worker that dies, or searches still running ``timeout`` seconds after the start, raise
    :class:`ParallelSearchFailed` (never a wait without end); closing the generator (after a
    violation, or at the end) kills the workers and waits for them."""
    from multiprocessing.connection import wait

    buf = io.BytesIO()
    from tileorch.analysis import machine

    _NoIR(buf, protocol=pickle.HIGHEST_PROTOCOL).dump((protocol, por, symmetry, max_states, todo,
                                                       machine.CAUSAL_WINDOWS))
    payload = buf.getvalue()
    deadline = None if timeout is None else time.monotonic() + timeout
    workers = []  # (process, this end of its pipe)
    try:
        try:
            for _ in range(min(jobs, len(todo))):
                mine, theirs = ctx.Pipe()
                proc = ctx.Process(target=_worker_main, args=(payload, theirs), daemon=True,
                                   name="tileorch-check-worker")
                workers.append((proc, mine))
                proc.start()
                theirs.close()
        except (OSError, ImportError, ValueError) as exc:  # no processes / semaphores / pipes here
            raise _NoPool(f"{type(exc).__name__}: {exc}") from None
        # the largest instances (last in order) start first: the workers finish together
        queue = list(range(len(todo)))
        busy = {}  # connection -> (process, instance index)
        for proc, conn in workers:
            if queue:
                _give(protocol, todo, busy, proc, conn, queue.pop())
        done: dict[int, tuple[int, int, bool]] = {}
        for i in range(len(todo)):
            while i not in done:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise ParallelSearchFailed(
                        f"{protocol.name}: the parallel search of {len(todo)} trip-count instances did not "
                        f"finish within {timeout:g} s (instance {values_text(todo[i])} still running); "
                        f"check it serially (jobs=1, tileorch check --jobs 1) to see its progress")
                sentinels = {proc.sentinel: conn for conn, (proc, _) in busy.items()}
                for ready in wait([*busy, *sentinels], timeout=left):
                    conn = sentinels.get(ready, ready)
                    if conn not in busy:
                        continue  # its answer and its end both ready: taken already
                    proc, index = busy.pop(conn)
                    try:
                        answer = conn.recv() if conn.poll() else None
                    except (EOFError, OSError):
                        answer = None
                    if answer is None:
                        raise _died(protocol, todo, proc, index)
                    if isinstance(answer[1], StateSpaceTooLarge):
                        raise answer[1]
                    done[answer[0]] = answer[1:]
                    if queue:
                        _give(protocol, todo, busy, proc, conn, queue.pop())
            yield done.pop(i)
    finally:
        _stop(workers)


def values_text(values: dict[str, int]) -> str:
    """``k=v, ...`` of a trip-count instance (``fixed trip counts`` for none)."""
    return ", ".join(f"{k}={v}" for k, v in sorted(values.items())) or "fixed trip counts"


def _serial_remark(count: int, jobs: int, why: str) -> str:
    return (f"remark: the {count} trip-count instances were searched one after another in this process, "
            f"not by {jobs} worker processes: {why}")


def check(protocol: Protocol, overrides: dict[str, tuple[int, ...]] | None = None,
          por: bool = True, symmetry: bool = True,
          progress: Callable[[int, int], None] | None = None, jobs: int = 1,
          max_states: int = MAX_STATES, timeout: float | None = None) -> CheckResult:
    """Explore every interleaving of every instance; stop at the first violation.
    ``por`` / ``symmetry`` switch the reductions (for cross-checking); ``progress(states,
    transitions)`` is called periodically with the totals so far (over all instances).
    ``jobs > 1`` searches the instances in that many worker processes (forks of this process when it
    runs no other thread, else of a fork server: see :func:`_pool_context`), all killed and waited
    for before this returns; the verdict, the counts and the counterexample are the serial ones
    (results are taken in instance order, and the first violating instance is searched again here
    for its counterexample).  A worker that dies, or a parallel search still running after
    ``timeout`` seconds (None: no limit; the state bound ``max_states`` bounds each search), raises
    :class:`ParallelSearchFailed`; where no worker can be started the instances are searched here,
    serially, and ``result.remarks`` says so (never a verdict without a search)."""
    start = time.perf_counter()
    result = CheckResult(protocol.name, True, agents=tuple(a.name for a in protocol.agents),
                         notes=protocol.notes)
    todo = instances(protocol, overrides)
    ctx = _pool_context() if jobs > 1 and len(todo) > 1 else None
    if jobs > 1 and len(todo) > 1 and ctx is None:
        result.remarks.append(_serial_remark(len(todo), jobs, "this platform has no way to start processes"))
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
        except _NoPool as exc:  # nothing searched yet: every instance is searched below, serially
            result.remarks.append(_serial_remark(len(todo), jobs, f"no worker process could be started ({exc})"))
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
