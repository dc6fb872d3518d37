# The next device call's first command: every GPU test nothing has run yet (sessions 23 and 24 were CPU-only after
# session 23's first call), in one pytest run.  Run from the repository root through device_session.sh (carry .whl):
#   CMD="bash benchmarks/session24_gpu.sh" bash benchmarks/device_session.sh shell
# = session 23's PART=mid set (sweeps 16/17, dQ/dK-dV on tensor cores, register A as the default for computed A, the
# 256-row tiles after the setmaxnreg budget fix, the varlen guard fix + benchmarks/session23_diag.py varlen, the
# deferred GEMM launch) plus session 24's files: user sweeps 18 (dot / attention programs; grouped W[bid(2)],
# epilogue gathers, i64 positions) and 19 (programs without a dot; ordered view loads / stores), the second dot on a
# K loop's accumulator (tests/gpu/test_epilogue_dot_gpu.py), and the memory-bound programs whose SIMT reductions
# lost their shared-memory exchange (test_memory_bound_gpu.py, sweep 15's cross entropy).
# Then, as time allows, one call each: benchmarks/session24_{rowred,epidot,sweep18,sweep19}.sh and
# benchmarks/session23_{rega,bwd,compile,sweep16,sweep17}.sh (rega / bwd / compile stage tileiras first).
export NEW_GPU_FILES="tests/gpu/test_user_sweep18_gpu.py tests/gpu/test_user_sweep19_gpu.py
  tests/gpu/test_epilogue_dot_gpu.py tests/gpu/test_memory_bound_gpu.py tests/gpu/test_user_sweep15_gpu.py"
PART=mid TEST_TIMEOUT=${TEST_TIMEOUT:-500} bash benchmarks/session23_gpu.sh
