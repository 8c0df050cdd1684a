#!/usr/bin/env bash
# What a user sees in ParaView, in the real ParaView (Debian paraview + python3-paraview, under
# xvfb-run; `make test-long` installs them with scripts/install-deps.sh --with-paraview): the
# repose demo (1.7 s: the right wall goes at 1.5 s, the grains run out) and the mesh chute are
# run, their last frames rendered headless by the viewer's own pipeline and checked by
# tests/support/paraview_check.py (every grain glyphed and nothing else, glyph diameter = grain
# diameter, blocks as docs/scenario.md lists them, the chute mesh drawn in the last frame,
# translucent walls, a picture that is not blank); then `etdem view --png-last` and `--png` through
# the CLI, without a display. 80 to 150 s on 2 cores; label "long".
#   script_long_paraview.sh CLI SOURCE_DIR
set -euo pipefail
CLI=$1
SRC=$2
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for tool in pvpython xvfb-run; do
  command -v "$tool" > /dev/null || {
    echo "FAILED: $tool not found: run scripts/install-deps.sh --with-paraview (make test-long does)" >&2
    exit 1
  }
done
XVFB=(xvfb-run -a -s "-screen 0 1920x1080x24")

"$CLI" run "$SRC/examples/repose/spheres.toml" -o "$OUT/repose" --threads 2 \
  --set simulation.duration=1.7 --set output.every=60 > "$OUT/repose.log"
"$CLI" run "$SRC/examples/mesh_chute.toml" -o "$OUT/chute" --threads 2 > "$OUT/chute.log"

"${XVFB[@]}" pvpython "$SRC/tests/support/paraview_check.py" "$OUT/repose" --png "$OUT/repose.png" \
  --docs "$SRC/docs/scenario.md"
"${XVFB[@]}" pvpython "$SRC/tests/support/paraview_check.py" "$OUT/chute" --png "$OUT/chute.png" \
  --docs "$SRC/docs/scenario.md" --mesh

# The CLI without a display: it renders under xvfb-run by itself.
env -u DISPLAY "$CLI" view "$OUT/chute" --png-last "$OUT/cli_last.png" --size 640 400
[ -s "$OUT/cli_last.png" ] || { echo "FAILED: etdem view --png-last wrote no picture" >&2; exit 1; }
env -u DISPLAY "$CLI" view "$OUT/chute" --png "$OUT/pngs"
frames=$(grep -c "<DataSet" "$OUT/chute/particles.pvd")
pngs=$(ls "$OUT/pngs"/frame_*.png | wc -l)
[ "$pngs" -eq "$frames" ] || { echo "FAILED: $pngs PNGs for $frames frames" >&2; exit 1; }
# Without a display the ParaView window cannot open: a one-line reason, exit code 1.
rc=0
env -u DISPLAY "$CLI" view "$OUT/chute" > "$OUT/nodisplay.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "no display" "$OUT/nodisplay.log" \
  || { echo "FAILED: etdem view without a display: exit $rc" >&2; cat "$OUT/nodisplay.log" >&2; exit 1; }
echo "script_long_paraview: all checks hold"
