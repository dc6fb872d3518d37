"""``tile_program_kind``: the input classification the driver routes by, in one walk, agrees with
``is_cuda_tile_module`` / ``is_tileaa_module`` (cuda_tile first) on every kind of module."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp

from tileorch.backend.compile import parse_text
from tileorch.driver import input_kind, lower_program
from tileorch.frontend.cutile import is_cuda_tile_module, is_tileaa_module, load, tile_program_kind
from tileorch.registry import make_context

ROOT = Path(__file__).resolve().parents[2]


def _expected(module: ModuleOp) -> str:
    if is_cuda_tile_module(module):
        return "cuda_tile"
    return "nv_tileaa" if is_tileaa_module(module) else ""


def _cuda_tile() -> ModuleOp:
    data = (ROOT / "tests/unit/cutile_bytecode/add.tileirbc").read_bytes()
    return load(data, "add.tileirbc", make_context())


def _tileaa() -> ModuleOp:
    return parse_text(make_context(), (ROOT / "examples/tile_gemm.mlir").read_text(), "tile_gemm.mlir")


def _cutlass() -> ModuleOp:
    return parse_text(make_context(), (ROOT / "examples/gemm_sm90.mlir").read_text(), "gemm_sm90.mlir")


def _lowered_simt() -> ModuleOp:
    ctx = make_context()
    data = (ROOT / "tests/unit/cutile_bytecode/softmax.tileirbc").read_bytes()
    kind, module = lower_program(load(data, "softmax.tileirbc", ctx), ctx)
    assert kind == "simt"
    return module


@pytest.mark.parametrize("make, kind, routed", [(_cuda_tile, "cuda_tile", "cuda_tile"),
                                                (_tileaa, "nv_tileaa", "nv_tileaa"),
                                                (_cutlass, "", "cutlass"),
                                                (_lowered_simt, "", "cutlass")])
def test_kind_of_each_input(make, kind, routed):
    module = make()
    assert tile_program_kind(module) == kind == _expected(module)
    assert input_kind(module) == routed


def test_cuda_tile_wins_over_tileaa_in_one_module():
    """A module holding both (a cuda_tile.module after an nv_tileaa.func) is a cuda_tile program,
    as when the two questions were asked in that order."""
    both = _tileaa()
    cuda = _cuda_tile()
    for op in list(cuda.body.block.ops):
        op.detach()
        both.body.block.add_op(op)
    assert is_tileaa_module(both) and is_cuda_tile_module(both)
    assert tile_program_kind(both) == "cuda_tile" == _expected(both)


def test_empty_module_is_neither():
    assert tile_program_kind(ModuleOp([])) == "" == _expected(ModuleOp([]))
