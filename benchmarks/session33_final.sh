# Session 33's last GPU call, from main's tree (carry .whl; tileiras staged first for the cuda.tile.launch lines):
#   CMD="bash benchmarks/session33_final.sh" TAIL=200 bash benchmarks/device_session.sh shell
# Step budgets from the environment (ZOO_TESTS ZOO_BENCH ZOO_SIMT SWEEP_TESTS CE_BENCH CE_TESTS; RUN_LAUNCH=0 skips
# the launcher part). The GPU tests and timings of the session's merged branches, trimmed to fit the device budget left (~480 s):
#   [zoo]     zoo 32/30 GPU tests (tileas-split-chains and tileas-row-statistics-chain are on by default), the two
#             moved programs' timings beside SDPA flash and the SIMT path they took before;
#   [sweep25] the 59 sweep-25 programs against numpy / torch on the GPU;
#   [ce]      CE 4096 default vs TILEORCH_COMBINE_ATOMICS=auto (copy and torch in the same process) + its GPU tests;
#   [launch]  tileorch.cutile.launch with TILEORCH_LAUNCH_C=1 vs cuda.tile.launch vs the s32 path, same process,
#             and the bound-launch GPU tests on each path.
set -u
echo "######## zoo $(date -u +%T)"
TEST_TIMEOUT=${ZOO_TESTS:-95} BENCH_TIMEOUT=${ZOO_BENCH:-40} SIMT_TIMEOUT=${ZOO_SIMT:-30} bash benchmarks/session33_zoo.sh 2>&1 | tail -n 30
echo "######## sweep25 $(date -u +%T)"
mkdir -p "$OUT/s33sweep25"
timeout ${SWEEP_TESTS:-120} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 12 tests/gpu/test_user_sweep25_gpu.py \
  > "$OUT/s33sweep25/tests.log" 2>&1
echo "[sweep25 GPU tests] rc=$?"; grep -E "(FAILED|ERROR) tests" "$OUT/s33sweep25/tests.log" | sort -u | head -20
tail -n 1 "$OUT/s33sweep25/tests.log"
echo "######## ce $(date -u +%T)"
CE_TIMEOUT=${CE_BENCH:-85} CE2_TIMEOUT=1 CTL_TIMEOUT=1 R32K_TIMEOUT=1 GPU_TIMEOUT=${CE_TESTS:-40} bash benchmarks/session33_ce.sh 2>&1 | tail -n 40
echo "######## launch $(date -u +%T)"
if [ "${RUN_LAUNCH:-1}" = 1 ]; then
S="$OUT/s33launch"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
TILEORCH_LAUNCH_C=1 timeout 20 python3 -c "
from tileorch.runtime import c_launch
m = c_launch.module(); print('[build]', 'built' if m else 'NOT built', m or c_launch.why_not())"
S33_JSON="$S/session33_launch.json" timeout 75 python3 benchmarks/session33_launch.py 2>&1 | tail -n 45
echo "[s33] rc=${PIPESTATUS[0]}"
timeout 45 python3 -m pytest -q -n 0 -p no:cacheprovider tests/gpu/test_bound_launches_gpu.py tests/gpu/test_cutile_gpu.py \
  -k "either_path or vector_add or row_softmax or relaunch or repeated_launches or cpu_tensor or fused_bias" 2>&1 | tail -n 8
echo "[tests] rc=${PIPESTATUS[0]}"
fi
echo "######## end $(date -u +%T)"
cd "$OUT" && tar czf s33final.tgz s33zoo s33sweep25 s33ce s33launch 2>/dev/null; rm -rf s33zoo s33sweep25 s33ce s33launch s33zoo.tgz s33ce.tgz; ls "$OUT"
