// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Each case breaks one rule of the CUDA Tile IR specification; the error names the line.

cuda_tile.module @m {
  entry @e() {
    %a = constant <i32: 1> : tile<4xi32>
    %b = constant <f32: 1.0> : tile<4xf32>
    // CHECK: verify_errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: {{.*}}operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got 'tile<4xi32>'
    %c = addf %a, %a : tile<4xi32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    // CHECK: verify_errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: all dimensions must be powers of two, got [3]
    %a = constant <i32: [1, 2, 3]> : tile<3xi32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <f64: 1.0> : tile<f64>
    // CHECK: verify_errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: flush_to_zero modifier only supported for f32 data type, but got: f64
    %b = addf %a, %a flush_to_zero : tile<f64>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <f16: 1.0> : tile<16x16xf16>
    %c = constant <f32: 0.0> : tile<16x8xf32>
    // CHECK: verify_errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: acc shape must be 16x16, got 16x8
    %d = mmaf %a, %a, %c : tile<16x16xf16>, tile<16x16xf16>, tile<16x8xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %pv = make_partition_view %tv : partition_view<tile=(16x16), tensor_view<64x64xf32, strides=[64,1]>>
    %i = constant <i32: 0> : tile<i32>
    // CHECK: verify_errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: expected 2 index operands (based on view type), got 1
    %t, %tok = load_view_tko weak %pv[%i] : partition_view<tile=(16x16), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> tile<16x16xf32>, token
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    // CHECK: verify_errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tile shape dimensions must have power of two length but got [16, 12]
    %pv = make_partition_view %tv : partition_view<tile=(16x12), tensor_view<64x64xf32, strides=[64,1]>>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %pv = make_partition_view %tv : partition_view<tile=(16x16), tensor_view<64x64xf32, strides=[64,1]>>
    %i = constant <i32: 0> : tile<i32>
    %v = constant <f32: 0.0> : tile<16x16xf32>
    // CHECK: verify_errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: memory ordering semantics 'relaxed' requires a memory scope
    %t = store_view_tko relaxed %v, %pv[%i, %i] : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> token
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %pv = make_partition_view %tv : partition_view<tile=(16x16), tensor_view<64x64xf32, strides=[64,1]>>
    %i = constant <i32: 0> : tile<i32>
    %v = constant <f32: 0.0> : tile<16x16xf32>
    // CHECK: verify_errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: operation specifies weak memory ordering semantics, but then provides "device" scope
    %t2 = store_view_tko weak device %v, %pv[%i, %i] : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> token
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %c = constant <i1: true> : tile<i1>
    %v = constant <i32: 1> : tile<i32>
    // CHECK: verify_errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: does not return a value, but then branch yields 'tile<i32>'
    if %c {
      yield %v : tile<i32>
    }
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>) {
    %c = constant <i32: 0> : tile<i32>
    %x = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    // CHECK: verify_errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: loop-carried value 0 is a tensor_view
    %r = for %i in (%c to %c, step %c) : tile<i32> iter_values(%a = %x) -> (tensor_view<64xf32, strides=[1]>) {
      continue %a : tensor_view<64xf32, strides=[1]>
    }
  }
}

// -----

// ftof rounds to nearest even or toward zero (cuTile 1.7's astype(..., rounding_mode=RZ)); other modes are refused

cuda_tile.module @m {
  entry @e() {
    %b = constant <f32: 1.0> : tile<4xf32>
    %z = ftof %b rounding<zero> : tile<4xf32> -> tile<4xf16>
    // CHECK: verify_errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: invalid rounding mode specified. Only 'nearest_even' and 'zero' are supported
    %m = ftof %b rounding<negative_inf> : tile<4xf32> -> tile<4xf16>
  }
}
