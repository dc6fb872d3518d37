"""The one rounding rule for attention head dims run at the arrays' width (``TILEORCH_ATTN_HEAD_DIM_WIDTH``).

Both the tier (``transforms/tileas/head_dim_width.py``: how many columns the dots run) and the launcher
(``launchers/head_dim_variant.py``: whether this launch's arrays are narrow enough to compile a variant for) round
a head dim with :func:`padded_width`, so the launcher never compiles a variant whose dots would run the tile's full
width anyway.  No xDSL here: the launcher imports it on every launch."""

from __future__ import annotations

from tileorch import settings

ENV = "TILEORCH_ATTN_HEAD_DIM_WIDTH"


def granule() -> int:
    """The columns a head dim is rounded up to: 32 (``=32``, the default: 32-column boxes with the 64-byte swizzle;
    measured faster than 16 at 64x256 tiles, session 39) or 16 (``=1``: a WGMMA's K step, 16-column TMA boxes with
    the 32-byte swizzle)."""
    return 32 if settings.value(ENV) == "32" else 16


def padded_width(columns: int) -> int:
    """``columns`` rounded up to :func:`granule`."""
    g = granule()
    return -(-columns // g) * g
