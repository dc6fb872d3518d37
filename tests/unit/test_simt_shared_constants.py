"""One ``arith.constant`` per value and block in the SIMT lowering (``Emitter.share_constants``,
issue 22), and the translator's direct calls of xDSL's arms (``llvm_translate._XDSL_ARMS``):
neither changes the LLVM IR of a kernel, which is compared here with each of them undone."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdsl")

from xdsl.dialects import arith  # noqa: E402
from xdsl.dialects.builtin import i32, i64  # noqa: E402
from xdsl.ir import Block  # noqa: E402

import tileorch.transforms  # noqa: E402,F401  (the lowering passes' op construction)
from tileorch.transforms.tileaa_to_simt.emit import Emitter  # noqa: E402

PROGRAM = Path(__file__).resolve().parents[1] / "filecheck" / "tileaa_to_simt" / "types_shapes_ptx.mlir"


def _constants(block: Block) -> list[arith.ConstantOp]:
    return [op for op in block.ops if isinstance(op, arith.ConstantOp)]


def test_an_emitter_shares_its_constants_per_value_and_block():
    block = Block()
    e = Emitter(block, 128, share_constants=True)
    three = e.const(3)
    assert e.const(3) is three and e.const(3, i64) is not three
    zero, negzero = e.fconst(0.0), e.fconst(-0.0)
    assert zero is not negzero and e.fconst(0.0) is zero  # 0.0 and -0.0 are different bits
    assert len(_constants(block)) == 4
    inner_block = Block()
    inner = e.nested(inner_block)
    assert inner.share_constants and inner.const(3) is not three  # another block: its own
    assert inner.const(3) is inner.const(3) and len(_constants(inner_block)) == 1
    plain_block = Block()
    plain = Emitter(plain_block, 128, share_constants=False)  # asked for: one constant per use
    assert plain.const(3) is not plain.const(3) and len(_constants(plain_block)) == 2
    assert not plain.nested(Block()).share_constants
    tier_block = Block()
    tier = Emitter(tier_block, 128)  # the TileAS tier's builders (the default since session 39): shared
    assert tier.const(3) is tier.const(3) and len(_constants(tier_block)) == 1
    assert not tier.appends_only and e.nested(Block()).appends_only is e.appends_only


def _first_program() -> str:
    return PROGRAM.read_text().split("// -----")[0]


def compile_first_kernel(emit: str = "llvm", counted=lambda op: op.name == "llvm.mlir.constant") -> tuple[str, int]:
    """(LLVM IR, or PTX for ``emit="ptx"``; the ops of the lowered module ``counted`` selects:
    its ``llvm.mlir.constant`` ops unless said) of the first kernel of PROGRAM (no ptxas)."""
    from tileorch.backend import compile as backend_compile
    from tileorch.driver import compile_text

    seen: list[int] = []
    translate = backend_compile.translate_module

    def counting(module):
        seen.append(sum(1 for op in module.walk() if counted(op)))
        return translate(module)

    backend_compile.translate_module = counting
    try:
        text = _first_program().replace("convert-nv-tileaa-to-simt,lower-to-llvm", "convert-nv-tileaa-to-simt")
        result = compile_text(text, str(PROGRAM), emit=emit, ptxas=False)
    finally:
        backend_compile.translate_module = translate
    return (result.ptx if emit == "ptx" else result.llvm_ir), seen[0]


def _llvm_ir() -> tuple[str, int]:
    return compile_first_kernel()


def test_shared_constants_and_direct_arms_leave_the_llvm_ir_unchanged(monkeypatch):
    from tileorch.backend import llvm_translate

    shared, shared_constants = _llvm_ir()
    # one constant per use (the emitter before session 21), translated through xDSL's match only
    monkeypatch.setattr(Emitter, "_constant", lambda self, attr: self.v(arith.ConstantOp(attr)))
    monkeypatch.setattr(llvm_translate, "_XDSL_ARMS", {})
    monkeypatch.setattr(llvm_translate, "_TRANSLATORS", {})
    plain, plain_constants = _llvm_ir()
    assert shared_constants < plain_constants
    assert shared == plain
    assert "define" in shared and "fp8" in shared


def test_once_makes_a_value_once_per_key_and_emitter():
    block = Block()
    e = Emitter(block, 128)
    a, b = Block(arg_types=[i32, i32]).args
    made = []

    def make(x):
        made.append(x)
        return e.mul_i(x, e.const(64))

    first = e.once(("tile origin", a, 64), lambda: make(a))
    assert e.once(("tile origin", a, 64), lambda: make(a)) is first  # the same SSA value and step: made once
    assert e.once(("tile origin", b, 64), lambda: make(b)) is not first  # another value: its own
    assert e.once(("tile origin", a, 32), lambda: make(a)) is not first  # another step: its own
    assert made == [a, b, a]
    other = e.nested(Block())
    assert other.once(("tile origin", a, 64), lambda: make(a)) is not first  # another emitter (block): its own
    plain = Emitter(Block(), 128, share_constants=False)
    assert plain.once(("k", a), lambda: make(a)) is not plain.once(("k", a), lambda: make(a))
