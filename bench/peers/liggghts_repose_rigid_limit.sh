#!/usr/bin/env bash
# The LIGGGHTS repose demo towards its rigid limit: bench/peers/liggghts_repose.sh for every
# Young's modulus, rolling friction and fill seed, measured with `etdem analyze repose`.
#
#   bench/peers/liggghts_repose_rigid_limit.sh [OUT_ROOT]     (default out/liggghts-rigid-limit)
#
# 1. The demo's fill for each seed: `etdem run examples/repose/spheres.toml --set
#    'fill[0].seed=S' --set simulation.duration=1e-9` (one step), OUT_ROOT/fill-sS/state.csv.
# 2. One LIGGGHTS run per (E, mu_r, seed) into OUT_ROOT/E<E>_mu<MU_R>_s<S>/, the time step from
#    liggghts_repose.sh's rule (0.092 of the Hertz time at the pour's impact speed) or DT_<E>
#    (DT_1e10 = 4e-6 s: the rule's 5.05e-6 s would be 37 % of the Rayleigh time, above
#    LIGGGHTS' warning at 30 %; 4e-6 s is 29 %), under `nice -n 19`, JOBS at once; a run whose
#    state.csv exists is not run again. The run's CPU seconds (user + system) go to time.txt,
#    its last line to run.txt. DT_CHECK="E:DT ..." adds runs of the seeds DT_CHECK_SEEDS
#    (default 1), mu_r 0.05, at each E with that step (OUT_ROOT/E<E>_mu0.05_s<S>_dt<DT>/): the
#    angle's dependence on the step, seed by seed against the same fills at the rule's step.
# 3. `etdem analyze repose` on the heap at 4 s and on the grains at 3 s (a copy in at3s/), and
#    one row per run to CSV (default OUT_ROOT/liggghts_repose_rigid_limit.csv).
# 4. For each mu_r: the mean angle per E (at its most-run step, on a tie the larger), and the
#    rigid limit two ways: a least-squares line angle = a - b (E / 1e7 Pa)^-p over the runs
#    (p = 2/3: a Hertz contact's overlap under a given load; p = 0.4: its contact time), a the
#    limit, its error from the residual scatter; and the mean of the runs at the two stiffest E.
#
# Environment: YOUNGS (default "1e8 1e9 1e7"), MU_RS ("0.05 0"), SEEDS ("1 2 3"), JOBS (2),
# DT_CHECK (none), DT_CHECK_SEEDS ("1"), ETDEM (build/release/bin/etdem), CSV. Runs go E
# first, then mu_r, then seed.
# Results: bench/results/liggghts_repose_rigid_limit.csv, docs/notes/validation.md (the calls
# that made them are listed there).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT_DIR=$(cd "$HERE/../.." && pwd)
OUT=$(mkdir -p "${1:-out/liggghts-rigid-limit}" && cd "${1:-out/liggghts-rigid-limit}" && pwd)
ETDEM=${ETDEM:-$ROOT_DIR/build/release/bin/etdem}
YOUNGS=${YOUNGS-1e8 1e9 1e7}  # empty: no grid (only DT_CHECK runs)
MU_RS=${MU_RS:-0.05 0}
SEEDS=${SEEDS:-1 2 3}
JOBS=${JOBS:-2}
CSV=${CSV:-$OUT/liggghts_repose_rigid_limit.csv}
DT_CHECK=${DT_CHECK:-}
DT_CHECK_SEEDS=${DT_CHECK_SEEDS:-1}
export DT_1e10=${DT_1e10:-4e-6}

for s in $SEEDS $DT_CHECK_SEEDS; do
  [ -r "$OUT/fill-s$s/state.csv" ] && continue
  nice -n 19 "$ETDEM" run "$ROOT_DIR/examples/repose/spheres.toml" --threads 1 \
    --set "fill[0].seed=$s" --set simulation.duration=1e-9 -o "$OUT/fill-s$s" > /dev/null
done

run_one() {  # E MU_R SEED [DT]: DT given names the run directory
  local dir="$OUT/E$1_mu$2_s$3${4:+_dt$4}" dtvar="DT_$1" dt=${4:-}
  dt=${dt:-${!dtvar:-}}
  [ -r "$dir/state.csv" ] && return 0
  mkdir -p "$dir"
  YOUNG=$1 DT=$dt nice -n 19 /usr/bin/time -f "%U %S" -o "$dir/time.txt" \
    "$HERE/liggghts_repose.sh" "$OUT/fill-s$3/state.csv" "$dir" "$2" > "$dir/run.txt" 2>&1 ||
    { echo "E=$1 mu_r=$2 seed=$3 failed: $(tail -n 1 "$dir/run.txt")" >&2; return 0; }
  tail -n 1 "$dir/run.txt"
}
export -f run_one
export OUT HERE
{
  for e in $YOUNGS; do for m in $MU_RS; do for s in $SEEDS; do echo "$e $m $s"; done; done; done
  for c in $DT_CHECK; do for s in $DT_CHECK_SEEDS; do echo "${c%%:*} 0.05 $s ${c#*:}"; done; done
} | xargs -r -P "$JOBS" -L 1 bash -c 'run_one "$@"' _

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
rows.sort(key=lambda r: (r[0], -r[1], -float(r[3][1]), r[2]))
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

python3 - "$CSV" <<'PY'
# The mean angle per E and the rigid limit (step 4 of the header).
import csv, math, sys
from collections import defaultdict
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
for mu in sorted({r["mu_r"] for r in rows}, key=float, reverse=True):
    by = defaultdict(dict)  # (E, dt) -> {seed: angle}
    for r in rows:
        if r["mu_r"] == mu:
            by[(float(r["young_pa"]), r["dt_s"])][int(r["seed"])] = float(r["angle_deg"])
    main, seeds = {}, {}
    for (e, dt), a in by.items():
        n = len(main[e][1]) if e in main else 0  # the most-run step; on a tie the larger
        if len(a) > n or (len(a) == n and float(dt) > float(main[e][0])):
            main[e], seeds[e] = (dt, list(a.values())), a
    print(f"mu_r = {mu}: E, dt, runs, mean angle, sample sd, sd / sqrt(n)")
    for e in sorted(main):
        dt, a = main[e]
        m = sum(a) / len(a)
        sd = math.sqrt(sum((x - m) ** 2 for x in a) / (len(a) - 1)) if len(a) > 1 else float("nan")
        print(f"  {e:g}  {dt}  {len(a)}  {m:.2f}  {sd:.2f}  {sd / math.sqrt(len(a)):.2f}")
    for (e, dt), a in sorted(by.items()):
        if main[e][0] != dt:  # the same fills at the rule's step: differences seed by seed
            d = [a[s] - seeds[e][s] for s in a if s in seeds[e]]
            m = sum(d) / len(d)
            sd = math.sqrt(sum((x - m) ** 2 for x in d) / (len(d) - 1)) if len(d) > 1 else float("nan")
            print(f"  {e:g}  {dt}  {len(a)}  {sum(a.values()) / len(a):.2f}  (step check: "
                  f"{m:+.2f} deg against {main[e][0]} over seeds {sorted(a)}, sd {sd:.2f})")
    pts = [(e, x) for e in main for x in main[e][1]]
    if len(main) < 3:
        continue
    for p in (2 / 3, 0.4):
        xs = [(e / 1e7) ** -p for e, _ in pts]
        ys = [y for _, y in pts]
        n = len(xs)
        mx, my = sum(xs) / n, sum(ys) / n
        sxx = sum((x - mx) ** 2 for x in xs)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
        a = my - slope * mx
        s2 = sum((y - a - slope * x) ** 2 for x, y in zip(xs, ys)) / (n - 2)
        sa = math.sqrt(s2 * (1 / n + mx * mx / sxx))
        print(f"  fit p = {p:.3g}: limit a = {a:.2f} +- {sa:.2f} deg, b = {-slope:.2f} +- "
              f"{math.sqrt(s2 / sxx):.2f} deg ({n} runs, residual sd {math.sqrt(s2):.2f})")
    stiff = sorted(main)[-2:]
    a = [x for e in stiff for x in main[e][1]]
    m = sum(a) / len(a)
    sd = math.sqrt(sum((x - m) ** 2 for x in a) / (len(a) - 1))
    print(f"  mean of E = {stiff[0]:g} and {stiff[1]:g}: {m:.2f} +- {sd / math.sqrt(len(a)):.2f} deg"
          f" ({len(a)} runs, sd {sd:.2f})")
PY
