#!/usr/bin/env bash
# V9 (impulse-based LS-DEM 2024, section 6.2): examples/levelset/v9.toml at the paper's five time
# steps, one thread each, for a node count (2500 as in the paper, or 300), into OUT/v9-N-DT/.
#   tools/v9.sh [NODES] [OUT] [DURATION] [DT ...]
# The runs take hours (docs/validation.md); each writes a checkpoint every CHECKPOINT_EVERY steps
# (default 2000), and a run stopped before its end is resumed from its last checkpoint when the
# script is started again with the same arguments. A run whose summary.json exists is skipped.
# Variants, each named in the run's directory (OUT/v9-N[-pP][-kK][-sS]-DT):
#   CONTACT_POINTS=P  every shape keeps at most P points per contact (its contact_points key)
#   FILL_SEED=S       another fill: the six fills take the seeds S, S+1, ..., S+5
#   CONTACT_SKIN=K    simulation.contact_skin = K (the speculative reach, a fraction of the
#                     smaller grain's bounding radius; docs/scenario.md)
set -euo pipefail
nodes=${1:-2500}
out=${2:-out}
duration=${3:-8.0}
shift $(( $# < 3 ? $# : 3 ))
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(0.004 0.002 0.001 0.0005 0.00025)
etdem=${ETDEM:-build/release/bin/etdem}
every=${CHECKPOINT_EVERY:-2000}
mkdir -p "$out"
sets=()
name="v9-$nodes"
for k in 0 1 2 3 4 5; do sets+=(--set "shape[$k].nodes=$nodes"); done
if [ -n "${CONTACT_POINTS:-}" ]; then
  for k in 0 1 2 3 4 5; do sets+=(--set "shape[$k].contact_points=$CONTACT_POINTS"); done
  name="$name-p$CONTACT_POINTS"
fi
if [ -n "${CONTACT_SKIN:-}" ]; then
  sets+=(--set "simulation.contact_skin=$CONTACT_SKIN")
  name="$name-k$CONTACT_SKIN"
fi
if [ -n "${FILL_SEED:-}" ]; then
  for k in 0 1 2 3 4 5; do sets+=(--set "fill[$k].seed=$((FILL_SEED + k))"); done
  name="$name-s$FILL_SEED"
fi
for dt in "${steps[@]}"; do
  dir="$out/$name-$dt"
  if [ -f "$dir/summary.json" ]; then echo "$name dt=$dt: done before ($dir)"; continue; fi
  resume=()
  last=$(ls -1 "$dir"/checkpoints/*.bin 2>/dev/null | sort | tail -n 1 || true)
  if [ -n "$last" ]; then resume=(--resume "$last"); echo "$name dt=$dt: resuming from $last"; fi
  "$etdem" run examples/levelset/v9.toml -o "$dir" "${resume[@]}" --threads 1 "${sets[@]}" \
    --set simulation.dt=$dt --set simulation.duration=$duration --set output.every=0 \
    --set output.checkpoint_every=$every >>"$dir.log" 2>&1 || {
    echo "v9: dt = $dt failed (see $dir.log)"; exit 1; }
  grep -E "steps:" "$dir.log" | tail -n 1 | sed "s/^/$name dt=$dt: /"
done
