#!/usr/bin/env bash
# VTK frames: what writing them costs and how large they are. See bench/README.md.
#
#   bench/run_vtk_frames.sh [--steps 300] [--repeats 2] [--threads 1] [--no-build] [--no-csv]
#
# 1. Overhead: a pour of 10,000 spheres (the pour benchmark's grains, box and dt; filled by
#    [[fill]]) for STEPS steps through the CLI, without frames and with a frame every 10 steps
#    in each encoding (binary, zlib, ascii), REPEATS times in turn. Reported: the wall time of
#    the stepping loop (summary.json wall_time, best of the repeats), the time spent writing
#    frames inside it (frame_seconds), and the overhead = frame_seconds / (wall_time -
#    frame_seconds), which does not depend on the other users of the machine as the difference of
#    two wall times does (that difference is printed too).
# 2. Sizes: one frame of 2000 spheres (examples/repose/spheres.toml) and of 2000 cubes
#    (examples/repose/cubes.toml) after 0.2 s of fall, in each encoding: bytes of the grain block.
# Appends one row per configuration to bench/results/vtk_frames.csv.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STEPS=300
REPEATS=2
THREADS=1
BUILD=1
CSV=1
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) STEPS=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --no-csv) CSV=0; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
cd "$ROOT"
if [ "$BUILD" = 1 ]; then
  cmake --preset release >/dev/null
  cmake --build build/release -j2 --target etdem_cli >/dev/null
fi
CLI=build/release/bin/etdem
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
COMMIT=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)
PY=/usr/bin/python3

# The pour benchmark's geometry for N = 10 000 (bench/README.md): a 22 x 22 x 21 lattice of
# spacing 1.2 d in a closed box 0.264 m wide and high, d = 1 cm, dt = 1/600 s.
cat > "$TMP/pour.toml" <<'TOML'
[simulation]
dt = 0.0016666666666666668
duration = 1.0
gravity = [0.0, 0.0, -9.81]
[[material]]
name = "glass"
density = 2650.0
restitution = 0.5
friction = 0.5
[[shape]]
name = "grain"
type = "sphere"
radius = 0.005
[[fill]]
shape = "grain"
material = "glass"
count = 10000
region = { min = [0.0, 0.0, 0.0], max = [0.264, 0.264, 0.264] }
seed = 12345
jitter = 0.5
[[wall]]
name = "box"
type = "box"
min = [0.0, 0.0, 0.0]
max = [0.264, 0.264, 0.264]
closed = true
material = "glass"
TOML
DURATION=$($PY -c "print($STEPS / 600.0)")

field() {  # field FILE KEY: a top-level number of summary.json
  $PY -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"
}

declare -A BEST_WALL BEST_FRAME
CONFIGS=(none binary zlib ascii)
for ((r = 1; r <= REPEATS; r++)); do
  for c in "${CONFIGS[@]}"; do
    case $c in
      none) SET=(--set output.every=0) ;;
      binary) SET=(--set output.every=10) ;;
      zlib) SET=(--set output.every=10 --set output.vtk_compression=zlib) ;;
      ascii) SET=(--set output.every=10 --set output.vtk_format=ascii) ;;
    esac
    "$CLI" run "$TMP/pour.toml" -o "$TMP/pour_$c" --threads "$THREADS" \
      --set simulation.duration="$DURATION" "${SET[@]}" > "$TMP/pour_$c.log"
    wall=$(field "$TMP/pour_$c/summary.json" wall_time)
    frame=$(field "$TMP/pour_$c/summary.json" frame_seconds)
    echo "repeat $r: $c: wall $wall s, frames $frame s" >&2
    if [ -z "${BEST_WALL[$c]:-}" ] || $PY -c "import sys; sys.exit(0 if $wall < ${BEST_WALL[$c]} else 1)"; then
      BEST_WALL[$c]=$wall
      BEST_FRAME[$c]=$frame
    fi
  done
done

CSV_FILE=bench/results/vtk_frames.csv
if [ "$CSV" = 1 ] && [ ! -s "$CSV_FILE" ]; then
  echo "date,commit,case,grains,encoding,steps,threads,wall_s,frame_s,frames,overhead_pct,frame_bytes" > "$CSV_FILE"
fi
printf "\n10,000-sphere pour, %s steps, %s thread(s), a frame every 10 steps (best of %s)\n" "$STEPS" "$THREADS" "$REPEATS"
printf "%-8s %10s %10s %8s %12s %14s %12s\n" encoding "wall [s]" "frames [s]" frames "overhead" "wall - none" "bytes/frame"
for c in "${CONFIGS[@]}"; do
  wall=${BEST_WALL[$c]}
  frame=${BEST_FRAME[$c]}
  frames=0
  bytes=0
  if [ "$c" != none ]; then
    frames=$(field "$TMP/pour_$c/summary.json" frames)
    last=$(ls "$TMP/pour_$c/frames"/spheres_*.vtu | tail -n 1)
    bytes=$(stat -c %s "$last")
  fi
  read -r overhead diff < <($PY -c "w, f, n = $wall, $frame, ${BEST_WALL[none]}; print(f'{100 * f / (w - f):.2f} {100 * (w - n) / n:+.1f}')")
  printf "%-8s %10.2f %10.3f %8s %11s%% %13s%% %12s\n" "$c" "$wall" "$frame" "$frames" "$overhead" "$diff" "$bytes"
  [ "$CSV" = 1 ] && echo "$DATE,$COMMIT,pour,10000,$c,$STEPS,$THREADS,$wall,$frame,$frames,$overhead,$bytes" >> "$CSV_FILE"
done

printf "\nOne frame after 0.2 s (bytes of the grain block; time to write the frame)\n"
printf "%-14s %-8s %12s %10s\n" grains encoding bytes "ms/frame"
for example in spheres cubes; do
  for c in binary zlib ascii; do
    case $c in
      binary) SET=() ;;
      zlib) SET=(--set output.vtk_compression=zlib) ;;
      ascii) SET=(--set output.vtk_format=ascii) ;;
    esac
    "$CLI" run "examples/repose/$example.toml" -o "$TMP/$example-$c" --threads "$THREADS" \
      --set simulation.duration=0.2 --set output.every=1 "${SET[@]}" > /dev/null
    block=$([ "$example" = spheres ] && echo spheres || echo boxes)
    last=$(ls "$TMP/$example-$c/frames"/${block}_*.vtu | tail -n 1)
    bytes=$(stat -c %s "$last")
    ms=$($PY -c "import json; s = json.load(open('$TMP/$example-$c/summary.json')); print(f\"{1000 * s['frame_seconds'] / (s['frames'] - 1):.2f}\")")
    printf "%-14s %-8s %12s %10s\n" "2000 $example" "$c" "$bytes" "$ms"
    [ "$CSV" = 1 ] && echo "$DATE,$COMMIT,$example,2000,$c,120,$THREADS,,,,,$bytes" >> "$CSV_FILE"
  done
done
