#!/usr/bin/env bash
# V5 (ETM 2014 §7.4, Figs. 13-15): the angle-of-repose sweep for spheres, cubes and crosses,
# mu in {0, 0.2, 0.3, 0.4, 0.5, 0.6}, one fill seed, with the paper's findings that etdem
# reproduces checked by the tool: mu = 0 holds no slope (below 12 deg or still flowing), friction
# holds one at rest, the angle rises with mu and saturates. The paper's "crosses stand highest"
# is printed, not asserted (docs/validation.md, V5). About 9 minutes on 2 cores; label "long"
# (make test-long).
#   script_long_repose_sweep.sh CLI SOURCE_DIR
set -euo pipefail
CLI=$1
SRC=$2
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
/usr/bin/python3 "$SRC/tools/repose_sweep.py" --etdem "$CLI" --out "$OUT" --jobs 2 --check
