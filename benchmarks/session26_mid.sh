for part in benchmarks/session26_rowred.sh benchmarks/session26_mlp.sh benchmarks/session26_attn.sh; do
  echo "=== $part ($(date -u +%T))"; timeout 170 bash "$part" 2>&1 | tail -n 45
done; echo "=== done ($(date -u +%T))"
