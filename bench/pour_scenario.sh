#!/usr/bin/env bash
# The pour scenario for N spheres, for the split-run drivers (run_split.sh, run_split_pairs.sh):
# bench/scenarios/pour_10000.toml itself for N = 10000, else that file with N spheres in the
# pour benchmark's box for N (peers/pour_lattice.py geom N: a lattice of side ceil(N^(1/3)) x
# 1.2 d), written into DIR. Prints the scenario's path.
#
#   bench/pour_scenario.sh N DIR
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 2 ] || { echo "usage: $0 N DIR" >&2; exit 2; }
N=$1 DIR=$2
case $N in
  '' | *[!0-9]* | 0) echo "$0: N must be a positive whole number, not '$N'" >&2; exit 2 ;;
esac
SCENARIO=$HERE/scenarios/pour_10000.toml
if [ "$N" = 10000 ]; then
  echo "$SCENARIO"
  exit 0
fi
read -r _ _ _ side _ < <(python3 "$HERE/peers/pour_lattice.py" geom "$N")
python3 - "$SCENARIO" "$N" "$side" > "$DIR/pour_$N.toml" <<'PY'
import sys
text, n, side = open(sys.argv[1]).read(), int(sys.argv[2]), float(sys.argv[3])
text = text.replace("count = 10000", f"count = {n}")
text = text.replace("max = [0.264, 0.264, 0.264]", f"max = [{side!r}, {side!r}, {side!r}]")
text = text.replace("max = [0.264, 0.264, 0.3]", f"max = [{side!r}, {side!r}, {side + 0.036!r}]")
print(text, end="")
PY
echo "$DIR/pour_$N.toml"
