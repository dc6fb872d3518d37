// RUN: not tileorch-opt %s --split-input-file -p convert-cudatile-to-tileaa 2>&1 | filecheck %s

// ct.printf formats tileorch does not print: located errors at the print, never a traceback.

cuda_tile.module @m {
  entry @k(%n: tile<i32>) {
    %t = print_tko "name %s\n", %n : tile<i32> -> token
    return
  }
}
// CHECK: print_errors.mlir:7:{{[0-9]+}}: error: '%s' in the print format is not supported: tile elements print as numbers

// -----

cuda_tile.module @m {
  entry @k(%n: tile<i32>) {
    %t = print_tko "char %c\n", %n : tile<i32> -> token
    return
  }
}
// CHECK: print_errors.mlir:[[# @LINE - 4]]:{{[0-9]+}}: error: '%c' in the print format is not supported

// -----

cuda_tile.module @m {
  entry @k(%n: tile<i32>) {
    %t = print_tko "at %p\n", %n : tile<i32> -> token
    return
  }
}
// CHECK: print_errors.mlir:[[# @LINE - 4]]:{{[0-9]+}}: error: '%p' in the print format is not supported

// -----

cuda_tile.module @m {
  entry @k(%n: tile<i32>) {
    %t = print_tko "width %*d\n", %n : tile<i32> -> token
    return
  }
}
// (cuda_tile's own verifier stops a '*' width first)
// CHECK: print_errors.mlir:[[# @LINE - 5]]:{{[0-9]+}}: error: found unterminated format expression

// -----

cuda_tile.module @m {
  entry @k(%n: tile<i64>) {
    %t = print_tko "size %zd\n", %n : tile<i64> -> token
    return
  }
}
// CHECK: print_errors.mlir:[[# @LINE - 4]]:{{[0-9]+}}: error: '%zd' in the print format: the length 'z' is not supported

// -----

cuda_tile.module @m {
  entry @k(%x: tile<f32>) {
    %t = print_tko "x %d\n", %x : tile<f32> -> token
    return
  }
}
// CHECK: print_errors.mlir:[[# @LINE - 4]]:{{[0-9]+}}: error: '%d' (argument 0) is an integer conversion, but the tile's elements are f32

// -----

cuda_tile.module @m {
  entry @k(%n: tile<i32>) {
    %t = print_tko "n %f\n", %n : tile<i32> -> token
    return
  }
}
// CHECK: print_errors.mlir:[[# @LINE - 4]]:{{[0-9]+}}: error: '%f' (argument 0) is a float conversion, but the tile's elements are i32

// -----

// more arguments than conversions: cuda_tile's own verifier
cuda_tile.module @m {
  entry @k(%n: tile<i32>) {
    %t = print_tko "n %d %d\n", %n : tile<i32> -> token
    return
  }
}
// CHECK: print_errors.mlir:[[# @LINE - 4]]:{{[0-9]+}}: error: {{.*}}format string has 2 conversion specifiers but 1 arguments were given
