#!/usr/bin/env bash
# The 10,000-sphere pour (bench/README.md) at larger steps: etdem at dt = 1/600, 1/300 and 1/150 s,
# with and without the check for pairs the narrow phase missed (simulation.substep_missed,
# docs/design.md "Pairs the narrow phase missed"), and LIGGGHTS (E = 1e7 Pa, dt = 8e-5 s) once in
# the same session; one thread each. Prints the table and appends it to
# bench/results/pour_steps.csv: wall time, the ratio LIGGGHTS / etdem, the bed height against
# LIGGGHTS', the deepest contact over the run and the final overlaps.
#   bench/run_steps.sh [N=10000] [DURATION=1.0]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
duration=${2:-1.0}
bench=build/release/bench/bench_pour
[ -x "$bench" ] || { echo "run_steps: build first (cmake --build --preset release)" >&2; exit 2; }
command -v liggghts >/dev/null || { echo "run_steps: liggghts not found (scripts/install-deps.sh --with-peers)" >&2; exit 2; }
csv=bench/results/pour_steps.csv
[ -f "$csv" ] || echo "date,commit,n,duration_s,dt_s,substep_missed,etdem_wall_s,etdem_bed_m,deepest_of_d,final_overlap_max_of_d,final_overlap_mean_of_d,split_steps,liggghts_wall_s,liggghts_bed_m,speedup,bed_diff_pct" >"$csv"
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
commit=$(git rev-parse --short=12 HEAD)
lig=$(bash bench/peers/liggghts_pour.sh "$n" "$duration" 2>/dev/null | grep '^liggghts ')
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
lwall=$(field "$lig" wall_s)
lbed=$(field "$lig" bed_height_m)
echo "liggghts: wall $lwall s, bed $lbed m"
for dt in 0.0016666666666666668 0.0033333333333333335 0.006666666666666667; do
  for missed in 0 1; do
    out=$(BENCH_POUR_MISSED=$missed "$bench" "$n" "$duration" 1 "$dt" 2>&1)
    line=$(echo "$out" | grep '^etdem ')
    phases=$(echo "$out" | grep '^bench_pour: phases')
    wall=$(field "$line" wall_s)
    bed=$(field "$line" bed_height_m)
    deepest=$(field "$phases" deepest_m)
    omax=$(field "$line" overlap_max_m)
    omean=$(field "$line" overlap_mean_m)
    split=$(field "$phases" split_steps)
    row=$(python3 -c "
d=0.01
print(f'{$deepest/d:.4f},{$omax/d:.4f},{$omean/d:.5f},${split:-NA},$lwall,$lbed,{$lwall/$wall:.3f},{100*($bed/$lbed-1):+.2f}')")
    echo "$date,$commit,$n,$duration,$dt,$missed,$wall,$bed,$row" >>"$csv"
    echo "dt $dt missed $missed: wall $wall s, bed $bed m, ($row)"
  done
done
