#!/usr/bin/env bash
# An install prefix that cannot be written is refused before anything is built or copied, with
# one line naming it: `make install PREFIX=...` (Makefile, scripts/check-prefix.sh) and
# `cmake --install BUILD --prefix ...` (the first install rule of CMakeLists.txt). Run by ctest as
#   bash tests/cli/script_install_prefix.sh ETDEM_CLI SOURCE_DIR
. "$(dirname "$0")/../support/cli_script_lib.sh"
BUILD=$(cd "$(dirname "$CLI")/.." && pwd)

# A prefix below a regular file: nothing can be created there, whoever runs it.
touch "$TMP/file"
bad="$TMP/file/usr"
# (Without the flags of a make that runs ctest: its jobserver would add lines.)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$SRC" install PREFIX="$bad" \
  > "$TMP/make.out" 2> "$TMP/make.log" && fail "make install into $bad: exit 0"
[ "$(wc -l < "$TMP/make.log")" -eq 1 ] || fail "make install: not one line"
grep -q "cannot install into $bad: $TMP/file is not a writable directory" "$TMP/make.log" ||
  fail "make install: the line does not name $bad"
[ ! -s "$TMP/make.out" ] || fail "make install printed $(head -c 200 "$TMP/make.out")"

cmake --install "$BUILD" --prefix "$bad" > "$TMP/cmake.out" 2> "$TMP/cmake.log" &&
  fail "cmake --install into $bad: exit 0"
grep -q "etdem: cannot install into $bad: $TMP/file is not a writable directory" "$TMP/cmake.log" ||
  fail "cmake --install: no line naming $bad"
grep -q "Installing:" "$TMP/cmake.out" && fail "cmake --install copied files before refusing"

# A read-only directory (root writes anywhere: the check then runs as nobody).
mkdir -p "$TMP/ro" && chmod 555 "$TMP/ro"
as_user=()
if [ "$(id -u)" -eq 0 ]; then
  if command -v setpriv > /dev/null; then
    chmod 755 "$TMP"
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  else
    as_user=(skip)
  fi
fi
if [ "${as_user[0]:-}" != skip ]; then
  out=$("${as_user[@]}" bash "$SRC/scripts/check-prefix.sh" "$TMP/ro/usr") &&
    fail "check-prefix: $TMP/ro/usr accepted"
  [ "$out" = "cannot install into $TMP/ro/usr: $TMP/ro is not a writable directory" ] ||
    fail "check-prefix: '$out'"
fi
# A writable one is accepted, silently.
out=$(bash "$SRC/scripts/check-prefix.sh" "$TMP/new/prefix") ||
  fail "check-prefix refused $TMP/new/prefix: $out"
[ -z "$out" ] || fail "check-prefix printed '$out'"
echo "install prefix checks: ok"
