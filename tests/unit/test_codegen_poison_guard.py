"""LLVM's poison-reuse guard (issue 22): code generation turns it off only for LLVM IR without
poison-generating flags, and turns it back on for IR with them, module by module."""

import pytest

from tileorch.backend import ptx

KERNEL = """target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @"{name}"(ptr addrspace(1) %out, i64 %base, i64 %n) {{
entry:
  %t = mul i64 %n, 5
  %x = add{flag} i64 %base, %t
  %p1 = getelementptr i64, ptr addrspace(1) %out, i64 1
  store i64 %x, ptr addrspace(1) %p1
  %t2 = mul i64 %n, 7
  %y = add i64 %base, %t2
  %p2 = getelementptr i64, ptr addrspace(1) %out, i64 2
  store i64 %y, ptr addrspace(1) %p2
  ret void
}}
"""


@pytest.mark.parametrize("line", [
    "%a = add nsw i32 %x, %y", "%a = mul nuw i32 %x, 3", "%a = shl nuw nsw i32 %x, 2", "%a = udiv exact i32 %x, 4",
    "%a = or disjoint i32 %x, %y", "%a = zext nneg i32 %x to i64", "%a = trunc nuw i64 %x to i32",
    "%a = getelementptr inbounds i8, ptr %p, i64 %i", "%a = getelementptr nusw i8, ptr %p, i64 %i",
    "%a = icmp samesign ult i32 %x, %y", "%a = getelementptr inrange(0, 8) i8, ptr %p, i64 1",
    "%a = call i32 @llvm.abs.i32(i32 %x, i1 true)", "%a = load i32, ptr %p, !range !0",
    "%a = call range(i32 0, 1024) i32 @f()", "%a = call nonnull ptr @g()", "%a = load ptr, ptr %p, !align !1",
])
def test_each_poison_generating_flag_keeps_the_guard(line):
    assert ptx.poison_reuse_guard_needed(f"define void @f() {{\n  {line}\n  ret void\n}}\n")


def test_flag_free_ir_drops_the_guard_even_where_a_name_contains_a_flag_word():
    text = KERNEL.format(name="k", flag="")
    assert not ptx.poison_reuse_guard_needed(text)
    # a word inside a longer name is no flag (no word boundary): still the fast path
    assert not ptx.poison_reuse_guard_needed(text.replace("%base", '%"nsw_base"').replace("%n)", '%"exactly")')
                                             .replace("%n,", '%"exactly",'))


def test_codegen_sets_the_guard_for_each_module(monkeypatch):
    llvm = ptx._init_llvm()
    calls = []
    real = llvm.set_option
    monkeypatch.setattr(llvm, "set_option", lambda name, option: (calls.append(option), real(name, option)))
    monkeypatch.setattr(ptx, "_POISON_GUARD", None)
    plain, flagged = KERNEL.format(name="k", flag=""), KERNEL.format(name="k", flag=" nsw")
    for text in (plain, plain, flagged, plain):
        out = ptx.codegen(text, ptx.DEFAULT_ARCH, ptx.DEFAULT_PTX_VERSION)
        assert ".visible .entry k(" in out
    # set once per change, not once per module; the last value is LLVM's until the next module
    assert calls == ["-enable-poison-reuse-guard=false", "-enable-poison-reuse-guard=true",
                     "-enable-poison-reuse-guard=false"]
    monkeypatch.undo()
    ptx._set_poison_reuse_guard(llvm, True)  # leave LLVM as it was before this test (its default)
    ptx._POISON_GUARD = None
