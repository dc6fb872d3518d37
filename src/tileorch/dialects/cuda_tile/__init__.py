"""The ``cuda_tile`` dialect: CUDA Tile IR, the input language of NVIDIA's ``tileiras``
and the output of cuTile Python.  See ``docs/cuda-tile.md``.

Most op classes are defined on first use (:mod:`tileorch.dialects.cuda_tile.ops`: the bytecode
reader asks for the ops it meets by name); ``OPS`` and the dialect ``CudaTile`` (what the
textual parser's context loads) are made on first read and define every op."""

from __future__ import annotations

from tileorch.dialects.cuda_tile import attrs as _attrs
from tileorch.dialects.cuda_tile import debuginfo as _debuginfo
from tileorch.dialects.cuda_tile import directives as _directives  # noqa: F401 (registers custom directives)
from tileorch.dialects.cuda_tile import ops as _ops
from tileorch.dialects.cuda_tile import types as _types

TYPES = [_types.PointerType, _types.TileType, _types.TokenType, _types.TensorViewType, _types.PartitionViewType,
         _types.StridedViewType, _types.GatherScatterViewType]
ATTRS = list(_attrs.ENUM_ATTRS) + [_attrs.DivByAttr, _attrs.SameElementsAttr, _attrs.BoundedAttr,
                                   _attrs.OptimizationHintsAttr, _attrs.DenseConstantAttr] + _debuginfo.ATTRS


def __getattr__(name: str):
    """``OPS`` (every op class, in definition order) and ``CudaTile`` (the dialect of them all),
    made on first read."""
    if name == "OPS":
        globals()["OPS"] = _ops.all_ops()
        return globals()["OPS"]
    if name == "CudaTile":
        from xdsl.ir import Dialect

        ops = globals()["OPS"] if "OPS" in globals() else __getattr__("OPS")
        globals()["CudaTile"] = Dialect("cuda_tile", ops, TYPES + ATTRS)
        return globals()["CudaTile"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
