// RUN: tileorch-opt %s -t llvm-ir | filecheck %s --check-prefix=IR
// RUN: tileorch-opt %s -t ptx | filecheck %s --check-prefix=PTX
// An inline-asm string holding `"` (ptxas .pragma knobs) or `\` must be escaped in the LLVM IR
// text (\22, \5C); written raw it ended the string literal and the IR did not parse.
builtin.module {
  llvm.func @k() {
    "llvm.inline_asm"() <{asm_string = ".pragma \"next knob FenceCode\";\n", constraints = "", has_side_effects}> : () -> ()
    "llvm.inline_asm"() <{asm_string = ".pragma \"global knob SchedResBusyXU64=1\";\n", constraints = "", has_side_effects}> : () -> ()
    llvm.return
  }
}
// IR: call void asm sideeffect ".pragma \22next knob FenceCode\22;
// IR: call void asm sideeffect ".pragma \22global knob SchedResBusyXU64=1\22;
// PTX: .pragma "next knob FenceCode";
// PTX: .pragma "global knob SchedResBusyXU64=1";
