// A memory token as a function argument (tokens order memory effects inside one function) is
// refused at the function by convert-tileaa-to-tileas (tools/untested_diagnostics.py, session 22).
// RUN: not tileorch-opt %s -p convert-tileaa-to-tileas 2>&1 | filecheck %s

builtin.module {
  nv_tileaa.func @k(%t: !nv_tileaa.mem_token) {
    nv_tileaa.return
  }
}
// CHECK: convert_tileaa_to_tileas_errors.mlir:6:3: error: memory tokens cannot cross a function boundary in TileAS
