"""Optimization hints under ``-Werr-hints`` (``cuda_tile.ops.STRICT_HINTS``, which the conformance
tool sets): unknown architectures and hints, wrong kinds and out-of-range values are located
errors; by default (the specification) they are ignored.  The hints are set on a parsed op as the
bytecode reader builds them (any attribute per architecture), so the rules the text syntax
cannot spell (a hint set that is not a dictionary) are reached too."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import BoolAttr, DictionaryAttr, FloatAttr, IntegerAttr, f32, i32

from tileorch.dialects.cuda_tile import attrs as A
from tileorch.dialects.cuda_tile import ops as ct_ops
from tileorch.diagnostics import parse_module, verify_located
from tileorch.registry import make_context

PROGRAM = """cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %m: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %tok = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %t, %t1 = load_view_tko weak %pv[%c0] token = %tok : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token
  }
}
"""


def _errors(op_name: str, hints: dict) -> list[str]:
    module = parse_module(make_context(), PROGRAM, "hints.mlir")
    op = next(o for o in module.walk() if o.name == op_name)
    op.properties["optimization_hints"] = A.OptimizationHintsAttr(DictionaryAttr(hints))
    return verify_located(module)


def _int(n: int) -> IntegerAttr:
    return IntegerAttr(n, i32)


CASES = [
    ("cuda_tile.entry", {"sm_77": DictionaryAttr({"occupancy": _int(1)})},
     "hints.mlir:2:3: error: Optimization hints verification failed: unknown hint key sm_77"),
    ("cuda_tile.entry", {"sm_90": _int(5)},
     "hints.mlir:2:3: error: optimization hints for 'sm_90' must be a dictionary"),
    ("cuda_tile.entry", {"sm_90": DictionaryAttr({"latency": _int(2)})},
     "hints.mlir:2:3: error: unknown optimization hint 'latency' for entry (allowed: num_cta_in_cga, "
     "num_worker_warps_per_cta, occupancy)"),
    ("cuda_tile.entry", {"sm_90": DictionaryAttr({"occupancy": FloatAttr(1.5, f32)})},
     "hints.mlir:2:3: error: optimization hint 'occupancy' must be an integer"),
    ("cuda_tile.entry", {"default": DictionaryAttr({"num_cta_in_cga": _int(3)})},
     "hints.mlir:2:3: error: num_cta_in_cga must be a power of two in [1, 16], got 3"),
    ("cuda_tile.entry", {"sm_90": DictionaryAttr({"occupancy": _int(33)})},
     "hints.mlir:2:3: error: occupancy must be in [1, 32], got 33"),
    ("cuda_tile.entry", {"sm_90": DictionaryAttr({"num_worker_warps_per_cta": _int(6)})},
     "hints.mlir:2:3: error: expected power-of-two <= 32 for sm_90.num_worker_warps_per_cta"),
    ("cuda_tile.load_view_tko", {"sm_90": DictionaryAttr({"latency": _int(11)})},
     "hints.mlir:7:5: error: latency must be in [1, 10], got 11"),
    ("cuda_tile.load_view_tko", {"sm_90": DictionaryAttr({"allow_tma": FloatAttr(1.0, f32)})},
     "hints.mlir:7:5: error: optimization hint 'allow_tma' must be a boolean"),
]


@pytest.mark.parametrize("op_name, hints, error", CASES, ids=[c[2].split("error: ")[1][:40] for c in CASES])
def test_strict_hints_are_located_errors(monkeypatch, op_name, hints, error):
    monkeypatch.setattr(ct_ops, "STRICT_HINTS", True)
    assert _errors(op_name, hints) == [error]


@pytest.mark.parametrize("op_name, hints, error", CASES[:1] + CASES[4:6] + CASES[-2:])
def test_hints_are_ignored_by_default(monkeypatch, op_name, hints, error):
    monkeypatch.setattr(ct_ops, "STRICT_HINTS", False)
    assert _errors(op_name, hints) == []


def test_valid_hints_verify_under_werr_hints(monkeypatch):
    monkeypatch.setattr(ct_ops, "STRICT_HINTS", True)
    good = DictionaryAttr({"num_cta_in_cga": _int(2), "occupancy": _int(1)})
    assert _errors("cuda_tile.entry", {"sm_90": good}) == []
    assert _errors("cuda_tile.load_view_tko", {"sm_90": DictionaryAttr({"latency": _int(3),
                                                                        "allow_tma": BoolAttr(True, 1)})}) == []
