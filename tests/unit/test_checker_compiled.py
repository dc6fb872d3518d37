"""The compiled fast path (analysis/compiled.py) computes exactly what the interpreter does.

For correct protocols and mutants (whose violations the fast path must hand back to the
interpreter), every transition of every state reached without reduction is executed both ways:
the fast successor equals :meth:`Machine.fire`'s state whenever the fast path answers, it never
answers where ``fire`` reports a violation, and the compiled enabledness equals
:meth:`Machine.enabled`.  The symmetry canonical form is checked to be constant on orbits.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path

import pytest

from tileorch.analysis import catalog as C
from tileorch.analysis import properties as P
from tileorch.analysis.explore import check
from tileorch.analysis.machine import Machine
from tileorch.analysis.symmetry import permute_state

W = C.tma_warp_specialized

PROTOCOLS = {
    "tma_ws_2wg": (lambda: W(2, 2), {}),
    "tma_ws_try_wait": (lambda: W(2, 2, use_try=True), {}),
    "cluster_multicast": (lambda: C.cluster_multicast(), {}),
    "persistent_cooperative": (lambda: C.persistent_cooperative(), {}),
    "pingpong": (lambda: C.pingpong_order(), {}),
    "mods": (lambda: C.mods_pipeline(), {}),
    "streamk": (lambda: C.streamk_fixup(3), {}),
    "empty_count_minus_one": (lambda: W(2, 2, empty_count=2 * C.WG - 1), {}),
    "release_before_last_read": (lambda: W(2, 2, release_first=True), {}),
    "missing_producer_tail": (lambda: W(2, 2, with_tail=False), {}),
    "commit_without_expect_tx": (lambda: W(2, 2, expect_tx=False), {}),
    "producer_no_phase_flip": (lambda: W(2, 2, producer_flip=False), {}),
    "cluster_empty_count_minus_one": (lambda: C.cluster_multicast(empty_count=1), {}),
}


def _gemm(per_group_dir: Path | None = None):
    """The default GEMM's protocol: examples/gemm_sm90.mlir (one consumer body for both warp groups), or, with
    ``per_group_dir``, the builder's default kernel with a body per consumer warp group
    (``TILEORCH_GEMM_SHARED_CONSUMER=0``: two symmetric consumer agents per CTA) written there."""
    pytest.importorskip("xdsl")
    from tileorch.analysis.extract import load
    path = Path(__file__).resolve().parents[2] / "examples" / "gemm_sm90.mlir"
    if per_group_dir is not None:
        from tileorch.kernels.gemm.config import GemmConfig
        from tileorch.kernels.gemm.ir import gemm_kernel_ir

        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("TILEORCH_GEMM_SHARED_CONSUMER", "0")
            path = per_group_dir / "gemm_per_group.mlir"
            path.write_text(gemm_kernel_ir(GemmConfig()))
    protocols, errors = load(str(path))
    assert not errors
    return protocols[0]


def _walk(m: Machine, limit: int = 3000):
    """States reached by the interpreter (no reduction, no symmetry), breadth first."""
    init = m.initial()
    seen = {init}
    queue = deque([init])
    while queue and len(seen) < limit:
        s = queue.popleft()
        yield s
        for ch in m.transitions(s):
            out = m.fire(s, ch)
            if out.violation is None and out.state not in seen:
                seen.add(out.state)
                queue.append(out.state)


def _compare(m: Machine, limit: int = 3000) -> int:
    fast_steps = 0
    for s in _walk(m, limit):
        for i, a in enumerate(s[0]):
            if a[0] < len(m.programs[i]):
                assert m.compiled.enabled(s, i) == m.enabled(s, i)
        for ch in m.transitions(s):
            out = m.fire(s, ch)
            if ch[0] == "land":  # None exactly where the interpreter reports a violation (bytes past the phase's)
                assert m.compiled.land(s, ch[1]) == (None if out.violation is not None else out.state)
                continue
            if ch[0] != "agent":
                continue
            fast = m.compiled.step(s, ch[1])
            if fast is None:
                continue
            fast_steps += 1
            assert out.violation is None, (ch, out.violation)
            assert fast == out.state, ch
    return fast_steps


@pytest.mark.parametrize("name", sorted(PROTOCOLS))
def test_fast_path_equals_the_interpreter(name):
    build, values = PROTOCOLS[name]
    proto = build()
    for inst in ({k: max(v) for k, v in proto.params}, {k: min(v) for k, v in proto.params}):
        _compare(Machine(proto, inst | values, symmetry=False))


def test_fast_path_equals_the_interpreter_on_the_default_gemm():
    m = Machine(_gemm(), {"k_tiles": 5, "tiles": 2}, symmetry=False)
    assert _compare(m, limit=1500) > 1000      # the fast path does the work here


@pytest.mark.parametrize("per_group", [False, True], ids=["one_body", "body_per_warp_group"])
def test_canonical_form_is_constant_on_orbits(per_group, tmp_path):
    """The 2-CTA cluster's permutation, and with a body per consumer warp group also the swap of the two
    consumer agents of a CTA (the one shared body is one agent: nothing to swap)."""
    proto = _gemm(tmp_path if per_group else None)
    m = Machine(proto, {"k_tiles": 3, "tiles": 2})
    assert m.cta_perms and bool(m.symmetry) == per_group
    for n, s in enumerate(_walk(Machine(proto, {"k_tiles": 3, "tiles": 2}, symmetry=False),
                                limit=800)):
        c = m.canonical(s)
        for perm in m.cta_perms:
            assert m.canonical(permute_state(m, perm, s)) == c
        swapped = list(s[0])
        for group in m.symmetry:
            a, b = group[0], group[-1]
            swapped[a], swapped[b] = swapped[b], swapped[a]
        assert m.canonical((tuple(swapped),) + s[1:]) == c


@pytest.mark.parametrize("build, prop", [
    (lambda: W(2, 2, empty_count=2 * C.WG - 1), P.OVER_ARRIVAL),
    (lambda: W(2, 2, with_tail=False), P.DRAIN),
    (lambda: C.cluster_multicast(empty_count=1), P.OVER_ARRIVAL),
])
def test_violations_found_through_the_fast_path_keep_their_message(build, prop):
    result = check(build())
    assert not result.ok and result.violation.prop == prop and result.trace
