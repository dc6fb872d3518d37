"""A dot operand read by ``ct.gather`` (a tile of pointers: MoE token rows, embedding rows, paged rows, an
im2col): which operand, and which of its dimensions the index array picks -- the words of the GEMM tier's
located refusal (``convert-nv-tileas-to-cutlass``), which the SIMT path then runs.

Why the tier refuses it (session 25's analysis, no measurement): the tier's producer brings A and B with
TMA tile loads, and Hopper's TMA has no row gather (``cp.async.bulk.tensor`` ``.tile::gather4`` is
sm_100's).  The two Hopper ways to bring gathered rows are (a) the producer's per-row
``cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes``, which copies contiguous bytes
only: a K-major row segment lands unswizzled, while WGMMA reads a K-major operand either swizzled (16-byte
chunks of a row permuted by the row) or in the interleaved layout (8 x 16-byte core matrices: one row's
chunks ``LBO`` apart), so each row takes ``tile_k * bytes / 16`` copies of 16 bytes; a masked or
out-of-bounds row must be zeroed by generic-proxy stores (``fence.proxy.async`` before WGMMA) because a
bulk copy has no bounds check; and the K tail past the array is read past its end; or (b) the consumer
warps loading their own elements of WGMMA's *register* A fragment from global memory (masked loads
give zeros, the K tail is bounds-checked per element), as the tier's register A for a computed A
(:mod:`~tileorch.transforms.tileas.register_a_operand`) evaluates its prologue per fragment element.
(b) is the general path (any gathered index, masks, ragged K, repeated rows); its cost is that the
global loads' latency is the consumers' own, not hidden by the producer's stages.  Not implemented yet:
:func:`gathered_operand_message` says so.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

OPERAND_PATH = ("nv_tileas.convert_layout", "nv_tileaa.reshape", "nv_tileaa.fp_to_fp", "nv_tileaa.permute",
                "nv_tileas.broadcast", "nv_tileaa.broadcast", "nv_tileas.expand_dim", "nv_tileaa.expand_dims")
"""Ops between a dot operand and the load it is read from that move no data between elements."""

_EXPANDS = ("nv_tileas.expand_dim", "nv_tileaa.expand_dims")
_MEMORY = ("nv_tileaa.load", "nv_tileas.tiled_load", "nv_tileaa.tiled_load")
_DIMENSIONS = {"A": ("rows (M)", "columns (K)"), "B": ("rows (K)", "columns (N)")}


def gathered_operand(dots) -> tuple[Operation, str, tuple[int, ...]] | None:
    """(the pointer-tile load a dot operand is read from through :data:`OPERAND_PATH`, ``"A"`` or ``"B"``, the
    operand's dimensions whose index is read from memory) for the first such operand of ``dots``, or None.
    A permute on the way swaps the dimensions; an index computed from program ids and ranges alone (no
    dimension read from memory) gives ``()``."""
    for dot in dots:
        for role, v in (("A", dot.lhs), ("B", dot.rhs)):
            op, swapped = v.owner, False
            while isinstance(op, Operation) and op.name in OPERAND_PATH and op.operands:
                swapped ^= op.name == "nv_tileaa.permute"
                op = op.operands[0].owner
            if isinstance(op, Operation) and op.name == "nv_tileaa.load":
                dims = _indexed_dimensions(op)
                return op, role, tuple(sorted(1 - d for d in dims)) if swapped else dims
    return None


def _indexed_dimensions(load: Operation) -> tuple[int, ...]:
    """The dimensions of a rank-2 gather whose element offsets are read from memory: an index tile loaded
    (``ct.load`` / ``ct.gather`` of an index array) and expanded to ``[n, 1]`` indexes dimension 0, to
    ``[1, n]`` dimension 1; a loaded index of the gather's full rank indexes both.  A tile block argument (the
    consumer's read of an index tile the producer staged) counts as loaded."""
    ptr = load.operands[0].owner
    if not (isinstance(ptr, Operation) and ptr.name == "nv_tileaa.offset"):
        return ()
    found: set[int] = set()
    seen: set[int] = set()

    def loaded(rank: int, dim: int | None) -> None:
        found.update((dim,) if dim is not None else (0, 1) if rank >= 2 else ())

    def walk(v: SSAValue, dim: int | None) -> None:
        op = v.owner
        if not isinstance(op, Operation):  # a tile block argument: the consumer's read of a staged load
            if isinstance(v.type, TensorType):
                loaded(len(v.type.get_shape()), dim)
            return
        if id(op) in seen:
            return
        seen.add(id(op))
        if op.name in _MEMORY:
            loaded(len(op.results[0].type.get_shape()) if isinstance(op.results[0].type, TensorType) else 0, dim)
            return
        if op.name in _EXPANDS:
            at = op.properties.get("dim", op.attributes.get("dim"))
            dim = 1 - at.value.data if at is not None else dim
        for x in op.operands:
            walk(x, dim)

    walk(ptr.operands[1], None)
    return tuple(sorted(d for d in found if d in (0, 1)))


def gathered_operand_message(role: str, dims: tuple[int, ...]) -> str:
    """The tier's refusal of a gathered dot operand: which operand and dimensions, what the tier lacks."""
    what = (" and ".join(_DIMENSIONS[role][d] for d in dims) + (" are" if dims else "")) if dims else \
        "elements are"
    return (f"this dot operand is gathered: {role}'s {what} gathered (ct.gather through an index array, e.g. an "
            "MoE token gather, embedding or paged rows, an im2col), which the tensor-core tier does not take yet: "
            "its producer reads A and B as tiles through TMA (ct.load), Hopper's TMA has no row gather, and the "
            "tier has no gathered-A path (each consumer thread loading its rows of WGMMA's register A operand "
            "from global memory, masked rows as zeros) yet")
