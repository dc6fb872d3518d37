"""Executable semantics of the synchronisation primitives the pipelines lower to.

All objects are immutable values so that a model checker can hash and share them (the
barriers are named tuples: they sit in every state and are hashed at C speed).

* :class:`MBarrier` — a shared-memory ``mbarrier`` (PTX ISA; ``cutlass-semantics.md`` §0):
  ``init(n)`` sets parity 0, pending = expected = n, tx = 0; ``arrive`` decrements pending,
  ``expect_tx(b)`` adds b to the signed transaction count, ``complete_tx(b)`` subtracts b; the
  phase completes when pending == 0 and tx == 0, which flips the parity and re-arms pending.
  ``try_wait.parity(P)`` / ``test_wait.parity(P)`` succeed iff the current parity differs from P.
  Remote (``shared::cluster``) arrives act on the barrier of another CTA: the caller picks it.
  The object also counts completed phases, a ghost the hardware does not keep; the properties
  use it to detect arrivals that land in the wrong phase and waiters that lag by two phases.
* :class:`NamedBarrier` — ``bar.sync id, n`` / ``bar.arrive id, n``: arriving threads are
  counted; when they reach n the generation completes and every ``bar.sync`` waiter is released.
* :class:`GlobalMemory` — the Stream-K workspace: integer counters (``red``/``atom``) and partial
  buffers with release/acquire visibility: a plain store becomes visible to other agents only once
  its writer performed a release (``fence.acq_rel`` + ``red``, or ``atom.release``), and a reader
  sees it only after an acquire load that happened after that release.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple


@dataclass(frozen=True, slots=True)
class Arrival:
    """The outcome of one arrive: the new barrier and, if any, the phase it wrongly landed in."""

    barrier: MBarrier
    misplaced: str | None = None


class MBarrier(NamedTuple):
    expected: int
    pending: int
    tx: int = 0
    completed: int = 0

    @staticmethod
    def init(count: int) -> MBarrier:
        if count <= 0:
            raise ValueError("mbarrier.init needs a positive arrival count")
        return MBarrier(count, count)

    @property
    def parity(self) -> int:
        return self.completed & 1

    def _settle(self, pending: int, tx: int) -> MBarrier:
        if pending == 0 and tx == 0:
            return MBarrier(self.expected, self.expected, 0, self.completed + 1)
        return MBarrier(self.expected, pending, tx, self.completed)

    def arrive(self, count: int = 1, tx: int = 0, phase: int | None = None) -> Arrival:
        """``mbarrier.arrive[.expect_tx]`` of ``count`` arrivals adding ``tx`` expected bytes.

        ``phase`` is the ghost index of the phase the arriver means to complete; an arrival that
        lands in another phase, or drives pending below zero, is reported as misplaced.
        """
        misplaced = None
        if phase is not None and phase < self.completed:
            misplaced = (f"arrival meant for phase {phase} landed in phase {self.completed}: "
                         f"phase {phase} already had its {self.expected} arrivals")
        elif phase is not None and phase > self.completed:
            misplaced = (f"arrival meant for phase {phase} landed early in phase {self.completed}")
        elif count > self.pending:
            misplaced = (f"{count} arrivals with only {self.pending} pending in phase "
                         f"{self.completed} (count {self.expected})")
        pending, total_tx = self.pending - count, self.tx + tx
        if pending < 0 and total_tx == 0:
            # The surplus spills into the following phase, as on hardware.
            rearmed = MBarrier(self.expected, self.expected, 0, self.completed + 1)
            return Arrival(rearmed.arrive(-pending).barrier, misplaced)
        return Arrival(self._settle(pending, total_tx), misplaced)

    def expect_tx(self, nbytes: int) -> MBarrier:
        """``mbarrier.expect_tx``: never completes a phase by itself."""
        return self._replace(tx=self.tx + nbytes)

    def complete_tx(self, nbytes: int) -> MBarrier:
        """``mbarrier.complete_tx`` (issued by TMA when the bytes have landed)."""
        return self._settle(self.pending, self.tx - nbytes)

    def test_wait(self, parity: int) -> bool:
        """``try_wait.parity`` / ``test_wait.parity``: has the phase with this parity completed?"""
        return self.parity != (parity & 1)

    def describe(self) -> str:
        return (f"parity={self.parity} pending={self.pending}/{self.expected} tx={self.tx} "
                f"phases_completed={self.completed}")


class NamedBarrier(NamedTuple):
    """One hardware named barrier: threads arrived in the current generation and its count."""

    arrived: int = 0
    count: int = 0
    generation: int = 0

    def arrive(self, threads: int, count: int) -> tuple[NamedBarrier, str | None]:
        """Add ``threads`` arrivals declaring barrier size ``count``; returns an error text when
        the declared counts disagree within a generation or the arrivals overshoot it."""
        error = None
        if self.arrived and count != self.count:
            error = (f"bar with count {count} joins a generation started with count {self.count}")
        total = self.arrived + threads
        if total > count:
            error = error or (f"{total} threads arrived on a barrier of count {count}")
        if total >= count:
            return NamedBarrier(0, 0, self.generation + 1), error
        return NamedBarrier(total, count, self.generation), error

    def describe(self) -> str:
        return f"arrived={self.arrived}/{self.count or '?'} generation={self.generation}"


@dataclass(frozen=True, slots=True)
class GlobalMemory:
    """Workspace counters and partial buffers with release/acquire visibility.

    A buffer is ``(key, value, version, published, base)``: every store or atomic add bumps
    ``version``; a release by the writer sets ``published`` to it; ``base`` is the version of
    the last plain store.  A plain load may use the value only if every write is published and
    the reader's last acquire saw that publication (:meth:`snapshot`); an atomic add, being
    coherent with other atomics, only needs the plain store it adds onto to be visible.
    Per-agent state (keys written but not yet released, the snapshot of the last acquire) lives
    with the agent.
    """

    counters: tuple[tuple[str, int], ...] = ()
    buffers: tuple[tuple[str, object, int, int, int], ...] = ()

    def counter(self, name: str) -> int:
        return dict(self.counters).get(name, 0)

    def add(self, name: str, value: int) -> GlobalMemory:
        d = dict(self.counters)
        d[name] = d.get(name, 0) + value
        return replace(self, counters=tuple(sorted(d.items())))

    def buffer(self, key: str) -> tuple[object, int, int, int] | None:
        """``(value, version, published, base)`` of ``key``, or None if never written."""
        for k, *rest in self.buffers:
            if k == key:
                return tuple(rest)
        return None

    def store(self, key: str, value: object, plain: bool = True) -> GlobalMemory:
        old = self.buffer(key)
        _, version, published, base = old if old else (None, 0, 0, 0)
        rest = [b for b in self.buffers if b[0] != key]
        entry = (key, value, version + 1, published, version + 1 if plain else base)
        return replace(self, buffers=tuple(sorted(rest + [entry], key=lambda b: b[0])))

    def publish(self, keys: tuple[str, ...]) -> GlobalMemory:
        return replace(self, buffers=tuple(
            (k, v, ver, ver if k in keys else pub, base)
            for k, v, ver, pub, base in self.buffers))

    def snapshot(self) -> tuple[tuple[str, int], ...]:
        """What an acquire makes visible: each key's published version."""
        return tuple((k, pub) for k, _, _, pub, _ in self.buffers if pub)
