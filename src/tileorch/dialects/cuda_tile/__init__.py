"""The ``cuda_tile`` dialect: CUDA Tile IR, the input language of NVIDIA's ``tileiras``
and the output of cuTile Python.  See ``docs/cuda-tile.md``."""

from __future__ import annotations

import inspect

from xdsl.ir import Dialect

from tileorch.dialects.cuda_tile import attrs as _attrs
from tileorch.dialects.cuda_tile import debuginfo as _debuginfo
from tileorch.dialects.cuda_tile import directives as _directives  # noqa: F401 (registers custom directives)
from tileorch.dialects.cuda_tile import ops as _ops
from tileorch.dialects.cuda_tile import types as _types
from tileorch.dialects.cuda_tile.base import CtOp

OPS = [c for c in vars(_ops).values()
       if inspect.isclass(c) and issubclass(c, CtOp) and isinstance(getattr(c, "name", None), str)
       and c.name.startswith("cuda_tile.")]
TYPES = [_types.PointerType, _types.TileType, _types.TokenType, _types.TensorViewType, _types.PartitionViewType,
         _types.StridedViewType, _types.GatherScatterViewType]
ATTRS = list(_attrs.ENUM_ATTRS) + [_attrs.DivByAttr, _attrs.SameElementsAttr, _attrs.BoundedAttr,
                                   _attrs.OptimizationHintsAttr, _attrs.DenseConstantAttr] + _debuginfo.ATTRS

CudaTile = Dialect("cuda_tile", OPS, TYPES + ATTRS)
