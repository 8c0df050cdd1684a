#!/usr/bin/env bash
# A run split over MPI ranks stopped by a signal: split_stop.sh RANKS RESUME_RANKS ETDEM SCENARIO.
# Runs SCENARIO on RANKS ranks, sends SIGUSR1 to mpirun once the first checkpoint is written
# (mpirun forwards it to every rank), and passes when the run ends with exit code 138 (128 +
# SIGUSR1), summary.json says "interrupted", a checkpoint of the step it stopped at is written,
# the resume command is printed, and that checkpoint resumed on RESUME_RANKS ranks (1 = the
# serial command) ends with the serial run's energy.csv and state.csv, byte for byte.
set -uo pipefail
ranks=$1 resume_ranks=$2 etdem=$3 scenario=$4
. "$(dirname "$0")/split_lib.sh"
fail() { echo "split_stop.sh: $*" >&2; exit 1; }
sets=(--set output.checkpoint_every=60)
"$etdem" run "$scenario" -o "$dir/serial" "${sets[@]}" >/dev/null || fail "serial run failed"
mpirun "${flags[@]}" -np "$ranks" "$etdem" run "$scenario" -o "$dir/split" "${sets[@]}" \
  >"$dir/split.log" 2>&1 &
pid=$!
# A watchdog in place of timeout(1), which would take the signal for itself.
( sleep 300; kill -s KILL "$pid" ) >/dev/null 2>&1 &
watchdog=$!
for _ in $(seq 1 2400); do
  compgen -G "$dir/split/checkpoints/*.bin" >/dev/null && break
  sleep 0.05
done
kill -s USR1 "$pid"
wait "$pid"
rc=$?
kill "$watchdog" 2>/dev/null
cat "$dir/split.log"
[ "$rc" = 138 ] || fail "exit code $rc, expected 138"
status=$(python3 -c "import json; print(json.load(open('$dir/split/summary.json'))['status'])")
[ "$status" = interrupted ] || fail "summary.json status '$status', expected interrupted"
steps=$(python3 -c "import json; print(json.load(open('$dir/split/summary.json'))['steps'])")
ckpt="$dir/split/checkpoints/$(printf 'checkpoint_%06d.bin' "$steps")"
[ -f "$ckpt" ] || fail "no checkpoint of step $steps, the step the run stopped at"
grep -q -- "--resume $dir/split/checkpoints" "$dir/split.log" || fail "no resume command printed"
echo "stopped after step $steps; resuming on $resume_ranks rank(s)"
launch "$resume_ranks" run "$scenario" -o "$dir/split" "${sets[@]}" --resume "$ckpt" >/dev/null ||
  fail "resumed run failed"
result=0
for name in energy.csv state.csv; do
  if cmp -s "$dir/serial/$name" "$dir/split/$name"; then
    echo "$name: equal"
  else
    echo "$name: differs from the serial run" >&2
    result=1
  fi
done
exit $result
