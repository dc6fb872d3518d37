"""Two-level accumulation of e4m3 / e5m2 dots on the GEMM tier: the tier's decision and its remark.

Hopper's fp8 WGMMA adds the products of one instruction (K = 32) and the accumulator it reads with an adder
narrower than an f32 addition (publicly reported: about 13-14 fraction bits, truncating).  Over a long K loop the
accumulator itself is truncated once per WGMMA, so the error grows with K (session 38: sweep 29's f32-out fp8
GEMMs missed an f32-tight tolerance on an H100; the PTX emulator's ``Emu.fp8_sum_bits`` reproduces it).  With
``TILEORCH_FP8_PROMOTE_INTERVAL = P`` (> 0) the kernel's WGMMAs accumulate ``P`` K tiles at a time into a
scratch accumulator that the consumer then adds into the f32 accumulator with f32 additions
(:attr:`GemmConfig.fp8_promote <tileorch.kernels.gemm.config.GemmConfig.fp8_promote>`, built by
``kernels/gemm/build.py``'s ``_promoted_k_loop``), as cuBLAS does without fast accumulation.

The scratch accumulator takes a second ``tile_n / 2`` registers per consumer thread: a 128-column tile's two fit
the builder's 128 accumulator registers, a 256-column tile's do not (256 registers: spills), so a wider tile is
narrowed to 128 columns where its epilogue does not depend on the tile shape, else the dot is not promoted.  Every
e4m3 / e5m2 dot gets a located remark saying which mode was chosen and why.  Reads settings; no IR rewriting.
"""

from __future__ import annotations

from dataclasses import replace

from tileorch import settings

ENV = "TILEORCH_FP8_PROMOTE_INTERVAL"
FP8 = ("e4m3", "e5m2")

ADDER = ("the tensor core adds 8-bit float products with fewer bits than an f32 addition (publicly reported: about "
         "13-14 fraction bits on H100; not measured by tileorch yet)")


def interval() -> int:
    """K tiles per promotion (``TILEORCH_FP8_PROMOTE_INTERVAL``; 0: off)."""
    return settings.integer(ENV) or 0


def _summed_whole(head: str, why: str) -> str:
    """The remark of a dot whose WGMMAs sum the whole K loop, ``why`` in parentheses."""
    return (head + f"are summed by the WGMMAs themselves into the f32 accumulator over the whole K loop ({why}): "
            + ADDER + ", so a sum may differ from an f32 sum in its low bits, more so the longer K is")


def _form_not_built(cfg) -> str | None:
    """Why two-level accumulation is not built for ``cfg``'s kernel form (None: it is)."""
    if cfg.pairs > 1 or cfg.k_segments:
        return f"the K loop runs {cfg.pairs} dots (two-level accumulation is built for one)"
    if cfg.a_regs:
        return "A is computed in the K loop into WGMMA's register operand (two-level accumulation is built for " \
               "A in shared memory)"
    if cfg.epi_n or cfg.lora_rank:
        return "a second dot reads the accumulator after the K loop (two-level accumulation is built for one dot)"
    return None


def narrowed_for_scratch(cfg, limit: int):
    """(``cfg`` narrowed to ``limit`` columns, the narrowing's text): the one phrasing of a tile too wide for the
    two-level accumulation's scratch, used by :func:`promotion` (the tier's remark at the dot) and by the cuTile
    launcher's retile (``launchers.cutile.retile_config``, whose remark names the tile and leaves the accumulation
    mode to the tier's remark).  The ring keeps the shared memory the schedule planned: more stages of the narrower
    tile."""
    narrow = replace(cfg, tile_n=limit)
    stages = min(16, max(cfg.stages, cfg.stages * cfg.stage_bytes // narrow.stage_bytes))
    return replace(narrow, stages=stages), (
        f"the {cfg.tile_m}x{cfg.tile_n} tile runs as {cfg.tile_m}x{limit}: the accumulator and its two-level "
        f"accumulation scratch take {limit} registers per consumer thread (at {cfg.tile_n} columns {cfg.tile_n}, "
        f"more than the {limit} a consumer keeps for accumulators), its ring {stages} stages of "
        f"{narrow.stage_bytes} bytes in the planned {cfg.stages} x {cfg.stage_bytes}")


def promotion(cfg, retile_safe: bool, dtypes: str, limit: int, fast_accum: bool = False):
    """``cfg`` (a :class:`GemmConfig` of an e4m3 / e5m2 dot) with :attr:`fp8_promote` chosen, and the remark's text
    (without its location).  ``retile_safe``: the epilogue does not depend on the tile shape (a narrower tile may
    run it); ``dtypes``: the operands' types as the remark names them; ``limit``: the accumulator registers per
    consumer thread the builder allows; ``fast_accum``: the dot's ``matmul_fast_accum`` (cuTile's
    ``ct.mma(..., use_fast_acc=True)``, ``mmaf``'s ``fast_acc``, which cuTile documents as giving up accumulator
    precision for speed; tileiras has a pass named ``tileas-fp8-dot-accumulation-promotion``, whose behaviour
    we have not measured: benchmarks/session39_fp8acc.sh compares its results)."""
    p = interval()
    head = f"this dot's {dtypes} products "
    if fast_accum:
        return cfg, _summed_whole(head, "the program asks for fast accumulation: ct.mma(..., use_fast_acc=True)")
    if p == 0:
        return cfg, _summed_whole(head, f"no promotion: {ENV}=0")
    why_not = _form_not_built(cfg)
    narrowed = ""
    if why_not is None and cfg.tile_n > limit:  # (main + scratch: tile_n / 2 registers each)
        if not retile_safe:
            why_not = (f"the {cfg.tile_m}x{cfg.tile_n} tile's accumulator and its scratch would need {cfg.tile_n} "
                       f"registers per consumer thread, more than the {limit} a consumer keeps for accumulators, "
                       "and the epilogue depends on the tile shape, so it cannot be narrowed (use tiles of at most "
                       f"{limit} columns to promote)")
        else:
            narrow, narrowed = narrowed_for_scratch(cfg, limit)
            narrowed, cfg = "; " + narrowed, narrow
    if why_not is not None:
        return cfg, _summed_whole(head, f"not promoted although {ENV}={p}: {why_not}")
    cfg = replace(cfg, fp8_promote=p)
    return cfg, (head + f"are accumulated in two levels ({ENV}={p}): the WGMMAs sum {p} K tile{'s' if p > 1 else ''} "
                 f"({p * cfg.tile_k} products) at a time into a scratch accumulator, which f32 additions then add "
                 "into the f32 accumulator, because " + ADDER + f": that adder sums at most {p * cfg.tile_k} products and their partial sum per value, "
                 "not the whole K loop" + narrowed)


def asked(cfg, p: int, dtypes: str, limit: int, fast_accum: bool = False):
    """:func:`promotion` for a configuration given to the lowering (``config=...``: ``tileorch.gemm``'s, or the
    launcher's retiled one), whose tile is not narrowed: ``cfg`` with :attr:`fp8_promote` ``p`` where the dot may be
    promoted and the asked tile leaves the registers for the scratch, else 0; and the remark's text."""
    head = f"this dot's {dtypes} products "
    if fast_accum or p <= 0:
        why = ("the program asks for fast accumulation: ct.mma(..., use_fast_acc=True)" if fast_accum
               else "the configuration asked for no promotion: fp8_promote=0")
        return replace(cfg, fp8_promote=0), _summed_whole(head, why)
    if _form_not_built(cfg) is not None:
        return replace(cfg, fp8_promote=0), _summed_whole(head, "not promoted: this kernel form is built without it")
    if cfg.tile_n > limit:
        return replace(cfg, fp8_promote=0), _summed_whole(
            head, f"not promoted: the configuration asked for a {cfg.tile_m}x{cfg.tile_n} tile, whose accumulator and "
                f"scratch would need {cfg.tile_n} registers per consumer thread, more than the {limit} a consumer "
                "keeps for accumulators")
    return replace(cfg, fp8_promote=p), (
        head + f"are accumulated in two levels (fp8_promote={p}, as the configuration asked): the WGMMAs sum {p} K "
        f"tile{'s' if p > 1 else ''} ({p * cfg.tile_k} products) at a time into a scratch accumulator, which f32 "
        "additions then add into the f32 accumulator, because " + ADDER)


def chained_first_dot(dtype: str, d: int, n: int, k_step: int = 32) -> str:
    """The remark at a chained kernel's fp8 first dot (``S = Q K^T`` of e4m3 / e5m2 Q and K, ``dtype``), whose
    WGMMAs sum ``d`` products per score: the instruction it runs and why the two-level
    accumulation of the GEMM tier's K loops (:func:`promotion`) is not built there (its error is that of one
    ``d``-long sum per score, not growing with the sequence)."""
    steps = d // k_step
    return (f"chained-dots tier (TMA + WGMMA): S = Q K^T multiplies {dtype} tiles: {steps} wgmma.mma_async "
            f"m64n{n}k{k_step}.f32.{dtype}.{dtype} per key tile, Q and K read K-major from shared memory (TMA boxes "
            f"of {dtype} rows); this dot's {dtype} products are summed by the WGMMAs into the f32 scores (not "
            f"promoted: each score sums {d} products, however long the sequence; {ENV} applies to the GEMM tier's K loops): " + ADDER)


