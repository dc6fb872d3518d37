// RUN: tileorch-opt %s -p convert-gpu-ids-to-nvvm | filecheck %s

// A kernel with two returning blocks and a gpu id read nested in an scf.if: every id becomes a
// special register read, every func.return of the kernel an llvm.return, the kernel an
// llvm.func; a function that is no kernel keeps its func.return.

builtin.module {
  func.func @k(%n: index, %c: i1) attributes {nvvm.kernel} {
    cf.cond_br %c, ^a, ^b
  ^a:
    %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    func.return
  ^b:
    scf.if %c {
      %g = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      scf.yield
    }
    func.return
  }
  func.func @helper() -> i32 {
    %l = "gpu.lane_id"() : () -> index
    %z = arith.constant 0 : i32
    func.return %z : i32
  }
}

// CHECK:      llvm.func @k(%{{.*}}: i64, %{{.*}}: i1)
// CHECK:        builtin.unrealized_conversion_cast %{{.*}} : i64 to index
// CHECK:        nvvm.read.ptx.sreg.tid.x
// CHECK-NEXT:   arith.index_cast
// CHECK-NEXT:   llvm.return
// CHECK:        nvvm.read.ptx.sreg.ctaid.y
// CHECK:        llvm.return
// CHECK-NOT:    func.return
// CHECK:      func.func @helper()
// CHECK:        nvvm.read.ptx.sreg.laneid
// CHECK:        func.return
