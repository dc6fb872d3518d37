// A type parameter out of range is reported at the integer itself (line:col of the parameter),
// not at the closing `>` or the next token, with and without --verify-diagnostics.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: not tileorch-opt %s --split-input-file 2>&1 | filecheck %s

"test.op"() : () -> !cutlass.pipeline<stages = 2, producers = 0, consumers = 1>
// CHECK: type_param_locations.mlir:6:63: error: pipeline producer count must be in [1, 16], found 0
// -----
"test.op"() : () -> !cutlass.pipeline<stages = -3,
                                      producers = 1, consumers = 1>
// CHECK: type_param_locations.mlir:9:48: error: pipeline stage count must be in [1, 32], found -3
// -----
"test.op"() : () -> !cutlass.seq_bar<depth = 40, length = 1>
// CHECK: type_param_locations.mlir:13:46: error: seq_bar depth must be in [1, 32], found 40
// -----
"test.op"() : () -> !cutlass.seq_bar_state<0>
// CHECK: type_param_locations.mlir:16:44: error: seq_bar_state depth must be in [1, 32], found 0
// -----
"test.op"() : () -> !cutlass.dynamic_participants<1, 17>
// CHECK: type_param_locations.mlir:19:54: error: dynamic_participants consumer count must be in [1, 16], found 17
