"""The words of ``TILEORCH_COMPUTED_OPERAND`` (default: none; read at each compile, part of the disk-cache
key, :data:`tileorch.cache.COMPILE_ENV`): how the GEMM tier lowers a dot operand computed in the K loop
(``convert_to_cutlass.stage_computed_b``, ``register_a_operand.compute_register_a``).  All default off."""

from __future__ import annotations

from tileorch import settings

COMPUTED_OPERAND_ENV = "TILEORCH_COMPUTED_OPERAND"


def computed_operand_switches() -> set[str]:
    """The comma-separated words of ``TILEORCH_COMPUTED_OPERAND``: ``prefetch``
    (:func:`~tileorch.transforms.tileas.prefetch_k_vectors.prefetch_k_vectors`), ``pairs`` (a computed operand's values
    already of the operand's 16-bit type packed pairwise as bits, not through f32:
    ``convert_to_cutlass.stage_computed_b``), ``rows`` (a computed A, B not computed, two consumer warp
    groups: each warp group computes the 64 rows its own WGMMAs read and waits on a named barrier of its
    own, :data:`OWN_ROWS_BARRIER` + its index, over its 128 threads, instead of barrier 3 over both),
    ``staged`` (a computed A that would be WGMMA's register A, :mod:`~tileorch.transforms.tileas.register_a_operand`,
    is staged in shared memory as before; ``rows`` implies it), ``registers`` (a computed A reading a vector
    indexed by the K tile is WGMMA's register A too, as sessions 23-25 compiled it, instead of staged:
:func:`~tileorch.transforms.tileas.register_a_operand.register_a_chosen`), ``global_k_vectors`` (the vectors a
    computed operand's map loads at the K loop's index stay the consumers' own global loads instead of the producer's
    TMA loads into each stage, :mod:`~tileorch.transforms.tileas.k_vector_tma`; ``prefetch`` implies it).  Default:
    none."""
    return {w.strip() for w in settings.value(COMPUTED_OPERAND_ENV).split(",") if w.strip()}


def prefetch_enabled() -> bool:
    """``TILEORCH_COMPUTED_OPERAND`` holds ``prefetch``; default off: the loads stay at the top of the
    K step they feed."""
    return "prefetch" in computed_operand_switches()


def registers_requested() -> bool:
    """``TILEORCH_COMPUTED_OPERAND`` holds ``registers``; default off: a computed A that reads a vector
    indexed by the K tile is staged (``register_a_operand.register_a_chosen``)."""
    return "registers" in computed_operand_switches()


OWN_ROWS_BARRIER = 12
"""``rows``: consumer warp group ``w``'s transform barrier is ``OWN_ROWS_BARRIER + w`` (12, 13: ids no
reserved CUTLASS barrier (0-7) and no epilogue barrier of the kernel builder (14, 15) uses)."""


def own_rows_enabled() -> bool:
    """``TILEORCH_COMPUTED_OPERAND`` holds ``rows``; default off: both warp groups write the whole A tile
    and meet at named barrier 3."""
    return "rows" in computed_operand_switches()


def pairs_enabled() -> bool:
    """``TILEORCH_COMPUTED_OPERAND`` holds ``pairs``; default off: every pair through ``cvt.rn.*x2.f32``."""
    return "pairs" in computed_operand_switches()


def staged_requested() -> bool:
    """``TILEORCH_COMPUTED_OPERAND`` holds ``staged`` (or ``rows``, a staged A's own switch); default off:
    a computed A whose raw tile allows it is WGMMA's register A operand."""
    return bool({"staged", "rows"} & computed_operand_switches())
