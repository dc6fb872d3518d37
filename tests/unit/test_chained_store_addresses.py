"""The chained kernel's per-element store addresses share what every element of a store repeats (issue 22,
session 39, ``Emitter.once``): the store's strides extended to i64 and its tile origin
``index * step`` are built once per emitter, not once per element (LLVM merged the copies; the PTX of every
chained input of ``tools/ptx_identity.py`` is the same)."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

pytest.importorskip("xdsl")

PROGRAM = Path(__file__).resolve().parents[1] / "filecheck" / "tileas" / "tier_chained_dots.mlir"


def _repeats(module, names: tuple[str, ...]) -> collections.Counter:
    """Per op name, the ops of ``names`` that repeat an op of the same block (same name, operands, result types)."""
    out: collections.Counter = collections.Counter()
    for op in module.walk():
        for region in op.regions:
            for block in region.blocks:
                seen = set()
                for o in block.ops:
                    if o.name in names:
                        key = (o.name, tuple(id(x) for x in o.operands), tuple(r.type for r in o.results))
                        out[o.name] += key in seen
                        seen.add(key)
    return out


def test_each_stride_is_extended_once_per_block(monkeypatch):
    import tileorch.transforms  # noqa: F401  (the passes' op construction)
    from xdsl.parser import Parser

    from tileorch.backend.pipeline import parse_pipeline, run_passes
    from tileorch.registry import make_context

    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "0")
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "0")
    ctx = make_context()
    module = Parser(ctx, PROGRAM.read_text()).parse_module()
    run_passes(ctx, module, parse_pipeline("tileas-tier,convert-nv-tileas-to-cutlass"))
    stores = sum(1 for op in module.walk() if op.name == "llvm.store")
    assert stores >= 32  # the epilogue's element stores are there (one per accumulator element and thread)
    assert _repeats(module, ("arith.extsi",))["arith.extsi"] == 0  # (276 before: one per element and dimension)
