// RUN: tileorch-opt %s -p nvvm-auto-gdc-insertion | filecheck %s
// RUN: tileorch-opt %s -p 'nvvm-auto-gdc-insertion{insert-launch-dependents=false}' | filecheck %s --check-prefix=NOTRIGGER
// RUN: tileorch-opt %s -p nvvm-auto-gdc-insertion,verify-gdc-wait | filecheck %s --check-prefix=CHECKED
// nvvm-auto-gdc-insertion (programmatic dependent launch): launch_dependents first in each kernel; the wait as
// late as the structure allows: in each branch of the role switch (the producer's thread 0 after setmaxnreg and
// its coordinate math, right before its TMA load; the other producer threads, which touch no global memory,
// before their branch ends; the consumers before their loop, which stores to global memory); the tensor-map
// prefetch of a kernel parameter, barrier init and bar.sync stay before it.  A kernel without a global access
// waits before its return; a function that is no kernel is left alone.
builtin.module {
  func.func @k(%tmap: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64, nvvm.grid_constant},
               %out: !llvm.ptr<1>, %n: i32) attributes {nvvm.kernel} {
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : i32
    %t0 = arith.cmpi eq, %tid, %c0 : i32
    scf.if %t0 {
      nvvm.mbarrier.init.shared %smem, %c1 : !llvm.ptr<3>, i32
      nvvm.prefetch tensormap, %tmap : !llvm.ptr
    }
    nvvm.barrier
    %prod = arith.cmpi uge, %tid, %c128 : i32
    scf.if %prod {
      nvvm.setmaxregister decrease 24
      %tp = arith.cmpi eq, %tid, %c128 : i32
      scf.if %tp {
        %x = arith.muli %n, %c128 : i32
        %dst = llvm.addrspacecast %smem : !llvm.ptr<3> to !llvm.ptr<7>
        nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tmap, %smem, box[%x, %c0] : !llvm.ptr<7>, !llvm.ptr
      }
    } else {
      nvvm.setmaxregister increase 240
      %lb = arith.constant 0 : index
      %ub = arith.constant 4 : index
      %st = arith.constant 1 : index
      scf.for %i = %lb to %ub step %st {
        llvm.store %c1, %out : i32, !llvm.ptr<1>
      }
    }
    func.return
  }
  func.func @nothing_global(%smem: !llvm.ptr<3>) attributes {nvvm.kernel} {
    %c1 = arith.constant 1 : i32
    llvm.store %c1, %smem : i32, !llvm.ptr<3>
    func.return
  }
  func.func @in_blocks(%out: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %c1 = arith.constant 1 : i32
    cf.br ^bb1
  ^bb1:
    llvm.store %c1, %out : i32, !llvm.ptr<1>
    func.return
  }
  func.func @not_a_kernel(%out: !llvm.ptr<1>) {
    %c1 = arith.constant 1 : i32
    llvm.store %c1, %out : i32, !llvm.ptr<1>
    func.return
  }
  "llvm.mlir.global"() <{global_type = !llvm.array<0 x i8>, sym_name = "smem", linkage = #llvm.linkage<"external">, addr_space = 3 : i32, alignment = 1024 : i64}> ({}) : () -> ()
}
// CHECK:      builtin.module attributes {tileorch.pdl_kernels = ["k", "nothing_global"], tileorch.pdl_remarks = [{{.*}}kernel 'k' compiled for programmatic dependent launch (TILEORCH_PDL=1): griddepcontrol.wait at 3 place(s){{.*}}gdc_insertion.mlir:49:3: remark: kernel 'in_blocks' not compiled for programmatic dependent launch (TILEORCH_PDL=1): its control flow is in blocks{{.*}}
// CHECK-LABEL: func.func @k(
// CHECK-NEXT:   nvvm.griddepcontrol launch_dependents
// CHECK-NOT:    griddepcontrol
// CHECK:        nvvm.prefetch tensormap, %tmap
// CHECK-NOT:    griddepcontrol
// CHECK:        nvvm.barrier
// CHECK-NOT:    griddepcontrol
// CHECK:        scf.if %prod {
// CHECK-NEXT:     nvvm.setmaxregister decrease 24
// CHECK-NEXT:     %tp = arith.cmpi eq, %tid, %c128 : i32
// CHECK-NEXT:     scf.if %tp {
// CHECK-NEXT:       %x = arith.muli %n, %c128 : i32
// CHECK-NEXT:       %dst = llvm.addrspacecast %smem : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT:       nvvm.griddepcontrol wait
// CHECK-NEXT:       nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NEXT:     } else {
// CHECK-NEXT:       nvvm.griddepcontrol wait
// CHECK-NEXT:     }
// CHECK-NEXT:   } else {
// CHECK-NEXT:     nvvm.setmaxregister increase 240
// CHECK:          nvvm.griddepcontrol wait
// CHECK-NEXT:     scf.for
// CHECK-NEXT:       llvm.store
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   func.return
// CHECK-LABEL: func.func @nothing_global(
// CHECK-NEXT:   nvvm.griddepcontrol launch_dependents
// CHECK-NEXT:   arith.constant
// CHECK-NEXT:   llvm.store
// CHECK-NEXT:   nvvm.griddepcontrol wait
// CHECK-NEXT:   func.return
// CHECK-LABEL: func.func @in_blocks(
// CHECK-NOT:    griddepcontrol
// CHECK:        func.return
// CHECK-LABEL: func.func @not_a_kernel(
// CHECK-NOT:    griddepcontrol
// CHECK:        func.return
// NOTRIGGER-NOT: launch_dependents
// CHECKED: func.func @k(
