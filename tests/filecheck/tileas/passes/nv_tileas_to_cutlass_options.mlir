// A schedule convert-nv-tileas-to-cutlass does not have is refused at the module, naming the pass
// (tools/untested_diagnostics.py, session 22; the message did not name the pass).
// RUN: not tileorch-opt %s -p "convert-nv-tileas-to-cutlass{schedule=fast}" 2>&1 | filecheck %s

builtin.module {
}
// CHECK: nv_tileas_to_cutlass_options.mlir:5:1: error: convert-nv-tileas-to-cutlass: schedule must be persistent, streamk or dp, got 'fast'
