// RUN: env TILEORCH_ONLINE_SOFTMAX_EXP=full TILEORCH_ONLINE_SOFTMAX=8 TILEORCH_ONLINE_SOFTMAX_FORM=element tileorch-opt %s --split-input-file -p tileaa-hoist-online-softmax | filecheck %s
// RUN: env TILEORCH_ONLINE_SOFTMAX_EXP=full TILEORCH_ONLINE_SOFTMAX=1 tileorch-opt %s --split-input-file -p tileaa-hoist-online-softmax | filecheck %s --check-prefix=THREAD
// RUN: env TILEORCH_ONLINE_SOFTMAX_EXP=full TILEORCH_ONLINE_SOFTMAX=8 TILEORCH_ONLINE_SOFTMAX_FORM=thread tileorch-opt %s --split-input-file -p tileaa-hoist-online-softmax | filecheck %s --check-prefix=THREAD8
// RUN: env TILEORCH_ONLINE_SOFTMAX=0 tileorch-opt %s --split-input-file -p tileaa-hoist-online-softmax | filecheck %s --check-prefix=OFF
// RUN: env TILEORCH_ONLINE_SOFTMAX=1 TILEORCH_ONLINE_SOFTMAX_EXP=ex2 tileorch-opt %s --split-input-file -p tileaa-hoist-online-softmax | filecheck %s --check-prefix=EX2

// cuTile's scalar form (`m_new = max(m, ct.max(x))`, `s = s * exp(m - m_new) + ct.sum(exp(x - m_new))`):
// the first iteration is peeled as written (both reductions, at iv = lb), the loop runs from
// lb + step carrying per-element tiles M (from m1, broadcast as the loop broadcast m_new) and S
// (from 0) with one exponential per element (of -|x - M|) and no reduction; after it M and S are
// reduced once and combined with m1, s1.  That runs when the loop has 8 iterations or more
// (lb + 7 * step < ub); else the loop as written (the other branch).
// CHECK-LABEL: nv_tileaa.func @online
// CHECK: %[[SEVEN:.*]] = arith.constant 7 : i32
// CHECK-NEXT: %[[SPAN:.*]] = arith.muli %[[SEVEN]], %[[STEP:.*]] : i32
// CHECK-NEXT: %[[LAST:.*]] = arith.addi %[[LB:.*]], %[[SPAN]] : i32
// CHECK-NEXT: %[[LONG:.*]] = arith.cmpi slt, %[[LAST]], %[[N:.*]] : i32
// CHECK-NEXT: %[[MO:.*]], %[[SO:.*]] = scf.if %[[LONG]] -> (f32, f32) {
// CHECK: %[[XP:.*]] = nv_tileaa.mulf
// CHECK: "nv_tileaa.reduce"(%[[XP]])
// CHECK: %[[M1:.*]] = nv_tileaa.maxf %ninf, %{{.*}} : f32
// CHECK: %[[S1:.*]] = nv_tileaa.fma %zero, %{{.*}}, %{{.*}} : f32
// CHECK: %[[LB1:.*]] = arith.addi %[[LB]], %[[STEP]] : i32
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<1x256xf32>
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<1x256xf32>
// CHECK: %[[MS:.*]] = nv_tileaa.splat %[[M1]] : f32 -> tensor<1x1xf32>
// CHECK: %[[MB:.*]] = nv_tileaa.broadcast %[[MS]]
// CHECK: %[[R0:.*]], %[[R1:.*]], %[[R2:.*]], %[[R3:.*]] = scf.for %{{.*}} = %[[LB1]] to %{{.*}} step %[[STEP]] iter_args(%[[MC:.*]] = %[[M1]], %[[SC:.*]] = %[[S1]], %[[M:.*]] = %[[MB]], %[[S:.*]] = %[[Z]])
// CHECK-NOT: nv_tileaa.reduce
// CHECK: %[[X:.*]] = nv_tileaa.mulf
// CHECK-NEXT: %[[D:.*]] = nv_tileaa.subf %[[X]], %[[M]] : tensor<1x256xf32>
// CHECK-NEXT: %[[ND:.*]] = nv_tileaa.negf %[[D]]
// CHECK-NEXT: %[[AD:.*]] = nv_tileaa.minf %[[D]], %[[ND]]
// CHECK-NEXT: %[[E:.*]] = nv_tileaa.exp %[[AD]]
// CHECK-NEXT: %[[GT:.*]] = nv_tileaa.cmpf "ogt", %[[D]], %[[Z]]
// CHECK-NEXT: %[[UP:.*]] = nv_tileaa.fma %[[S]], %[[E]], %[[ONE]]
// CHECK-NEXT: %[[KEEP:.*]] = nv_tileaa.addf %[[S]], %[[E]]
// CHECK-NEXT: %[[SN:.*]] = nv_tileaa.select %[[GT]], %[[UP]], %[[KEEP]]
// CHECK-NEXT: %[[MN:.*]] = nv_tileaa.maxf %[[M]], %[[X]]
// CHECK-NEXT: scf.yield %[[MC]], %[[SC]], %[[MN]], %[[SN]]
// CHECK: "nv_tileaa.reduce"(%[[R2]])
// CHECK: %[[MF:.*]] = nv_tileaa.maxf %[[R0]], %{{.*}} : f32
// CHECK: %[[DIFF:.*]] = nv_tileaa.subf %[[R2]], %{{.*}} : tensor<1x256xf32>
// CHECK: %[[SCALE:.*]] = nv_tileaa.exp %[[DIFF]]
// CHECK: %[[W:.*]] = nv_tileaa.mulf %[[R3]], %[[SCALE]]
// CHECK: "nv_tileaa.reduce"(%[[W]])
// CHECK: %[[SF:.*]] = nv_tileaa.fma %[[R1]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: scf.yield %[[MF]], %[[SF]] : f32, f32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[W0:.*]], %[[W1:.*]] = scf.for %{{.*}} = %[[LB]] to %[[N]] step %[[STEP]] iter_args(%{{.*}} = %ninf, %{{.*}} = %zero)
// CHECK: "nv_tileaa.reduce"
// CHECK: scf.yield %[[W0]], %[[W1]] : f32, f32
// CHECK: nv_tileaa.log %[[SO]]
// CHECK: nv_tileaa.addf %[[MO]]
// The per-thread form (TILEORCH_ONLINE_SOFTMAX_FORM=thread, the default), from one iteration: the first
// iteration peeled as written; the loop carries two f32 scalars (the thread's running max from m1 and
// its sum from 0) and keeps the chains' reductions, the one to a single element marked
// thread_partial (each thread folds its own elements: no exchange); after the loop the running maxima
// broadcast and reduced across threads (the max chain as written), then each thread's sum rescaled,
// broadcast and reduced with one value per thread (thread_combine on the chain's first reduction),
// only when the loop ran past the peeled iteration (else m1, s1).  From one iteration the other branch
// is the loop that runs none: its initial values.
// THREAD-LABEL: nv_tileaa.func @online
// THREAD: %[[LONG:.*]] = arith.cmpi slt, %lb, %n : i32
// THREAD-NEXT: %[[MO:.*]], %[[SO:.*]] = scf.if %[[LONG]] -> (f32, f32) {
// THREAD: %[[M1:.*]] = nv_tileaa.maxf %ninf, %{{.*}} : f32
// THREAD: %[[S1:.*]] = nv_tileaa.fma %zero, %{{.*}}, %{{.*}} : f32
// THREAD: %[[LB1:.*]] = arith.addi %lb, %st : i32
// THREAD-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// THREAD-NEXT: %[[R0:.*]], %[[R1:.*]], %[[MT:.*]], %[[ST:.*]] = scf.for %{{.*}} = %[[LB1]] to %n step %st iter_args(%[[MC:.*]] = %[[M1]], %[[SC:.*]] = %[[S1]], %[[M:.*]] = %[[M1]], %[[S:.*]] = %[[Z]]) -> (f32, f32, f32, f32)
// THREAD: %[[X:.*]] = nv_tileaa.mulf
// THREAD-NEXT: %[[XR1:.*]] = "nv_tileaa.reduce"(%[[X]])
// THREAD-NOT: thread_partial
// THREAD: }) : (tensor<1x256xf32>) -> tensor<256xf32>
// THREAD-NEXT: %[[XR2:.*]] = "nv_tileaa.reduce"(%[[XR1]])
// THREAD: }) {tileorch.simt.thread_partial} : (tensor<256xf32>) -> tensor<f32>
// THREAD-NEXT: %[[OWNMAX:.*]] = nv_tileaa.extract %[[XR2]]
// THREAD-NEXT: %[[MN:.*]] = nv_tileaa.maxf %[[M]], %[[OWNMAX]] : f32
// THREAD-NEXT: %[[DM:.*]] = nv_tileaa.subf %[[M]], %[[MN]] : f32
// THREAD-NEXT: %[[C:.*]] = nv_tileaa.exp %[[DM]] : f32
// THREAD-NEXT: %[[MNS:.*]] = nv_tileaa.splat %[[MN]] : f32 -> tensor<1x1xf32>
// THREAD-NEXT: %[[MNB:.*]] = nv_tileaa.broadcast %[[MNS]]
// THREAD-NEXT: %[[D:.*]] = nv_tileaa.subf %[[X]], %[[MNB]] : tensor<1x256xf32>
// THREAD-NEXT: %[[E:.*]] = nv_tileaa.exp %[[D]] : tensor<1x256xf32>
// THREAD-NEXT: %[[ER1:.*]] = "nv_tileaa.reduce"(%[[E]])
// THREAD: }) {tileorch.simt.thread_partial} : (tensor<256xf32>) -> tensor<f32>
// THREAD-NEXT: %[[OWNSUM:.*]] = nv_tileaa.extract
// THREAD-NEXT: %[[SN:.*]] = nv_tileaa.fma %[[S]], %[[C]], %[[OWNSUM]] : f32
// THREAD-NEXT: scf.yield %[[MC]], %[[SC]], %[[MN]], %[[SN]] : f32, f32, f32, f32
// THREAD: %[[RAN:.*]] = arith.cmpi slt, %[[LB1]], %n : i32
// THREAD-NEXT: %[[MJ:.*]], %[[SJ:.*]] = scf.if %[[RAN]] -> (f32, f32) {
// THREAD-NEXT: %[[MTS:.*]] = nv_tileaa.splat %[[MT]] : f32 -> tensor<1x1xf32>
// THREAD-NEXT: %[[MTB:.*]] = nv_tileaa.broadcast %[[MTS]]
// THREAD-NEXT: "nv_tileaa.reduce"(%[[MTB]])
// THREAD-NOT: thread_
// THREAD: %[[ALLMAX:.*]] = nv_tileaa.extract
// THREAD-NEXT: %[[MF:.*]] = nv_tileaa.maxf %[[R0]], %[[ALLMAX]] : f32
// THREAD-NEXT: %[[DT:.*]] = nv_tileaa.subf %[[MT]], %[[MF]] : f32
// THREAD-NEXT: %[[ET:.*]] = nv_tileaa.exp %[[DT]] : f32
// THREAD-NEXT: %[[WT:.*]] = nv_tileaa.mulf %[[ST]], %[[ET]] : f32
// THREAD-NEXT: %[[WS:.*]] = nv_tileaa.splat %[[WT]] : f32 -> tensor<1x1xf32>
// THREAD-NEXT: %[[WB:.*]] = nv_tileaa.broadcast %[[WS]]
// THREAD-NEXT: %[[WR1:.*]] = "nv_tileaa.reduce"(%[[WB]])
// THREAD: }) {tileorch.simt.thread_combine} : (tensor<1x256xf32>) -> tensor<256xf32>
// THREAD-NEXT: "nv_tileaa.reduce"(%[[WR1]])
// THREAD: }) : (tensor<256xf32>) -> tensor<f32>
// THREAD-NEXT: %[[ALLSUM:.*]] = nv_tileaa.extract
// THREAD-NEXT: %[[D1:.*]] = nv_tileaa.subf %[[R0]], %[[MF]] : f32
// THREAD-NEXT: %[[C1:.*]] = nv_tileaa.exp %[[D1]] : f32
// THREAD-NEXT: %[[SF:.*]] = nv_tileaa.fma %[[R1]], %[[C1]], %[[ALLSUM]] : f32
// THREAD-NEXT: scf.yield %[[MF]], %[[SF]] : f32, f32
// THREAD-NEXT: } else {
// THREAD-NEXT: scf.yield %[[R0]], %[[R1]] : f32, f32
// THREAD-NEXT: }
// THREAD-NEXT: scf.yield %[[MJ]], %[[SJ]] : f32, f32
// THREAD-NEXT: } else {
// THREAD-NEXT: scf.yield %ninf, %zero : f32, f32
// THREAD-NEXT: }
// THREAD-NEXT: nv_tileaa.log %[[SO]]
// THREAD-NEXT: nv_tileaa.addf %[[MO]]
// At a minimum of 8 iterations the other branch is the loop as written.
// TILEORCH_ONLINE_SOFTMAX_EXP=ex2: the form's exponentials (each of a difference to a max that
// includes it, scaling a term of the running sum) are marked as sum terms (math_mode.SUM_TERM:
// ex2.approx.ftz of d*log2 e): the peeled iteration's two, the loop's two, the combine's two.
// EX2-LABEL: nv_tileaa.func @online
// EX2: nv_tileaa.exp %dm {tileorch.sum_term_exp} : f32
// EX2: nv_tileaa.exp %xd {tileorch.sum_term_exp} : tensor<1x256xf32>
// EX2: scf.for
// EX2: nv_tileaa.exp %{{.*}} {tileorch.sum_term_exp} : f32
// EX2: nv_tileaa.exp %{{.*}} {tileorch.sum_term_exp} : tensor<1x256xf32>
// EX2: scf.yield
// EX2: nv_tileaa.exp %{{[0-9]+}} {tileorch.sum_term_exp} : f32
// EX2: nv_tileaa.exp %{{[0-9]+}} {tileorch.sum_term_exp} : f32
// EX2-NOT: nv_tileaa.exp
// EX2: nv_tileaa.log

// THREAD8-LABEL: nv_tileaa.func @online
// THREAD8: %[[SEVEN:.*]] = arith.constant 7 : i32
// THREAD8: scf.if
// THREAD8: thread_partial
// THREAD8: thread_combine
// THREAD8: } else {
// THREAD8-NEXT: scf.yield
// THREAD8: } else {
// THREAD8-NEXT: scf.for %{{.*}} = %lb to %n step %st iter_args(%{{.*}} = %ninf, %{{.*}} = %zero)
// THREAD8-NOT: thread_
// THREAD8: nv_tileaa.log
// OFF-LABEL: nv_tileaa.func @online
// OFF-NOT: scf.if
// OFF: scf.for
// OFF: "nv_tileaa.reduce"
// OFF-NOT: nv_tileaa.negf
// OFF: nv_tileaa.return
builtin.module {
  nv_tileaa.func @online(%f: f32, %lb: i32, %n: i32, %st: i32) {
    %ninf = arith.constant 0xff800000 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %y = nv_tileaa.splat %f : f32 -> tensor<1x256xf32>
    %m, %s = scf.for %i = %lb to %n step %st iter_args(%m0 = %ninf, %s0 = %zero) -> (f32, f32) : i32 {
      %fi = arith.sitofp %i : i32 to f32
      %t = nv_tileaa.splat %fi : f32 -> tensor<1x256xf32>
      %x = nv_tileaa.mulf %t, %y : tensor<1x256xf32>
      %r1 = "nv_tileaa.reduce"(%x) <{dim = 0 : i32, identities = [0xff800000 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %mm = nv_tileaa.maxf %p, %q : f32
        "nv_tileaa.yield"(%mm) : (f32) -> ()
      }) : (tensor<1x256xf32>) -> tensor<256xf32>
      %r2 = "nv_tileaa.reduce"(%r1) <{dim = 0 : i32, identities = [0xff800000 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %mm = nv_tileaa.maxf %p, %q : f32
        "nv_tileaa.yield"(%mm) : (f32) -> ()
      }) : (tensor<256xf32>) -> tensor<f32>
      %mx = nv_tileaa.extract %r2 {indices = array<i32>} : tensor<f32> -> f32
      %mn = nv_tileaa.maxf %m0, %mx : f32
      %dm = nv_tileaa.subf %m0, %mn : f32
      %c = nv_tileaa.exp %dm : f32
      %b1 = nv_tileaa.splat %mn : f32 -> tensor<1x1xf32>
      %b = nv_tileaa.broadcast %b1 : tensor<1x1xf32> -> tensor<1x256xf32>
      %xd = nv_tileaa.subf %x, %b : tensor<1x256xf32>
      %e = nv_tileaa.exp %xd : tensor<1x256xf32>
      %q1 = "nv_tileaa.reduce"(%e) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %aa = nv_tileaa.addf %p, %q : f32
        "nv_tileaa.yield"(%aa) : (f32) -> ()
      }) : (tensor<1x256xf32>) -> tensor<256xf32>
      %q2 = "nv_tileaa.reduce"(%q1) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %aa = nv_tileaa.addf %p, %q : f32
        "nv_tileaa.yield"(%aa) : (f32) -> ()
      }) : (tensor<256xf32>) -> tensor<f32>
      %sx = nv_tileaa.extract %q2 {indices = array<i32>} : tensor<f32> -> f32
      %sn = nv_tileaa.fma %s0, %c, %sx : f32
      scf.yield %mn, %sn : f32, f32
    }
    %l = nv_tileaa.log %s : f32
    %lse = nv_tileaa.addf %m, %l : f32
    nv_tileaa.return
  }
}

// -----

// Not taken: the running max is also used for something else in the loop (here yielded twice),
// so the per-iteration value is needed; the loop stays as written.
// THREAD-LABEL: nv_tileaa.func @max_used_elsewhere
// THREAD-NOT: thread_
// THREAD: nv_tileaa.return
// CHECK-LABEL: nv_tileaa.func @max_used_elsewhere
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: "nv_tileaa.reduce"
// CHECK-NOT: nv_tileaa.negf
// CHECK: nv_tileaa.return
builtin.module {
  nv_tileaa.func @max_used_elsewhere(%f: f32, %n: i32) {
    %lb = arith.constant 0 : i32
    %st = arith.constant 1 : i32
    %ninf = arith.constant 0xff800000 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %y = nv_tileaa.splat %f : f32 -> tensor<256xf32>
    %m, %s, %k = scf.for %i = %lb to %n step %st iter_args(%m0 = %ninf, %s0 = %zero, %k0 = %zero) -> (f32, f32, f32) : i32 {
      %fi = arith.sitofp %i : i32 to f32
      %t = nv_tileaa.splat %fi : f32 -> tensor<256xf32>
      %x = nv_tileaa.mulf %t, %y : tensor<256xf32>
      %r2 = "nv_tileaa.reduce"(%x) <{dim = 0 : i32, identities = [0xff800000 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %mm = nv_tileaa.maxf %p, %q : f32
        "nv_tileaa.yield"(%mm) : (f32) -> ()
      }) : (tensor<256xf32>) -> tensor<f32>
      %mx = nv_tileaa.extract %r2 {indices = array<i32>} : tensor<f32> -> f32
      %mn = nv_tileaa.maxf %m0, %mx : f32
      %dm = nv_tileaa.subf %m0, %mn : f32
      %c = nv_tileaa.exp %dm : f32
      %b = nv_tileaa.splat %mn : f32 -> tensor<256xf32>
      %xd = nv_tileaa.subf %x, %b : tensor<256xf32>
      %e = nv_tileaa.exp %xd : tensor<256xf32>
      %q2 = "nv_tileaa.reduce"(%e) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %aa = nv_tileaa.addf %p, %q : f32
        "nv_tileaa.yield"(%aa) : (f32) -> ()
      }) : (tensor<256xf32>) -> tensor<f32>
      %sx = nv_tileaa.extract %q2 {indices = array<i32>} : tensor<f32> -> f32
      %sn = nv_tileaa.fma %s0, %c, %sx : f32
      scf.yield %mn, %sn, %mn : f32, f32, f32
    }
    nv_tileaa.return
  }
}

// -----

// Not taken: the sum is of exp(x - m) with the *old* max (not the max the loop just computed):
// a different recurrence.
// THREAD-LABEL: nv_tileaa.func @old_max
// THREAD-NOT: thread_
// THREAD: nv_tileaa.return
// CHECK-LABEL: nv_tileaa.func @old_max
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: "nv_tileaa.reduce"
// CHECK-NOT: nv_tileaa.negf
// CHECK: nv_tileaa.return
builtin.module {
  nv_tileaa.func @old_max(%f: f32, %n: i32) {
    %lb = arith.constant 0 : i32
    %st = arith.constant 1 : i32
    %ninf = arith.constant 0xff800000 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %y = nv_tileaa.splat %f : f32 -> tensor<256xf32>
    %m, %s = scf.for %i = %lb to %n step %st iter_args(%m0 = %ninf, %s0 = %zero) -> (f32, f32) : i32 {
      %fi = arith.sitofp %i : i32 to f32
      %t = nv_tileaa.splat %fi : f32 -> tensor<256xf32>
      %x = nv_tileaa.mulf %t, %y : tensor<256xf32>
      %r2 = "nv_tileaa.reduce"(%x) <{dim = 0 : i32, identities = [0xff800000 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %mm = nv_tileaa.maxf %p, %q : f32
        "nv_tileaa.yield"(%mm) : (f32) -> ()
      }) : (tensor<256xf32>) -> tensor<f32>
      %mx = nv_tileaa.extract %r2 {indices = array<i32>} : tensor<f32> -> f32
      %mn = nv_tileaa.maxf %m0, %mx : f32
      %dm = nv_tileaa.subf %m0, %mn : f32
      %c = nv_tileaa.exp %dm : f32
      %b = nv_tileaa.splat %m0 : f32 -> tensor<256xf32>
      %xd = nv_tileaa.subf %x, %b : tensor<256xf32>
      %e = nv_tileaa.exp %xd : tensor<256xf32>
      %q2 = "nv_tileaa.reduce"(%e) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %aa = nv_tileaa.addf %p, %q : f32
        "nv_tileaa.yield"(%aa) : (f32) -> ()
      }) : (tensor<256xf32>) -> tensor<f32>
      %sx = nv_tileaa.extract %q2 {indices = array<i32>} : tensor<f32> -> f32
      %sn = nv_tileaa.fma %s0, %c, %sx : f32
      scf.yield %mn, %sn : f32, f32
    }
    nv_tileaa.return
  }
}

// -----

// Not taken: the max and the sum are of row 0 only (each reduced along its row, then element 0
// extracted), while x has two rows: per-element tiles over all of x would fold row 1 in too.
// THREAD-LABEL: nv_tileaa.func @first_row_only
// THREAD-NOT: thread_
// THREAD: nv_tileaa.return
// CHECK-LABEL: nv_tileaa.func @first_row_only
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: "nv_tileaa.reduce"
// CHECK-NOT: nv_tileaa.negf
// CHECK: nv_tileaa.return
builtin.module {
  nv_tileaa.func @first_row_only(%f: f32, %n: i32) {
    %lb = arith.constant 0 : i32
    %st = arith.constant 1 : i32
    %ninf = arith.constant 0xff800000 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %y = nv_tileaa.splat %f : f32 -> tensor<2x256xf32>
    %m, %s = scf.for %i = %lb to %n step %st iter_args(%m0 = %ninf, %s0 = %zero) -> (f32, f32) : i32 {
      %fi = arith.sitofp %i : i32 to f32
      %t = nv_tileaa.splat %fi : f32 -> tensor<2x256xf32>
      %x = nv_tileaa.mulf %t, %y : tensor<2x256xf32>
      %r2 = "nv_tileaa.reduce"(%x) <{dim = 1 : i32, identities = [0xff800000 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %mm = nv_tileaa.maxf %p, %q : f32
        "nv_tileaa.yield"(%mm) : (f32) -> ()
      }) : (tensor<2x256xf32>) -> tensor<2xf32>
      %mx = nv_tileaa.extract %r2 {indices = array<i32: 0>} : tensor<2xf32> -> f32
      %mn = nv_tileaa.maxf %m0, %mx : f32
      %dm = nv_tileaa.subf %m0, %mn : f32
      %c = nv_tileaa.exp %dm : f32
      %b = nv_tileaa.splat %mn : f32 -> tensor<2x256xf32>
      %xd = nv_tileaa.subf %x, %b : tensor<2x256xf32>
      %e = nv_tileaa.exp %xd : tensor<2x256xf32>
      %q2 = "nv_tileaa.reduce"(%e) <{dim = 1 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %aa = nv_tileaa.addf %p, %q : f32
        "nv_tileaa.yield"(%aa) : (f32) -> ()
      }) : (tensor<2x256xf32>) -> tensor<2xf32>
      %sx = nv_tileaa.extract %q2 {indices = array<i32: 0>} : tensor<2xf32> -> f32
      %sn = nv_tileaa.fma %s0, %c, %sx : f32
      scf.yield %mn, %sn : f32, f32
    }
    nv_tileaa.return
  }
}
