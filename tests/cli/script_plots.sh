#!/usr/bin/env bash
# The deposit analyses and the plots through the CLI on a small real run: analyze mound and
# runout write their JSON and CSV, each `etdem plot` writes a non-empty PNG, and bad input is a
# one-line error (exit 2), a missing python3 or matplotlib a clear failure (exit 1). Run by ctest
#   bash tests/cli/script_plots.sh ETDEM_CLI SOURCE_DIR
. "$(dirname "$0")/../support/cli_script_lib.sh"

# The angle-of-repose example, small: 300 spheres (r = 5 mm) settle in its box (0.15 x 0.1 m),
# whose right wall (x = 0.15 m) goes at 0.2 s; some spill out along +x.
SPILL=(--set fill[0].count=300 --set simulation.duration=0.6 --set event[0].time=0.2
       --set output.every=0)
"$CLI" run "$SRC/examples/repose/spheres.toml" -o "$TMP/run" "${SPILL[@]}" > "$TMP/run.log" 2>&1 \
  || fail "etdem run exited with $?"

# 1. The analyses.
"$CLI" analyze mound "$TMP/run" > "$TMP/mound.log" 2>&1 || fail "analyze mound exited with $?"
grep -q "base z = 0 m: floor of container 'container'" "$TMP/mound.log" || fail "mound: base not the container floor"
"$PY" - "$TMP/run" <<'PY' || fail "mound.json / mound_profile.csv"
import csv, json, sys
d = sys.argv[1]
m = json.load(open(d + "/mound.json"))
assert m["grains"] == 300 and m["weights"] == "volume", m
# Three layers of 96 and a few: at most four grains high, at least one.
assert 0.01 - 1e-3 < m["height"] < 0.04 + 1e-3, m["height"]
assert 0.0 < m["spread"] <= m["reach"], m
assert abs(m["spread"] - m["spread_count"]) < 1e-12  # equal spheres: volume = count
rows = list(csv.DictReader(open(d + "/mound_profile.csv")))
assert abs(sum(float(r["share"]) for r in rows) - 1.0) < 1e-6
PY
"$CLI" analyze runout "$TMP/run" --direction 1,0 --origin 0.15,0.05 > "$TMP/runout.log" 2>&1 \
  || fail "analyze runout exited with $?"
"$PY" - "$TMP/run" <<'PY' || fail "runout.json / runout_map.csv"
import csv, json, math, sys
d = sys.argv[1]
r = json.load(open(d + "/runout.json"))
assert r["direction"] == [1.0, 0.0] and r["origin"] == [0.15, 0.05], r
# Grains left through the opening (runout past x = 0.15 m); the others lean on the left wall
# (rear -0.15 m) between the front and back walls (width 0.1 m); the footprint covers most of
# the floor and no more than the grains' own discs (300 pi r^2).
assert r["runout"] > 0.0, r
assert abs(r["rear"] + 0.15) < 1e-3 and abs(r["width"] - 0.1) < 1e-3, r
assert 0.9 * 0.15 * 0.1 < r["area"] < 300 * math.pi * 0.005 ** 2, r["area"]
cells = list(csv.DictReader(open(d + "/runout_map.csv")))
assert len(cells) == r["map"]["covered"]
PY

# 2. Every plot: a non-empty PNG.
"$CLI" analyze repose "$TMP/run" > /dev/null 2>&1 || fail "analyze repose exited with $?"
for kind in energy repose mound runout; do
  extra=()
  [ "$kind" = runout ] && extra=(--direction 1,0 --origin 0.15,0.05)
  "$CLI" plot "$kind" "$TMP/run" "${extra[@]}" > "$TMP/plot_$kind.log" 2>&1 || fail "plot $kind exited with $?"
  png="$TMP/run/$kind.png"
  [ -s "$png" ] || fail "plot $kind wrote no $png"
  [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "$png is not a PNG"
done
"$CLI" plot energy "$TMP/run" -o "$TMP/e.png" > /dev/null 2>&1 && [ -s "$TMP/e.png" ] || fail "plot -o"

# 3. Bad input: exit 2 and one line naming what is wrong.
expect_bad() {  # expect_bad PATTERN ARGS...
  local pattern=$1; shift
  "$CLI" "$@" > "$TMP/bad.log" 2>&1
  local rc=$?
  [ "$rc" -eq 2 ] || fail "etdem $*: exit code $rc, expected 2"
  [ "$(wc -l < "$TMP/bad.log")" -eq 1 ] || fail "etdem $*: not one line"
  grep -q -- "$pattern" "$TMP/bad.log" || fail "etdem $*: message lacks '$pattern'"
}
expect_bad "--direction" analyze runout "$TMP/run"
expect_bad -- "--direction: must not be zero (value 0,0)" analyze runout "$TMP/run" --direction 0,0
expect_bad -- "--direction: expected two finite numbers X,Y (value east)" analyze runout "$TMP/run" --direction east
expect_bad -- "--fraction: must be in (0, 1] (value 1.5)" analyze mound "$TMP/run" --fraction 1.5
expect_bad -- "--bin: must be a length > 0 (value -1)" analyze mound "$TMP/run" --bin -1
expect_bad "--cell: must be a length > 0" analyze runout "$TMP/run" --direction 1,0 --cell 0
expect_bad "cells exceed" analyze runout "$TMP/run" --direction 1,0 --cell 1e-7
expect_bad "$TMP/nowhere/state.csv: cannot open" analyze mound "$TMP/nowhere"
expect_bad "required for plot runout" plot runout "$TMP/run"
expect_bad "only .plot runout. takes it" plot mound "$TMP/run" --direction 1,0
expect_bad "kind" plot heap "$TMP/run"
expect_bad "$TMP/nowhere/energy.csv" plot energy "$TMP/nowhere"

# 4. No python3, no matplotlib, no script: exit 1 and a message that says what to install.
ETDEM_PYTHON=/nonexistent/python3 "$CLI" plot energy "$TMP/run" > "$TMP/nopy.log" 2>&1; rc=$?
[ "$rc" -eq 1 ] && grep -q "cannot run /nonexistent/python3" "$TMP/nopy.log" || fail "missing python3: exit $rc"
mkdir -p "$TMP/fake/matplotlib"
echo 'raise ImportError("no matplotlib here")' > "$TMP/fake/matplotlib/__init__.py"
PYTHONPATH="$TMP/fake" "$CLI" plot energy "$TMP/run" > "$TMP/nompl.log" 2>&1; rc=$?
[ "$rc" -eq 1 ] && grep -q "matplotlib is not installed for" "$TMP/nompl.log" || fail "missing matplotlib: exit $rc"
ETDEM_PLOT_SCRIPT=/nonexistent.py "$CLI" plot energy "$TMP/run" > "$TMP/noscript.log" 2>&1; rc=$?
[ "$rc" -eq 1 ] && grep -q "plotting script /nonexistent.py is missing" "$TMP/noscript.log" || fail "missing script: exit $rc"

echo "script_plots: all checks hold"
