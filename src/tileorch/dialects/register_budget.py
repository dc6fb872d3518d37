"""The register budget of warp-specialized kernels that shift registers with ``setmaxnreg``.

A CTA starts with the registers per thread its kernel was assembled for; ``setmaxnreg.dec`` gives
registers back to the CTA and ``setmaxnreg.inc`` takes them from what was given back, waiting until
enough are there.  So the counts the warp groups raise and lower to must fit, per lane slot (one
thread of each warp group), in what the CTA started with, or an increase waits forever (a hang, not
an error).  A kernel that uses ``setmaxnreg`` carries ``nvvm.maxntid`` and ``nvvm.minctasm`` 1: ptxas
assembles it for the most registers one CTA of that many threads may hold of the SM's 64 Ki, in the
allocation's units of 8 per thread, at most 255 (CUTLASS's 40 + 2 x 232 = 3 x 168 is this bound)."""

from __future__ import annotations

REGISTER_FILE = 65536
"""32-bit registers of an SM (sm_90)."""
MAX_THREAD_REGS = 255
"""Registers a thread may hold."""
WARP_GROUP = 128


def entry_regs(warp_groups: int, ctas_per_sm: int = 1) -> int:
    """The most registers per thread a CTA of ``warp_groups`` warp groups can start with
    (``nvvm.maxntid`` = 128 x warp groups, ``nvvm.minctasm`` 1): 248 for one or two warp groups, 168
    for three, 128 for four, 96 for five.  ptxas gives such a kernel the largest count its
    ``setmaxnreg`` instructions name, up to this bound (tests/unit/test_setmaxnreg_budget.py).
    ``ctas_per_sm``: the kernel's ``nvvm.minctasm`` (that many CTAs share the SM's registers)."""
    return min(MAX_THREAD_REGS // 8 * 8, REGISTER_FILE // (WARP_GROUP * warp_groups * max(1, ctas_per_sm)) // 8 * 8)


def slot_budget(warp_groups: int, ctas_per_sm: int = 1) -> int:
    """Registers per lane slot the warp groups' ``setmaxnreg`` counts share (their sum must not pass it), for
    ``ctas_per_sm`` resident CTAs."""
    return warp_groups * entry_regs(warp_groups, ctas_per_sm)


def fits(producer: int, consumer: int, consumers: int) -> bool:
    """``producer`` + ``consumers`` x ``consumer`` registers fit what a CTA of one producer and
    ``consumers`` consumer warp groups starts with."""
    return producer + consumers * consumer <= slot_budget(consumers + 1)


def most_consumer_regs(producer: int, consumers: int, cap: int, ctas_per_sm: int = 1) -> int:
    """The largest ``setmaxnreg`` count (a multiple of 8, at most ``cap``) that each of ``consumers``
    consumer warp groups may take beside a producer warp group of ``producer`` registers (``ctas_per_sm``
    such CTAs resident)."""
    return min(cap, (slot_budget(consumers + 1, ctas_per_sm) - producer) // consumers // 8 * 8)


__all__ = ["entry_regs", "fits", "most_consumer_regs", "slot_budget"]
