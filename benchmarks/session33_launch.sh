# Session 33 (s33-launch), issue 22 item 3: host time per tileorch.cutile.launch <= cuda.tile.launch's, same process.
# What changed: bound launches (tileorch.cutile.launch's repeated and re-pointed calls, tileorch.gemm) call libcuda's
# cuLaunchKernelEx through a compiled C launcher (src/tileorch/runtime/c_launch.py: a small CPython extension built
# with the C compiler at the first bound launch, kept in $TILEORCH_CACHE_DIR/c_launch) instead of cuda-python's
# binding, and a repeated tileorch.cutile.launch call (torch tensors, array interfaces, Python scalars) is checked
# against the last launched call in C (c_launch.Memo in front of cutile_bound's hot launcher).  OPT-IN until this run
# measures it: TILEORCH_LAUNCH_C=1 (unset/0: as in s32, the same-process baseline "tileorch_s32" below).  CPU (callgrind, benchmarks/launch_instructions.py, stand-in libcuda of one C function):
# see benchmarks/results/README.md's session 33 entry.
# Should show:
#   [build]  the C launcher built on the H100 host (else why not: then every number below is cuda-python's);
#   [launch] launch_overhead.py as in s32: cutile_launch (now the C path; "paths" says so) vs cuda_tile_launch vs
#            cutile_launch_cuda_python (cuda-python's binding behind the C memo, same rounds), breakdown (bound_launch = the C launcher alone vs
#            cuLaunchKernelEx through cuda-python), tileorch.gemm vs torch.matmul (gemm on the C path too: keep met);
#   [s33]    per program (scale 1M, scale on one CTA, a 2-D add, axpy with 3 arrays + 2 scalars), same process,
#            alternating rounds: tileorch (C) / cuda.tile.launch / tileorch as in s32 / the bare C launcher /
#            bare cuda-python cuLaunchKernelEx / a torch op, us per call; the ratio tileorch / cuda.tile.launch;
#            outputs checked (NaN-prefilled, against torch);
#   [tests]  the GPU tests of the bound launches on the c, ctypes and cuda-python paths, and the cuTile GPU tests.
# cuda.tile.launch compiles with tileiras: stage it (device_session.sh stage_tc, /tmp/tc on PATH) or its lines say
# "skipped" with the reason.
# Run (carry .whl):  TAIL=90 CMD="bash benchmarks/session33_launch.sh" bash benchmarks/device_session.sh shell
#   -> $OUT/s33launch.  Timeouts: 20 + 90 + 70 + 55 s (235 s at most).
S="$OUT/s33launch"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$S/device.txt"

echo "[build] the C launcher (first bound launch builds it; here built ahead, timed)"
TILEORCH_LAUNCH_C=1 timeout 20 python3 -c "
import time; t = time.perf_counter()
from tileorch.runtime import c_launch
m = c_launch.module()
print(f'[build] {\"built\" if m else \"NOT built\"} in {time.perf_counter() - t:.2f} s: {m or c_launch.why_not()}')
from tileorch.runtime.direct_launch import planned_path
print('[build] planned path:', *planned_path())"
echo "[build] rc=$?"

echo "[launch] host time per call (median of 2000, same process), TILEORCH_LAUNCH_C=1 (the opt-in C paths)"
TILEORCH_LAUNCH_C=1 timeout 90 python3 benchmarks/launch_overhead.py --mode gpu --calls 2000 --out "$S/build" \
  --json "$S/launch_overhead_gpu_s33launch.json" > "$S/launch_overhead.log" 2>&1
echo "[launch] rc=$?"
python3 - "$S/launch_overhead_gpu_s33launch.json" <<'PY'
import json, sys
try:
    g = json.load(open(sys.argv[1]))["gpu"]
except (OSError, ValueError, KeyError) as exc:
    sys.exit(f"[launch] no record: {exc}")
print("[launch] paths:", {k: v[0] for k, v in g.get("paths", {}).items() if k.startswith("cutile") or "256x256" in k})
for k in ("cutile_launch", "cuda_tile_launch", "cutile_launch_cuda_python", "cutile_launch_created_stream",
          "cuda_tile_launch_created_stream", "cutile_launch_new_arrays", "cuda_tile_launch_new_arrays"):
    if k in g:
        print(f"[launch] {k:34s} {g[k]['median_us']:7.2f} us median (p10 {g[k]['p10_us']:.2f})")
    elif k + "_skipped" in g:
        print(f"[launch] {k:34s} skipped: {g[k + '_skipped'][:140]}")
for shape, r in g.get("gemm", {}).items():
    t = g.get("torch_matmul", {}).get(shape)
    cp = g.get("gemm_cuda_python", {}).get(shape)
    print(f"[launch] tileorch.gemm {shape:16s} {r['median_us']:6.2f} us (cuda-python path "
          f"{cp['median_us'] if cp else float('nan'):6.2f}) vs torch.matmul {t['median_us'] if t else float('nan'):6.2f} us")
b = g.get("breakdown", {})
for k in ("key", "stream_handle", "bound_launch", "hot_launcher", "cuLaunchKernelEx", "bound_launch_created_stream",
          "cuLaunchKernelEx_created_stream"):
    if k in b:
        print(f"[launch] breakdown {k:32s} {b[k]['median_us']:6.2f} us")
n = g.get("native_route", {})
for k in ("cutile_launch_native", "cutile_launch", "cuda_tile_launch"):
    if k in n:
        print(f"[launch] native route round {k:22s} {n[k]['median_us']:6.2f} us")
PY

echo "[s33] several programs, same process"
S33_JSON="$S/session33_launch.json" timeout 70 python3 benchmarks/session33_launch.py 2>&1 | tail -n 45
echo "[s33] rc=${PIPESTATUS[0]}"

echo "[tests] GPU tests: bound launches on each path, cuTile launches"
timeout 55 python3 -m pytest -q -n 0 -p no:cacheprovider tests/gpu/test_bound_launches_gpu.py tests/gpu/test_cutile_gpu.py \
  -k "either_path or vector_add or row_softmax or relaunch or repeated_launches or cpu_tensor or fused_bias" 2>&1 | tail -n 8
echo "[tests] rc=${PIPESTATUS[0]}"
