// RUN: tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt --verify-diagnostics | filecheck %s

// A bf16 atomic add for a target before sm_90 stays a located "not supported yet" error naming
// the op (atom.add.noftz.bf16 is sm_90's; the other bf16 atomics are refused by the verifier).

builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<80, 0>} {
  nv_tileaa.func @bf16_add_sm80(%fb: !nv_tileaa.ptr<bf16>) {
    %w = arith.constant 0.5 : bf16
    // CHECK: error: 'nv_tileaa.atomic_rmw' is not supported yet by convert-nv-tileaa-to-simt: atomic_rmw addf on bf16 elements before sm_90
    // expected-error @+1 {{atomic_rmw addf on bf16 elements before sm_90 (atom.add.noftz.bf16 is an sm_90 instruction; the target is sm_80)}}
    %o, %t = nv_tileaa.atomic_rmw %fb, %w {rmw_mode = #nv_tileaa.rmw_mode<addf>, mem_semantic = #nv_tileaa.mem_semantic<relaxed>, mem_scope = #nv_tileaa.mem_scope<gpu>} : !nv_tileaa.ptr<bf16>, bf16 -> bf16
    nv_tileaa.return
  }
}
