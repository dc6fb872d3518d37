"""Passes that look for a few op names walk the module once for them (issue 22), with the result of
the walks they replaced: ``cutlass-allocate-barrier-ids`` (each kernel once for its claimants and
its barrier uses), ``lower-cutlass-pipeline-to-tileas`` (one walk for the names, then only the
steps that have ops to act on) and the wait-group dedup of ``convert-pipeline-to-nvvm`` (the tags
dropped as they are read).  The walk counts fail on the code before the change (2 per kernel, 5,
2); the equivalence tests compare with the steps run as before on every input that has cutlass
pipelines."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import Operation

from tileorch.diagnostics import parse_module
from tileorch.registry import make_context
from tileorch.transforms import cutlass_to_tileas as c2t
from tileorch.transforms.barrier_ids import AllocateBarrierIds, barrier_claimants, barrier_uses, cta_pools
from tileorch.transforms.pipeline_to_nvvm.async_ops import DEDUP_TAG
from tileorch.transforms.pipeline_to_nvvm.dedup import dedup_wait_groups

ROOT = Path(__file__).resolve().parents[2]
PIPELINE_INPUTS = sorted(
    [*ROOT.glob("examples/*.mlir"), ROOT / "tests/filecheck/consumer_idx/lowering.mlir"],
    key=lambda p: p.name)

PLAIN = """func.func @k(%a: i32) -> i32 {
  %b = arith.addi %a, %a : i32
  func.return %b : i32
}
func.func @h() {
  func.return
}
"""


def _parse(text: str, name: str = "walks.mlir"):
    return parse_module(make_context(), text, name)


@pytest.fixture
def walks(monkeypatch):
    """The number of ``Operation.walk`` calls made while the fixture is active."""
    count = [0]
    walk = Operation.walk

    def counted(self, *args, **kwargs):
        count[0] += 1
        return walk(self, *args, **kwargs)

    monkeypatch.setattr(Operation, "walk", counted)
    return count


def test_barrier_pools_walk_each_kernel_once(walks):
    module = _parse(PLAIN)
    walks[0] = 0
    cta_pools(module)
    assert walks[0] == 2  # two top-level ops, one walk each (was two each)


@pytest.mark.parametrize("path", PIPELINE_INPUTS, ids=lambda p: p.name)
def test_barrier_pools_as_the_two_walks_listed_them(path):
    module = _parse(path.read_text(), str(path))
    pools = cta_pools(module)
    tops = list(module.body.block.ops)
    expected_claimants = [op for top in tops for op in barrier_claimants(top)]
    expected_uses = [u for top in tops for u in barrier_uses(top)]
    assert [op for p in pools for op in p.claimants] == [op for op in expected_claimants]
    assert sorted(id(op) for p in pools for op, _ in p.uses) == sorted(id(op) for op, _ in expected_uses)
    AllocateBarrierIds().apply(make_context(), module)  # still allocates (no error on the examples)


def test_pipeline_to_tileas_walks_once_without_pipelines(walks):
    module = _parse(PLAIN)
    before = str(module)
    walks[0] = 0
    c2t.LowerCutlassPipelineToTileas().apply(make_context(), module)
    assert walks[0] == 1  # the names' walk only (was one walk per step: 5)
    assert str(module) == before


def _all_steps(module) -> None:
    """The pass's five steps, each walking the module (the code before the change)."""
    indices = c2t.consumer_indices(module)
    bound = c2t.bind_pipelines(module)
    c2t.expand_stage_ops(module, bound, indices)
    c2t.switches_to_agents(module)
    c2t.pair_handshakes(module, bound, indices)


@pytest.mark.parametrize("path", PIPELINE_INPUTS, ids=lambda p: p.name)
def test_pipeline_to_tileas_as_all_steps(path):
    text = path.read_text()
    ours, theirs = _parse(text, str(path)), _parse(text, str(path))
    c2t.LowerCutlassPipelineToTileas().apply(make_context(), ours)
    _all_steps(theirs)
    assert str(ours) == str(theirs)


def _tagged_waits_module():
    module = _parse("""func.func @k() {
  nvvm.cp.async.bulk.wait_group 1
  nvvm.cp.async.bulk.wait_group 0
  func.return
}
""")
    for op in module.walk():
        if op.name == "nvvm.cp.async.bulk.wait_group":
            op.attributes[DEDUP_TAG] = UnitAttr()
    return module


def test_dedup_walks_once_and_drops_every_tag(walks):
    module = _tagged_waits_module()
    walks[0] = 0
    dedup_wait_groups(module)
    assert walks[0] == 1  # (was two: the dedup's and the tags')
    waits = [op for op in module.walk() if op.name == "nvvm.cp.async.bulk.wait_group"]
    assert len(waits) == 1 and waits[0].properties["group"].value.data == 0
    assert not any(DEDUP_TAG in op.attributes for op in module.walk())
