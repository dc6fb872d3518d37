// REQUIRES: ptxas
// The debug-timeout report (vprintf + trap) and the block-striped accesses survive the backend
// and ptxas -arch=sm_90a accepts them.
// RUN: tileorch-opt %S/patterns_debug_timeout.mlir -p 'cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm{debug-timeout=1000}' -o %t.dbg.mlir
// RUN: tileorch compile %t.dbg.mlir -o %t.dbg.ptx
// RUN: filecheck %s --check-prefix=DBG < %t.dbg.ptx
// RUN: tileorch compile %s -o %t.bs.ptx
// RUN: filecheck %s --check-prefix=BS < %t.bs.ptx
// DBG: .extern .func (.param .b32 func_retval0) vprintf
// DBG: .local .align 8 .b8 __local_depot0[48];
// DBG: mbarrier.try_wait.parity.shared.b64
// DBG: call.uni (retval0), vprintf, (param0, param1);
// DBG: trap;
// DBG: ld.global.acquire.gpu.b32
// BS: ld.global.v2.b32 {{.*}}[[[A:%rd[0-9]+]]];
// BS: ld.global.v2.b32 {{.*}}[[[A]]+1024];
// BS: st.shared.v2.b32
// BS: st.shared.v2.b32 {{.*}}+1024]
// BS: atom.global.add.f32 {{.*}}[[[R:%rd[0-9]+]]]
// BS: atom.global.add.f32 {{.*}}[[[R]]+512]
builtin.module {
  func.func @bs(%p: !llvm.ptr<1>, %q: !llvm.ptr<3>, %t: i32, %f: vector<4xf32>) attributes {nvvm.kernel} {
    %v = cutlass.block_striped.load %p, %t n_threads_in_block = 128 access_width = 2 : !llvm.ptr<1> -> vector<4xf32>
    cutlass.block_striped.store %v, %q, %t n_threads_in_block = 128 access_width = 2 : vector<4xf32>, !llvm.ptr<3>
    cutlass.block_striped.reduce add %f, %p, %t n_threads_in_block = 128 : vector<4xf32>, !llvm.ptr<1>
    func.return
  }
}
