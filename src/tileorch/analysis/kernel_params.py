"""Which values are a kernel's by-value parameters (a ``CUtensorMap`` passed as ``__grid_constant__``).

One rule for the two places that read it: ``verify-gdc-wait`` (``analysis.gdc_wait``: a prefetch of such a map
reads parameter space, not global memory, so it may come before ``griddepcontrol.wait``) and the ``nvvm.prefetch``
lowering (``transforms.nvvm_payload_to_llvm``: such a map is prefetched through its parameter-space address).  A
pointer argument without ``llvm.byval`` / ``nvvm.grid_constant`` may point to a map in global memory (built on the
device): neither.
"""

from __future__ import annotations

from xdsl.ir import BlockArgument

BYVAL_ATTRS = ("llvm.byval", "nvvm.grid_constant")


def is_byval_kernel_param(value) -> bool:
    """Whether ``value`` is an entry-block argument of a ``func.func`` / ``llvm.func`` whose argument attributes mark
    it ``llvm.byval`` or ``nvvm.grid_constant``."""
    if not isinstance(value, BlockArgument) or value.index < 0:
        return False
    block = value.block
    fn = block.parent_op()
    if fn is None or fn.name not in ("func.func", "llvm.func") or block is not fn.regions[0].blocks.first:
        return False
    arg_attrs = fn.properties.get("arg_attrs") or fn.attributes.get("arg_attrs")
    if arg_attrs is None or value.index >= len(arg_attrs.data):
        return False
    attrs = arg_attrs.data[value.index].data
    return any(name in attrs for name in BYVAL_ATTRS)


__all__ = ["BYVAL_ATTRS", "is_byval_kernel_param"]
