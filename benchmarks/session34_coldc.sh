# Session 34 (s34-coldc), issue 22: a cuTile program's cold first launch in a fresh process (export + compile + load),
# tileorch.cutile.launch vs cuda.tile.launch (tileiras) on the H100 host, and the compile's CPU against tileiras's.
# What changed on the branch: a library compile (tileorch.cutile.launch, tileorch.compile) writes back the dataclass
# method texts it compiled (tileorch/dataclass_code.reading, where .pyc may be written: not under
# PYTHONDONTWRITEBYTECODE=1, as device sessions set it), so an installation whose `tileorch` program never ran no
# longer compiles ~900-1400 texts in every process.  No PTX or default changed.
# Should show:
#   [probe] whether ml_dtypes is installed and what importing it costs there (on the 2-core machine: 0.55 s CPU with
#           numpy 2.4.6 + ml_dtypes 0.7.0: cuTile's extension imports it at the first export; both launchers pay it);
#   [cold]  per SIMT program (softmax f16, layernorm bf16, row sum f32): first launch (until the kernel finished) in a
#           fresh process with empty caches, tileorch vs cuda.tile.launch alternated, min/median of 3, CPU median,
#           and the ratio tileorch/cuTile (the issue: <= 1.0 per program, median <= 0.5 for the compile);
#   [cpu]   the same programs without the GPU (benchmarks/cutile_cold_launch.py: import / export / compile CPU of a
#           fresh process) beside tileiras on the same bytecode, min/median of 5: where the first launch's CPU goes on
#           a quiet 16-core host.
# Needs tileiras for the cuTile rows (device_session.sh stage_tc: /tmp/tc); without it those rows say ERROR.
# Run (carry .whl):  TAIL=60 CMD="bash benchmarks/session34_coldc.sh" bash benchmarks/device_session.sh shell
#   -> $OUT/s34coldc.  Timeouts: 150 + 80 s (230 s at most).
S="${OUT:-/tmp}/s34coldc"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
[ -x /tmp/tc/nvidia/cu13/bin/tileiras ] && export PATH="/tmp/tc/nvidia/cu13/bin:$PATH" \
  LD_LIBRARY_PATH="/tmp/tc/nvidia/cu13/lib:${LD_LIBRARY_PATH:-}" CUDA_HOME=/tmp/tc/nvidia/cu13
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$S/device.txt"
echo "[env] tileiras: $(command -v tileiras || echo none); load $(cut -d' ' -f1-3 /proc/loadavg); PYTHONDONTWRITEBYTECODE=${PYTHONDONTWRITEBYTECODE:-unset}"

echo "[cold] first launch in a fresh process, tileorch vs cuda.tile.launch (3 rounds, alternated)"
timeout 150 python3 benchmarks/cutile_cold_launch_gpu.py --repeat 3 --out "$S/cold_gpu.json" 2>&1 | tail -n 20
echo "[cold] rc=${PIPESTATUS[0]}"

echo "[cpu] fresh-process CPU without the GPU: import / export / compile, and tileiras on the same bytecode (5 rounds)"
TI=$(command -v tileiras)
timeout 80 python3 benchmarks/cutile_cold_launch.py --repeat 5 ${TI:+--tileiras "$TI"} --out "$S/cold_cpu.json" 2>&1 \
  | tail -n 12
echo "[cpu] rc=${PIPESTATUS[0]}"
