#!/usr/bin/env bash
# The split run's speed-up as the median of alternating pairs (bench/README.md "Runs split over
# ranks"): the pour of bench/run_split.sh (--n N spheres, --duration S) on 1 rank x 1 thread and
# on 2 ranks x 1 thread with the pile solved by both, K pairs one run after the other, the order
# swapped from pair to pair (one rank first, then the team first), so that a machine that slows
# down or speeds up over the minutes weighs on both sides alike. Checks that every run wrote the
# same state.csv, appends one row per pair to bench/results/split_pairs.csv and prints each
# pair's ratio (one rank's wall time / the team's) and their median.
#
#   bench/run_split_pairs.sh [--n N] [--duration S] [--pairs K] [--etdem PATH]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
ETDEM=$ROOT/build/release/bin/etdem
DURATION=1.0
N=10000
PAIRS=3
while [ $# -gt 0 ]; do
  case $1 in
    --duration) DURATION=$2; shift 2 ;;
    --n) N=$2; shift 2 ;;
    --pairs) PAIRS=$2; shift 2 ;;
    --etdem) ETDEM=$2; shift 2 ;;
    *) echo "usage: $0 [--n N] [--duration S] [--pairs K] [--etdem PATH]" >&2; exit 2 ;;
  esac
done
case $PAIRS in
  [1-9] | 1[0-9] | 20) ;;
  *) echo "$0: --pairs must be a whole number from 1 to 20, not '$PAIRS'" >&2; exit 2 ;;
esac
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
SCENARIO=$("$HERE/pour_scenario.sh" "$N" "$WORK")
flags=(--bind-to none)
if [ "$(id -u)" -eq 0 ]; then flags+=(--allow-run-as-root); fi
COMMIT=$(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)
OUT=$HERE/results/split_pairs.csv
[ -f "$OUT" ] || echo "date,commit,n,duration_s,pair,first,one_rank_s,two_ranks_s,ratio,state_sha" > "$OUT"
reference=""
# run NAME: one run (one_* on 1 rank, team_* on 2 ranks sharing the pile), its state.csv
# checked against the first run's; sets `wall` to its wall time [s].
wall=""
run() {
  local dir=$WORK/$1
  local cmd=("$ETDEM" run "$SCENARIO" -o "$dir" --threads 1 --set "simulation.duration=$DURATION")
  if [ "${1%%_*}" = team ]; then
    cmd=(mpirun "${flags[@]}" -np 2 "${cmd[@]}" --set simulation.share_islands=on)
  fi
  OMP_NUM_THREADS=1 "${cmd[@]}" > "$dir.log" 2>&1 || { cat "$dir.log" >&2; exit 1; }
  local sha
  sha=$(sha256sum "$dir/state.csv" | cut -c1-12)
  [ -z "$reference" ] && reference=$sha
  [ "$sha" = "$reference" ] || { echo "state.csv of $1 differs from the first run's" >&2; exit 1; }
  wall=$(python3 -c "import json, sys; print('%.3f' % json.load(open(sys.argv[1]))['wall_time'])" \
    "$dir/summary.json")
}
ratios=()
for ((p = 1; p <= PAIRS; ++p)); do
  if [ $((p % 2)) -eq 1 ]; then
    first=one
    run "one_$p"; one=$wall
    run "team_$p"; team=$wall
  else
    first=team
    run "team_$p"; team=$wall
    run "one_$p"; one=$wall
  fi
  ratio=$(python3 -c "print('%.3f' % ($one / $team))")
  ratios+=("$ratio")
  echo "$DATE,$COMMIT,$N,$DURATION,$p,$first,$one,$team,$ratio,$reference" >> "$OUT"
  echo "pair $p ($first first): one rank $one s, two ranks $team s, ratio $ratio" >&2
done
median=$(python3 -c "import statistics, sys; print('%.3f' % statistics.median(map(float, sys.argv[1:])))" \
  "${ratios[@]}")
echo "median of $PAIRS pairs: $median (results: $OUT)" >&2
