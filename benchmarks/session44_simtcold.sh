# Session 44, s44-simtcold: the SIMT programs' cold compile against tileiras on the GPU host (issue 22; no GPU needed,
# the host's 16 cores and tileiras are what matter).  Three steps, < 150 s:
#   1. benchmarks/compile_time.py --only softmax_f16 layernorm_bf16 row_sum_f32 (cold = a fresh `tileorch compile`
#      process: wall and CPU, its phases; warm; relaunch; tileiras on the same bytecode when it is staged, as
#      device_session.sh's stage_tc leaves it in /tmp/tc, else a tileiras on PATH, else not timed);
#   2. benchmarks/simt_cold_phases.py -n 5: the CPU milliseconds of each phase of the cold first compile (min of 5
#      fresh processes: imports, cuTile export, bytecode read, each pass, translation, codegen, ptxas);
#   3. ptxas alone on each program's PTX (min of 5 wall/CPU): the part of the cold compile no Python change removes.
# Output: $OUT/s44simtcold.tgz (JSON and logs); the important lines on stdout as "[s44 simtcold] ...".
# Run from the repository root (carry .whl, as device_session.sh's install_compiler needs): bash benchmarks/session44_simtcold.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s44simtcold"; mkdir -p "$S"
export PYTHONUNBUFFERED=1 TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
if ! python3 -c "import xdsl, llvmlite" 2>/dev/null; then  # as device_session.sh's install_compiler
  [ -d /tmp/site/xdsl ] || python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl
  [ -f /tmp/site/llvmlite/binding/libllvmlite.so ] || { tar xzf .whl/llvmlite_rest.tgz -C /tmp/site \
    && xz -dc .whl/libllvmlite.so.xz > /tmp/site/llvmlite/binding/libllvmlite.so; }
fi
export PYTHONPATH="/tmp/site:$PWD/src"
TI=""
if [ -x /tmp/tc/nvidia/cu13/bin/tileiras ]; then
  TI=/tmp/tc/nvidia/cu13/bin/tileiras
  export PATH="/tmp/tc/nvidia/cu13/bin:$PATH" LD_LIBRARY_PATH="/tmp/tc/nvidia/cu13/lib:${LD_LIBRARY_PATH:-}"
elif command -v tileiras >/dev/null; then TI=$(command -v tileiras); fi
echo "[s44 simtcold] $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg), tileiras: ${TI:-not staged (not timed)}"
T0=$(date +%s)
timeout ${CT_S:-80} python3 benchmarks/compile_time.py --only softmax_f16 layernorm_bf16 row_sum_f32 --repeat 3 \
  --out "$S" ${TI:+--tileiras "$TI"} $([ -n "$TI" ] || echo --no-tileiras) > "$S/compile_time.log" 2>&1
echo "[s44 simtcold] compile_time rc=$? $(( $(date +%s) - T0 )) s"
python3 - "$S/compile_time.json" <<'EOF' 2>&1 | sed 's/^/[s44 simtcold] /'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["programs"]:
    t = r.get("cold_timings") or {}
    ph = " ".join(f"{k}={t[k]:.3f}" for k in ("import", "parse", "tile-program", "lower", "translate", "codegen", "ptxas")
                  if k in t)
    ti = r.get("tileiras_s")
    print(f"{r['name']}: cold {r.get('cold_s', 0):.3f} s wall (cpu {r.get('cold_cpu_s', 0):.3f}), tileiras "
          f"{'%.3f' % ti if ti else '-'} s, cold/tileiras {'%.2f' % r['cold_vs_tileiras'] if r.get('cold_vs_tileiras') else '-'}"
          f"; startup {r.get('startup_s') or 0:.3f} {ph}")
EOF
T1=$(date +%s)
timeout ${PH_S:-50} python3 benchmarks/simt_cold_phases.py -n 5 > "$S/phases.log" 2>&1
echo "[s44 simtcold] phases rc=$? $(( $(date +%s) - T1 )) s"; grep -v "^byte-compiled" "$S/phases.log" | head -40 | sed 's/^/[s44 simtcold] /'
PTXAS=$(python3 -c "from tileorch.backend.ptxas import ptxas_path; print(ptxas_path())" 2>/dev/null)
for n in softmax_f16 layernorm_bf16 row_sum_f32; do
  f="$S/bytecode/$n.tileirbc"; [ -f "$f" ] || continue
  python3 -m tileorch compile "$f" -o "$S/$n.ptx" --no-ptxas > /dev/null 2>&1 || continue
  best=9; bestc=9
  for i in 1 2 3 4 5; do
    r=$( { TIMEFORMAT='%R %U %S'; time "$PTXAS" -arch=sm_90a -v -o "$S/$n.cubin" "$S/$n.ptx" >/dev/null 2>&1; } 2>&1 | tail -n 1)
    w=$(echo "$r" | awk '{print $1}'); c=$(echo "$r" | awk '{print $2+$3}')
    best=$(echo "$w $best" | awk '{print ($1<$2)?$1:$2}'); bestc=$(echo "$c $bestc" | awk '{print ($1<$2)?$1:$2}')
  done
  echo "[s44 simtcold] ptxas alone $n: $(wc -l < "$S/$n.ptx") PTX lines, min of 5: ${best} s wall, ${bestc} s CPU ($PTXAS)"
done
tar czf "$OUT/s44simtcold.tgz" -C "$OUT" s44simtcold && rm -rf "$S"
