#!/usr/bin/env bash
# Checkpoints of a run split over MPI ranks: split_resume.sh RANKS RESUME_RANKS ETDEM SCENARIO.
# Runs SCENARIO on RANKS ranks with a checkpoint every 120 steps, resumes the first checkpoint on
# RESUME_RANKS ranks (1 = the serial command) into the same directory, and passes when the
# resumed run's energy.csv, state.csv, net_NAME.csv and snapshots are the serial run's, byte for byte. The
# snapshots up to the checkpoint are deleted before resuming and must not come back: the
# resumed run starts at the checkpoint, not at the start.
set -uo pipefail
ranks=$1 resume_ranks=$2 etdem=$3 scenario=$4
. "$(dirname "$0")/split_lib.sh"
sets=(--set output.checkpoint_every=120 --set output.state_every=60)
"$etdem" run "$scenario" -o "$dir/serial" "${sets[@]}" >/dev/null || { echo "serial run failed" >&2; exit 1; }
launch "$ranks" run "$scenario" -o "$dir/split" "${sets[@]}" >/dev/null ||
  { echo "split run failed" >&2; exit 1; }
first=$(ls "$dir"/split/checkpoints/*.bin 2>/dev/null | sort | head -1)
[ -n "$first" ] || { echo "no checkpoint written" >&2; exit 1; }
step=$(basename "$first" .bin | sed 's/[^0-9]//g; s/^0*//')
echo "resuming $(basename "$first") (step $step) on $resume_ranks rank(s)"
rm -f "$dir"/split/state_*.csv
launch "$resume_ranks" run "$scenario" -o "$dir/split" "${sets[@]}" \
  --resume "$first" >/dev/null || { echo "resumed run failed" >&2; exit 1; }
status=0
names=(energy.csv state.csv)
for f in "$dir"/serial/net_*.csv; do [ -e "$f" ] && names+=("$(basename "$f")"); done
for f in "$dir"/serial/state_*.csv; do
  name=$(basename "$f")
  s=$(sed 's/[^0-9]//g; s/^0*//' <<<"$name")
  if [ "$s" -le "$step" ]; then
    [ ! -e "$dir/split/$name" ] || { echo "$name: written again by the resumed run" >&2; status=1; }
  else
    names+=("$name")
  fi
done
for name in "${names[@]}"; do
  if cmp -s "$dir/serial/$name" "$dir/split/$name"; then
    echo "$name: equal"
  else
    echo "$name: differs from the serial run" >&2
    status=1
  fi
done
exit $status
