// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// Session 45: varlen attention with Q, K and V gathered at start + positions under the row mask (positions < n)
// (attnsweep43_programs.a43_varlen_gathered, head dim 64, 64-row tiles; start = CuSeq[b], n = CuSeq[b + 1] - start).
// tileas-row-window-gather makes each a row window of its packed [T, H, D] array: the chained kernel has a tensor
// map of each whole argument (Q arg 0, K arg 7, V arg 14) and loads its tiles at row start + 64 x (x: qt, j); the
// window's end, max(0, min(n, T - start)), is read once before the key loop; after each K/V full barrier wait the
// warp group zeroes, where the tile straddles the end (end - 64 j < 64), the stage's K and V rows past it (generic
// stores to shared memory, then fence.proxy.async), then its named barrier (3 + wg, 128 threads) before its WGMMAs;
// Q's rows past the end are zeroed the same way after the Q wait.  O goes back by the masked scatter.

// CHECK:      func.func @chained_dots_64x64x64_64_f16(%tmap_a0: {{.*}}, %tmap_b1: {{.*}}, %tmap_b2: {{.*}}, %0: !llvm.ptr
// CHECK-SAME: tmaps = [{arg = 0 : i64, {{[^}]*}}rows_dim = 0 : i64{{[^}]*}}}, {arg = 7 : i64, {{[^}]*}}}, {arg = 14 : i64, {{[^}]*}}}]
// CHECK-NOT:  q_gathered
// CHECK:      llvm.load %{{.*}} : !llvm.ptr<1> -> i32
// CHECK:      %a0q_c0 = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK:      nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %tmap_a0, %qbar, box[%a0q_c2, %a0q_c1, %a0q_c0]
// CHECK:      scf.for %pj =
// CHECK:      %b1nx_c0 = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK:      nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %tmap_b1, %nx_bar, box[%b1nx_c2, %a0q_c1, %b1nx_c0]
// CHECK:      nvvm.mbarrier.try_wait.parity %qbar
// CHECK:      %qz_part = arith.cmpi slt, %qz_rel, %{{.*}} : i32
// CHECK-NEXT: scf.if %qz_part {
// CHECK:      llvm.store %{{.*}}, %qz_p : i32, !llvm.ptr<3>
// CHECK:      nvvm.fence.proxy <async.shared>, space = <cta>
// CHECK:      nvvm.barrier id = %qz_bar number_of_threads = %c128_i
// CHECK:      %b1_wlim = arith.maxsi
// CHECK:      %b2_wlim = arith.maxsi
// CHECK:      scf.for %j =
// CHECK:      nvvm.mbarrier.try_wait.parity %fbar, %ph
// CHECK-NEXT: %zw_st = arith.trunci %st_l : i64 to i32
// CHECK:      %zwb1_lim = arith.subi %b1_wlim, %{{.*}} : i32
// CHECK:      %zwb1z_part = arith.cmpi slt, %zwb1_lim, %{{.*}} : i32
// CHECK-NEXT: scf.if %zwb1z_part {
// CHECK:      %zwb1z_past = arith.cmpi sge, %zwb1z_r, %zwb1_lim : i32
// CHECK:      llvm.store %{{.*}}, %zwb1z_p : i32, !llvm.ptr<3>
// CHECK:      nvvm.fence.proxy <async.shared>, space = <cta>
// CHECK:      %zwb2_lim = arith.subi %b2_wlim, %{{.*}} : i32
// CHECK:      scf.if %zwb2z_part {
// CHECK:      nvvm.fence.proxy <async.shared>, space = <cta>
// CHECK:      nvvm.barrier id = %zw_bar number_of_threads = %c128_i
// CHECK-NOT:  nvvm.barrier
// CHECK:      nvvm.wgmma.fence.aligned
// CHECK:      %s0 = nvvm.wgmma.mma_async

builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @a43_varlen_gathered_Kt1_A3f16_3l0_4t1_p16_A3f16_3l0_4t1_p16_A3f16_3l0_4t1_p16_A1i32_1t1_p16_A3f16_3l0_4t1_p16_Sf32_I64_I64_I64(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: i32, %6: i32, %7: !nv_tileaa.ptr<f16>, %8: i32, %9: i32, %10: i32, %11: i32, %12: i32, %13: i32, %14: !nv_tileaa.ptr<f16>, %15: i32, %16: i32, %17: i32, %18: i32, %19: i32, %20: i32, %21: !nv_tileaa.ptr<i32>, %22: i32, %23: i32, %24: !nv_tileaa.ptr<f16>, %25: i32, %26: i32, %27: i32, %28: i32, %29: i32, %30: i32, %31: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %32 = nv_tileaa.create_mem_token
    %33 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %34 = nv_tileaa.assume %7 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %35 = nv_tileaa.assume %14 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %36 = nv_tileaa.assume %21 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<i32>
    %37 = nv_tileaa.assume %24 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %38 = arith.constant 1 : i64
    %39 = arith.constant 1 : i64
    %40 = arith.constant dense<1> : tensor<64x64xi64>
    %41 = arith.constant dense<1> : tensor<64x64xi64>
    %42 = arith.constant dense<1> : tensor<64x64xi64>
    %43 = arith.constant dense<1> : tensor<64x64xi64>
    %44 = nv_tileaa.assume %1 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %45 = nv_tileaa.assume %2 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %46 = nv_tileaa.assume %3 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %47 = nv_tileaa.assume %4 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %48 = nv_tileaa.assume %5 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %49 = nv_tileaa.assume %8 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %50 = nv_tileaa.assume %9 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %51 = nv_tileaa.assume %10 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %52 = nv_tileaa.assume %11 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %53 = nv_tileaa.assume %12 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %54 = nv_tileaa.assume %15 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %55 = nv_tileaa.assume %16 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %56 = nv_tileaa.assume %17 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %57 = nv_tileaa.assume %18 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %58 = nv_tileaa.assume %19 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %59 = nv_tileaa.assume %22 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %60 = nv_tileaa.assume %25 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %61 = nv_tileaa.assume %26 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %62 = nv_tileaa.assume %27 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %63 = nv_tileaa.assume %28 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %64 = nv_tileaa.assume %29 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %65 = arith.constant 64 : i32
    %66 = arith.constant 64 : i32
    %67 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %68 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %69 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %70 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %71 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %72 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %73 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %74 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %75 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %76 = arith.constant 0 : i32
    %77 = arith.extsi %75 : i32 to i64
    %78 = arith.extsi %59 : i32 to i64
    %79 = arith.cmpi ult, %77, %78 : i64
    %80 = nv_tileaa.muli %77, %38 : i64
    %81 = nv_tileaa.offset %36, %80 : !nv_tileaa.ptr<i32>, i64 -> !nv_tileaa.ptr<i32>
    %82 = nv_tileaa.assume %81 {predicate = #nv_tileaa.div_by<4>} : !nv_tileaa.ptr<i32>
    %83, %84 = nv_tileaa.load %82 mask %79 : i1 other %76 : i32 token %32 : !nv_tileaa.ptr<i32> -> i32
    %85 = arith.constant 1 : i32
    %86 = nv_tileaa.addi %75, %85 : i32
    %87 = arith.constant 0 : i32
    %88 = arith.extsi %86 : i32 to i64
    %89 = arith.extsi %59 : i32 to i64
    %90 = arith.cmpi ult, %88, %89 : i64
    %91 = nv_tileaa.muli %88, %39 : i64
    %92 = nv_tileaa.offset %36, %91 : !nv_tileaa.ptr<i32>, i64 -> !nv_tileaa.ptr<i32>
    %93 = nv_tileaa.assume %92 {predicate = #nv_tileaa.div_by<4>} : !nv_tileaa.ptr<i32>
    %94, %95 = nv_tileaa.load %93 mask %90 : i1 other %87 : i32 token %32 : !nv_tileaa.ptr<i32> -> i32
    %96 = nv_tileaa.subi %94, %83 : i32
    %97 = nv_tileaa.muli %67, %65 : i32
    %98 = arith.cmpi sge, %97, %96 : i32
    scf.if %98 {
    } else {
      %99 = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %100 = nv_tileaa.expand_dims %99 {dim = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
      %101 = nv_tileaa.muli %67, %65 : i32
      %102 = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %103 = nv_tileaa.splat %101 : i32 -> tensor<1xi32>
      %104 = nv_tileaa.broadcast %103 : tensor<1xi32> -> tensor<64xi32>
      %105 = nv_tileaa.addi %104, %102 : tensor<64xi32>
      %106 = nv_tileaa.splat %96 : i32 -> tensor<1xi32>
      %107 = nv_tileaa.broadcast %106 : tensor<1xi32> -> tensor<64xi32>
      %108 = nv_tileaa.cmpi "slt", %105, %107 : tensor<64xi32> -> tensor<64xi1>
      %109 = nv_tileaa.expand_dims %108 {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %110 = nv_tileaa.expand_dims %105 {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %111 = nv_tileaa.splat %83 : i32 -> tensor<1x1xi32>
      %112 = nv_tileaa.broadcast %111 : tensor<1x1xi32> -> tensor<64x1xi32>
      %113 = nv_tileaa.addi %112, %110 : tensor<64x1xi32>
      %114 = nv_tileaa.extsi %113 : tensor<64x1xi32> -> tensor<64x1xi64>
      %115 = nv_tileaa.broadcast %114 : tensor<64x1xi64> -> tensor<64x64xi64>
      %116 = arith.extsi %44 : i32 to i64
      %117 = nv_tileaa.splat %116 : i64 -> tensor<1x1xi64>
      %118 = nv_tileaa.broadcast %117 : tensor<1x1xi64> -> tensor<64x64xi64>
      %119 = nv_tileaa.cmpi "ult", %115, %118 : tensor<64x64xi64> -> tensor<64x64xi1>
      %120 = arith.extsi %47 : i32 to i64
      %121 = nv_tileaa.splat %120 : i64 -> tensor<1x1xi64>
      %122 = nv_tileaa.broadcast %121 : tensor<1x1xi64> -> tensor<64x64xi64>
      %123 = nv_tileaa.muli %115, %122 : tensor<64x64xi64>
      %124 = arith.extsi %71 : i32 to i64
      %125 = nv_tileaa.splat %124 : i64 -> tensor<1x1xi64>
      %126 = nv_tileaa.broadcast %125 : tensor<1x1xi64> -> tensor<64x64xi64>
      %127 = arith.extsi %45 : i32 to i64
      %128 = nv_tileaa.splat %127 : i64 -> tensor<1x1xi64>
      %129 = nv_tileaa.broadcast %128 : tensor<1x1xi64> -> tensor<64x64xi64>
      %130 = nv_tileaa.cmpi "ult", %126, %129 : tensor<64x64xi64> -> tensor<64x64xi1>
      %131 = arith.andi %119, %130 : tensor<64x64xi1>
      %132 = arith.extsi %48 : i32 to i64
      %133 = nv_tileaa.splat %132 : i64 -> tensor<1x1xi64>
      %134 = nv_tileaa.broadcast %133 : tensor<1x1xi64> -> tensor<64x64xi64>
      %135 = nv_tileaa.muli %126, %134 : tensor<64x64xi64>
      %136 = nv_tileaa.addi %123, %135 : tensor<64x64xi64>
      %137 = nv_tileaa.extsi %100 : tensor<1x64xi32> -> tensor<1x64xi64>
      %138 = nv_tileaa.broadcast %137 : tensor<1x64xi64> -> tensor<64x64xi64>
      %139 = arith.extsi %46 : i32 to i64
      %140 = nv_tileaa.splat %139 : i64 -> tensor<1x1xi64>
      %141 = nv_tileaa.broadcast %140 : tensor<1x1xi64> -> tensor<64x64xi64>
      %142 = nv_tileaa.cmpi "ult", %138, %141 : tensor<64x64xi64> -> tensor<64x64xi1>
      %143 = arith.andi %131, %142 : tensor<64x64xi1>
      %144 = nv_tileaa.muli %138, %40 : tensor<64x64xi64>
      %145 = nv_tileaa.addi %136, %144 : tensor<64x64xi64>
      %146 = nv_tileaa.splat %33 : !nv_tileaa.ptr<f16> -> tensor<1x1x!nv_tileaa.ptr<f16>>
      %147 = nv_tileaa.broadcast %146 : tensor<1x1x!nv_tileaa.ptr<f16>> -> tensor<64x64x!nv_tileaa.ptr<f16>>
      %148 = nv_tileaa.offset %147, %145 : tensor<64x64x!nv_tileaa.ptr<f16>>, tensor<64x64xi64> -> tensor<64x64x!nv_tileaa.ptr<f16>>
      %149 = nv_tileaa.broadcast %109 : tensor<64x1xi1> -> tensor<64x64xi1>
      %150 = arith.andi %143, %149 : tensor<64x64xi1>
      %151 = arith.constant 0.000000e+00 : f16
      %152 = nv_tileaa.splat %151 : f16 -> tensor<1x1xf16>
      %153 = nv_tileaa.broadcast %152 : tensor<1x1xf16> -> tensor<64x64xf16>
      %154, %155 = nv_tileaa.load %148 mask %150 : tensor<64x64xi1> other %153 : tensor<64x64xf16> token %32 : tensor<64x64x!nv_tileaa.ptr<f16>> -> tensor<64x64xf16>
      %156 = arith.constant dense<0xff800000> : tensor<64x1xf32>
      %157 = arith.constant dense<0.000000e+00> : tensor<64x1xf32>
      %158 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
      %159 = arith.constant 1 : i32
      %160 = nv_tileaa.addi %67, %159 : i32
      %161 = nv_tileaa.muli %160, %65 : i32
      %162 = arith.minsi %161, %96 : i32
      %163 = arith.ceildivsi %162, %66 : i32
      %164 = arith.constant 0 : i32
      %165 = arith.constant 1 : i32
      %166 = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %167 = nv_tileaa.splat %96 : i32 -> tensor<1xi32>
      %168 = nv_tileaa.broadcast %167 : tensor<1xi32> -> tensor<64xi32>
      %169 = nv_tileaa.splat %83 : i32 -> tensor<1x1xi32>
      %170 = nv_tileaa.broadcast %169 : tensor<1x1xi32> -> tensor<64x1xi32>
      %171 = arith.extsi %49 : i32 to i64
      %172 = nv_tileaa.splat %171 : i64 -> tensor<1x1xi64>
      %173 = nv_tileaa.broadcast %172 : tensor<1x1xi64> -> tensor<64x64xi64>
      %174 = arith.extsi %52 : i32 to i64
      %175 = nv_tileaa.splat %174 : i64 -> tensor<1x1xi64>
      %176 = nv_tileaa.broadcast %175 : tensor<1x1xi64> -> tensor<64x64xi64>
      %177 = arith.extsi %71 : i32 to i64
      %178 = nv_tileaa.splat %177 : i64 -> tensor<1x1xi64>
      %179 = nv_tileaa.broadcast %178 : tensor<1x1xi64> -> tensor<64x64xi64>
      %180 = arith.extsi %50 : i32 to i64
      %181 = nv_tileaa.splat %180 : i64 -> tensor<1x1xi64>
      %182 = nv_tileaa.broadcast %181 : tensor<1x1xi64> -> tensor<64x64xi64>
      %183 = nv_tileaa.cmpi "ult", %179, %182 : tensor<64x64xi64> -> tensor<64x64xi1>
      %184 = arith.extsi %53 : i32 to i64
      %185 = nv_tileaa.splat %184 : i64 -> tensor<1x1xi64>
      %186 = nv_tileaa.broadcast %185 : tensor<1x1xi64> -> tensor<64x64xi64>
      %187 = nv_tileaa.muli %179, %186 : tensor<64x64xi64>
      %188 = nv_tileaa.extsi %100 : tensor<1x64xi32> -> tensor<1x64xi64>
      %189 = nv_tileaa.broadcast %188 : tensor<1x64xi64> -> tensor<64x64xi64>
      %190 = arith.extsi %51 : i32 to i64
      %191 = nv_tileaa.splat %190 : i64 -> tensor<1x1xi64>
      %192 = nv_tileaa.broadcast %191 : tensor<1x1xi64> -> tensor<64x64xi64>
      %193 = nv_tileaa.cmpi "ult", %189, %192 : tensor<64x64xi64> -> tensor<64x64xi1>
      %194 = nv_tileaa.muli %189, %41 : tensor<64x64xi64>
      %195 = nv_tileaa.splat %34 : !nv_tileaa.ptr<f16> -> tensor<1x1x!nv_tileaa.ptr<f16>>
      %196 = nv_tileaa.broadcast %195 : tensor<1x1x!nv_tileaa.ptr<f16>> -> tensor<64x64x!nv_tileaa.ptr<f16>>
      %197 = arith.constant 0.000000e+00 : f16
      %198 = nv_tileaa.splat %197 : f16 -> tensor<1x1xf16>
      %199 = nv_tileaa.broadcast %198 : tensor<1x1xf16> -> tensor<64x64xf16>
      %200 = nv_tileaa.splat %83 : i32 -> tensor<1x1xi32>
      %201 = nv_tileaa.broadcast %200 : tensor<1x1xi32> -> tensor<64x1xi32>
      %202 = arith.extsi %54 : i32 to i64
      %203 = nv_tileaa.splat %202 : i64 -> tensor<1x1xi64>
      %204 = nv_tileaa.broadcast %203 : tensor<1x1xi64> -> tensor<64x64xi64>
      %205 = arith.extsi %57 : i32 to i64
      %206 = nv_tileaa.splat %205 : i64 -> tensor<1x1xi64>
      %207 = nv_tileaa.broadcast %206 : tensor<1x1xi64> -> tensor<64x64xi64>
      %208 = arith.extsi %71 : i32 to i64
      %209 = nv_tileaa.splat %208 : i64 -> tensor<1x1xi64>
      %210 = nv_tileaa.broadcast %209 : tensor<1x1xi64> -> tensor<64x64xi64>
      %211 = arith.extsi %55 : i32 to i64
      %212 = nv_tileaa.splat %211 : i64 -> tensor<1x1xi64>
      %213 = nv_tileaa.broadcast %212 : tensor<1x1xi64> -> tensor<64x64xi64>
      %214 = nv_tileaa.cmpi "ult", %210, %213 : tensor<64x64xi64> -> tensor<64x64xi1>
      %215 = arith.extsi %58 : i32 to i64
      %216 = nv_tileaa.splat %215 : i64 -> tensor<1x1xi64>
      %217 = nv_tileaa.broadcast %216 : tensor<1x1xi64> -> tensor<64x64xi64>
      %218 = nv_tileaa.muli %210, %217 : tensor<64x64xi64>
      %219 = nv_tileaa.extsi %100 : tensor<1x64xi32> -> tensor<1x64xi64>
      %220 = nv_tileaa.broadcast %219 : tensor<1x64xi64> -> tensor<64x64xi64>
      %221 = arith.extsi %56 : i32 to i64
      %222 = nv_tileaa.splat %221 : i64 -> tensor<1x1xi64>
      %223 = nv_tileaa.broadcast %222 : tensor<1x1xi64> -> tensor<64x64xi64>
      %224 = nv_tileaa.cmpi "ult", %220, %223 : tensor<64x64xi64> -> tensor<64x64xi1>
      %225 = nv_tileaa.muli %220, %42 : tensor<64x64xi64>
      %226 = nv_tileaa.splat %35 : !nv_tileaa.ptr<f16> -> tensor<1x1x!nv_tileaa.ptr<f16>>
      %227 = nv_tileaa.broadcast %226 : tensor<1x1x!nv_tileaa.ptr<f16>> -> tensor<64x64x!nv_tileaa.ptr<f16>>
      %228 = arith.constant 0.000000e+00 : f16
      %229 = nv_tileaa.splat %228 : f16 -> tensor<1x1xf16>
      %230 = nv_tileaa.broadcast %229 : tensor<1x1xf16> -> tensor<64x64xf16>
      %231 = nv_tileaa.expand_dims %105 {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %232 = nv_tileaa.broadcast %231 : tensor<64x1xi32> -> tensor<64x64xi32>
      %233 = nv_tileaa.splat %96 : i32 -> tensor<1x1xi32>
      %234 = nv_tileaa.broadcast %233 : tensor<1x1xi32> -> tensor<1x64xi32>
      %235 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
      %236 = nv_tileaa.splat %31 : f32 -> tensor<1x1xf32>
      %237 = nv_tileaa.broadcast %236 : tensor<1x1xf32> -> tensor<64x64xf32>
      %238 = arith.constant 0xff800000 : f32
      %239 = nv_tileaa.splat %238 : f32 -> tensor<1x1xf32>
      %240 = nv_tileaa.broadcast %239 : tensor<1x1xf32> -> tensor<64x64xf32>
      %241, %242, %243 = scf.for %244 = %164 to %163 step %165 iter_args(%245 = %158, %246 = %157, %247 = %156) -> (tensor<64x64xf32>, tensor<64x1xf32>, tensor<64x1xf32>) : i32 {
        %248 = nv_tileaa.muli %244, %66 : i32
        %249 = nv_tileaa.splat %248 : i32 -> tensor<1xi32>
        %250 = nv_tileaa.broadcast %249 : tensor<1xi32> -> tensor<64xi32>
        %251 = nv_tileaa.addi %250, %166 : tensor<64xi32>
        %252 = nv_tileaa.cmpi "slt", %251, %168 : tensor<64xi32> -> tensor<64xi1>
        %253 = nv_tileaa.expand_dims %252 {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
        %254 = nv_tileaa.expand_dims %251 {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
        %255 = nv_tileaa.addi %170, %254 : tensor<64x1xi32>
        %256 = nv_tileaa.extsi %255 : tensor<64x1xi32> -> tensor<64x1xi64>
        %257 = nv_tileaa.broadcast %256 : tensor<64x1xi64> -> tensor<64x64xi64>
        %258 = nv_tileaa.cmpi "ult", %257, %173 : tensor<64x64xi64> -> tensor<64x64xi1>
        %259 = nv_tileaa.muli %257, %176 : tensor<64x64xi64>
        %260 = arith.andi %258, %183 : tensor<64x64xi1>
        %261 = nv_tileaa.addi %259, %187 : tensor<64x64xi64>
        %262 = arith.andi %260, %193 : tensor<64x64xi1>
        %263 = nv_tileaa.addi %261, %194 : tensor<64x64xi64>
        %264 = nv_tileaa.offset %196, %263 : tensor<64x64x!nv_tileaa.ptr<f16>>, tensor<64x64xi64> -> tensor<64x64x!nv_tileaa.ptr<f16>>
        %265 = nv_tileaa.broadcast %253 : tensor<64x1xi1> -> tensor<64x64xi1>
        %266 = arith.andi %262, %265 : tensor<64x64xi1>
        %267, %268 = nv_tileaa.load %264 mask %266 : tensor<64x64xi1> other %199 : tensor<64x64xf16> token %32 : tensor<64x64x!nv_tileaa.ptr<f16>> -> tensor<64x64xf16>
        %269 = nv_tileaa.expand_dims %251 {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
        %270 = nv_tileaa.addi %201, %269 : tensor<64x1xi32>
        %271 = nv_tileaa.extsi %270 : tensor<64x1xi32> -> tensor<64x1xi64>
        %272 = nv_tileaa.broadcast %271 : tensor<64x1xi64> -> tensor<64x64xi64>
        %273 = nv_tileaa.cmpi "ult", %272, %204 : tensor<64x64xi64> -> tensor<64x64xi1>
        %274 = nv_tileaa.muli %272, %207 : tensor<64x64xi64>
        %275 = arith.andi %273, %214 : tensor<64x64xi1>
        %276 = nv_tileaa.addi %274, %218 : tensor<64x64xi64>
        %277 = arith.andi %275, %224 : tensor<64x64xi1>
        %278 = nv_tileaa.addi %276, %225 : tensor<64x64xi64>
        %279 = nv_tileaa.offset %227, %278 : tensor<64x64x!nv_tileaa.ptr<f16>>, tensor<64x64xi64> -> tensor<64x64x!nv_tileaa.ptr<f16>>
        %280 = nv_tileaa.broadcast %253 : tensor<64x1xi1> -> tensor<64x64xi1>
        %281 = arith.andi %277, %280 : tensor<64x64xi1>
        %282, %283 = nv_tileaa.load %279 mask %281 : tensor<64x64xi1> other %230 : tensor<64x64xf16> token %32 : tensor<64x64x!nv_tileaa.ptr<f16>> -> tensor<64x64xf16>
        %284 = nv_tileaa.expand_dims %251 {dim = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
        %285 = nv_tileaa.broadcast %284 : tensor<1x64xi32> -> tensor<64x64xi32>
        %286 = nv_tileaa.cmpi "sle", %285, %232 : tensor<64x64xi32> -> tensor<64x64xi1>
        %287 = nv_tileaa.expand_dims %251 {dim = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
        %288 = nv_tileaa.cmpi "slt", %287, %234 : tensor<1x64xi32> -> tensor<1x64xi1>
        %289 = nv_tileaa.broadcast %288 : tensor<1x64xi1> -> tensor<64x64xi1>
        %290 = arith.andi %286, %289 : tensor<64x64xi1>
        %291 = "nv_tileaa.permute"(%267) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
        %292 = nv_tileaa.dot %154, %291, %235 {matmul_fast_accum = false} : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
        %293 = nv_tileaa.mulf %292, %237 : tensor<64x64xf32>
        %294 = nv_tileaa.select %290, %293, %240 : tensor<64x64xi1>, tensor<64x64xf32>
        %295 = "nv_tileaa.reduce"(%294) <{dim = 1 : i32, identities = [0xff800000 : f32]}> ({
        ^bb0(%296: f32, %297: f32):
          %298 = nv_tileaa.maxf %296, %297 : f32
          "nv_tileaa.yield"(%298) : (f32) -> ()
        }) : (tensor<64x64xf32>) -> tensor<64xf32>
        %299 = nv_tileaa.expand_dims %295 {dim = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
        %300 = nv_tileaa.maxf %247, %299 : tensor<64x1xf32>
        %301 = nv_tileaa.broadcast %300 : tensor<64x1xf32> -> tensor<64x64xf32>
        %302 = nv_tileaa.subf %294, %301 : tensor<64x64xf32>
        %303 = nv_tileaa.exp2 %302 : tensor<64x64xf32>
        %304 = nv_tileaa.subf %247, %300 : tensor<64x1xf32>
        %305 = nv_tileaa.exp2 %304 : tensor<64x1xf32>
        %306 = "nv_tileaa.reduce"(%303) <{dim = 1 : i32, identities = [0.000000e+00 : f32]}> ({
        ^bb0(%307: f32, %308: f32):
          %309 = nv_tileaa.addf %307, %308 : f32
          "nv_tileaa.yield"(%309) : (f32) -> ()
        }) : (tensor<64x64xf32>) -> tensor<64xf32>
        %310 = nv_tileaa.expand_dims %306 {dim = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
        %311 = nv_tileaa.fma %246, %305, %310 : tensor<64x1xf32>
        %312 = nv_tileaa.fp_to_fp %303 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
        %313 = nv_tileaa.broadcast %305 : tensor<64x1xf32> -> tensor<64x64xf32>
        %314 = nv_tileaa.mulf %245, %313 : tensor<64x64xf32>
        %315 = nv_tileaa.dot %312, %282, %314 {matmul_fast_accum = false} : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
        scf.yield %315, %311, %300 : tensor<64x64xf32>, tensor<64x1xf32>, tensor<64x1xf32>
      }
      %316 = nv_tileaa.expand_dims %105 {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %317 = nv_tileaa.splat %83 : i32 -> tensor<1x1xi32>
      %318 = nv_tileaa.broadcast %317 : tensor<1x1xi32> -> tensor<64x1xi32>
      %319 = nv_tileaa.addi %318, %316 : tensor<64x1xi32>
      %320 = nv_tileaa.broadcast %242 : tensor<64x1xf32> -> tensor<64x64xf32>
      %321 = nv_tileaa.divf %241, %320 : tensor<64x64xf32>
      %322 = nv_tileaa.fp_to_fp %321 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %323 = nv_tileaa.extsi %319 : tensor<64x1xi32> -> tensor<64x1xi64>
      %324 = nv_tileaa.broadcast %323 : tensor<64x1xi64> -> tensor<64x64xi64>
      %325 = arith.extsi %60 : i32 to i64
      %326 = nv_tileaa.splat %325 : i64 -> tensor<1x1xi64>
      %327 = nv_tileaa.broadcast %326 : tensor<1x1xi64> -> tensor<64x64xi64>
      %328 = nv_tileaa.cmpi "ult", %324, %327 : tensor<64x64xi64> -> tensor<64x64xi1>
      %329 = arith.extsi %63 : i32 to i64
      %330 = nv_tileaa.splat %329 : i64 -> tensor<1x1xi64>
      %331 = nv_tileaa.broadcast %330 : tensor<1x1xi64> -> tensor<64x64xi64>
      %332 = nv_tileaa.muli %324, %331 : tensor<64x64xi64>
      %333 = arith.extsi %71 : i32 to i64
      %334 = nv_tileaa.splat %333 : i64 -> tensor<1x1xi64>
      %335 = nv_tileaa.broadcast %334 : tensor<1x1xi64> -> tensor<64x64xi64>
      %336 = arith.extsi %61 : i32 to i64
      %337 = nv_tileaa.splat %336 : i64 -> tensor<1x1xi64>
      %338 = nv_tileaa.broadcast %337 : tensor<1x1xi64> -> tensor<64x64xi64>
      %339 = nv_tileaa.cmpi "ult", %335, %338 : tensor<64x64xi64> -> tensor<64x64xi1>
      %340 = arith.andi %328, %339 : tensor<64x64xi1>
      %341 = arith.extsi %64 : i32 to i64
      %342 = nv_tileaa.splat %341 : i64 -> tensor<1x1xi64>
      %343 = nv_tileaa.broadcast %342 : tensor<1x1xi64> -> tensor<64x64xi64>
      %344 = nv_tileaa.muli %335, %343 : tensor<64x64xi64>
      %345 = nv_tileaa.addi %332, %344 : tensor<64x64xi64>
      %346 = nv_tileaa.extsi %100 : tensor<1x64xi32> -> tensor<1x64xi64>
      %347 = nv_tileaa.broadcast %346 : tensor<1x64xi64> -> tensor<64x64xi64>
      %348 = arith.extsi %62 : i32 to i64
      %349 = nv_tileaa.splat %348 : i64 -> tensor<1x1xi64>
      %350 = nv_tileaa.broadcast %349 : tensor<1x1xi64> -> tensor<64x64xi64>
      %351 = nv_tileaa.cmpi "ult", %347, %350 : tensor<64x64xi64> -> tensor<64x64xi1>
      %352 = arith.andi %340, %351 : tensor<64x64xi1>
      %353 = nv_tileaa.muli %347, %43 : tensor<64x64xi64>
      %354 = nv_tileaa.addi %345, %353 : tensor<64x64xi64>
      %355 = nv_tileaa.splat %37 : !nv_tileaa.ptr<f16> -> tensor<1x1x!nv_tileaa.ptr<f16>>
      %356 = nv_tileaa.broadcast %355 : tensor<1x1x!nv_tileaa.ptr<f16>> -> tensor<64x64x!nv_tileaa.ptr<f16>>
      %357 = nv_tileaa.offset %356, %354 : tensor<64x64x!nv_tileaa.ptr<f16>>, tensor<64x64xi64> -> tensor<64x64x!nv_tileaa.ptr<f16>>
      %358 = nv_tileaa.broadcast %109 : tensor<64x1xi1> -> tensor<64x64xi1>
      %359 = arith.andi %352, %358 : tensor<64x64xi1>
      %360 = nv_tileaa.store %322, %357 mask %359 : tensor<64x64xi1> token %32 : tensor<64x64xf16>, tensor<64x64x!nv_tileaa.ptr<f16>>
    }
    nv_tileaa.return
  }
}

