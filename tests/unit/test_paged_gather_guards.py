"""Guards of ``tileas-paged-gather`` not reachable from verified IR of one pattern: a float constant takes part in a
block-uniform page index only when it is a splat (``_Rows.uniform``; the page's scalar is read from one element),
and an index the rewrite truncates to i32 must be a 32-bit value (``_fits32``)."""

from __future__ import annotations

from tileorch.diagnostics import parse_module
from tileorch.registry import make_context
from tileorch.transforms.tileas.paged_gather import _fits32, _Rows

SOURCE = """
builtin.module {
  func.func @f(%x: i32, %y: i64, %v: tensor<4xi32>, %w: tensor<4xi64>) {
    %splat = arith.constant dense<1.5> : tensor<4xf32>
    %rows = arith.constant dense<[0.0, 1.0, 0.0, 1.0]> : tensor<4xf32>
    %xe = arith.extsi %x : i32 to i64
    %ve = nv_tileaa.extsi %v : tensor<4xi32> -> tensor<4xi64>
    %small = arith.constant dense<7> : tensor<4xi64>
    %big = arith.constant dense<4294967296> : tensor<4xi64>
    %sum = nv_tileaa.addi %ve, %big : tensor<4xi64>
    func.return
  }
}
"""


def _values():
    module = parse_module(make_context(), SOURCE, "guards.mlir")
    func = next(o for o in module.walk() if o.name == "func.func")
    args = func.body.block.args
    named = {"x": args[0], "y": args[1], "v": args[2], "w": args[3]}
    for op in func.body.block.ops:
        if op.results:
            named[op.results[0].name_hint] = op.results[0]
    return named


def test_float_constant_is_uniform_only_as_a_splat():
    v = _values()
    assert _Rows(4).uniform(v["splat"])
    assert not _Rows(4).uniform(v["rows"])


def test_fits32_accepts_32_bit_values_only():
    v = _values()
    for ok in ("x", "v", "xe", "ve", "small"):
        assert _fits32(v[ok]), ok
    for bad in ("y", "w", "big", "sum"):
        assert not _fits32(v[bad]), bad
