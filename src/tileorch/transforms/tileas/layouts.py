"""Layout choices shared by the layout-assignment passes."""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType

from tileorch.lazy_import import lazy_module

ts = lazy_module("tileorch.dialects.nv_tileas_tile")  # the tier's dialect: not imported on the SIMT route

TMA_MAX_BOX = 256


def choose_swizzle(row_bytes: int) -> int:
    """The widest swizzle span (bytes) whose atom fits whole in a row of the contiguous dim."""
    for sw in (128, 64, 32):
        if row_bytes % sw == 0:
            return sw
    return 0


def smem_layout(t: TensorType, cta: list[int] | None = None) -> ts.LayoutAttr:
    shape = list(t.get_shape())
    bits = ts.bit_width(t.element_type)
    sw = choose_swizzle(shape[-1] * bits // 8) if shape else 0
    order = list(reversed(range(len(shape))))
    return ts.LayoutAttr("smem", swizzle=sw, order=order, cta=cta)


def blocked_layout(rank: int, warps: int, cta: list[int] | None = None) -> ts.LayoutAttr:
    return ts.LayoutAttr("reg", atom="blocked", warps=([warps] + [1] * (rank - 1)) if rank else [], cta=cta)


def tma_box(t: TensorType, layout: ts.LayoutAttr | None) -> list[int] | None:
    """TMA box (innermost first) for a tile in ``layout``, or None when TMA cannot move it."""
    shape = list(t.get_shape())
    if not 1 <= len(shape) <= 5:
        return None
    bits = ts.bit_width(t.element_type)
    box = [min(s, TMA_MAX_BOX) for s in reversed(shape)]
    sw = (layout.get("swizzle") or 0) if layout is not None else 0
    if sw:
        box[0] = min(box[0], sw * 8 // bits)
    if (box[0] * bits) % 128:
        return None
    if any(s % b for s, b in zip(reversed(shape), box)):
        return None
    return box


def with_layout(t: TensorType, layout) -> TensorType:
    return TensorType(t.element_type, t.get_shape(), layout)
