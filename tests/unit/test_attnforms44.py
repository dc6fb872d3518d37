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
