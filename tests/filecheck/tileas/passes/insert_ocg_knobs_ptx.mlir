// RUN: tileorch-opt %s -p tileas-insert-OCG-knobs,convert-nvvm-to-llvm -t ptx | filecheck %s
// The knobs survive to the PTX text (side-effecting inline asm, quotes escaped on the way).
builtin.module attributes {nv_tileaa.target_spec = 100 : i32} {
  llvm.func @k(%bar: !llvm.ptr<3>) {
    "llvm.inline_asm"() <{asm_string = "// tcgen05.mma stand-in", constraints = "", has_side_effects}> : () -> ()
    "llvm.inline_asm"() <{asm_string = "tcgen05.mma.placeholder;", constraints = "", has_side_effects}> : () -> ()
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    llvm.return
  }
}
// CHECK: .pragma "global knob SchedResBusyXU64=1";
// CHECK: .pragma "next knob FenceCode";
// CHECK: // end inline asm
// CHECK: fence.proxy.async.shared::cta;
