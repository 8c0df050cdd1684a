#!/usr/bin/env bash
# LIGGGHTS peer of the pour benchmark (see bench/README.md).
#
#   bench/peers/liggghts_pour.sh N [DURATION]
#
# N spheres (d = 1 cm, 2650 kg/m^3, e = 0.5, mu = 0.5) start at rest on a jittered simple-cubic
# lattice of spacing 1.2 d (bench/peers/pour_lattice.py, the same lattice bench_pour builds) in
# a closed box of six granular walls and fall under gravity for DURATION seconds (default 1.0)
# with Hertz contacts, E = 1e7 Pa, nu = 0.3, dt = 8e-5 s (YOUNG and DT change both: the stable
# step of a Hertz contact scales as E^-1/2, so E = 1e9 Pa runs at dt = 8e-6 s).
#
# Environment:
#   YOUNG      Young's modulus [Pa] (default 1.0e7)
#   DT         time step [s] (default 8e-5 x sqrt(1e7 / YOUNG), about a fifth of the Rayleigh time)
#   LIGGGHTS   binary (default: liggghts on PATH)
#   RANKS      MPI ranks (default 1 = plain serial run; > 1 runs under mpirun -np RANKS)
#   KEEP=1     keep the temporary run directory and print its path on stderr
#
# Prints one line:
#   liggghts N=... wall_s=... bed_height_m=... duration_s=... steps=... ranks=... total_s=...
#            overlap_max_m=... overlap_mean_m=... overlap_pairs=... young_pa=... dt_s=...
# wall_s is LIGGGHTS' own "Loop time" of the run (time stepping only, no setup or file
# reading); total_s is the whole process, setup included; overlap_* are the grain-grain overlaps
# of the final state (as bench_pour prints them).
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 N [DURATION]" >&2
  exit 2
fi
N=$1
DURATION=${2:-1.0}
RANKS=${RANKS:-1}
LIGGGHTS=${LIGGGHTS:-liggghts}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
YOUNG=${YOUNG:-1.0e7}
DT=${DT:-$(python3 -c "print(f'{8e-5 * (1e7 / float(\"$YOUNG\")) ** 0.5:.3g}')")}

command -v "$LIGGGHTS" >/dev/null || { echo "liggghts not found (scripts/install-deps.sh --with-peers)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/liggghts_pour.XXXXXX")
if [ "${KEEP:-0}" = "1" ]; then
  echo "run directory: $WORK" >&2
else
  trap 'rm -rf "$WORK"' EXIT
fi

read -r NX NY NZ SIDE HEIGHT < <(python3 "$HERE/pour_lattice.py" data "$N" "$WORK/data.pour")
STEPS=$(python3 -c "print(max(1, round($DURATION / $DT)))")

cat > "$WORK/in.pour" <<IN
# etdem pour benchmark: ${N} spheres, lattice ${NX} x ${NY} x ${NZ}, box ${SIDE} x ${SIDE} x ${HEIGHT} m
atom_style      granular
atom_modify     map array
boundary        f f f
newton          off
communicate     single vel yes
units           si
processors      * * 1

read_data       data.pour

neighbor        0.002 bin
neigh_modify    delay 0

fix m1 all property/global youngsModulus peratomtype ${YOUNG}
fix m2 all property/global poissonsRatio peratomtype 0.3
fix m3 all property/global coefficientRestitution peratomtypepair 1 0.5
fix m4 all property/global coefficientFriction peratomtypepair 1 0.5

pair_style      gran model hertz tangential history
pair_coeff      * *

timestep        ${DT}

fix gravi all gravity 9.81 vector 0.0 0.0 -1.0

fix wz0 all wall/gran model hertz tangential history primitive type 1 zplane 0.0
fix wz1 all wall/gran model hertz tangential history primitive type 1 zplane ${HEIGHT}
fix wx0 all wall/gran model hertz tangential history primitive type 1 xplane 0.0
fix wx1 all wall/gran model hertz tangential history primitive type 1 xplane ${SIDE}
fix wy0 all wall/gran model hertz tangential history primitive type 1 yplane 0.0
fix wy1 all wall/gran model hertz tangential history primitive type 1 yplane ${SIDE}

fix integr all nve/sphere

compute         rke all erotate/sphere
thermo_style    custom step atoms ke c_rke
thermo          2500
thermo_modify   lost warn norm no

dump            final all custom ${STEPS} dump.pour id x y z radius
dump_modify     final sort id

run             ${STEPS}
IN

if [ "$RANKS" -gt 1 ]; then
  RUNNER=(mpirun -np "$RANKS")
  if [ "$(id -u)" -eq 0 ]; then RUNNER+=(--allow-run-as-root); fi
else
  RUNNER=()
fi

start=$(date +%s.%N)
( cd "$WORK" && "${RUNNER[@]}" "$LIGGGHTS" -in in.pour -log log.pour -echo none -nocite > screen.txt 2>&1 ) || {
  echo "liggghts failed; tail of its output:" >&2
  tail -n 30 "$WORK/screen.txt" >&2
  exit 1
}
end=$(date +%s.%N)

LOOP=$(grep -m1 "^Loop time of" "$WORK/log.pour" | awk '{print $4}')
ATOMS_END=$(grep -m1 "^Loop time of" "$WORK/log.pour" | sed -n 's/.* with \([0-9]*\) atoms.*/\1/p')
read -r COUNT BED OV_MAX OV_MEAN OV_PAIRS < <(python3 "$HERE/pour_lattice.py" bed "$WORK/dump.pour")
TOTAL=$(python3 -c "print(f'{$end - $start:.3f}')")

if [ "$COUNT" != "$N" ] || [ "$ATOMS_END" != "$N" ]; then
  echo "warning: $N atoms requested, $ATOMS_END at the end of the run, $COUNT in the dump" >&2
fi
echo "liggghts N=$N wall_s=$LOOP bed_height_m=$BED duration_s=$DURATION steps=$STEPS ranks=$RANKS total_s=$TOTAL overlap_max_m=$OV_MAX overlap_mean_m=$OV_MEAN overlap_pairs=$OV_PAIRS young_pa=$YOUNG dt_s=$DT"
