// REQUIRES: ptxas
// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa | filecheck %s --check-prefix=AA
// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s --check-prefix=SIMT
// RUN: tileorch compile %s -o %t.ptx --cubin %t.cubin
// RUN: filecheck %s --check-prefix=PTX < %t.ptx
// RUN: python -c "import sys; d = open(sys.argv[1], 'rb').read(); sys.exit(0 if d[16] == 2 else 'relocatable cubin')" %t.cubin

// cuTile's ct.printf(format, *tiles): convert-cudatile-to-tileaa keeps it as nv_tileaa.print (its
// token a fresh one).  The SIMT lowering stages the tile in the scratch; thread 0 prints the
// whole text with one call of the PTX system call vprintf, the tile as a bracketed list, each
// element with the conversion (as tileiras 13.4 prints it): the scalar as 4 bytes at offset 0,
// the eight elements as 4 bytes each after it, the f16 scalar promoted to double at offset 40
// (aligned to 8).  ptxas resolves vprintf: the cubin is an executable (ELF type 2).

cuda_tile.module @m {
  entry @printing(%p: tile<ptr<f32>>, %n: tile<i32>) {
    %x = iota : tile<8xi32>
    %h = constant <f16: 1.5> : tile<f16>
    // AA: nv_tileaa.print "n=%d x=%5d h=%.2f 100%%\0A", %{{.*}}, %{{.*}}, %{{.*}} : i32, tensor<8xi32>, f16
    // AA-NEXT: nv_tileaa.create_mem_token
    %t = print_tko "n=%d x=%5d h=%.2f 100%%\n", %n, %x, %h : tile<i32>, tile<8xi32>, tile<f16> -> token
    return
  }
}

// SIMT-DAG: llvm.mlir.global internal constant @[[FMT:__tileorch_fmt_printing_0]]("n=%d x=[%5d, %5d, %5d, %5d, %5d, %5d, %5d, %5d] h=%.2f 100%%\0A\00")
// SIMT-DAG: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// SIMT: func.func @printing(%[[P:.*]]: !llvm.ptr<1>, %[[N:.*]]: i32)
// SIMT: %[[BUF:.*]] = llvm.alloca %{{.*}} x i64 {alignment = 8 : i64}
// SIMT: nvvm.barrier
// SIMT: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// SIMT: nvvm.barrier
// SIMT: %[[ZERO:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// SIMT: scf.if %[[ZERO]]
// SIMT: llvm.mlir.addressof @[[FMT]]
// SIMT: %[[O4:.*]] = arith.constant 4 : i32
// SIMT: llvm.store %[[N]], %[[BUF]] : i32, !llvm.ptr
// SIMT-NEXT: llvm.getelementptr %[[BUF]][%[[O4]]] : (!llvm.ptr, i32) -> !llvm.ptr, i8
// SIMT: %[[O32:.*]] = arith.constant 32 : i32
// SIMT-NEXT: llvm.getelementptr %[[BUF]][%[[O32]]] : (!llvm.ptr, i32) -> !llvm.ptr, i8
// SIMT: %[[O40:.*]] = arith.constant 40 : i32
// SIMT-NEXT: %[[AT40:.*]] = llvm.getelementptr %[[BUF]][%[[O40]]] : (!llvm.ptr, i32) -> !llvm.ptr, i8
// SIMT-NEXT: llvm.store %{{.*}}, %[[AT40]] : f64, !llvm.ptr
// SIMT-NEXT: llvm.call @vprintf(%{{.*}}, %[[BUF]]) : (!llvm.ptr, !llvm.ptr) -> i32
// SIMT-NOT: llvm.call @vprintf
// SIMT: nvvm.barrier

// PTX: .extern .func (.param .b32 func_retval0) vprintf
// PTX: call.uni (retval0), vprintf, (param0, param1);
// PTX-NOT: atom
