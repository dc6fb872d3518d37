"""The ``nv_tileaa`` dialect (TileAA): tile programs over global memory, the input of the
TileAS tier.  ``cuda_tile`` lowers into it; ``convert-tileaa-to-tileas`` lowers it into
``nv_tileas``.  See docs/tileas-tier.md."""

import tileorch.dialects.lazy_formats  # noqa: F401,I001  (first: the op formats of dialects defined from here parse on first use)
import tileorch.dialects.mro_checks  # noqa: F401,I001  (then: IR classes answer isinstance from their MRO)
from xdsl.ir import Dialect

from .attrs import *  # noqa: F403
from .attrs import ATTRS
from .blocked import BLOCKED_ATTRS, FUNCTION_LAYOUT, LAYOUT, SOURCE_LAYOUT, BlockedLayoutAttr  # noqa: F401
from .ops import *  # noqa: F403
from .ops import COMPUTE_CAPABILITY, ELEMENTWISE_OPS, KERNEL_SPEC, OPS, TARGET_SPEC  # noqa: F401
from .pointer_ops import POINTER_ATTRS, POINTER_OPS  # noqa: E402
from .reduce_scan import EXTRA_OPS, PermuteOp, ReduceOp, ScanOp, YieldOp  # noqa: E402,F401
from .tile_ops import TILE_OPS, CatOp, ExtractSliceOp  # noqa: E402,F401

NvTileaa = Dialect("nv_tileaa", [*OPS, *EXTRA_OPS, *TILE_OPS, *POINTER_OPS], [*ATTRS, *POINTER_ATTRS, *BLOCKED_ATTRS])
