#!/usr/bin/env bash
# Load time and memory of a terrain of the paper's size (Tan et al. 2024, section 6.3: a
# 4000 x 1280 raster): tools/make_valley.py writes the valley (200 m x 64 m in 5 cm pixels, a 25
# degree channel opening on a flat runout), `etdem check` reads it with GDAL and builds the band
# for rocks of 25 cm falling from 75 m (dt = 1e-3 s), and /usr/bin/time reports the wall time,
# the CPU time and the peak resident memory of the whole process. Appends a row to
# bench/results/terrain_load.csv.
#
#   bash bench/terrain_load.sh [build/release/bin/etdem]
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
CLI=${1:-$SRC/build/release/bin/etdem}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
/usr/bin/python3 "$SRC/tools/make_valley.py" "$TMP/valley.tif" > "$TMP/valley.log"
cat > "$TMP/avalanche.toml" <<'TOML'
[simulation]
dt = 0.001
duration = 0.001
gravity = [0.0, 0.0, -9.81]

[[material]]
name = "rock"
density = 2650.0
restitution = 0.65
friction = 0.2

[[shape]]
name = "rock"
type = "sphere"
radius = 0.25

[[body]]
shape = "rock"
material = "rock"
position = [5.0, 0.0, 75.0]

[[wall]]
name = "valley"
type = "terrain"
file = "valley.tif"
material = "rock"
TOML
/usr/bin/time -v "$CLI" run "$TMP/avalanche.toml" -o "$TMP/out" > "$TMP/run.log" 2>&1
wall=$(grep "Elapsed (wall clock)" "$TMP/run.log" | awk '{print $NF}')
user=$(grep "User time" "$TMP/run.log" | awk '{print $NF}')
rss=$(grep "Maximum resident" "$TMP/run.log" | awk '{print $NF}')
read -r nodes bytes build < <(/usr/bin/python3 -c "
import json; t = json.load(open('$TMP/out/summary.json'))['terrains']
print(t['band_nodes'], t['bytes'], t['build_seconds'])")
cat "$TMP/valley.log"
echo "wall $wall, cpu ${user} s, peak resident $((rss / 1024)) MiB; band $nodes nodes, $((bytes / 1048576)) MiB, built in ${build} s"
out="$SRC/bench/results/terrain_load.csv"
[ -f "$out" ] || echo "date,raster,band_nodes,terrain_mib,build_s,wall,cpu_s,peak_rss_mib,threads" > "$out"
echo "$(date -u +%F),4000x1280,$nodes,$((bytes / 1048576)),$build,$wall,$user,$((rss / 1024)),$(nproc)" >> "$out"
