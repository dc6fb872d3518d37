"""The ``cutlass`` dialect: 70 orchestration ops in 8 families, their types and attributes.

One module per family; each exposes ``OPS`` (op classes) and the attribute modules
expose ``ATTRS`` (types and attributes).  This module assembles them and installs the rules
every cutlass op obeys (:mod:`.common`: function scope, integer properties in range) after
each op's own verifier.
"""

from xdsl.ir import Dialect

from tileorch.dialects.cutlass import (async_exec, attrs, barrier_attrs, block_striped, common, generic_barrier, mods,
                                       named_barrier, pipeline, scheduler_attrs, scheduler_types, seq_bar,
                                       tile_scheduler, types)

FAMILIES = {
    "pipeline": pipeline.OPS,
    "tile_scheduler": tile_scheduler.OPS,
    "mods": mods.OPS,
    "seq_bar": seq_bar.OPS,
    "block_striped": block_striped.OPS,
    "named_barrier": named_barrier.OPS,
    "generic_barrier": generic_barrier.OPS,
    "async": async_exec.OPS,
}

for _ops in FAMILIES.values():
    for _op in _ops:
        common.install(_op)

Cutlass = Dialect(
    "cutlass",
    [op for ops in FAMILIES.values() for op in ops],
    [*attrs.ATTRS, *types.ATTRS, *scheduler_attrs.ATTRS, *scheduler_types.ATTRS, *barrier_attrs.ATTRS],
)
