#!/usr/bin/env bash
# An installed etdem works from anywhere: `cmake --install` into a temporary prefix, the prefix
# copied to another directory and the build tree renamed (restored at exit), then from the copy:
# `etdem --version`, `etdem validate`, `etdem run` of an installed example, the Python module
# with only the prefix's site directory on PYTHONPATH, the manual pages, and a program built with
# find_package(etdem) that loads a scenario and steps it. Long (label "long", make test-long);
# run by ctest as
#   bash tests/cli/script_long_install.sh ETDEM_CLI SOURCE_DIR
. "$(dirname "$0")/../support/cli_script_lib.sh"
BUILD=$(cd "$(dirname "$CLI")/.." && pwd)
cache() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD/CMakeCache.txt"; }
SITE=$(cache ETDEM_PYTHON_INSTALL_DIR)
LIBDIR=$(cache CMAKE_INSTALL_LIBDIR)
PYTHON=$(cache ETDEM_PYTHON_EXECUTABLE)
[ -n "$SITE" ] && [ -n "$LIBDIR" ] || fail "no install directories in $BUILD/CMakeCache.txt"
VERSION=$("$CLI" --version) || fail "etdem --version: exit $?"

cmake --install "$BUILD" --prefix "$TMP/prefix" > "$TMP/install.log" 2>&1 || fail "cmake --install: exit $?"
P="$TMP/prefix"
for f in bin/etdem "$LIBDIR/libetdem.so" "$LIBDIR/cmake/etdem/etdemConfig.cmake" \
         "$LIBDIR/cmake/etdem/etdemConfigVersion.cmake" "$LIBDIR/cmake/etdem/etdemTargets.cmake" \
         include/etdem/world/world.hpp include/etdem/io/scenario.hpp include/etdem/core/version.hpp \
         share/etdem/examples/drop_box.toml share/etdem/examples/repose/spheres.toml \
         share/etdem/examples/repose/cubes.toml share/etdem/examples/repose/crosses.toml \
         share/etdem/examples/levelset/v9.toml share/etdem/examples/meshes/cross.stl \
         share/etdem/docs/install.md share/etdem/docs/README.md share/etdem/docs/CHANGELOG.md \
         share/etdem/etdem_plot.py share/etdem/paraview_view.py \
         share/man/man1/etdem.1 share/man/man1/etdem-run.1 share/man/man1/etdem-validate.1 \
         share/man/man1/etdem-analyze-repose.1; do
  [ -e "$P/$f" ] || fail "not installed: $f"
done
ls "$P/$SITE"/etdem*.so > /dev/null 2>&1 || fail "no Python module in $P/$SITE"
[ -d "$P/include/etdem/distributed/mpi" ] && fail "the MPI transport's headers are installed"
soname=$(objdump -p "$P/$LIBDIR/libetdem.so" | awk '/SONAME/ {print $2}')
case "$soname" in libetdem.so.[0-9]*) ;; *) fail "libetdem.so: SONAME '$soname'" ;; esac
[ -f "$P/$LIBDIR/$soname" ] || fail "$soname not installed"

# The copy in another directory; the build tree renamed until the end (the trap restores it).
Q="$TMP/elsewhere/opt/etdem"
mkdir -p "$(dirname "$Q")" && cp -a "$P" "$Q" && rm -rf "$P"
ASIDE="$BUILD.install-test-aside"
[ -e "$ASIDE" ] && fail "$ASIDE exists (a former run of this test was killed: rename it back)"
cd "$TMP"
mv "$BUILD" "$ASIDE" || fail "cannot rename $BUILD"
trap 'mv "$ASIDE" "$BUILD"; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP
export PATH="/usr/bin:/bin"  # the installed etdem by its path only
unset PYTHONPATH LD_LIBRARY_PATH

ldd "$Q/bin/etdem" > "$TMP/ldd.log" 2>&1 || fail "ldd: exit $?"
grep -q "libetdem.so.* => $Q/" "$TMP/ldd.log" || fail "bin/etdem does not load the prefix's libetdem"
grep -q "not found" "$TMP/ldd.log" && fail "bin/etdem: a library not found"
[ "$("$Q/bin/etdem" --version)" = "$VERSION" ] || fail "installed --version differs from the build's"
timeout 900 "$Q/bin/etdem" validate > "$TMP/validate.log" 2>&1 || fail "etdem validate: exit $?"
timeout 900 "$Q/bin/etdem" run "$Q/share/etdem/examples/drop_box.toml" -o "$TMP/drop" \
  > "$TMP/run.log" 2>&1 || fail "etdem run drop_box: exit $?"
for f in state.csv energy.csv summary.json; do [ -s "$TMP/drop/$f" ] || fail "run: no $f"; done
$PY - "$TMP/drop/summary.json" "$VERSION" <<'PYEOF' || fail "summary.json"
import json, sys
j = json.load(open(sys.argv[1]))
assert "etdem " + j["etdem_version"] == sys.argv[2], (j["etdem_version"], sys.argv[2])
assert j["steps"] > 0, j
PYEOF
# A scenario that reads a mesh next to it (examples/meshes), from the installed examples.
timeout 900 "$Q/bin/etdem" check "$Q/share/etdem/examples/tet_crosses.toml" > "$TMP/check.log" 2>&1 ||
  fail "etdem check tet_crosses: exit $?"

PYTHONPATH="$Q/$SITE" timeout 300 "$PYTHON" -c "
import etdem, sys
assert etdem.__file__.startswith('$Q/'), etdem.__file__
w = etdem.load('$Q/share/etdem/examples/drop_box.toml')
w.step(20)
print('python:', etdem.__file__, w.time)
" > "$TMP/python.log" 2>&1 || fail "python3 -c 'import etdem': exit $?"

MANPATH= man -M "$Q/share/man" -P cat etdem-run > "$TMP/man.log" 2>&1 || true
if command -v man > /dev/null; then
  grep -q "etdem run" "$TMP/man.log" || grep -q "scenario file" "$TMP/man.log" || fail "man etdem-run"
fi

# A program of its own, built with find_package(etdem) from the copy.
timeout 900 cmake -S "$SRC/tests/support/install" -B "$TMP/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$Q" > "$TMP/consumer_configure.log" 2>&1 || fail "find_package(etdem): exit $?"
timeout 900 nice -n 15 cmake --build "$TMP/consumer" > "$TMP/consumer_build.log" 2>&1 ||
  fail "building against etdem::etdem: exit $?"
"$TMP/consumer/consumer" "$Q/share/etdem/examples/drop_box.toml" 50 > "$TMP/consumer.log" 2>&1 ||
  fail "consumer: exit $?"
grep -q "50 steps" "$TMP/consumer.log" || fail "consumer did not step"
cat "$TMP/consumer.log"
echo "installed etdem: ok ($(tail -n 1 "$TMP/validate.log"))"
