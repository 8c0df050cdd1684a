# Sourced by the tests/cli/script_*.sh that drive the CLI: their two arguments (the etdem binary and
# the source directory), Debian's python3 for reading outputs back, a temporary directory removed
# on exit, and fail(), which prints the tail of every log there and exits 1.
set -u
CLI=${1:?usage: $(basename "$0") ETDEM_CLI SOURCE_DIR}
SRC=${2:?usage: $(basename "$0") ETDEM_CLI SOURCE_DIR}
PY=/usr/bin/python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

fail() {
  echo "FAILED: $*" >&2
  for f in "$TMP"/*.log; do [ -f "$f" ] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }; done
  exit 1
}
