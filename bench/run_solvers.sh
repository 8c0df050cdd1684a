#!/usr/bin/env bash
# Runs bench_solvers (every solver on the same pile snapshots, see bench/bench_solvers.cpp) and
# appends its measurements to bench/results/solvers.csv, one row per snapshot, mode and solver.
#
#   bench/run_solvers.sh [--n 10000] [--steps 30] [--modes collisions,all] [--solvers all] [--no-build] [--no-csv]
#                        [--from FILE]   (append an earlier run's printed output instead of running)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
N=10000
STEPS=30
MODES=collisions,all
SOLVERS=all
BUILD=1
CSV=1
FROM=
while [ $# -gt 0 ]; do
  case "$1" in
    --n) N=$2; shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    --modes) MODES=$2; shift 2 ;;
    --solvers) SOLVERS=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --no-csv) CSV=0; shift ;;
    --from) FROM=$2; BUILD=0; shift 2 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

cd "$ROOT"
if [ "$BUILD" = 1 ]; then
  cmake --preset release >/dev/null
  cmake --build build/release -j2 --target bench_solvers >/dev/null
fi
BENCH=build/release/bench/bench_solvers
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
if [ -n "$FROM" ]; then
  cp "$FROM" "$OUT"
else
  [ -x "$BENCH" ] || { echo "missing $BENCH (build it or drop --no-build)" >&2; exit 1; }
  "$BENCH" "$N" "$STEPS" 1 "$MODES" "$SOLVERS" | tee "$OUT"
fi

[ "$CSV" = 1 ] || exit 0
CSVFILE=bench/results/solvers.csv
STAMP=$(date -u +%Y-%m-%dT%H:%M:%SZ)
COMMIT=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
/usr/bin/python3 - "$OUT" "$CSVFILE" "$STAMP" "$COMMIT" "$N" <<'PY'
import csv, os, sys
out, path, stamp, commit, n = sys.argv[1:]
cols = ["date", "commit", "n", "snapshot", "mode", "solver", "islands", "contacts", "resolve_s",
        "impulses", "rounds", "guards", "approaching_before", "approaching_after", "ke_before_J",
        "dissipated_J", "restitution_J", "friction_J", "truncated_J", "ledger_gap_J", "steps",
        "ms_per_step", "solve_ms_per_step", "collisions", "max_penetration_m"]
rows = []
for line in open(out):
    if not line.startswith("solvers "):
        continue
    kv = dict(f.split("=", 1) for f in line.split()[1:])
    if kv.get("available") == "0":
        continue
    kv.update(date=stamp, commit=commit, n=n)
    kv["impulses"] = kv.get("impulses", "")
    rows.append({c: kv.get(c, "") for c in cols})
new = not os.path.exists(path)
with open(path, "a", newline="") as f:
    w = csv.DictWriter(f, fieldnames=cols)
    if new:
        w.writeheader()
    w.writerows(rows)
print(f"appended {len(rows)} rows to {path}")
PY
