# Session 28 (s28-launch): issue 22's launch targets on the GPU after this branch's changes.
# 1. Host time per repeated tileorch.cutile.launch against cuda.tile.launch, same process
#    (benchmarks/launch_overhead.py --mode gpu --calls 2000).  CPU-side (benchmarks/launch_instructions.py
#    --calls 500, driver stubbed): cutile_tensor 9756 -> 9180 instructions per call (the options no longer
#    keyword-only).  What it should show: cutile_launch a few tenths of a us below session 27's 8.89 us
#    (H100; not a same-run baseline), cuda_tile_launch (~7.2 us there) the same-run baseline.
# 2. A cached relaunch in a fresh process (the command compile_time.py times as relaunch_s) and a bare
#    `python -c pass` (benchmarks/relaunch_ab.py, this tree only): gemm_sm90 / tile_gemm no longer read
#    their 1.3 MB of LLVM IR on a hit (CPU: call 10.4 -> 4.3 ms on the 2-core machine); what it should
#    show: each wall best < 0.100 s, the call a few ms.
# 3. The bound / re-pointed launch GPU tests (torch references, NaN-prefilled outputs): all pass.
# About 40-60 s on a warm H100 host (each step under its own timeout: 110 s at most).  Run:  CMD="bash benchmarks/session28_launch.sh" bash benchmarks/device_session.sh shell
# cuda.tile.launch needs tileiras: on a machine where `device_session.sh stage_tc` (or bench) unpacked it
# into /tmp/tc (shell mode then puts it on PATH); without it cuda_tile_launch is reported skipped (as in
# session 27's launch call) and only session 27's 7.16 us (H100, another call) is there to compare with.
S="$OUT/s28launch"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$S/device.txt"
timeout 60 python3 benchmarks/launch_overhead.py --mode gpu --calls 2000 --out "$S/build" \
  --json "$S/launch_overhead_gpu_s28launch.json" > "$S/launch_overhead.log" 2>&1
echo "[launch_overhead] rc=$?"
python3 - "$S/launch_overhead_gpu_s28launch.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["gpu"]
for k in ("cutile_launch", "cuda_tile_launch", "cutile_launch_new_arrays", "cuda_tile_launch_new_arrays",
          "cutile_launch_created_stream", "cuda_tile_launch_created_stream"):
    if k in g:
        print(f"{k:34s} {g[k]['median_us']:7.2f} us median (p10 {g[k]['p10_us']:.2f}, p90 {g[k]['p90_us']:.2f})")
PY
TILEORCH_CACHE_DIR=/tmp/s28-relaunch-cache timeout 20 python3 benchmarks/relaunch_ab.py --src src --rounds 5 \
  --program examples/gemm_sm90.mlir --program examples/ws_stream_copy.mlir > "$S/relaunch.log" 2>&1
echo "[relaunch] rc=$?"; cat "$S/relaunch.log" | tail -n 4
timeout 30 python3 -m pytest -q -p no:cacheprovider -rfE -n 4 tests/gpu/test_bound_launches_gpu.py \
  "tests/gpu/test_cutile_gpu.py::test_repeated_launches_on_two_streams_bound_and_re_pointed" > "$S/tests.log" 2>&1
echo "[bound/re-pointed launch tests] rc=$?"; tail -n 3 "$S/tests.log"
