# Session 34 (s34-launchc), issue 22 item 3: host time per tileorch.cutile.launch <= cuda.tile.launch's and per
# tileorch.gemm <= torch.matmul's, same process, with the compiled C launcher ON BY DEFAULT (src/tileorch/runtime/
# c_launch.py: built once a machine in a background thread while a first launch compiles; TILEORCH_LAUNCH_C=0 turns
# it off) and, new, tileorch.cutile.launch itself a C "Front" where the launcher is built when tileorch.cutile is
# imported (a repeat checked by the kernel's C Memo without the Python function's frame: CPU callgrind 5849 -> 4734
# instructions a call, benchmarks/launch_instructions.py cutile_cai).
# Should show:
#   [build]  the C launcher built on the host (seconds; else why not: then the numbers below are cuda-python's);
#   [first]  a process's first launch on a machine with nothing built (fresh cache: the kernel compiles too),
#            default vs TILEORCH_LAUNCH_C=0: the first call's seconds, how long it waited for the C build
#            (<= 500 ms by design), the path it was bound on;
#   [s34]    per program, same process, alternating rounds: tileorch (the Front, default) / cuda.tile.launch /
#            tileorch_s33 (the Python function + C memo: session 33's opt-in) / tileorch_s32 (cuda-python, Python
#            key) / bare C launcher / torch op, us per call, tileorch / cuda.tile.launch (target <= 1.000);
#   [gemm]   tileorch.gemm (C launcher) vs torch.matmul vs tileorch.gemm through cuda-python, us per call;
#   [tests]  GPU tests of the bound launches on the c, ctypes and cuda-python paths and the cuTile GPU tests.
# cuda.tile.launch compiles with tileiras: stage it (device_session.sh stage_tc, /tmp/tc on PATH) or its lines say
# "skipped" with the reason.  Runs from any tree (main's after the merge): uses only benchmarks/ and src/.
# Run (carry .whl):  TAIL=90 CMD="bash benchmarks/session34_launch.sh" bash benchmarks/device_session.sh shell
#   -> $OUT/s34launch.  Timeouts: 20 + 2 x 45 + 50 + 45 + 35 s (240 s at most).
S="$OUT/s34launch"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$S/device.txt"

echo "[build] the C launcher (a first launch builds it in the background; here built ahead and timed)"
timeout 20 python3 -c "
import time; t = time.perf_counter()
from tileorch.runtime import c_launch
m = c_launch.wait()
print(f'[build] {\"built\" if m else \"NOT built\"} in {time.perf_counter() - t:.2f} s: {m or c_launch.why_not()}')
from tileorch.runtime.direct_launch import planned_path
print('[build] planned path:', *planned_path())"
echo "[build] rc=$?"

echo "[first] a process's first launch where nothing is built (fresh cache directories)"
for mode in default off; do
  fresh=$(mktemp -d /tmp/s34first.XXXX)
  if [ $mode = off ]; then c=0; else c=; fi
  TILEORCH_CACHE_DIR=$fresh TILEORCH_LAUNCH_C=$c S34_MODE=$mode S34_JSON="$S/first_$mode.json" \
    timeout 45 python3 benchmarks/session34_launch.py first 2>&1 | grep -E "^\[first\]|Error|error" | tail -n 4
  echo "[first] $mode rc=${PIPESTATUS[0]}"
  rm -rf "$fresh"
done

echo "[s34] several programs, same process (tileorch.cutile.launch as imported: the Front where built)"
S34_JSON="$S/programs.json" timeout 50 python3 benchmarks/session34_launch.py programs 2>&1 | tail -n 45
echo "[s34] rc=${PIPESTATUS[0]}"

echo "[gemm] tileorch.gemm vs torch.matmul, same process"
S34_JSON="$S/gemm.json" timeout 45 python3 benchmarks/session34_launch.py gemm 2>&1 | tail -n 8
echo "[gemm] rc=${PIPESTATUS[0]}"

echo "[tests] GPU tests: bound launches on each path, cuTile launches"
timeout 35 python3 -m pytest -q -n 0 -p no:cacheprovider tests/gpu/test_bound_launches_gpu.py tests/gpu/test_cutile_gpu.py \
  -k "either_path or vector_add or row_softmax or relaunch or repeated_launches or cpu_tensor or fused_bias" 2>&1 | tail -n 8
echo "[tests] rc=${PIPESTATUS[0]}"
