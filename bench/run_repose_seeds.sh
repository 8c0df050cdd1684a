#!/usr/bin/env bash
# etdem's repose demo over fill seeds, with and without rolling resistance: the etdem side of
# bench/peers/liggghts_repose_rigid_limit.sh (the same fills: `fill[0].seed=S`).
#
#   bench/run_repose_seeds.sh [OUT_ROOT]     (default out/etdem-repose-seeds)
#
# 1. One run of examples/repose/spheres.toml per (seed, mu_r) into OUT_ROOT/mu<MU_R>_s<S>/:
#    `--set fill[0].seed=S --set material[0].rolling_friction=MU_R` (the box's walls are of the
#    same material), one thread, state_SSSSSS.csv every 300 steps (0.5 s), no VTK frames, under
#    `nice -n 19`, JOBS at once; a run whose state.csv exists is not run again. CPU seconds
#    (user + system) go to time.txt.
# 2. `etdem analyze repose` on the heap at 4 s and `--series` on the snapshots (the state at
#    3 s is the row of step 1800), one row per run to CSV (default
#    OUT_ROOT/etdem_repose_seeds.csv), then per mu_r the mean angle, the sample sd of the seeds
#    and sd / sqrt(n).
#
# Environment: SEEDS (default "1 2 3 4 5 6"), MU_RS ("0.05 0"), JOBS (2), ETDEM
# (build/release/bin/etdem), CSV, EXTRA (more `--set KEY=VALUE` arguments for every run, e.g.
# a variant of the resting pass). Runs go seed first, then mu_r.
# Results: bench/results/etdem_repose_seeds.csv, docs/notes/validation.md.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT_DIR=$(cd "$HERE/.." && pwd)
OUT=$(mkdir -p "${1:-out/etdem-repose-seeds}" && cd "${1:-out/etdem-repose-seeds}" && pwd)
ETDEM=${ETDEM:-$ROOT_DIR/build/release/bin/etdem}
SEEDS=${SEEDS:-1 2 3 4 5 6}
MU_RS=${MU_RS:-0.05 0}
JOBS=${JOBS:-2}
EXTRA=${EXTRA:-}
CSV=${CSV:-$OUT/etdem_repose_seeds.csv}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

run_one() {  # SEED MU_R
  local dir="$OUT/mu$2_s$1"
  [ -r "$dir/state.csv" ] && return 0
  mkdir -p "$dir"
  nice -n 19 /usr/bin/time -f "%U %S" -o "$dir/time.txt" \
    "$ETDEM" run "$ROOT_DIR/examples/repose/spheres.toml" --threads 1 \
    --set "fill[0].seed=$1" --set "material[0].rolling_friction=$2" \
    --set output.state_every=300 --set output.every=0 $EXTRA -o "$dir" > "$dir/run.txt" 2>&1 ||
    { echo "seed=$1 mu_r=$2 failed: $(tail -n 1 "$dir/run.txt")" >&2; return 0; }
  echo "seed=$1 mu_r=$2 done: $(cat "$dir/time.txt") s CPU"
}
export -f run_one
export OUT ROOT_DIR ETDEM EXTRA
for s in $SEEDS; do for m in $MU_RS; do echo "$s $m"; done; done |
  xargs -r -P "$JOBS" -L 1 bash -c 'run_one "$@"' _

for dir in "$OUT"/mu*_s*/; do
  dir=${dir%/}
  [ -r "$dir/state.csv" ] || continue
  "$ETDEM" analyze repose "$dir" > /dev/null
  "$ETDEM" analyze repose --series "$dir" > /dev/null
done

VERSION=$("$ETDEM" --version)
python3 - "$OUT" "$CSV" "$VERSION" <<'PY'
import csv, glob, json, os, re, statistics, sys
out, csv_path, version = sys.argv[1:4]
rows = []
for d in glob.glob(os.path.join(out, "mu*_s*")):
    m = re.fullmatch(r"mu(.+)_s(\d+)", os.path.basename(d))
    if not m or not os.path.exists(os.path.join(d, "repose.json")):
        continue
    r = json.load(open(os.path.join(d, "repose.json")))
    series = list(csv.DictReader(open(os.path.join(d, "repose_series.csv"))))
    at3 = min(series, key=lambda row: abs(float(row["time"]) - 3.0))
    user, system = map(float, open(os.path.join(d, "time.txt")).read().split()[-2:])
    rows.append(dict(seed=int(m.group(2)), mu_r=m.group(1),
                     angle_deg=f"{r['mean_deg']:.2f}", spread_deg=f"{r['spread_deg']:.2f}",
                     angle_3s_deg=f"{float(at3['mean_deg']):.2f}",
                     grains_over_floor_3s=at3["grains_over_floor"],
                     grains_over_floor_4s=r["grains_over_floor"],
                     mean_speed_4s_m_s=f"{r['mean_speed_over_floor']:.3g}",
                     max_speed_4s_m_s=f"{r['max_speed_over_floor']:.3g}",
                     cpu_s=f"{user + system:.1f}", etdem_version=version,
                     settings=os.environ.get("EXTRA", "").strip()))
rows.sort(key=lambda r: (-float(r["mu_r"]), r["seed"]))
with open(csv_path, "w", newline="") as f:
    f.write("# etdem's repose demo (examples/repose/spheres.toml) over fill seeds "
            "(bench/run_repose_seeds.sh, docs/notes/validation.md); angles from `etdem analyze "
            "repose` (8 x 16 grid, mean and spread of the 8 rows); grains over the floor: centres "
            "over the 0.15 x 0.1 m floor; cpu_s: user + system of the run, one thread, on the "
            "shared 2-core machine; settings: the run's EXTRA (--set arguments beyond the seed "
            "and mu_r)\n")
    w = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["seed"], lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
for mu in sorted({r["mu_r"] for r in rows}, key=lambda m: -float(m)):
    a = [float(r["angle_deg"]) for r in rows if r["mu_r"] == mu]
    sd = statistics.stdev(a) if len(a) > 1 else float("nan")
    print(f"mu_r {mu}: {len(a)} seeds, mean {statistics.mean(a):.2f} deg, sd {sd:.2f}, "
          f"sd/sqrt(n) {sd / len(a) ** 0.5:.2f}; per seed "
          + ", ".join(r["angle_deg"] for r in rows if r["mu_r"] == mu))
PY
