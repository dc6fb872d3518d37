"""Producer/consumer pipeline configurations (kernels in ``kernels_pipeline.py``), checked
against NumPy: every consumer group sees every stage's words, in order, and nothing else is
written."""

from __future__ import annotations

from functools import partial

import numpy as np

from conformance import POISON, Case, KernelSource
from kernels_pipeline import PipelineConfig, all_configs, iteration_counts, pipeline_kernel

PAD = 64  # words after the output that must stay poisoned

SANITIZE = {
    PipelineConfig(2, 1, "warp", 1, "ws", "arrive"),
    PipelineConfig(3, 2, "warp", 2, "ws", "tx"),
    PipelineConfig(4, 1, "warpgroup", 2, "coop", "tx"),
    PipelineConfig(1, 2, "warp", 4, "coop", "arrive"),
}


STARVED = PipelineConfig(2, 1, "warp", 1, "ws", "tx")  # consumers wait for one stage too many
STARVED_NAME, STARVED_POLLS = "starved_debug", 256


def sources() -> list[KernelSource]:
    return [KernelSource(c.name, pipeline_kernel(c)) for c in all_configs()] + [
        KernelSource(STARVED_NAME, pipeline_kernel(STARVED, STARVED_NAME, starve=True), STARVED_POLLS)]


def expected(cfg: PipelineConfig, host_in: np.ndarray) -> np.ndarray:
    body = np.tile(host_in, cfg.consumer_groups) if cfg.mode == "ws" else host_in
    return np.concatenate([body, np.full(PAD, POISON, np.uint32)])


def run(cfg: PipelineConfig, iters: int, kernel) -> None:
    from tileorch import runtime

    rng = np.random.default_rng([cfg.stages, cfg.producers, cfg.units, iters])
    host_in = rng.integers(0, 1 << 32, iters * cfg.stage_words, dtype=np.uint32)
    want = expected(cfg, host_in)
    src = runtime.DeviceBuffer.from_array(host_in)
    out = runtime.DeviceBuffer.from_array(np.full(want.size, POISON, np.uint32))
    runtime.launch(kernel, 1, cfg.block, [src, out, iters], smem=cfg.smem, timeout_s=10)
    got = out.download(np.uint32)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, (f"{bad.size} of {want.size} words differ, first at word {bad[0]}: "
                           f"got {got[bad[0]]:#x}, want {want[bad[0]]:#x}")


def cases() -> list[Case]:
    return [
        Case(f"{c.name}_it{n}", c.name, partial(run, c, n),
             {"pipeline", *(["sanitize"] if c in SANITIZE and n == iteration_counts(c.stages)[-1] else [])})
        for c in all_configs()
        for n in iteration_counts(c.stages)
    ]
