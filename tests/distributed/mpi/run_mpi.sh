#!/usr/bin/env bash
# Runs an MPI test: run_mpi.sh RANKS EXPECTED_EXIT EXPECTED_TEXT PROGRAM [ARGS...]
# Passes when the run ends within 120 s with EXPECTED_EXIT and, unless EXPECTED_TEXT is empty,
# its output contains EXPECTED_TEXT. Oversubscribes (more ranks than cores) and allows root.
set -uo pipefail
ranks=$1 expected_exit=$2 expected_text=$3
shift 3
flags=(--oversubscribe --bind-to none)
if [ "$(id -u)" -eq 0 ]; then flags+=(--allow-run-as-root); fi
out=$(OMPI_MCA_rmaps_base_oversubscribe=1 timeout 120 mpirun "${flags[@]}" -np "$ranks" "$@" 2>&1)
code=$?
echo "$out"
if [ "$code" -ne "$expected_exit" ]; then
  echo "run_mpi.sh: exit $code, expected $expected_exit" >&2
  exit 1
fi
if [ -n "$expected_text" ] && ! grep -qF -- "$expected_text" <<<"$out"; then
  echo "run_mpi.sh: output lacks: $expected_text" >&2
  exit 1
fi
