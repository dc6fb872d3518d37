"""Whether the SIMT path's per-element global accesses (the scalar path of a run that is not one
aligned vector) are predicated instructions instead of a branch per element (issue 22).

A tiled load or store moves each thread's runs as vectors where they are whole and aligned, and
element by element otherwise: by default each such element is an ``scf.if`` around its load or
store (one branch and basic block per element: 32 per 4-run f16 row, loads and stores each).
``TILEORCH_SIMT_PREDICATED_TAILS=1`` makes each of them one predicated ``ld.global`` /
``st.global`` of 16, 32 or 64 bits (inline PTX, as the vector loads already are:
``Emitter.load_element_if`` / ``Emitter.store_element_if``): the same elements are read and
written under the same conditions, the loaded value or the padding in the register, with no
branch, so the kernel has fewer blocks for LLVM and ptxas.  8-bit elements keep the branch.

On by default since session 29 (``=0`` for the branch per element): the H200 A/B
(``benchmarks/session28_compile.sh``) ran a 4096x1000 f16 softmax in 0.0072 ms instead of 0.0104,
the aligned row programs equal, misaligned rows 2-4% slower.  Read at each
compile (a cache-key switch, :mod:`tileorch.settings`)."""

from __future__ import annotations

from tileorch import settings

PREDICATED_TAILS_ENV = "TILEORCH_SIMT_PREDICATED_TAILS"


def predicated_tails() -> bool:
    """``TILEORCH_SIMT_PREDICATED_TAILS=1``: per-element accesses predicated, not branched."""
    return settings.value(PREDICATED_TAILS_ENV) == "1"
