"""Session 44 (issue 20, "attention shapes the chained tier still refused"): a step before the key loop whose tile
loads read arrays of their own (learned sink keys / values) runs as the loop's first iteration, the loop's K and V
operands ``select(t == 0, sink tile, loop tile)``, which the chained kernel loads through a tensor map of its own
per sink array (``chained_dots._selected_operand``, ``_Kernel.operand_loads``: one ``scf.if`` per operand in the
producer).  Here: ``tileorch check`` reads that choice as the bytes either side delivers (the same on both sides)
and proves the kernel's pipelines (before session 44 the checker counted no bytes under the ``scf.if`` and
reported a deadlock), and a choice whose sides deliver different bytes is a located error.  The kernel's values:
test_attnsweep43_emulated.py (``a43_sink_block_dot_before``, emulated against numpy float64); its IR:
tests/filecheck/tileas/tier_chained_dots_first_tile*.mlir."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdsl")

INPUT = Path(__file__).resolve().parents[1] / "filecheck" / "tileas" / "tier_chained_dots_first_tile.mlir"


@pytest.fixture(scope="module")
def lowered():
    from xdsl.parser import Parser

    from tileorch.backend.pipeline import parse_pipeline, run_passes
    from tileorch.registry import make_context

    ctx = make_context()
    module = Parser(ctx, INPUT.read_text(), str(INPUT)).parse_module()
    run_passes(ctx, module, parse_pipeline("tileas-tier,convert-nv-tileas-to-cutlass"))
    return module


def _kernel(module):
    (fn,) = [o for o in module.walk() if o.name == "func.func" and "nvvm.kernel" in o.attributes]
    return fn


def test_first_tile_choice_is_read_and_the_pipelines_are_proved(lowered):
    from tileorch.analysis.extract import extract
    from tileorch.testing.check_memo import check_once as check

    fn = _kernel(lowered)
    choices = [o for o in fn.walk() if o.name == "scf.if" and
               sum(x.name == "nvvm.cp.async.bulk.tensor.shared.cluster.global" for x in o.walk()) == 2]
    assert len(choices) == 2  # K's and V's: the sink tile or the loop's
    (proto,) = extract(lowered)
    ring = next(p for p in proto.pipelines if p.stage_bytes != 64 * 64 * 2)  # (the Q slot's: one 64x64 tile)
    assert ring.stage_bytes == 2 * 64 * 64 * 2  # a K and a V tile per stage, whichever array each comes from
    result = check(proto)
    assert result.ok, result.violation


def test_a_choice_whose_sides_deliver_different_bytes_is_refused(lowered):
    from tileorch.analysis.extract import extract
    from tileorch.diagnostics import LocatedError

    module = lowered.clone()
    fn = _kernel(module)
    choice = next(o for o in fn.walk() if o.name == "scf.if" and
                  sum(x.name == "nvvm.cp.async.bulk.tensor.shared.cluster.global" for x in o.walk()) == 2)
    copy = next(x for x in choice.regions[1].walk() if x.name == "nvvm.cp.async.bulk.tensor.shared.cluster.global")
    copy.detach()
    copy.erase()
    with pytest.raises(LocatedError, match="deliver different bytes"):
        extract(module)


# ----------------------------------------------------------------------------------------------- gathered Q rows

def _routed():
    pytest.importorskip("cuda.tile")
    from tileorch.testing import attnforms44_programs

    return attnforms44_programs


ROUTED_CI = {"a44_routed_q_d64"}
"""The routed-query programs CI emulates (``TILEORCH_EMULATE_ALL=1``: every one)."""
ROUTED_ALL = ["a44_routed_q_d64", "a44_routed_q_d128_bm128", "a44_routed_q_d64_bf16", "a44_routed_q_scatter_o_d64"]


def _proofs(module):
    from tileorch.analysis.extract import extract
    from tileorch.testing.check_memo import check_once as check

    return [(r.ok, str(r.violation)) for r in (check(p) for p in extract(module))]


def test_routed_query_rows_take_the_tier_and_the_pipelines_are_proved():
    """``a44_routed_q_d64`` (refused before session 44 at its Q gather: "the first dot's A (Q) is gathered"): the
    chained kernel, a remark at the gather's line saying how the rows are read, no tensor map of Q (arg 0), and
    ``tileorch check`` proves the kernel's pipelines (the Q phase armed for no bytes, no Q copy)."""
    import inspect

    from tileorch.testing.compile_memo import compile_once_deriving
    from tileorch.testing.export import cutile_bytecode

    m = _routed()
    name = "a44_routed_q_d64"
    p = m.PROGRAMS[name]
    prog, proved = compile_once_deriving(cutile_bytecode(p.kernel, p.spec), name, _proofs, "attnforms44-proofs",
                                         arch="sm_90a", ptxas=False)  # (the emulated test's compile: one memo key)
    assert prog.kind == "chained", list(prog.remarks)
    src, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    line = first + next(i for i, ln in enumerate(src) if "q = ct.gather(Q" in ln)
    assert any(r.startswith(f"{m.__file__}:{line}:") and ": remark: " in r and "the first dot's A (Q) is gathered" in r
               for r in prog.remarks), list(prog.remarks)
    assert prog.chained.get("q_gathered") is True
    assert [t["arg"] for t in prog.chained["tmaps"]] and 0 not in [t["arg"] for t in prog.chained["tmaps"]]
    assert proved and all(ok for ok, _ in proved), proved


@pytest.mark.parametrize("name", ROUTED_ALL)
def test_routed_query_rows_match_numpy(name, monkeypatch):
    """Query rows gathered by a row-index vector (a permutation's first ``n`` tokens), K / V by tile loads: the
    chained kernel's PTX run on the CPU emulator (every CTA of the launch, the launcher's tensor maps and
    parameters) against numpy float64, outputs NaN-prefilled (the runner's), ragged ``n`` and keys.  bf16 programs
    run as their f16 twins (the emulator's WGMMA is f16)."""
    import dataclasses
    import os

    import numpy as np

    if name not in ROUTED_CI and not os.environ.get("TILEORCH_EMULATE_ALL"):
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 runs every program")
    m = _routed()
    import test_user_sweep3_emulated as s3
    import test_user_sweep4_emulated as s4

    p = m.PROGRAMS[name]
    twin = dataclasses.replace(p, spec=[(s[0], "float16") if isinstance(s, tuple) and s[1] == "bfloat16" else s
                                        for s in p.spec])
    s4.add_sweep_programs(monkeypatch, {name: twin})
    rng = np.random.default_rng(44)
    x = m.inputs(name, lambda shape, dt: rng.standard_normal(shape).astype(np.float16), lambda a: a)
    out = s3._chained(name, x, tuple(p.grid) + (1,))
    for pos, ref in m.reference(name, x).items():
        got = np.asarray(out[pos], np.float64)
        if got.shape[0] != ref.shape[0]:  # O [T, H, D] put back at the rows Idx by ct.scatter: the others unwritten
            others = np.ones(got.shape[0], bool)
            others[x[1]] = False
            assert np.isnan(got[others]).all(), "a row the scatter does not name was written"
            got = got[x[1]]
        assert not np.isnan(got).any(), f"argument {pos}: unwritten (or NaN) outputs"
        np.testing.assert_allclose(got, ref, atol=3e-3, rtol=1e-2)


def test_mixture_of_depths_routed_queries_match_numpy(monkeypatch):
    """Attention zoo 32's ``z32_mod_routed_queries`` (64 routed tokens at ascending positions, their queries gathered
    by ``ct.gather`` at an index tile loaded by ``ct.load``, causal by the routed positions; refused at the gather
    before session 44): now the chained kernel, emulated against numpy float64 (NaN-prefilled output).
    ``TILEORCH_EMULATE_ALL=1`` (its path is checked in CI by test_attnzoo32_compile.py)."""
    import os

    import numpy as np

    if not os.environ.get("TILEORCH_EMULATE_ALL"):
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 runs it")
    pytest.importorskip("cuda.tile")
    import test_user_sweep3_emulated as s3
    import test_user_sweep4_emulated as s4

    from tileorch.testing.attnzoo32_programs import _S64, PROGRAMS

    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    rng = np.random.default_rng(4432)
    q, k, v = (rng.standard_normal((2, 200, 64)).astype(np.float16) for _ in range(3))
    idx = np.sort(rng.choice(200, 64, replace=False)).astype(np.int32)
    o = np.asarray(s3._chained("z32_mod_routed_queries", {0: q, 1: k, 2: v, 3: idx}, (1, 2, 1))[4], np.float64)
    s = np.einsum("bnd,bsd->bns", q[:, idx].astype(np.float64), k.astype(np.float64)) * _S64
    s = np.where(np.arange(200)[None, None, :] <= idx[None, :, None], s, -np.inf)
    p = np.exp2(s - s.max(-1, keepdims=True))
    ref = np.einsum("bns,bsd->bnd", p / p.sum(-1, keepdims=True), v.astype(np.float64))
    assert not np.isnan(o).any()
    np.testing.assert_allclose(o, ref, atol=3e-3, rtol=1e-2)
