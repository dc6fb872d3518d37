"""A pipeline stage per operand pair for the WGMMA kernel whose K loop's dots each read an A and a B of their own
(``GemmConfig.a_operands`` = ``b_operands`` > 1 over one K: ``acc = x1 @ w1 + x2 @ w2 + x3 @ w3``).

Holding every pair's tiles in one stage makes a stage ``pairs`` times a plain GEMM's: three pairs of 128 x 128 x 64
f16 tiles are 96 KiB, two stages fill the shared memory, and the launcher's 128 x 256 tile is narrowed to 128 (no
2 stages of 144 KiB fit).  The producer then refills a stage only after the consumers ran all of its pairs' WGMMA
batches, with one stage in flight.  With ``TILEORCH_PAIR_STAGES=1`` (the default since session 29;
``GemmConfig.pair_stages``) a stage holds one
pair's A and B tiles and each K tile takes ``pairs`` consecutive stages, in the program's order of the dots: the ring
is the plain GEMM's (128 x 256: four stages of 48 KiB), and the stage count is the whole-pair count times the pairs
(the shared memory's fit trims it; a launcher's stage count likewise: :func:`per_pair_stages`).

:func:`pair_stages_chosen` decides, with the remark saying which way and why."""

from __future__ import annotations

from dataclasses import replace

from tileorch import settings

PAIR_STAGES_ENV = "TILEORCH_PAIR_STAGES"
MOST_STAGES = 16  # (GemmConfig.check's bound)


def pair_stages_chosen(cfg):
    """``(cfg, remark)``: ``cfg`` (a ``GemmConfig``) with a stage per operand pair and ``pairs`` times its stages
    when :data:`PAIR_STAGES_ENV` is ``1`` and ``cfg`` has an A and a B per dot over one K; else ``cfg`` unchanged.
    ``remark`` is ``""`` for a kernel of one A operand (nothing to choose), else it says what was chosen."""
    if cfg.a_operands == 1:
        return cfg, ""
    whole = f"each stage holds all {cfg.pairs} operand pairs' tiles"
    if settings.value(PAIR_STAGES_ENV) != "1":
        return cfg, f"{whole} ({PAIR_STAGES_ENV}=1: a stage per operand pair)"
    why = ("K segments already hold one pair a stage" if cfg.k_segments else
           "the dots share a B operand" if cfg.b_operands != cfg.a_operands else
           "the A operand is read through registers" if cfg.a_regs else "")
    if why:
        return cfg, f"{whole}; no stage per operand pair: {why}"
    per_pair = per_pair_stages(replace(cfg, pair_stages=True))
    return per_pair, (f"a stage per operand pair instead ({PAIR_STAGES_ENV}=1): each K tile takes {cfg.pairs} "
                      "consecutive stages of one pair's A and B tiles (pair 0's, then pair 1's, ...), each refilled "
                      "after its pair's WGMMA batch")


def per_pair_stages(cfg):
    """``cfg`` (``pair_stages``) with ``pairs`` stages for each of its stages, which count whole pairs' tiles (the
    tier's ring depth, or a launcher's override): at most :data:`MOST_STAGES`; the shared memory's fit trims it."""
    return replace(cfg, stages=min(MOST_STAGES, cfg.stages * cfg.pairs))
