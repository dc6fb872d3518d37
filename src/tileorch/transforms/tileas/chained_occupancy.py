"""CTAs per SM of the chained tier's persistent kernel with one consumer warp group (64-row tiles).

A 64-row chained kernel (GQA's ``BM = 64`` program, cover26's ``attn_gqa_heads_loop``) has one consumer warp group:
with one CTA per SM (the persistent default) a single warp group issues the SM's WGMMAs, and its chain (S, the
softmax, P V) leaves the tensor cores idle while it computes the softmax, with no second warp group to fill the gap
(a 128-row tile's two groups, or their ping-pong).  Two CTAs per SM put two such warp groups, each running its own
instances, on every SM: the kernel asks ptxas for two resident CTAs (``.minnctapersm 2``: 256 threads start with
128 registers each), the producer gives back to 24 and the consumer takes 232 (24 + 232 = 2 x 128:
:func:`tileorch.dialects.register_budget.most_consumer_regs` at 2 CTAs), each CTA holds at most half of the SM's
shared memory (:data:`HALF_SMEM`), and the launcher runs twice as many persistent CTAs as SMs.

``TILEORCH_ATTN_CTAS_PER_SM=2`` asks for it (the default since session 29: GQA's
64-row program 0.52x -> 0.76x torch on the H200; ``=1`` for one CTA per SM); :func:`ctas_per_sm` decides,
with the remark saying which way and why."""

from __future__ import annotations

from tileorch import settings

CTAS_PER_SM_ENV = "TILEORCH_ATTN_CTAS_PER_SM"
SM_SMEM = 228 * 1024
"""Shared memory of an sm_90 SM; each resident CTA also reserves 1 KiB."""
HALF_SMEM = SM_SMEM // 2 - 1024
"""The most dynamic shared memory each of two resident CTAs may take (113 KiB)."""


def ctas_per_sm(consumers: int, persistent: bool, smem: int) -> tuple[int, str]:
    """``(n, remark)``: the CTAs per SM a chained kernel of ``consumers`` consumer warp groups, ``persistent`` or
    not, of ``smem`` bytes of dynamic shared memory is built for: 2 when :data:`CTAS_PER_SM_ENV` asks and the kernel
    is persistent with one consumer warp group and at most :data:`HALF_SMEM` bytes, else 1.  ``remark``: ``""``
    when the setting is ``1``, or when the kernel is not of that kind (several consumer groups, not persistent)
    and the environment did not ask; else what was applied or why not (a one-group persistent kernel too large
    for two is always said)."""
    if settings.value(CTAS_PER_SM_ENV) != "2":
        return 1, ""
    structural = ("not one consumer warp group (64-row tiles)" if consumers != 1 else
                  "not a persistent kernel" if not persistent else "")
    if structural:
        return 1, (f"remark: {CTAS_PER_SM_ENV}=2 not applied: {structural}"
                   if settings.asked(CTAS_PER_SM_ENV) else "")
    if smem > HALF_SMEM:
        return 1, (f"remark: one CTA per SM: its {smem} bytes of shared memory exceed half the SM's ({HALF_SMEM}), "
                   f"so two ({CTAS_PER_SM_ENV}=2) do not fit")
    return 2, (f"remark: two CTAs per SM ({CTAS_PER_SM_ENV}=2): .minnctapersm 2, the consumer warp group at "
               f"232 registers, {smem} bytes of shared memory each, twice as many persistent CTAs as SMs")
