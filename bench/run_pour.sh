#!/usr/bin/env bash
# Runs the pour benchmark in etdem (bench_pour) and in LIGGGHTS (bench/peers/liggghts_pour.sh)
# one after the other, prints a side-by-side table and appends one row per N to
# bench/results/pour.csv. See bench/README.md.
#
#   bench/run_pour.sh [--n "1000 10000"] [--large] [--duration 1.0] [--threads 1] [--ranks 1]
#                     [--timeout SECONDS] [--young PA] [--dt S] [--no-build] [--no-csv]
#
#   --n         particle counts (default "1000 10000")
#   --large     also N = 100000
#   --duration  physical time in seconds, the same for both codes (default 1.0)
#   --threads   OpenMP threads of etdem (default 1, the same core count as 1 LIGGGHTS rank)
#   --ranks     MPI ranks of LIGGGHTS (default 1; > 1 uses mpirun)
#   --timeout   wall-clock limit per etdem run; a run that hits it is reported as "timeout"
#   --young     Young's modulus of LIGGGHTS' Hertz contacts (default 1e7 Pa), run at its stable
#               step 8e-5 x sqrt(1e7 / E) s; rows then go to results/pour_young.csv with E and
#               that step (etdem's rigid contacts do not depend on it)
#   --dt        etdem's time step in seconds (default bench_pour's, 1/600); rows go to
#               bench/results/pour_dt.csv (pour_young_dt.csv with --young) with it as a column
#   --no-build  use the existing build/release/bench/bench_pour
#   --no-csv    print the table only
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NS="1000 10000"
LARGE=0
DURATION=1.0
THREADS=1
RANKS=1
TIMEOUT=0
BUILD=1
CSV=1
YOUNG=""
DT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --n) NS=$2; shift 2 ;;
    --large) LARGE=1; shift ;;
    --duration) DURATION=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --ranks) RANKS=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --young) YOUNG=$2; shift 2 ;;
    --dt) DT=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --no-csv) CSV=0; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
if [ "$LARGE" = 1 ]; then NS="$NS 100000"; fi

cd "$ROOT"
if [ "$BUILD" = 1 ]; then
  cmake --preset release >/dev/null
  cmake --build build/release -j2 --target bench_pour >/dev/null
fi
BENCH=build/release/bench/bench_pour
[ -x "$BENCH" ] || { echo "missing $BENCH (build it or drop --no-build)" >&2; exit 1; }

# The commit, read from .git directly (no git process needed); ETDEM_COMMIT overrides.
commit() {
  if [ -n "${ETDEM_COMMIT:-}" ]; then echo "$ETDEM_COMMIT"; return; fi
  local head ref
  head=$(cat .git/HEAD 2>/dev/null) || { echo unknown; return; }
  if [[ "$head" == ref:* ]]; then
    ref=${head#ref: }
    if [ -f ".git/$ref" ]; then cut -c1-12 ".git/$ref"
    elif [ -f .git/packed-refs ]; then awk -v r="$ref" '$2 == r {print substr($1, 1, 12)}' .git/packed-refs
    else echo unknown; fi
  else
    echo "${head:0:12}"
  fi
}
COMMIT=$(commit)
DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)

field() {  # field KEY LINE -> value of KEY=value in LINE
  sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p" <<<"$2"
}

CSV_FILE=bench/results/pour.csv
HEADER="date,commit,n,duration_s,etdem_wall_s,etdem_us_per_particle_step,etdem_bed_m,liggghts_wall_s,liggghts_bed_m,speedup,bed_diff_pct"
if [ -n "$YOUNG" ]; then
  CSV_FILE=bench/results/pour_young.csv
  HEADER="$HEADER,liggghts_young_pa,liggghts_dt_s"
  export YOUNG
fi
if [ -n "$DT" ]; then
  CSV_FILE=${CSV_FILE%.csv}_dt.csv
  HEADER="$HEADER,etdem_dt_s"
fi
if [ "$CSV" = 1 ] && [ ! -s "$CSV_FILE" ]; then
  mkdir -p bench/results
  echo "$HEADER" > "$CSV_FILE"
fi

ROWS=()
for N in $NS; do
  echo "== N=$N duration=${DURATION}s: LIGGGHTS ($RANKS rank(s))" >&2
  lig=$(RANKS=$RANKS bench/peers/liggghts_pour.sh "$N" "$DURATION")
  echo "$lig" >&2
  echo "== N=$N duration=${DURATION}s: etdem ($THREADS thread(s))" >&2
  if [ "$TIMEOUT" != 0 ]; then
    et=$(timeout "$TIMEOUT" "$BENCH" "$N" "$DURATION" "$THREADS" $DT 2>/dev/null) || et="etdem N=$N wall_s=timeout"
  else
    et=$("$BENCH" "$N" "$DURATION" "$THREADS" $DT 2>/dev/null)
  fi
  echo "$et" >&2

  e_wall=$(field wall_s "$et"); e_us=$(field us_per_particle_step "$et"); e_bed=$(field bed_height_m "$et")
  l_wall=$(field wall_s "$lig"); l_bed=$(field bed_height_m "$lig")
  l_young=$(field young_pa "$lig"); l_dt=$(field dt_s "$lig")
  read -r speedup diff < <(python3 - "$e_wall" "$l_wall" "$e_bed" "$l_bed" <<'PY'
import sys
def num(s):
    try:
        return float(s)
    except ValueError:
        return None
ew, lw, eb, lb = map(num, sys.argv[1:5])
sp = f"{lw / ew:.3f}" if ew and lw else "NA"
d = f"{100.0 * (eb - lb) / lb:+.2f}" if eb is not None and lb else "NA"
print(sp, d)
PY
)
  ROWS+=("$N ${e_wall:-NA} ${l_wall:-NA} $speedup ${e_bed:-NA} ${l_bed:-NA} $diff")
  if [ "$CSV" = 1 ]; then
    row="$DATE,$COMMIT,$N,$DURATION,${e_wall:-NA},${e_us:-NA},${e_bed:-NA},${l_wall:-NA},${l_bed:-NA},$speedup,$diff"
    if [ -n "$YOUNG" ]; then row="$row,${l_young:-NA},${l_dt:-NA}"; fi
    if [ -n "$DT" ]; then row="$row,$DT"; fi
    echo "$row" >> "$CSV_FILE"
  fi
done

echo
echo "pour, ${DURATION} s of physical time; etdem $THREADS thread(s)${DT:+ at dt = $DT s}, LIGGGHTS $RANKS rank(s)${YOUNG:+ at E = $YOUNG Pa}; commit $COMMIT"
printf "%8s %12s %12s %14s %10s %10s %9s\n" N etdem_wall_s lig_wall_s lig/etdem etdem_bed_m lig_bed_m bed_diff%
for r in "${ROWS[@]}"; do
  # shellcheck disable=SC2086
  printf "%8s %12s %12s %14s %10s %10s %9s\n" $r
done
if [ "$CSV" = 1 ]; then echo "appended to $CSV_FILE"; fi
