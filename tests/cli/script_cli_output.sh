#!/usr/bin/env bash
# Drives the etdem CLI end to end and reads its output back with independent tools
# (tests/support/read_output.py: meshio, xml, csv, json). Run by ctest as
#   bash tests/cli/script_cli_output.sh ETDEM_CLI SOURCE_DIR
# Exits non-zero on the first failure.
. "$(dirname "$0")/../support/cli_script_lib.sh"

cat > "$TMP/tiny.toml" <<'TOML'
# 50 spheres poured into an open-top box; 60 steps.
[simulation]
dt = 0.0016666666666666668
duration = 0.1
gravity = [0.0, 0.0, -9.81]
solver = "etm"

[[material]]
name = "glass"
density = 2500.0
restitution = 0.3
friction = 0.5

[[shape]]
name = "grain"
type = "sphere"
radius = 0.005

[[fill]]
shape = "grain"
material = "glass"
count = 50
region = { min = [0.0, 0.0, 0.0], max = [0.06, 0.06, 0.1] }
seed = 7

[[wall]]
name = "box"
type = "box"
min = [0.0, 0.0, 0.0]
max = [0.06, 0.06, 0.2]
material = "glass"

[[event]]
time = 0.05
remove = "box.right"

[output]
every = 5
TOML

# 1. A run with frames every 10 steps (override) and two threads.
"$CLI" run "$TMP/tiny.toml" -o "$TMP/out" --threads 2 --set output.every=10 > "$TMP/run.log" 2>&1 \
  || fail "etdem run exited with $?"
grep -q "$TMP/out" "$TMP/run.log" || fail "run does not say where the outputs are"
"$PY" "$SRC/tests/support/read_output.py" "$TMP/out" --spheres 50 --steps 60 --every 10 --container \
  > "$TMP/read.log" 2>&1 || fail "read_output.py rejected the run's output"
cat "$TMP/read.log"
# 1b. The same run with zlib-compressed and with ASCII frames: meshio (and VTK, when importable)
# read every encoding; zlib only compresses binary frames.
"$CLI" run "$TMP/tiny.toml" -o "$TMP/zlib" --set output.every=10 --set output.vtk_compression=zlib \
  > "$TMP/zlib.log" 2>&1 || fail "etdem run with zlib frames exited with $?"
"$PY" "$SRC/tests/support/read_output.py" "$TMP/zlib" --spheres 50 --steps 60 --every 10 --container \
  --format zlib > "$TMP/read_zlib.log" 2>&1 || fail "read_output.py rejected the zlib frames"
"$CLI" run "$TMP/tiny.toml" -o "$TMP/ascii" --set output.every=10 --set output.vtk_format=ascii \
  > "$TMP/ascii.log" 2>&1 || fail "etdem run with ASCII frames exited with $?"
"$PY" "$SRC/tests/support/read_output.py" "$TMP/ascii" --spheres 50 --steps 60 --every 10 --container \
  --format ascii > "$TMP/read_ascii.log" 2>&1 || fail "read_output.py rejected the ASCII frames"
cmp -s "$TMP/out/state.csv" "$TMP/zlib/state.csv" && cmp -s "$TMP/out/state.csv" "$TMP/ascii/state.csv" \
  || fail "the frames' encoding changed the trajectory"
"$CLI" check "$TMP/tiny.toml" --set output.vtk_format=ascii --set output.vtk_compression=zlib \
  > "$TMP/ascii_zlib.log" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q -- '--set output.vtk_compression: .*binary.*(value "zlib")' "$TMP/ascii_zlib.log" \
  || fail "zlib with ASCII frames: exit $rc, or the message does not name the key and value"

# 2. The analyses of that run.
"$CLI" analyze energy "$TMP/out" > "$TMP/energy.log" 2>&1 || fail "analyze energy exited with $?"
grep -q "max relative residual" "$TMP/energy.log" || fail "analyze energy printed no residual"
"$CLI" analyze repose "$TMP/out" > "$TMP/repose.log" 2>&1 || fail "analyze repose exited with $?"
"$PY" -c "import json,sys; r=json.load(open(sys.argv[1])); assert len(r['angles_deg']) == 8 and 'mean_deg' in r and 'spread_deg' in r and r['heights_from'].startswith('surface nodes') and r['grains_over_floor'] == 50" \
  "$TMP/out/repose.json" || fail "repose.json lacks the 8 angles, mean, spread, node heights or floor count"
# --series without snapshots is an error naming the directory; with them, one row per snapshot.
"$CLI" analyze repose "$TMP/out" --series > "$TMP/series.log" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "state_every" "$TMP/series.log" || fail "series without snapshots: exit $rc"

# 3. A box scenario (the example) for the box frames, a few steps.
"$CLI" run "$SRC/examples/drop_box.toml" -o "$TMP/box" --set simulation.duration=0.05 \
  --set output.every=10 --set output.state_every=15 > "$TMP/box.log" 2>&1 || fail "drop_box run exited with $?"
"$PY" "$SRC/tests/support/read_output.py" "$TMP/box" --boxes 1 --steps 30 --every 10 > "$TMP/read_box.log" 2>&1 \
  || fail "read_output.py rejected the box run's output"
[ -f "$TMP/box/state_000015.csv" ] && [ -f "$TMP/box/state_000030.csv" ] || fail "state_every files missing"
"$CLI" analyze repose "$TMP/box" --series > "$TMP/box_series.log" 2>&1; rc=$?
[ "$rc" -eq 2 ] || fail "series of a run without container: exit $rc, expected 2"

# 3b. The two-tetrahedra example (V1) for the polyhedron frames.
"$CLI" run "$SRC/examples/tetrahedra_v1.toml" -o "$TMP/tet" --set output.every=5 > "$TMP/tet.log" 2>&1 \
  || fail "tetrahedra_v1 run exited with $?"
"$PY" "$SRC/tests/support/read_output.py" "$TMP/tet" --polyhedra 2 --steps 30 --every 5 > "$TMP/read_tet.log" 2>&1 \
  || fail "read_output.py rejected the polyhedron run's output"

# 3c. The crosses example (compound grains: each part's faces carry its body's id), 30 steps.
"$CLI" run "$SRC/examples/repose/crosses.toml" -o "$TMP/cross" --set simulation.duration=0.05 \
  --set output.every=10 > "$TMP/cross.log" 2>&1 || fail "crosses run exited with $?"
"$PY" "$SRC/tests/support/read_output.py" "$TMP/cross" --compounds 1100 --steps 30 --every 10 \
  > "$TMP/read_cross.log" 2>&1 || fail "read_output.py rejected the compound run's output"
# 3c'. Crosses from a tetrahedral mesh (Gmsh), with snapshots: the loader's note, the outputs,
# and the angle over time (one row per snapshot).
"$CLI" run "$SRC/examples/tet_crosses.toml" -o "$TMP/tetx" --set simulation.duration=0.05 \
  --set output.every=10 --set output.state_every=10 > "$TMP/tetx.log" 2>&1 || fail "tet_crosses run exited with $?"
grep -q "42 tetrahedra -> 5 convex parts" "$TMP/tetx.log" || fail "tet_crosses: no note of the merged parts"
"$PY" "$SRC/tests/support/read_output.py" "$TMP/tetx" --compounds 60 --steps 30 --every 10 \
  > "$TMP/read_tetx.log" 2>&1 || fail "read_output.py rejected the tetrahedral compound run's output"
"$CLI" analyze repose "$TMP/tetx" --series > "$TMP/tetx_series.log" 2>&1 || fail "analyze repose --series exited with $?"
[ "$(wc -l < "$TMP/tetx/repose_series.csv")" -eq 4 ] || fail "repose_series.csv: expected a header and 3 rows"
# 3d. The mesh chute example: the mesh wall is written once, as triangles, and is in every frame.
"$CLI" run "$SRC/examples/mesh_chute.toml" -o "$TMP/chute" --set simulation.duration=0.05 \
  --set output.every=10 > "$TMP/chute.log" 2>&1 || fail "mesh_chute run exited with $?"
"$PY" "$SRC/tests/support/read_output.py" "$TMP/chute" --spheres 100 --steps 30 --every 10 --container --meshes \
  > "$TMP/read_chute.log" 2>&1 || fail "read_output.py rejected the mesh run's output"
[ -f "$TMP/chute/frames/meshes_000000.vtu" ] || fail "the mesh wall frame is missing"

# 3e. etdem view: a directory without frames is bad input (2); without ParaView's pvpython a
# one-line reason and exit code 1 (the pictures themselves: script_long_paraview.sh).
"$CLI" view "$TMP/box_series_none" > "$TMP/view_none.log" 2>&1; rc=$?
[ "$rc" -eq 2 ] && grep -q "no such run directory" "$TMP/view_none.log" || fail "view of a missing directory: exit $rc"
mkdir -p "$TMP/noframes" && "$CLI" view "$TMP/noframes" > "$TMP/view_none.log" 2>&1; rc=$?
[ "$rc" -eq 2 ] && grep -q "no particles.pvd" "$TMP/view_none.log" || fail "view of a directory without frames: exit $rc"
PATH=/nonexistent "$CLI" view "$TMP/chute" --png-last "$TMP/x.png" > "$TMP/view_nopv.log" 2>&1; rc=$?
[ "$rc" -eq 1 ] && grep -q "pvpython (ParaView's Python) is not installed" "$TMP/view_nopv.log" \
  || fail "view without pvpython: exit $rc"

# A --png-last name ParaView would write nothing to is refused before anything runs (2); a view
# whose ParaView exits 0 without writing the picture fails (1): a stand-in pvpython that writes
# nothing, with a display set so no xvfb-run is needed.
"$CLI" view "$TMP/chute" --png-last "$TMP/last.jpg" > "$TMP/view_ext.log" 2>&1; rc=$?
[ "$rc" -eq 2 ] && grep -q "must end in .png" "$TMP/view_ext.log" || fail "view --png-last x.jpg: exit $rc"
[ "$(grep -c . "$TMP/view_ext.log")" -eq 1 ] || fail "view --png-last x.jpg: not one line"
mkdir -p "$TMP/fakepv" && printf '#!/bin/sh\nexit 0\n' > "$TMP/fakepv/pvpython" && chmod +x "$TMP/fakepv/pvpython"
DISPLAY=:0 PATH="$TMP/fakepv:$PATH" "$CLI" view "$TMP/chute" --png-last "$TMP/none.png" > "$TMP/view_fake.log" 2>&1; rc=$?
[ "$rc" -eq 1 ] && grep -q "ParaView wrote no picture" "$TMP/view_fake.log" || fail "view that wrote no picture: exit $rc"
DISPLAY=:0 PATH="$TMP/fakepv:$PATH" "$CLI" view "$TMP/chute" --png "$TMP/none_dir" > "$TMP/view_fake2.log" 2>&1; rc=$?
[ "$rc" -eq 1 ] && grep -q "ParaView wrote no picture" "$TMP/view_fake2.log" || fail "view --png that wrote no picture: exit $rc"

# 4. check: exit 0 and a one-line summary.
"$CLI" check "$TMP/tiny.toml" > "$TMP/check.log" 2>&1 || fail "etdem check exited with $?"
grep -q "50 bodies" "$TMP/check.log" || fail "check summary does not count the bodies"

# 5. Bad input: exit code 2, one line naming file:line, key and value, and no output written.
sed 's/^dt = .*/dt = -0.001/' "$TMP/tiny.toml" > "$TMP/bad.toml"
"$CLI" run "$TMP/bad.toml" -o "$TMP/bad_out" > "$TMP/bad.log" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "bad scenario: exit code $rc, expected 2"
grep -q "$TMP/bad.toml:3: simulation.dt: .*(value -0.001)" "$TMP/bad.log" || fail "bad scenario message lacks file:line: key (value)"
[ ! -e "$TMP/bad_out" ] || fail "a bad scenario still created its output directory"

"$CLI" check "$TMP/tiny.toml" --set simulation.dtt=1 > "$TMP/bad_set.log" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "unknown override key: exit code $rc, expected 2"
grep -q -- "--set simulation.dtt" "$TMP/bad_set.log" || fail "unknown override not named"

"$CLI" check "$TMP/tiny.toml" --set simulation.dt > "$TMP/bad_set2.log" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "override without '=': exit code $rc, expected 2"

"$CLI" check "$TMP/missing.toml" > "$TMP/missing.log" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "missing scenario: exit code $rc, expected 2"
grep -q "$TMP/missing.toml" "$TMP/missing.log" || fail "missing scenario not named"

"$CLI" run > "$TMP/usage.log" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "command-line error: exit code $rc, expected 2"

"$CLI" analyze repose "$TMP/nowhere" > "$TMP/nowhere.log" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "analyze of a missing directory: exit code $rc, expected 2"

# 6. The other collision solvers run the same scenario (a few steps) and name themselves in
#    summary.json; jolt refuses boxes before anything runs.
for solver in sqm jolt; do
  "$CLI" run "$TMP/tiny.toml" -o "$TMP/$solver" --set simulation.solver=$solver \
    --set simulation.duration=0.02 --set output.every=0 > "$TMP/$solver.log" 2>&1 \
    || fail "run with solver $solver exited with $?"
  "$PY" -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['solver']['name'] == sys.argv[2], j['solver']" \
    "$TMP/$solver/summary.json" "$solver" || fail "summary.json does not name solver $solver"
  "$CLI" analyze energy "$TMP/$solver" > "$TMP/${solver}_energy.log" 2>&1 \
    || fail "analyze energy of the $solver run exited with $?"
done
"$CLI" check "$SRC/examples/drop_box.toml" --set simulation.solver=jolt > "$TMP/jolt_box.log" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "jolt with a box: exit code $rc, expected 2"
grep -q "simulation.solver: the jolt method handles spheres and planes only" "$TMP/jolt_box.log" \
  || fail "jolt with a box: message does not say why"

# The settings schema: every key as --set takes it, and the generated tables of the docs.
"$CLI" schema > "$TMP/schema.log" 2>&1 || fail "schema exited with $?"
grep -q "^simulation.etm.lambda = 30  (\[1, 1e6\])" "$TMP/schema.log" \
  || fail "schema does not list simulation.etm.lambda with its default and range"
"$CLI" schema --markdown > "$TMP/schema_md.log" 2>&1 || fail "schema --markdown exited with $?"
grep -q "^<!-- schema simulation.lzb -->" "$TMP/schema_md.log" \
  || fail "schema --markdown has no block for simulation.lzb"
cp "$SRC/docs/scenario.md" "$TMP/scenario.md"
"$CLI" schema --update "$TMP/scenario.md" > "$TMP/schema_update.log" 2>&1 \
  || fail "schema --update exited with $?"
grep -q "up to date" "$TMP/schema_update.log" || fail "docs/scenario.md differs from the schema"

echo "script_cli_output: all checks hold"
