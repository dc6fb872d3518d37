# Session 27 (s27-launch): host time per repeated tileorch.cutile.launch vs cuda.tile.launch (issue 22 item 3), same
# process, after the miss path (arrays at new addresses each call: re-pointed bound launches) was trimmed on the CPU
# (`benchmarks/launch_instructions.py --calls 500`, stand-in driver: cutile_new_arrays 51743 -> 39375 instructions
# per call; the repeated-arrays cases unchanged: cutile_cai 10726 -> 10718, cutile_tensor 9753 -> 9756).
# What it should show: cutile_launch_new_arrays below session 27's 19.2 us (H100, launch_overhead_gpu_2026-12-05-s27.json),
# cutile_launch (repeated arrays) unchanged within noise (8.9 us there; the hit path was not changed), cuda_tile_launch
# ~7.2 us as the same-run baseline; then the GPU tests of bound and re-pointed launches (torch references,
# NaN-prefilled outputs): all pass.  < 90 s.
# Run (carry .whl):  CMD="bash benchmarks/session27_launch.sh" bash benchmarks/device_session.sh shell
S="$OUT/s27launch"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$S/device.txt"
timeout 100 python3 benchmarks/launch_overhead.py --mode gpu --calls 2000 --out "$S/build" \
  --json "$S/launch_overhead_gpu_s27launch.json" > "$S/launch_overhead.log" 2>&1
echo "rc=$?"
python3 - "$S/launch_overhead_gpu_s27launch.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["gpu"]
for k in ("cutile_launch", "cuda_tile_launch", "cutile_launch_new_arrays", "cuda_tile_launch_new_arrays",
          "cutile_launch_created_stream", "cuda_tile_launch_created_stream"):
    if k in g:
        print(f"{k:34s} {g[k]['median_us']:7.2f} us median (p10 {g[k]['p10_us']:.2f}, p90 {g[k]['p90_us']:.2f})")
PY
tail -n 5 "$S/launch_overhead.log"
timeout 60 python3 -m pytest -q -p no:cacheprovider -rfE -n 4 tests/gpu/test_bound_launches_gpu.py \
  "tests/gpu/test_cutile_gpu.py::test_repeated_launches_on_two_streams_bound_and_re_pointed" > "$S/tests.log" 2>&1
echo "[re-pointed launch tests] rc=$?"; tail -n 3 "$S/tests.log"
