// finding:unlocated: tests/filecheck/consumer_idx/lowering.mlir#1:generic [ssa_swap]
"builtin.module"() ({
  "func.func"() <{sym_name = "explicit", function_type = (!llvm.ptr<3>) -> ()}> ({
  ^bb0(%smem: !llvm.ptr<3>):
    %pipe = "cutlass.pipeline.create"(%smem) : (!llvm.ptr<3>) -> !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
    %ready = "cutlass.pipeline.init"(%pipe) <{numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 1>, consumers = array<i64: 240, 3840>}> : (!cutlass.pipeline<stages = 2, producers = 1, consumers = 2>) -> !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
    "cutlass.async.exec"() <{executor = #cutlass<executor_type warp>, mask = 4081 : i64}> ({
      "cutlass.pipeline.switch_by_executor"(%ready, %ready) <{masks = array<i64: 1, 4080>}> ({
      ^bb0(%p: !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>):
        %s = "cutlass.pipeline.state.create"(%q) <{role = #cutlass<pipeline_role producer>}> : (!cutlass.pipeline<stages = 2, producers = 1, consumers = 2>) -> !cutlass.pipeline_state<2>
        "cutlass.pipeline.producer_acquire"(%p, %s) : (!cutlass.pipeline<stages = 2, producers = 1, consumers = 2>, !cutlass.pipeline_state<2>) -> ()
        "cutlass.pipeline.producer_commit"(%p, %s) : (!cutlass.pipeline<stages = 2, producers = 1, consumers = 2>, !cutlass.pipeline_state<2>) -> ()
      }, {
      ^bb0(%q: !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>):
        %s_1 = "cutlass.pipeline.state.create"(%q) <{role = #cutlass<pipeline_role consumer>}> : (!cutlass.pipeline<stages = 2, producers = 1, consumers = 2>) -> !cutlass.pipeline_state<2>
        "cutlass.pipeline.consumer_wait"(%q, %s_1) <{consumer_idx = 1 : i32}> : (!cutlass.pipeline<stages = 2, producers = 1, consumers = 2>, !cutlass.pipeline_state<2>) -> ()
        "cutlass.pipeline.consumer_release"(%q, %s_1) : (!cutlass.pipeline<stages = 2, producers = 1, consumers = 2>, !cutlass.pipeline_state<2>) -> ()
      }) : (!cutlass.pipeline<stages = 2, producers = 1, consumers = 2>, !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>) -> ()
    }) : () -> ()
    "func.return"() : () -> ()
  }) {nvvm.kernel} : () -> ()
}) {cutlass.target = "sm_90a"} : () -> ()
