#!/usr/bin/env bash
# A run split over MPI ranks against one rank on the same cores (docs/distributed.md,
# bench/README.md "Runs split over ranks"): the pour scenario bench/scenarios/pour_10000.toml on
# 1 rank x 1 thread, 1 rank x 2 threads, 2 ranks x 1 thread with the pile hosted
# (`simulation.share_islands = "off"`, code `etdem_hosted` in the results; `etdem` on 2 ranks
# before the setting's default became "auto") and with it solved by both ranks ("on", the
# default on 2 ranks; code `etdem_shared`), and
# LIGGGHTS on 2 ranks when it is installed (bench/peers/liggghts_pour.sh). Checks that the four
# etdem runs wrote the same state.csv, and appends one row per configuration to
# bench/results/split.csv. With --n N the scenario is that file with N spheres in the pour
# benchmark's box for N (bench/peers/pour_lattice.py geom N: a lattice of side ceil(N^(1/3)) x
# 1.2 d).
#
#   bench/run_split.sh [--n N] [--duration S] [--etdem PATH] [--no-peer]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
ETDEM=$ROOT/build/release/bin/etdem
DURATION=1.0
N=10000
PEER=1
while [ $# -gt 0 ]; do
  case $1 in
    --duration) DURATION=$2; shift 2 ;;
    --n) N=$2; shift 2 ;;
    --etdem) ETDEM=$2; shift 2 ;;
    --no-peer) PEER=0; shift ;;
    *) echo "usage: $0 [--n N] [--duration S] [--etdem PATH] [--no-peer]" >&2; exit 2 ;;
  esac
done
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
SCENARIO=$("$HERE/pour_scenario.sh" "$N" "$WORK")
flags=(--bind-to none)
if [ "$(id -u)" -eq 0 ]; then flags+=(--allow-run-as-root); fi
COMMIT=$(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)
OUT=$HERE/results/split.csv
[ -f "$OUT" ] || echo "date,commit,code,n,duration_s,ranks,threads,wall_s,solve_s_rank0,bytes,messages,islands_spanning,state_sha" > "$OUT"
reference=""
for cfg in "1 1 etdem" "1 2 etdem" "2 1 etdem_hosted" "2 1 etdem_shared"; do
  set -- $cfg
  ranks=$1 threads=$2 code=$3
  dir=$WORK/r${ranks}t${threads}$code
  cmd=("$ETDEM" run "$SCENARIO" -o "$dir" --threads "$threads" --set "simulation.duration=$DURATION")
  case $code in
    etdem_hosted) cmd+=(--set simulation.share_islands=off) ;;
    etdem_shared) cmd+=(--set simulation.share_islands=on) ;;
  esac
  if [ "$ranks" -gt 1 ]; then cmd=(mpirun "${flags[@]}" -np "$ranks" "${cmd[@]}"); fi
  echo "== $code: $ranks rank(s) x $threads thread(s)" >&2
  OMP_NUM_THREADS=$threads "${cmd[@]}" > "$dir.log" 2>&1 || { cat "$dir.log" >&2; exit 1; }
  sha=$(sha256sum "$dir/state.csv" | cut -c1-12)
  [ -z "$reference" ] && reference=$sha
  [ "$sha" = "$reference" ] || { echo "state.csv of $ranks x $threads differs from 1 x 1" >&2; exit 1; }
  row=$(python3 - "$dir/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
r = s.get("ranks", {})
print("%.3f,%.3f,%d,%d,%d" % (s["wall_time"], s["profile_seconds"]["solve"], r.get("bytes", 0),
                             r.get("messages", 0), r.get("islands_spanning_ranks", 0)))
PY
)
  echo "$DATE,$COMMIT,$code,$N,$DURATION,$ranks,$threads,$row,$sha" >> "$OUT"
  echo "   $row" >&2
done
if [ "$PEER" = 1 ] && command -v liggghts >/dev/null; then
  echo "== LIGGGHTS: 2 ranks" >&2
  line=$(RANKS=2 "$HERE/peers/liggghts_pour.sh" "$N" "$DURATION" | tail -1)
  wall=$(sed -n 's/.* wall_s=\([^ ]*\).*/\1/p' <<<"$line")
  echo "$DATE,$COMMIT,liggghts,$N,$DURATION,2,1,$wall,,,,," >> "$OUT"
  echo "   $line" >&2
fi
echo "results: $OUT" >&2
