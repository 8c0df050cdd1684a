#!/usr/bin/env bash
# V9 (impulse-based LS-DEM 2024, section 6.2): examples/levelset/v9.toml at the paper's five time
# steps, one thread each, for a node count (2500 as in the paper, or 300), into OUT/v9-N-DT/.
#   tools/v9.sh [NODES] [OUT] [DURATION]
set -euo pipefail
nodes=${1:-2500}
out=${2:-out}
duration=${3:-8.0}
etdem=${ETDEM:-build/release/bin/etdem}
sets=()
for k in 0 1 2 3 4 5; do sets+=(--set "shape[$k].nodes=$nodes"); done
for dt in 0.004 0.002 0.001 0.0005 0.00025; do
  dir="$out/v9-$nodes-$dt"
  "$etdem" run examples/levelset/v9.toml -o "$dir" --threads 1 "${sets[@]}" \
    --set simulation.dt=$dt --set simulation.duration=$duration --set output.every=0 >"$dir.log" 2>&1 || {
    echo "v9: dt = $dt failed (see $dir.log)"; exit 1; }
  tail -n +1 "$dir.log" | grep -E "steps:" | sed "s/^/v9 N=$nodes dt=$dt: /"
done
