#!/usr/bin/env bash
# Checkpoints through the CLI: SIGINT and SIGTERM stop a run after the current step with a
# checkpoint, summary.json status "interrupted" and exit code 130 / 143; `--resume` finishes it
# with the bytes of a run that never stopped; bad checkpoints and directories are one-line errors
# with exit code 2 that change nothing. Run by ctest as
#   bash tests/cli/script_checkpoint.sh ETDEM_CLI SOURCE_DIR
. "$(dirname "$0")/../support/cli_script_lib.sh"

SC="$SRC/examples/repose/spheres.toml"
# 200 spheres for 1 s (600 steps), a checkpoint every 150.
SETS=(--set 'fill[0].count=200' --set simulation.duration=1.0 --set event[0].time=0.5
      --set output.every=50 --set output.checkpoint_every=150 --set output.checkpoint_keep=2)

"$CLI" run "$SC" "${SETS[@]}" -o "$TMP/ref" > "$TMP/ref.log" 2>&1 || fail "reference run"
[ "$(ls "$TMP/ref/checkpoints" | wc -l)" = 2 ] || fail "checkpoint_keep = 2 kept $(ls "$TMP/ref/checkpoints")"
[ -f "$TMP/ref/checkpoints/checkpoint_000450.bin" ] || fail "no checkpoint at step 450"

same_run() {  # same_run DIR: every output of DIR is the reference's
  for f in state.csv energy.csv particles.pvd shapes.json; do
    cmp -s "$TMP/ref/$f" "$1/$f" || fail "$1/$f differs from the uninterrupted run"
  done
  (cd "$TMP/ref/frames" && for f in *; do cmp -s "$f" "$1/frames/$f" || exit 1; done) ||
    fail "$1/frames differ from the uninterrupted run"
  $PY - "$TMP/ref/summary.json" "$1/summary.json" <<'PYEOF' || fail "$1/summary.json differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for j in (a, b):
    for k in ("wall_time", "steps_per_second", "frame_seconds", "profile_seconds", "profile_stages"):
        j.pop(k)
    j["terrains"].pop("build_seconds")
    j.pop("broad_phase")
sys.exit(0 if a == b else 1)
PYEOF
}

for sig in INT TERM; do
  out="$TMP/stop_$sig"
  "$CLI" run "$SC" "${SETS[@]}" -o "$out" > "$TMP/stop_$sig.log" 2>&1 &
  pid=$!
  # Stop it once it has written its first checkpoint (step 150), so it is in the middle.
  for _ in $(seq 1 1200); do
    [ -f "$out/checkpoints/checkpoint_000150.bin" ] && break
    sleep 0.05
  done
  kill -s "$sig" "$pid"
  wait "$pid"
  rc=$?
  want=$([ "$sig" = INT ] && echo 130 || echo 143)
  [ "$rc" = "$want" ] || fail "SIG$sig: exit code $rc, expected $want"
  $PY -c "import json,sys; s=json.load(open('$out/summary.json')); sys.exit(s['status'] != 'interrupted' or not 150 <= s['steps'] < 600)" ||
    fail "SIG$sig: summary.json status is not interrupted"
  ckpt=$(ls "$out"/checkpoints/checkpoint_*.bin | tail -n 1)
  steps=$($PY -c "import json; print(json.load(open('$out/summary.json'))['steps'])")
  [ "$ckpt" = "$out/checkpoints/$(printf 'checkpoint_%06d.bin' "$steps")" ] ||
    fail "SIG$sig: the last checkpoint $ckpt is not the step stopped at ($steps)"
  grep -q -- "--resume $ckpt" "$TMP/stop_$sig.log" || fail "SIG$sig: no resume command printed"
  "$CLI" run "$SC" "${SETS[@]}" -o "$out" --resume "$ckpt" > "$TMP/resume_$sig.log" 2>&1 ||
    fail "SIG$sig: resume"
  same_run "$out"
done

# expect_bad NAME ARGS...: exit 2, one line on stderr naming what is wrong.
expect_bad() {
  local name=$1 pattern=$2
  shift 2
  "$CLI" "$@" > "$TMP/$name.out" 2> "$TMP/$name.err"
  local rc=$?
  [ "$rc" = 2 ] || fail "$name: exit code $rc, expected 2"
  [ "$(wc -l < "$TMP/$name.err")" = 1 ] || fail "$name: not one line: $(cat "$TMP/$name.err")"
  grep -q -- "$pattern" "$TMP/$name.err" || fail "$name: '$pattern' not in: $(cat "$TMP/$name.err")"
}

CK="$TMP/ref/checkpoints/checkpoint_000450.bin"
cp -r "$TMP/ref" "$TMP/keep"
# Another scenario (one friction changed), or another checkpoint of the same name.
expect_bad other_scenario "written for another scenario" run "$SC" "${SETS[@]}" \
  --set 'material[0].friction=0.1' -o "$TMP/ref" --resume "$CK"
# The directory of another run (same scenario, fewer grains written there).
"$CLI" run "$SC" --set 'fill[0].count=50' --set simulation.duration=0.1 -o "$TMP/other" \
  > "$TMP/other.log" 2>&1 || fail "other run"
cp "$TMP/other/energy.csv" "$TMP/other_energy.csv"
expect_bad other_directory "energy.csv: --resume:.*another run" run "$SC" "${SETS[@]}" \
  -o "$TMP/other" --resume "$CK"
cmp -s "$TMP/other/energy.csv" "$TMP/other_energy.csv" || fail "other_directory: energy.csv changed"
expect_bad no_directory "no such run directory" run "$SC" "${SETS[@]}" -o "$TMP/none" --resume "$CK"
expect_bad missing "no such checkpoint" run "$SC" "${SETS[@]}" -o "$TMP/ref" --resume "$TMP/nope.bin"
# Truncated, corrupted, not a checkpoint.
head -c 1000 "$CK" > "$TMP/truncated.bin"
expect_bad truncated "truncated or corrupted" run "$SC" "${SETS[@]}" -o "$TMP/ref" --resume "$TMP/truncated.bin"
cp "$CK" "$TMP/corrupt.bin"
printf '\x7f' | dd of="$TMP/corrupt.bin" bs=1 seek=3000 conv=notrunc status=none
expect_bad corrupt "checksum mismatch" run "$SC" "${SETS[@]}" -o "$TMP/ref" --resume "$TMP/corrupt.bin"
expect_bad not_checkpoint "not an etdem checkpoint" run "$SC" "${SETS[@]}" -o "$TMP/ref" \
  --resume "$TMP/ref/state.csv"
# An unwritable checkpoint directory (a file in its place), a negative period.
mkdir -p "$TMP/blocked" && touch "$TMP/blocked/checkpoints"
expect_bad unwritable "checkpoints: output.checkpoint_every: cannot write" run "$SC" "${SETS[@]}" \
  -o "$TMP/blocked"
[ -e "$TMP/blocked/energy.csv" ] && fail "unwritable: the run started"
expect_bad negative "checkpoint_every" run "$SC" --set output.checkpoint_every=-1 -o "$TMP/neg"
# None of these touched the run they pointed at.
for f in state.csv energy.csv summary.json; do
  cmp -s "$TMP/ref/$f" "$TMP/keep/$f" || fail "a refused resume changed $f"
done
echo "checkpoint CLI: ok"
