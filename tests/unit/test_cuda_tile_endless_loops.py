"""A ``cuda_tile.loop`` that no ``break`` (or ``return``) of its own leaves never ends: the compile
says so, a located warning at the loop (``transforms/cudatile_to_tileaa/endless_loops.py``);
loops left by a ``break`` in an ``if`` branch or by a ``return`` give none, and a ``break`` of an
inner loop does not end the outer one."""

from __future__ import annotations

from tileorch.diagnostics import parse_module
from tileorch.registry import make_context
from tileorch.transforms.cudatile_to_tileaa.endless_loops import endless_loop_warnings

MESSAGE = "warning: this loop has no break (and no return): it never ends, and the kernel never finishes"


def _warnings(body: str) -> list[str]:
    text = ("cuda_tile.module @m {\n  entry @k(%p: tile<ptr<f32>>) {\n"
            "    %c0 = constant <i32: 0> : tile<i32>\n    %t = constant <i1: true> : tile<i1>\n"
            f"{body}  }}\n}}\n")
    return endless_loop_warnings(parse_module(make_context(), text, "loops.mlir"))


def test_a_loop_without_break_is_a_located_warning():
    body = ("    %w = loop iter_values(%v = %c0) : tile<i32> -> tile<i32> {\n"
            "      continue %v : tile<i32>\n    }\n")
    assert _warnings(body) == [f"loops.mlir:5:5: {MESSAGE}"]


def test_a_break_of_an_inner_loop_does_not_end_the_outer_one():
    body = ("    loop {\n"
            "      loop {\n        if %t {\n          break\n        }\n        continue\n      }\n"
            "      continue\n    }\n")
    assert _warnings(body) == [f"loops.mlir:5:5: {MESSAGE}"]


def test_loops_left_by_a_break_or_a_return_give_none():
    breaks = ("    %w = loop iter_values(%v = %c0) : tile<i32> -> tile<i32> {\n"
              "      if %t {\n        break %v : tile<i32>\n      }\n      continue %v : tile<i32>\n    }\n")
    returns = "    loop {\n      if %t {\n        return\n      }\n      continue\n    }\n"
    assert _warnings(breaks) == [] and _warnings(returns) == []
