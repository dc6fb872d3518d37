// Input and output files that cannot be opened: `tileorch-opt: error: ...`, exit 1, no traceback.
// RUN: not tileorch-opt %S/no-such-file.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not tileorch-opt %S 2>&1 | filecheck %s --check-prefix=DIR
// RUN: not tileorch-opt %s -o %S/no-such-dir/out.mlir 2>&1 | filecheck %s --check-prefix=OUTPUT
// An output that fails on write or close (a full disk: Linux's /dev/full) is reported once.
// RUN: not tileorch-opt %s -o /dev/full 2>&1 | filecheck %s --check-prefix=FULL

// MISSING: tileorch-opt: error: cannot read {{.*}}no-such-file.mlir: No such file or directory
// MISSING-NOT: Traceback
// DIR: tileorch-opt: error: cannot read {{.*}}driver: Is a directory
// DIR-NOT: Traceback
// OUTPUT: tileorch-opt: error: cannot write {{.*}}no-such-dir/out.mlir: No such file or directory
// OUTPUT-NOT: Traceback
// FULL: tileorch-opt: error: cannot write /dev/full: No space left on device
// FULL-NOT: error

module {
}
