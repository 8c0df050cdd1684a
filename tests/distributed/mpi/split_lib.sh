# Shared by the split-run scripts (split_resume.sh, split_stop.sh): sourced after `etdem` is set.
# A scratch directory `dir` removed on exit, one thread per rank, mpirun flags that oversubscribe
# this small machine (and allow root), and `launch N ARGS...`: etdem on N ranks (1 = the serial
# command) within 300 s.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export OMP_NUM_THREADS=1 OMPI_MCA_rmaps_base_oversubscribe=1
flags=(--oversubscribe --bind-to none)
if [ "$(id -u)" -eq 0 ]; then flags+=(--allow-run-as-root); fi
launch() {
  local n=$1
  shift
  if [ "$n" -eq 1 ]; then "$etdem" "$@"; else timeout 300 mpirun "${flags[@]}" -np "$n" "$etdem" "$@"; fi
}
