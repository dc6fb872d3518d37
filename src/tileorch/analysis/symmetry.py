"""Symmetry between the CTAs of a cluster.

The CTAs of a cluster run the same program; a permutation ``pi`` of the CTA ranks is a symmetry
of the protocol when, for every agent of CTA ``c``, the agent at the same position in CTA
``pi(c)`` has the same role, threads and states and its program is the first one's with every
destination CTA ``d`` (multicast writes, remote releases) renamed ``pi(d)``.  Such a ``pi``
maps reachable states to reachable states with the same enabled transitions and check
outcomes (every check compares objects of one CTA with each other or follows the renamed
destinations), so the checker may explore one state per orbit.  Clusters of more than
:data:`MAX_PERMUTED_CTAS` CTAs are explored without CTA symmetry.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from tileorch.analysis.protocol import Op, ProducerWrite

if TYPE_CHECKING:
    from tileorch.analysis.machine import Machine

MAX_PERMUTED_CTAS = 4


@dataclass(frozen=True)
class CtaPermutation:
    """``pi`` and, for each component of the state laid out per CTA, the source index of
    every destination index."""

    pi: tuple[int, ...]
    agents: tuple[int, ...]
    barriers: tuple[int, ...]
    landed: tuple[int, ...]
    named: tuple[int, ...]
    turns: tuple[int, ...]


def rename(op: Op, pi: tuple[int, ...]) -> Op:
    """``op`` with its destination CTAs renamed by ``pi`` (per-destination bytes follow)."""
    dst = getattr(op, "dst", None)
    if dst is None:
        return op
    if isinstance(op, ProducerWrite) and isinstance(op.nbytes, tuple):
        pairs = sorted(zip((pi[d] for d in dst), op.nbytes))
        return replace(op, dst=tuple(d for d, _ in pairs), nbytes=tuple(n for _, n in pairs))
    return replace(op, dst=tuple(sorted(pi[d] for d in dst)))


def _agent_map(m: Machine, pi: tuple[int, ...]) -> list[int] | None:
    by_cta: dict[int, list[int]] = {}
    for i, a in enumerate(m.agents):
        by_cta.setdefault(a.cta, []).append(i)
    if sorted(by_cta) != list(range(m.ctas)) or len({len(v) for v in by_cta.values()}) != 1:
        return None
    target = [0] * len(m.agents)
    for c, members in by_cta.items():
        for n, i in enumerate(members):
            j = by_cta[pi[c]][n]
            a, b = m.agents[i], m.agents[j]
            if (a.role, a.threads, a.mask, a.states, repr(a.partial)) != \
                    (b.role, b.threads, b.mask, b.states, repr(b.partial)):
                return None
            if m.programs[j] != [rename(op, pi) for op in m.programs[i]]:
                return None
            target[i] = j
    return target


def _sources(n_per_cta: int, ctas: int, pi: tuple[int, ...], offset: int = 0) -> list[int]:
    """Source indices of a block of ``ctas`` x ``n_per_cta`` entries starting at ``offset``."""
    src = [0] * (ctas * n_per_cta)
    for c in range(ctas):
        for x in range(n_per_cta):
            src[pi[c] * n_per_cta + x] = offset + c * n_per_cta + x
    return src


def cta_permutations(m: Machine) -> list[CtaPermutation]:
    """The non-identity CTA permutations that are symmetries of ``m``'s protocol."""
    if m.ctas < 2 or m.ctas > MAX_PERMUTED_CTAS:
        return []
    out = []
    for pi in itertools.permutations(range(m.ctas)):
        if pi == tuple(range(m.ctas)):
            continue
        target = _agent_map(m, pi)
        if target is None:
            continue
        agents = [0] * len(target)
        for i, j in enumerate(target):
            agents[j] = i
        pipe_block = _sources(2 * m.nslots, m.ctas, pi)
        seq_block = _sources(m.nseq, m.ctas, pi, offset=m.ctas * 2 * m.nslots)
        named = [m.named_at[(pi.index(c), bid)] for c, bid in m.named_keys]
        out.append(CtaPermutation(pi, tuple(agents), tuple(pipe_block + seq_block),
                                  tuple(_sources(m.nslots, m.ctas, pi)), tuple(named),
                                  tuple(_sources(m.nturn, m.ctas, pi))))
    return out


def permute_state(m: Machine, p: CtaPermutation, state: tuple) -> tuple:
    """The image of ``state`` under the CTA permutation ``p``."""
    agents, barriers, inflight, landed, named, gmem, outputs, gen, turns = state
    pi = p.pi
    return (tuple(agents[k] for k in p.agents),
            tuple(barriers[k] for k in p.barriers),
            tuple(sorted((pipe, pi[cta], slot, n, r) for pipe, cta, slot, n, r in inflight)),
            tuple(landed[k] for k in p.landed),
            tuple(named[k] for k in p.named),
            gmem, outputs, gen,
            tuple(turns[k] for k in p.turns))
