"""The K loop's ring of a GEMM whose epilogue stores C from registers (``direct`` or ``atomic``: f32, s32, 8-bit
outputs, a transposed C, the program's atomic adds), deepened over the shared memory the schedule kept for C.

``tileas-materialize-schedule`` plans the ring beside every tile the program holds in shared memory outside the K
loop, C's TMA store staging among them (two boxes of C: 32 KiB for a 128 x 64 f32 tile), before the lowering
chooses the epilogue.  The WGMMA kernel's direct and atomic epilogues stage nothing (``GemmConfig.epilogue_bytes``
is 0), so those bytes are left unused: three pairs of 128 x 64 x 64 f16 tiles (72 KiB a stage) get 2 stages where
3 fit.  With :data:`DIRECT_EPILOGUE_STAGES_ENV` ``=1`` :func:`direct_epilogue_stages` gives the ring as many stages
as the kernel's own shared memory holds; the default (``0``) keeps the schedule's count.
"""

from __future__ import annotations

from dataclasses import replace

from tileorch import settings

DIRECT_EPILOGUE_STAGES_ENV = "TILEORCH_DIRECT_EPILOGUE_STAGES"
MOST_STAGES = 8
"""The deepest ring in whole stages (``tileas-materialize-schedule``'s default ``max-stages``); a ring of a stage per
operand pair (``GemmConfig.pair_stages``) counts ``pairs`` stages for each, at most ``GemmConfig.check``'s 16."""


def deepest_fit(cfg, fits, most: int):
    """``cfg`` (a ``GemmConfig``) with the most stages, from its own up to ``most``, for which ``fits`` holds."""
    while cfg.stages < most and fits(replace(cfg, stages=cfg.stages + 1)):
        cfg = replace(cfg, stages=cfg.stages + 1)
    return cfg


def direct_epilogue_stages(cfg, fits) -> tuple[object, str | None]:
    """``(cfg, remark)``: ``cfg`` (a ``GemmConfig`` of the schedule's stage count) with its ring deepened to the most
    stages ``fits`` allows (at most :data:`MOST_STAGES` whole stages) when its epilogue stages no C tile (not
    ``tma``); the remark says the stage count and why.  ``cfg`` unchanged and no remark for a TMA epilogue, or
    unless :data:`DIRECT_EPILOGUE_STAGES_ENV` is ``1``."""
    if cfg.epilogue == "tma" or settings.value(DIRECT_EPILOGUE_STAGES_ENV) != "1":
        return cfg, None
    most = min(16, MOST_STAGES * cfg.pairs) if cfg.pair_stages else MOST_STAGES
    deeper = deepest_fit(cfg, fits, most)
    if deeper.stages == cfg.stages:
        return cfg, None
    return deeper, (f"{DIRECT_EPILOGUE_STAGES_ENV}=1: the K loop's ring has {deeper.stages} stages of "
                    f"{deeper.stage_bytes} bytes (the schedule planned {cfg.stages} beside the shared memory it kept "
                    f"for C's TMA store staging; the {cfg.epilogue} epilogue stores C from registers and stages none)")


__all__ = ["DIRECT_EPILOGUE_STAGES_ENV", "deepest_fit", "direct_epilogue_stages"]
