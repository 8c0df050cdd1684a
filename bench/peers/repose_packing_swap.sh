#!/usr/bin/env bash
# The repose demo with the packings swapped between etdem and LIGGGHTS: which part of the
# difference between the two heaps comes from the pour (the packing when the wall goes) and
# which from the collapse after it.
#
#   bench/peers/repose_packing_swap.sh [OUT_ROOT]     (default out/repose-packing-swap)
#
# For each fill seed S and rolling friction MU_R, four heaps, each 2.5 s after the x = 0.15 m
# wall is removed:
#   ee  etdem's pour, etdem's collapse: examples/repose/spheres.toml as it is (wall at 1.5 s);
#   ll  LIGGGHTS' pour and collapse: bench/peers/liggghts_repose.sh from etdem's fill;
#   el  etdem's packing at 1.5 s (a run of duration 1.5 s), collapsed by LIGGGHTS
#       (liggghts_repose.sh with T_REMOVE=0.02: 0.02 s against the wall, then 2.5 s);
#   le  LIGGGHTS' packing at 1.5 s (its state_removal.csv), collapsed by etdem
#       (tools/state_to_scenario.py --separate: the soft contacts' overlaps (micrometres) pushed
#       apart; the wall removed at 0.02 s, 2.52 s).
# The first letter names the code of the pour, the second that of the collapse. Each heap is
# measured with `etdem analyze repose`, one row per run to CSV (default OUT_ROOT/
# repose_packing_swap.csv), then per MU_R the mean of each heap over the seeds and the two
# effects with their paired standard errors: the pour's (le - ee and ll - el: the packing
# changed, the collapse's code kept) and the collapse's (el - ee and ll - le).
#
# Environment: SEEDS (default "1 2 3"), MU_RS ("0.05 0"), YOUNG (LIGGGHTS' modulus, default
# 1e9 Pa, the rigid limit's level), JOBS (2), ETDEM (build/release/bin/etdem), CSV. Runs go
# under `nice -n 19`; a run whose state.csv exists is not run again.
# Results: bench/results/repose_packing_swap.csv, docs/notes/validation.md.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT_DIR=$(cd "$HERE/../.." && pwd)
OUT=$(mkdir -p "${1:-out/repose-packing-swap}" && cd "${1:-out/repose-packing-swap}" && pwd)
ETDEM=${ETDEM:-$ROOT_DIR/build/release/bin/etdem}
SEEDS=${SEEDS:-1 2 3}
MU_RS=${MU_RS:-0.05 0}
YOUNG=${YOUNG:-1e9}
JOBS=${JOBS:-2}
CSV=${CSV:-$OUT/repose_packing_swap.csv}
DEMO=$ROOT_DIR/examples/repose/spheres.toml
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
export OUT ROOT_DIR ETDEM YOUNG DEMO

etdem_run() {  # DIR SCENARIO ARGS...: one etdem run, CPU seconds to DIR/time.txt
  local dir=$1 scenario=$2
  shift 2
  [ -r "$dir/state.csv" ] && return 0
  mkdir -p "$dir"
  nice -n 19 /usr/bin/time -f "%U %S" -o "$dir/time.txt" "$ETDEM" run "$scenario" --threads 1 \
    --set output.every=0 "$@" -o "$dir" > "$dir/run.txt" 2>&1 ||
    { echo "$dir failed: $(tail -n 1 "$dir/run.txt")" >&2; return 1; }
}

liggghts_run() {  # DIR START [VAR=VALUE...]: one LIGGGHTS run
  local dir=$1 start=$2
  shift 2
  [ -r "$dir/state.csv" ] && return 0
  mkdir -p "$dir"
  env "$@" nice -n 19 /usr/bin/time -f "%U %S" -o "$dir/time.txt" \
    "$ROOT_DIR/bench/peers/liggghts_repose.sh" "$start" "$dir" "$MU_R" > "$dir/run.txt" 2>&1 ||
    { echo "$dir failed: $(tail -n 3 "$dir/run.txt")" >&2; return 1; }
}

chain() {  # SEED MU_R: the four heaps of one fill; the swaps wait for the pours they start from
  local s=$1
  export MU_R=$2
  local base="$OUT/mu${MU_R}_s$s"
  local set=(--set "fill[0].seed=$s" --set "material[0].rolling_friction=$MU_R")
  etdem_run "$base/fill" "$DEMO" --set "fill[0].seed=$s" --set simulation.duration=1e-9
  etdem_run "$base/ee" "$DEMO" "${set[@]}"
  etdem_run "$base/e_pack" "$DEMO" "${set[@]}" --set simulation.duration=1.5
  liggghts_run "$base/ll" "$base/fill/state.csv" YOUNG="$YOUNG"
  liggghts_run "$base/el" "$base/e_pack/state.csv" YOUNG="$YOUNG" T_REMOVE=0.02
  if [ ! -r "$base/le/state.csv" ]; then
    python3 "$ROOT_DIR/tools/state_to_scenario.py" --separate "$DEMO" "$base/ll/state_removal.csv" \
      "$base/le.toml" > /dev/null
    etdem_run "$base/le" "$base/le.toml" --set "material[0].rolling_friction=$MU_R" \
      --set 'event[0].time=0.02' --set simulation.duration=2.52
  fi
  echo "seed=$s mu_r=$MU_R done"
}
export -f etdem_run liggghts_run chain
for s in $SEEDS; do for m in $MU_RS; do echo "$s $m"; done; done |
  xargs -r -P "$JOBS" -L 1 bash -c 'chain "$@"' _

for dir in "$OUT"/mu*_s*/{ee,ll,el,le}; do
  [ -r "$dir/state.csv" ] && "$ETDEM" analyze repose "$dir" > /dev/null
done

python3 - "$OUT" "$CSV" "$YOUNG" "$("$ETDEM" --version)" <<'PY'
import glob, json, math, os, re, statistics, sys
out, csv_path, young, version = sys.argv[1:5]
rows = []
for d in sorted(glob.glob(f"{out}/mu*_s*/*/repose.json")):
    run = os.path.basename(os.path.dirname(d))
    m = re.match(r"mu([0-9.]+)_s(\d+)", os.path.basename(os.path.dirname(os.path.dirname(d))))
    r = json.load(open(d))
    t = open(os.path.join(os.path.dirname(d), "time.txt")).read().split()
    rows.append((int(m.group(2)), m.group(1), run, r["mean_deg"], r["spread_deg"],
                 sum(float(x) for x in t)))
with open(csv_path, "w") as f:
    f.write("# the repose demo with the packings swapped (bench/peers/repose_packing_swap.sh, "
            "docs/notes/validation.md): run = code of the pour, code of the collapse (e etdem, "
            f"l LIGGGHTS at E = {young} Pa); angle from `etdem analyze repose` 2.5 s after the "
            "wall went; cpu_s user + system on the shared 2-core machine\n")
    f.write("seed,mu_r,run,angle_deg,spread_deg,cpu_s,etdem_version\n")
    for r in rows:
        f.write(f"{r[0]},{r[1]},{r[2]},{r[3]:.2f},{r[4]:.2f},{r[5]:.1f},{version}\n")
for mu in sorted({r[1] for r in rows}, reverse=True):
    a = {(r[0], r[2]): r[3] for r in rows if r[1] == mu}
    seeds = sorted({s for s, _ in a})
    line = [f"mu_r={mu}"]
    for run in ("ee", "le", "el", "ll"):
        v = [a[(s, run)] for s in seeds if (s, run) in a]
        if v:
            line.append(f"{run} {statistics.mean(v):.2f} (n={len(v)})")
    for name, x, y in (("pour, etdem collapse (le-ee)", "le", "ee"),
                       ("pour, LIGGGHTS collapse (ll-el)", "ll", "el"),
                       ("collapse, etdem pour (el-ee)", "el", "ee"),
                       ("collapse, LIGGGHTS pour (ll-le)", "ll", "le")):
        d = [a[(s, x)] - a[(s, y)] for s in seeds if (s, x) in a and (s, y) in a]
        if len(d) >= 2:
            line.append(f"{name} {statistics.mean(d):+.2f} +- "
                        f"{statistics.stdev(d) / math.sqrt(len(d)):.2f}")
        elif d:
            line.append(f"{name} {d[0]:+.2f}")
    print("; ".join(line))
PY
