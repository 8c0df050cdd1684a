#!/usr/bin/env bash
# A split run that fails on one rank mid-run ends every rank, with one message and one exit code,
# and no rank waits for the failed one: split_fail.sh RANKS ETDEM SCENARIO OUTDIR.
# Rank 0 (the writer) cannot write the frame of step 20, because a directory stands at its path;
# the other ranks are then inside the step's collectives.
set -uo pipefail
ranks=$1 cli=$2 scenario=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out"
mkdir -p "$out/frames/boxes_000020.vtu/keep"
log=$(bash "$here/run_mpi.sh" "$ranks" 2 "boxes_000020.vtu: cannot open for writing" \
  "$cli" run "$scenario" -o "$out" --set simulation.duration=0.05 --set output.every=10)
code=$?
echo "$log"
[ "$code" -eq 0 ] || exit 1
n=$(grep -c "cannot open for writing" <<<"$log")
if [ "$n" -ne 1 ]; then
  echo "split_fail.sh: the error was printed $n times, expected once" >&2
  exit 1
fi
# The frames before the failure were written; the one after it was not reached.
[ -s "$out/frames/boxes_000010.vtu" ] || { echo "split_fail.sh: no frame before the failure" >&2; exit 1; }
[ ! -e "$out/frames/boxes_000030.vtu" ] || { echo "split_fail.sh: the run went on" >&2; exit 1; }
