// Upstream MLIR's *generic* form, with the default-valued properties upstream's printer spells
// out (relaxed = false, scope = #nvvm.mem_scope<cta>, aligned = true): register reallocation
// for a producer/consumer split, a non-aligned barrier, a parity wait loop built from the
// non-blocking try_wait, and a nanosleep back-off.
// EXPECT-PTX: setmaxnreg.dec.sync.aligned.u32 40
// EXPECT-PTX: setmaxnreg.inc.sync.aligned.u32 232
// EXPECT-PTX: barrier.sync 0
// EXPECT-PTX: mbarrier.try_wait.parity.shared.b64
// EXPECT-PTX: nanosleep.u32
"builtin.module"() ({
  "llvm.mlir.global"() <{addr_space = 3 : i32, alignment = 8 : i64, global_type = i64, linkage = #llvm.linkage<internal>, sym_name = "full", visibility_ = 0 : i64}> ({
  }) : () -> ()
  "llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<void ()>, linkage = #llvm.linkage<external>, sym_name = "ws", visibility_ = 0 : i64}> ({
    %0 = "llvm.mlir.constant"() <{value = 0 : i32}> : () -> i32
    %1 = "llvm.mlir.constant"() <{value = 128 : i32}> : () -> i32
    %2 = "llvm.mlir.constant"() <{value = 20 : i32}> : () -> i32
    %3 = "llvm.mlir.addressof"() <{global_name = @full}> : () -> !llvm.ptr<3>
    %4 = "nvvm.read.ptx.sreg.tid.x"() : () -> i32
    %5 = "llvm.icmp"(%4, %1) <{predicate = 2 : i64}> : (i32, i32) -> i1
    "llvm.cond_br"(%5) [^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
  ^bb1:
    "nvvm.setmaxregister"() <{action = #nvvm.action<decrease>, regCount = 40 : i32}> : () -> ()
    %6 = "nvvm.mbarrier.arrive"(%3) <{relaxed = false, scope = #nvvm.mem_scope<cta>}> : (!llvm.ptr<3>) -> i64
    "llvm.br"()[^bb4] : () -> ()
  ^bb2:
    "nvvm.setmaxregister"() <{action = #nvvm.action<increase>, regCount = 232 : i32}> : () -> ()
    "llvm.br"()[^bb3] : () -> ()
  ^bb3:
    %7 = "nvvm.mbarrier.try_wait"(%3, %0) <{relaxed = false, scope = #nvvm.mem_scope<cta>}> : (!llvm.ptr<3>, i32) -> i1
    "nvvm.nanosleep"(%2) : (i32) -> ()
    "llvm.cond_br"(%7) [^bb4, ^bb3] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
  ^bb4:
    "nvvm.barrier"() <{aligned = false, operandSegmentSizes = array<i32: 0, 0>}> : () -> ()
    "llvm.return"() : () -> ()
  }) {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} : () -> ()
}) : () -> ()
