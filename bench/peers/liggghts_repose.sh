#!/usr/bin/env bash
# LIGGGHTS peer of the repose demo (examples/repose/spheres.toml).
#
#   bench/peers/liggghts_repose.sh START_STATE_CSV OUT_DIR [MU_R]
#   YOUNG=1e8 bench/peers/liggghts_repose.sh START_STATE_CSV OUT_DIR [MU_R]
#
# Starts from the grains of an etdem state.csv (the demo's fill after its first step: `etdem run
# examples/repose/spheres.toml --set 'fill[0].seed=1' --set simulation.duration=1e-9 -o DIR`
# writes it; the seed is the fill's jitter), so both codes pour the same lattice: d = 1 cm,
# 2500 kg/m^3, e = 0.3, mu = 0.5, rolling friction MU_R (default 0.05; LIGGGHTS'
# `rolling_friction cdt`: a torque mu_r R_eff F_n against the relative rolling) in the demo's box
# (0.15 x 0.1 m floor, planes); Hertz contacts of Young's modulus YOUNG (default 1e7 Pa),
# nu = 0.3. The x = 0.15 m wall is removed at t = 1.5 s and the run ends at 4 s.
#
# Time step. The default follows the Hertz contact time of two grains meeting at the pour's
# impact speed, t_H = 2.87 (m*^2 / (R* E*^2 v))^(1/5) with m* = m/2, R* = R/2,
# E* = E / (2 (1 - nu^2)) and v = sqrt(2 g 0.25 m) = 2.2 m/s (a fall through the fill's height):
#
#   DT = 8e-5 s (YOUNG / 1e7 Pa)^-0.4 = 0.092 t_H   (3 significant digits)
#
# 8e-5 s at 1e7 Pa (t_H = 8.7e-4 s), 3.18e-5 s at 1e8, 1.27e-5 s at 1e9; these are 18, 23 and
# 29 % of the Rayleigh time pi R sqrt(rho/G) / (0.1631 nu + 0.8766). LIGGGHTS checks the step
# every 50 steps (`fix check/timestep/gran`, its own estimate of t_H from twice the fastest
# grain's speed) and warns in the log above 30 % of the Rayleigh time or 10 % of the Hertz time;
# the script prints how many such warnings the run wrote (0 expected). DT overrides the rule
# (at 1e10 Pa the rule's 5.05e-6 s is 37 % of the Rayleigh time: give DT=4e-6, 29 %). Above
# 1e9 Pa LIGGGHTS asks for `hard_particles yes`, which the script then sets.
#
# OUT_DIR receives state.csv (etdem's columns, the grains LIGGGHTS still holds) and summary.json
# (the container), so `etdem analyze repose OUT_DIR` measures the LIGGGHTS heap as it does
# etdem's, and state_3s.csv, the grains one second before the end (grains over the floor then
# and at the end: whether the pile is still draining), and log.repose, LIGGGHTS' log.
#
# OUT_DIR also receives state_removal.csv, the grains when the wall goes (a packing that
# etdem or LIGGGHTS can start from: tools/state_to_scenario.py, or START here with T_REMOVE).
#
# Environment: YOUNG (Pa, default 1e7), DT (s, default from YOUNG as above), LIGGGHTS (binary,
# default liggghts on PATH), RANKS (MPI ranks, default 1 = a plain serial run; > 1 runs under
# mpirun -np RANKS), KEEP=1 keeps the run directory. Variations of the model, one at a time:
# T_REMOVE (s, default 1.5) and T_END (default T_REMOVE + 2.5) move the wall's removal and the
# end (T_REMOVE=0.02 starts a heap from a settled packing given as START); TANGENTIAL (history,
# the default: a tangential spring capped by Coulomb; no_history: a tangential dashpot capped by
# Coulomb); RESTITUTION (default 0.3); WALL_MU_R (rolling friction of grain-wall contacts,
# default MU_R; the walls are atom type 2, of the grains' properties otherwise).
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 START_STATE_CSV OUT_DIR [MU_R]" >&2
  exit 2
fi
START=$1
OUT=$2
MU_R=${3:-0.05}
LIGGGHTS=${LIGGGHTS:-liggghts}
YOUNG=${YOUNG:-1e7}
RANKS=${RANKS:-1}
T_REMOVE=${T_REMOVE:-1.5}
T_END=${T_END:-$(python3 -c "print($T_REMOVE + 2.5)")}
TANGENTIAL=${TANGENTIAL:-history}
RESTITUTION=${RESTITUTION:-0.3}
WALL_MU_R=${WALL_MU_R:-$MU_R}
case "$TANGENTIAL" in history|no_history) ;; *)
  echo "TANGENTIAL=$TANGENTIAL: history or no_history" >&2; exit 2 ;; esac
python3 -c "import sys; sys.exit(0 if 0 < $T_REMOVE and $T_REMOVE + 1 <= $T_END else 1)" ||
  { echo "T_REMOVE=$T_REMOVE T_END=$T_END: need 0 < T_REMOVE and T_REMOVE + 1 <= T_END" >&2; exit 2; }
[[ "$RANKS" =~ ^[1-9][0-9]*$ ]] || { echo "RANKS=$RANKS: a positive number of ranks" >&2; exit 2; }
if [ "$RANKS" -gt 1 ]; then
  RUNNER=(mpirun -np "$RANKS")
  if [ "$(id -u)" -eq 0 ]; then RUNNER+=(--allow-run-as-root); fi
else
  RUNNER=()
fi
DT=${DT:-$(python3 -c "print(f'{8e-5 * ($YOUNG / 1e7) ** -0.4:.3g}')")}
command -v "$LIGGGHTS" >/dev/null || { echo "liggghts not found (scripts/install-deps.sh --with-peers)" >&2; exit 1; }
[ -r "$START" ] || { echo "$START: cannot read the start state" >&2; exit 2; }
mkdir -p "$OUT"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/liggghts_repose.XXXXXX")
if [ "${KEEP:-0}" = "1" ]; then
  echo "run directory: $WORK" >&2
else
  trap 'rm -rf "$WORK"' EXIT
fi

# The grains as a read_data file; the domain reaches 1 m beyond the box along x (grains that run
# farther are lost and counted).
python3 - "$START" "$WORK/data.repose" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
with open(sys.argv[2], "w") as f:
    f.write("etdem repose demo grains\n\n")
    f.write(f"{len(rows)} atoms\n2 atom types\n\n")
    f.write("-0.01 1.15 xlo xhi\n-0.01 0.11 ylo yhi\n-0.01 0.36 zlo zhi\n\nAtoms\n\n")
    for k, r in enumerate(rows):
        d = 2.0 * float(r["radius"])
        f.write(f"{k + 1} 1 {d!r} 2500.0 {r['x']} {r['y']} {r['z']}\n")
PY

# Steps: to the removal, to one second before the end, the last second.
STEPS1=$(python3 -c "print(round($T_REMOVE / $DT))")
STEPS2=$(python3 -c "print(round(($T_END - 1.0 - $T_REMOVE) / $DT))")
STEPS3=$(python3 -c "print(round(1.0 / $DT))")
# Thermo about every 0.5 s, a multiple of the step check's 50; LIGGGHTS refuses E > 1e9 Pa
# without hard_particles.
THERMO=$(python3 -c "print(50 * round(0.5 / $DT / 50))")
HARD=$(python3 -c "print('hard_particles  yes' if $YOUNG > 1e9 else '')")
cat > "$WORK/in.repose" <<IN
atom_style      granular
atom_modify     map array
boundary        f f f
newton          off
communicate     single vel yes
units           si
${HARD}
read_data       data.repose
neighbor        0.002 bin
neigh_modify    delay 0

fix m1 all property/global youngsModulus peratomtype ${YOUNG} ${YOUNG}
fix m2 all property/global poissonsRatio peratomtype 0.3 0.3
fix m3 all property/global coefficientRestitution peratomtypepair 2 ${RESTITUTION} ${RESTITUTION} ${RESTITUTION} ${RESTITUTION}
fix m4 all property/global coefficientFriction peratomtypepair 2 0.5 0.5 0.5 0.5
fix m5 all property/global coefficientRollingFriction peratomtypepair 2 ${MU_R} ${WALL_MU_R} ${WALL_MU_R} ${MU_R}

pair_style      gran model hertz tangential ${TANGENTIAL} rolling_friction cdt
pair_coeff      * *
timestep        ${DT}
fix gravi all gravity 9.81 vector 0.0 0.0 -1.0

fix wz0 all wall/gran model hertz tangential ${TANGENTIAL} rolling_friction cdt primitive type 2 zplane 0.0
fix wx0 all wall/gran model hertz tangential ${TANGENTIAL} rolling_friction cdt primitive type 2 xplane 0.0
fix wx1 all wall/gran model hertz tangential ${TANGENTIAL} rolling_friction cdt primitive type 2 xplane 0.15
fix wy0 all wall/gran model hertz tangential ${TANGENTIAL} rolling_friction cdt primitive type 2 yplane 0.0
fix wy1 all wall/gran model hertz tangential ${TANGENTIAL} rolling_friction cdt primitive type 2 yplane 0.1
fix integr all nve/sphere
fix tscheck all check/timestep/gran 50 0.3 0.1

thermo_style    custom step atoms ke f_tscheck[1] f_tscheck[2]
thermo          ${THERMO}
thermo_modify   lost ignore norm no
run             ${STEPS1}
write_dump      all custom dump.removal id x y z vx vy vz omegax omegay omegaz radius modify sort id
unfix           wx1
run             ${STEPS2}
write_dump      all custom dump.3s id x y z vx vy vz omegax omegay omegaz radius modify sort id
run             ${STEPS3}
write_dump      all custom dump.4s id x y z vx vy vz omegax omegay omegaz radius modify sort id
IN

start=$(date +%s)
( cd "$WORK" && "${RUNNER[@]}" "$LIGGGHTS" -in in.repose -log log.repose -echo none -nocite > screen.txt 2>&1 ) || {
  echo "liggghts failed; tail of its output:" >&2
  tail -n 30 "$WORK/screen.txt" >&2
  exit 1
}
end=$(date +%s)

python3 - "$WORK" "$OUT" <<'PY'
import json, sys
work, out = sys.argv[1], sys.argv[2]
def convert(dump, path):
    lines = open(f"{work}/{dump}").read().splitlines()
    i = lines.index(next(l for l in lines if l.startswith("ITEM: ATOMS")))
    cols = lines[i].split()[2:]
    with open(path, "w") as f:
        f.write("id,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,shape,radius,hx,hy,hz,shape_name\n")
        n = 0
        for l in lines[i + 1:]:
            v = dict(zip(cols, l.split()))
            f.write(f"{n},{v['x']},{v['y']},{v['z']},1,0,0,0,{v['vx']},{v['vy']},{v['vz']},"
                    f"{v['omegax']},{v['omegay']},{v['omegaz']},sphere,{v['radius']},0,0,0,grain\n")
            n += 1
    return n
n3 = convert("dump.3s", f"{out}/state_3s.csv")
n4 = convert("dump.4s", f"{out}/state.csv")
convert("dump.removal", f"{out}/state_removal.csv")
container = {"name": "container", "min": [0.0, 0.0, 0.0], "max": [0.15, 0.1, 0.35]}
json.dump({"container": container, "containers": [container], "peer": "LIGGGHTS",
           "grains_at_3s": n3, "grains_at_4s": n4}, open(f"{out}/summary.json", "w"), indent=1)
PY
cp "$WORK/log.repose" "$OUT/log.repose"
LOOP=$(grep "^Loop time of" "$WORK/log.repose" | awk '{s += $4} END {print s}')
WARN=$(grep -c "^WARNING" "$WORK/log.repose" || true)
echo "liggghts repose E=$YOUNG dt=$DT mu_r=$MU_R wall_mu_r=$WALL_MU_R e=$RESTITUTION tangential=$TANGENTIAL t_remove=$T_REMOVE t_end=$T_END ranks=$RANKS wall_s=$LOOP total_s=$((end - start)) warnings=$WARN out=$OUT"
