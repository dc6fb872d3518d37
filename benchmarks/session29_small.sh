# s29-small's GPU check (< 90 s; run from the repository root with the compiler installed, carry .whl), e.g.
#   CMD="bash benchmarks/session29_small.sh" bash benchmarks/device_session.sh shell
# TILEORCH_DIRECT_EPILOGUE_STAGES=1 (default off; transforms/tileas/direct_epilogue_stages.py): a GEMM whose epilogue
# stores C from registers (f32 C: the direct epilogue) gets the ring stages the schedule had planned beside C's TMA
# store staging, which that epilogue never uses.  cover27's three_operand_pairs (f16 in, f32 out, 4096^3 per pair)
# at its own 128x64 tiles (--tiles program: the launcher's 128x256 retile names its own stage count and is not
# affected): a stage per pair (TILEORCH_PAIR_STAGES=1, main's default since session 29) 6 -> 9 stages of 24 KiB;
# all pairs a stage (PAIR_STAGES=0) 2 -> 3 stages of 72 KiB.  On the CPU: emulator vs numpy, no spills, tileorch check
# (tests/unit/test_direct_epilogue_stages.py).  Session 29's new defaults are exported for every row.
# Expected: rel_err unchanged (~2e-4); "new" at least as fast as "old" if the shallow ring was what held it back
# (not yet measured).  Old and new run in separate processes, torch timed beside each.
# Writes $OUT/s29_small/three_pairs_{ps,whole}_{old,new}.{json,log}; prints one line per variant.
S="$OUT/s29_small"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
export TILEORCH_PAIR_STAGES=1 TILEORCH_ATTN_CTAS_PER_SM=2 TILEORCH_SIMT_PREDICATED_TAILS=1 \
  TILEORCH_REMATERIALIZE_FLOAT_LOADS=1 TILEORCH_ATOMIC_FENCES=holders
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$S/device.txt"
row() {  # row NAME PAIR_STAGES DIRECT_EPILOGUE_STAGES
  TILEORCH_PAIR_STAGES=$2 TILEORCH_DIRECT_EPILOGUE_STAGES=$3 timeout ${BENCH_TIMEOUT:-20} python3 benchmarks/cover27.py \
    --programs three_pairs --tiles program --no-simt --iters 10 --out "$S/$1.json" > "$S/$1.log" 2>&1
  echo "$1 (PAIR_STAGES=$2 DIRECT_EPILOGUE_STAGES=$3) rc=$? $(grep -E '^three_pairs ' "$S/$1.log" | tr ' ' '\n' | grep -E '^(tileorch_ms|torch_ms|vs_torch|tileorch_tflops|tileorch_rel_err|tileorch_error)=' | tr '\n' ' ')"
}
row three_pairs_ps_old 1 0
row three_pairs_ps_new 1 1
row three_pairs_whole_old 0 0
row three_pairs_whole_new 0 1
exit 0
