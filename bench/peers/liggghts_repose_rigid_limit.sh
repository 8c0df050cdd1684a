#!/usr/bin/env bash
# The LIGGGHTS repose demo towards its rigid limit: bench/peers/liggghts_repose.sh for every
# Young's modulus, rolling friction and fill seed, measured with `etdem analyze repose`.
#
#   bench/peers/liggghts_repose_rigid_limit.sh [OUT_ROOT]     (default out/liggghts-rigid-limit)
#
# 1. The demo's fill for each seed: `etdem run examples/repose/spheres.toml --set
#    'fill[0].seed=S' --set simulation.duration=1e-9` (one step), OUT_ROOT/fill-sS/state.csv.
# 2. One LIGGGHTS run per (E, mu_r, seed) into OUT_ROOT/E<E>_mu<MU_R>_s<S>/, the time step from
#    liggghts_repose.sh's rule (0.092 of the Hertz time at the pour's impact speed), under
#    `nice -n 19`, JOBS at once; a run whose state.csv exists is not run again. The run's
#    CPU seconds (user + system) go to time.txt, its last line to run.txt.
# 3. `etdem analyze repose` on the heap at 4 s and on the grains at 3 s (a copy in at3s/), and
#    one row per run to CSV (default OUT_ROOT/liggghts_repose_rigid_limit.csv).
#
# Environment: YOUNGS (default "1e8 1e9 1e7"), MU_RS ("0.05 0"), SEEDS ("1 2 3"), JOBS (2),
# ETDEM (build/release/bin/etdem), CSV. Runs are ordered E first, then mu_r, then seed, as given.
# Results: bench/results/liggghts_repose_rigid_limit.csv, docs/notes/validation.md.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT_DIR=$(cd "$HERE/../.." && pwd)
OUT=$(mkdir -p "${1:-out/liggghts-rigid-limit}" && cd "${1:-out/liggghts-rigid-limit}" && pwd)
ETDEM=${ETDEM:-$ROOT_DIR/build/release/bin/etdem}
YOUNGS=${YOUNGS:-1e8 1e9 1e7}
MU_RS=${MU_RS:-0.05 0}
SEEDS=${SEEDS:-1 2 3}
JOBS=${JOBS:-2}
CSV=${CSV:-$OUT/liggghts_repose_rigid_limit.csv}

for s in $SEEDS; do
  [ -r "$OUT/fill-s$s/state.csv" ] && continue
  nice -n 19 "$ETDEM" run "$ROOT_DIR/examples/repose/spheres.toml" --threads 1 \
    --set "fill[0].seed=$s" --set simulation.duration=1e-9 -o "$OUT/fill-s$s" > /dev/null
done

run_one() {  # E MU_R SEED
  local dir="$OUT/E$1_mu$2_s$3"
  [ -r "$dir/state.csv" ] && return 0
  mkdir -p "$dir"
  YOUNG=$1 nice -n 19 /usr/bin/time -f "%U %S" -o "$dir/time.txt" \
    "$HERE/liggghts_repose.sh" "$OUT/fill-s$3/state.csv" "$dir" "$2" > "$dir/run.txt" 2>&1 ||
    { echo "E=$1 mu_r=$2 seed=$3 failed: $(tail -n 1 "$dir/run.txt")" >&2; return 0; }
  tail -n 1 "$dir/run.txt"
}
export -f run_one
export OUT HERE
for e in $YOUNGS; do for m in $MU_RS; do for s in $SEEDS; do echo "$e $m $s"; done; done; done |
  xargs -P "$JOBS" -n 3 bash -c 'run_one "$@"' _

for dir in "$OUT"/E*_mu*_s*/; do
  dir=${dir%/}
  [ -r "$dir/state.csv" ] || continue
  mkdir -p "$dir/at3s"
  cp "$dir/state_3s.csv" "$dir/at3s/state.csv"
  cp "$dir/summary.json" "$dir/at3s/summary.json"
  "$ETDEM" analyze repose "$dir" > /dev/null
  "$ETDEM" analyze repose "$dir/at3s" > /dev/null
done

python3 - "$OUT" "$CSV" <<'PY'
import glob, json, os, re, sys
out, csv_path = sys.argv[1], sys.argv[2]
rows = []
for d in glob.glob(f"{out}/E*_mu*_s*/"):
    d = d.rstrip("/")
    if not all(os.path.exists(f"{d}/{f}") for f in ("repose.json", "run.txt", "time.txt")):
        continue
    e, mu, seed = re.fullmatch(r"E(.+?)_mu(.+?)_s(\d+)(_.*)?", os.path.basename(d)).groups()[:3]
    last = open(f"{d}/run.txt").read().split("\n")
    line = next(l for l in reversed(last) if l.startswith("liggghts repose"))
    field = dict(kv.split("=", 1) for kv in line.split()[2:])
    r4 = json.load(open(f"{d}/repose.json"))
    r3 = json.load(open(f"{d}/at3s/repose.json"))
    cpu = sum(float(x) for x in open(f"{d}/time.txt").read().split()[-2:])
    rows.append((float(e), float(mu), int(seed), [
        f"{float(e):g}", field["dt"], mu, seed, f"{r4['mean_deg']:.2f}", f"{r4['spread_deg']:.2f}",
        f"{r3['mean_deg']:.2f}", str(r3["grains_over_floor"]), str(r4["grains_over_floor"]),
        f"{r4['mean_speed_over_floor']:.3g}", f"{r4['max_speed_over_floor']:.3g}",
        field["warnings"], f"{cpu:.1f}"]))
rows.sort(key=lambda r: (r[0], -r[1], r[2]))
with open(csv_path, "w") as f:
    f.write("# LIGGGHTS' repose demo towards its rigid limit (bench/peers/liggghts_repose_rigid_limit.sh,"
            " docs/notes/validation.md); angles from `etdem analyze repose` (8 x 16 grid, mean and"
            " spread of the 8 rows); grains over the floor: centres over the 0.15 x 0.1 m floor;"
            " cpu_s: user + system of the run on the shared 2-core machine\n")
    f.write("young_pa,dt_s,mu_r,seed,angle_deg,spread_deg,angle_3s_deg,grains_over_floor_3s,"
            "grains_over_floor_4s,mean_speed_4s_m_s,max_speed_4s_m_s,liggghts_warnings,cpu_s\n")
    for r in rows:
        f.write(",".join(r[3]) + "\n")
print(f"{len(rows)} runs -> {csv_path}")
PY
