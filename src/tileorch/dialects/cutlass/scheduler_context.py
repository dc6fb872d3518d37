"""What the tile-scheduler and MODS verifiers read from an op's surroundings.

Module attributes (project convention, absent = sm_90a and a 1x1x1 cluster):
``cutlass.target = "sm_90a"`` and ``cutlass.cluster_shape = array<i32: X, Y, Z>``, taken from
the closest enclosing op that carries them.  Also: the enclosing ``cutlass.async.exec``,
statically known integer constants, and statically known pointer alignments.
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import DenseArrayBase, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.constants import constant_int
from tileorch.dialects.kernel_attrs import enclosing_attr

CREATE_SM100 = "cutlass.tile_scheduler.create_SM100_scheduler"
DEFAULT_TARGET = "sm_90a"


def target_name(op: Operation) -> str:
    """The ``cutlass.target`` string in effect at ``op``."""
    attr = enclosing_attr(op, "cutlass.target")
    return attr.data if isinstance(attr, StringAttr) else DEFAULT_TARGET


def target_sm(op: Operation) -> int:
    """The SM number of the target in effect at ``op`` (``sm_100a`` -> 100)."""
    match = re.match(r"sm_(\d+)", target_name(op))
    return int(match.group(1)) if match else 90


MAX_CLUSTER_CTAS = 16
"""The largest (non-portable) thread-block cluster of sm_90/sm_100 (hardware)."""
PORTABLE_CLUSTER_CTAS = 8
"""The largest cluster every cluster-capable GPU launches (CUDA's portable cluster size)."""
FIRST_CLUSTER_SM = 90
"""Thread-block clusters exist from sm_90 (compute capability 9.0) on."""


def max_cluster_ctas(op: Operation) -> tuple[int, str]:
    """(the most CTAs a cluster may have on the target in effect at ``op``, why).

    Below sm_90 there are no clusters (1 CTA); sm_90 and the sm_100 family launch up to 16 CTAs with
    the non-portable cluster-size opt-in (the runtime sets ``NON_PORTABLE_CLUSTER_SIZE_ALLOWED`` for
    clusters above 8); any other target is held to the portable 8."""
    sm, name = target_sm(op), target_name(op)
    if sm < FIRST_CLUSTER_SM:
        return 1, f"{name} has no thread-block clusters (they start with sm_90)"
    if sm == FIRST_CLUSTER_SM or 100 <= sm < 110:
        return MAX_CLUSTER_CTAS, (f"a cluster on {name} has at most {MAX_CLUSTER_CTAS} CTAs (the non-portable "
                                  f"size; portable clusters have at most {PORTABLE_CLUSTER_CTAS})")
    return PORTABLE_CLUSTER_CTAS, f"a portable cluster has at most {PORTABLE_CLUSTER_CTAS} CTAs ({name})"


def cluster_shape(op: Operation) -> tuple[int, int, int]:
    """The ``cutlass.cluster_shape`` in effect at ``op``.  A shape that is no cluster (an extent
    below 1, more CTAs than the target launches) raises VerifyException, so that every rule derived
    from the cluster reports it at the op that needs it instead of enumerating a huge cluster."""
    attr = enclosing_attr(op, "cutlass.cluster_shape")
    if isinstance(attr, DenseArrayBase):
        values = tuple(int(v) for v in attr.get_values())
        if len(values) == 3:
            limit, why = max_cluster_ctas(op)
            if min(values) < 1 or values[0] * values[1] * values[2] > limit:
                raise VerifyException(
                    f"the module's cutlass.cluster_shape {list(values)} is not a cluster: every extent must be "
                    f">= 1 and {why}")
            return values  # type: ignore[return-value]
    return (1, 1, 1)


def _cluster_extents(attr) -> tuple[int, int, int] | None:
    """The (x, y, z) of an ``array<iN: ...>`` cluster attribute of 1 to 3 extents (missing ones are
    1); None when malformed (the attribute's own verifier reports it)."""
    if not isinstance(attr, DenseArrayBase):
        return None
    try:
        values = [int(v) for v in attr.get_values()]
    except (TypeError, ValueError):
        return None
    if not 1 <= len(values) <= 3:
        return None
    return tuple((values + [1, 1])[:3])  # type: ignore[return-value]


def declared_cluster(op: Operation) -> tuple[tuple[int, int, int], str] | None:
    """(shape, what declares it) of the launch cluster in effect at ``op``: the closest enclosing
    kernel's ``nvvm.cluster_dim`` or module's ``cutlass.cluster_shape``; None when neither is
    declared (the project convention then assumes 1x1x1 but does not pin host-built shapes)."""
    parent = op.parent_op()
    while parent is not None:
        for name in ("nvvm.cluster_dim", "cutlass.cluster_shape"):
            if name in parent.attributes:
                shape = _cluster_extents(parent.attributes[name])
                if shape is None:
                    return None
                sym = parent.attributes.get("sym_name") or parent.properties.get("sym_name")
                owner = f" of @{sym.data}" if isinstance(sym, StringAttr) else ""
                what = "the kernel's nvvm.cluster_dim" if name == "nvvm.cluster_dim" else "the module's cutlass.cluster_shape"
                return shape, f"{what}{owner} = {'x'.join(map(str, shape))}"
        parent = parent.parent_op()
    return None


def check_cga_shape(op: Operation, cga, what: str) -> None:
    """Rules of a CGA (thread-block cluster) shape an op states (``what`` names where):

    * a product of its three extents (positive: the cga attribute's and the params type's own rule)
      that the target launches (:func:`max_cluster_ctas`);
    * equal to the launch cluster when the kernel (``nvvm.cluster_dim``) or the module
      (``cutlass.cluster_shape``) declares it: the CTAs of a CGA are the CTAs of one launched cluster
      (CUTLASS builds the scheduler params and the pipeline participants from the kernel's
      ``ClusterShape``), so any other shape maps work or arrivals onto CTAs that do not exist or
      leaves some unserved."""
    shape = tuple(int(v) for v in cga)  # three positive extents: the cga attribute's / params type's own rule
    text = "x".join(map(str, shape))
    limit, why = max_cluster_ctas(op)
    ctas = shape[0] * shape[1] * shape[2]
    if ctas > limit:
        raise VerifyException(
            f"{what} {text} has {ctas} CTAs, more than the hardware launches in one cluster: {why}")
    declared = declared_cluster(op)
    if declared is not None and shape != declared[0]:
        raise VerifyException(
            f"{what} {text} differs from the launch cluster ({declared[1]}): a CGA is the set of CTAs of one "
            f"launched cluster, so its shape must be the cluster shape")


def known_alignment(pointer: SSAValue) -> int | None:
    """The largest power of two known to divide the address in ``pointer``, or None.

    Known when the pointer is ``llvm.inttoptr`` of an integer constant.
    """
    owner = pointer.owner
    if isinstance(owner, Operation) and owner.name == "llvm.inttoptr" and owner.operands:
        address = constant_int(owner.operands[0])
        if address is not None:
            return address & -address if address else 1 << 62
    return None


def value_name(value: SSAValue) -> str:
    """``%name`` of an SSA value for diagnostics (``%<anonymous>`` without a name hint)."""
    return f"%{value.name_hint}" if value.name_hint else "%<anonymous>"


def cta_cluster_of(handle: SSAValue) -> tuple[int, int] | None:
    """The launch cluster ``(cx, cy)`` when ``handle`` is an SM100 Stream-K scheduler on more than
    one CTA (its ops are cluster-coordinated: ``convert-pipeline-to-nvvm`` lowers them through
    ``scheduler_cluster``, the model checker models its fix-up as the in-cluster reduction), else
    None."""
    owner = handle.owner
    if not isinstance(owner, Operation) or owner.name != CREATE_SM100:
        return None
    if getattr(owner.results[0].type, "kind_name", None) != "streamk":
        return None
    cga = owner.operands[0].type.cga() or cluster_shape(owner)
    if cga[0] * cga[1] == 1:
        return None
    return (int(cga[0]), int(cga[1]))
