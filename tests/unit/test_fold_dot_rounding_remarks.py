"""The remarks ``tileas-fold-dot-accumulate`` states while it rewrites (``remark_sink``): one located remark per dot
whose rounding to a 16-bit float a rewrite drops, for each rounding form; none where nothing is rounded (an f32 dot)
and none when no driver collects (``tileorch-opt``)."""

from __future__ import annotations

from tileorch.diagnostics import parse_module
from tileorch.registry import make_context
from tileorch.transforms import remark_sink
from tileorch.transforms.tileas.fold_dot_accumulate import FoldDotAccumulate

_HEAD = """builtin.module {
  func.func @f(%x: tensor<128x64xf16>, %w1: tensor<64x128xf16>, %z: tensor<128x64xf16>, %w2: tensor<64x128xf16>,
               %n: i32) -> tensor<128x128xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.0> : tensor<128x128xf32>
    %z16 = arith.constant dense<0.0> : tensor<128x128xf16>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> (tensor<128x128xf32>) : i32 {
"""
_TAIL = """      scf.yield %s : tensor<128x128xf32>
    }
    func.return %acc : tensor<128x128xf32>
  }
}
"""
_D = ": tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128x{t}> -> tensor<128x128x{t}>"

# The fifth form: two f16 products summed (in f16), widened, accumulated (the dots on lines 9 and 10).
SUMMED = _HEAD + f"""      %p1 = nv_tileaa.dot %x, %w1, %z16 {_D.format(t="f16")}
      %p2 = nv_tileaa.dot %z, %w2, %z16 {_D.format(t="f16")}
      %p = nv_tileaa.addf %p1, %p2 : tensor<128x128xf16>
      %w = nv_tileaa.fp_to_fp %p : tensor<128x128xf16> -> tensor<128x128xf32>
      %s = nv_tileaa.addf %a, %w : tensor<128x128xf32>
""" + _TAIL

# The first form: one f16 product widened and accumulated (the dot on line 9).
ONE = _HEAD + f"""      %p1 = nv_tileaa.dot %x, %w1, %z16 {_D.format(t="f16")}
      %w = nv_tileaa.fp_to_fp %p1 : tensor<128x128xf16> -> tensor<128x128xf32>
      %s = nv_tileaa.addf %a, %w : tensor<128x128xf32>
""" + _TAIL

# An f32 product accumulated: nothing rounded, no remark.
F32 = _HEAD + f"""      %p1 = nv_tileaa.dot %x, %w1, %init {_D.format(t="f32")}
      %s = nv_tileaa.addf %a, %p1 : tensor<128x128xf32>
""" + _TAIL


def _remarks(text: str) -> tuple[list[str], str, str]:
    ctx = make_context()
    module = parse_module(ctx, text, "r.mlir")
    before = str(module)
    with remark_sink.collecting() as said:
        FoldDotAccumulate().apply(ctx, module)
    return said.get(FoldDotAccumulate.name, []), before, str(module)


def test_summed_products_remark_each_dot():
    said, before, after = _remarks(SUMMED)
    assert before != after  # (the fifth rewrite made: the remarks are its own)
    assert len(said) == 2, said
    assert said[0].startswith("r.mlir:9:") and said[1].startswith("r.mlir:10:"), said
    assert all("remark:" in r and "rounds to f16" in r for r in said)


def test_one_product_remark():
    said, _, _ = _remarks(ONE)
    assert len(said) == 1 and said[0].startswith("r.mlir:9:") and "rounds to f16" in said[0], said


def test_f32_product_no_remark():
    said, _, _ = _remarks(F32)
    assert said == []


def test_no_collector_no_remark():
    """Outside ``collecting`` (tileorch-opt) the pass rewrites and says nothing (no list to say it to)."""
    ctx = make_context()
    module = parse_module(ctx, ONE, "r.mlir")
    before = str(module)
    FoldDotAccumulate().apply(ctx, module)
    assert str(module) != before and remark_sink.sink(FoldDotAccumulate.name) is None


def test_collections_are_per_thread():
    """Two threads compiling at once each collect their own passes' remarks (review, session 38)."""
    import threading

    seen: dict[str, list] = {}
    ready = threading.Barrier(2)

    def compile_in(name: str) -> None:
        with remark_sink.collecting() as said:
            ready.wait()
            remark_sink.sink("p").append(name)
            ready.wait()
        seen[name] = said.get("p", [])

    threads = [threading.Thread(target=compile_in, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {"a": ["a"], "b": ["b"]}
    assert remark_sink.sink("p") is None
