// Input and output files that cannot be opened: `tileorch-opt: error: ...`, exit 1, no traceback.
// RUN: not tileorch-opt %S/no-such-file.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not tileorch-opt %S 2>&1 | filecheck %s --check-prefix=DIR
// RUN: not tileorch-opt %s -o %S/no-such-dir/out.mlir 2>&1 | filecheck %s --check-prefix=OUTPUT

// MISSING: tileorch-opt: error: cannot read {{.*}}no-such-file.mlir: No such file or directory
// MISSING-NOT: Traceback
// DIR: tileorch-opt: error: cannot read {{.*}}driver: Is a directory
// DIR-NOT: Traceback
// OUTPUT: tileorch-opt: error: cannot write {{.*}}no-such-dir/out.mlir: No such file or directory
// OUTPUT-NOT: Traceback

module {
}
