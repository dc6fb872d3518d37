// RUN: tileorch-opt %s --verify-diagnostics -p tileas-plan-cta | filecheck %s
// Two adjacent converts both tagged forward (left by an interrupted earlier plan) cannot merge.
#r = #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>
#rc = #nv_tileas.layout<reg, atom = blocked, warps = [4, 1], cta = [2, 1]>
builtin.module {
  nv_tileaa.func @bad(%x: tensor<128x32xf32, #rc>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<2, 4>} {
    %f = nv_tileas.convert_layout %x {plancta.direction = "forward"} : tensor<128x32xf32, #rc> -> tensor<128x32xf32, #r>
    %g = nv_tileas.convert_layout %f {plancta.direction = "forward"} : tensor<128x32xf32, #r> -> tensor<128x32xf32, #rc>
    nv_tileaa.return
  }
}
// CHECK: plan_cta_errors.mlir:8:5: error: Expected pattern of adjacent cvts: forward + backward
