// RUN: not tileorch-opt %s -p 'bound-barrier-waits{debug-timeout=4294967296}' 2>&1 | filecheck %s
// RUN: tileorch-opt %s -p 'bound-barrier-waits{debug-timeout=5}' --verify-diagnostics
// CHECK: tileorch-opt: error: bound-barrier-waits: debug-timeout must be in [0, 4294967295] (0 = off; the polls are counted in 32 bits), got 4294967296
builtin.module {
  func.func @k(%lock: !llvm.ptr<1>) {
    // expected-error @+1 {{bound-barrier-waits: a marked spin loop must carry no values and have an empty body}}
    scf.while () : () -> () {
      %v = llvm.load %lock : !llvm.ptr<1> -> i32
      %z = arith.constant 0 : i32
      %again = arith.cmpi ne, %v, %z : i32
      scf.condition(%again)
    } do {
      %w = llvm.load %lock : !llvm.ptr<1> -> i32
      scf.yield
    } attributes {tileorch.spin_site = "a lock"}
    func.return
  }
}
