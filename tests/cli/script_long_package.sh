#!/usr/bin/env bash
# The Debian package: CPack builds etdem_<version>_amd64.deb from this build tree, apt-get
# installs it (with the dependencies dpkg-shlibdeps found), `etdem validate` and the Python import
# run from /usr, then the package is purged and none of its files may be left. Needs root (or
# sudo) and installs nothing when etdem is already installed as a package (exit 77: skipped).
# Long (label "long", make test-long); run by ctest as
#   bash tests/cli/script_long_package.sh ETDEM_CLI SOURCE_DIR
. "$(dirname "$0")/../support/cli_script_lib.sh"
BUILD=$(cd "$(dirname "$CLI")/.." && pwd)
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  sudo -n true 2> /dev/null || { echo "skipped: needs root or sudo"; exit 77; }
  SUDO="sudo -n"
fi
if dpkg-query -W -f='${Status}' etdem 2> /dev/null | grep -q "installed"; then
  echo "skipped: the etdem package is installed on this machine already"; exit 77
fi
command -v dpkg-shlibdeps > /dev/null || fail "dpkg-shlibdeps missing (scripts/install-deps.sh --with-packaging)"

(cd "$BUILD" && cpack -G DEB -B "$TMP/package") > "$TMP/cpack.log" 2>&1 || fail "cpack: exit $?"
deb=$(ls "$TMP"/package/etdem_*_amd64.deb 2> /dev/null | head -n 1)
[ -n "$deb" ] || fail "no etdem_*_amd64.deb in $TMP/package"
version=$(dpkg-deb -f "$deb" Version)
[ "$(basename "$deb")" = "etdem_${version}_amd64.deb" ] || fail "package file name $(basename "$deb")"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libgdal libopenvdb libfmt libc6 libstdc++6; do
  echo "$depends" | grep -q "$lib" || fail "Depends has no $lib (dpkg-shlibdeps): $depends"
done
echo "$(basename "$deb"): $(stat -c %s "$deb") bytes; Depends: $depends"

chmod 755 "$TMP" "$TMP/package"  # apt's download user reads the file
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -qq --no-install-recommends "$deb" > "$TMP/apt_install.log" 2>&1 ||
  fail "apt-get install $deb: exit $?"
trap '$SUDO dpkg -P etdem > /dev/null 2>&1; rm -rf "$TMP"' EXIT
dpkg -L etdem > "$TMP/files.txt" || fail "dpkg -L etdem"
for f in /usr/bin/etdem /usr/include/etdem/world/world.hpp /usr/share/man/man1/etdem.1.gz \
         /usr/share/etdem/examples/drop_box.toml; do
  grep -qx "$f" "$TMP/files.txt" || grep -qx "${f%.gz}" "$TMP/files.txt" || fail "not in the package: $f"
done
grep -q "^/usr/lib/python3/dist-packages/etdem.*\.so$" "$TMP/files.txt" ||
  fail "the Python module is not in /usr/lib/python3/dist-packages"

cd "$TMP"
env -u PYTHONPATH -u LD_LIBRARY_PATH PATH=/usr/bin:/bin etdem --version > "$TMP/version.log" 2>&1 ||
  fail "etdem --version: exit $?"
env -u PYTHONPATH -u LD_LIBRARY_PATH PATH=/usr/bin:/bin timeout 900 etdem validate > "$TMP/validate.log" 2>&1 ||
  fail "etdem validate: exit $?"
env -u PYTHONPATH -u LD_LIBRARY_PATH /usr/bin/python3 -c "
import etdem
assert etdem.__file__.startswith('/usr/lib/python3/dist-packages/'), etdem.__file__
w = etdem.load('/usr/share/etdem/examples/drop_box.toml'); w.step(10); print(etdem.__file__)
" > "$TMP/python.log" 2>&1 || fail "python3 -c 'import etdem': exit $?"

$SUDO apt-get remove --purge -y -qq etdem > "$TMP/apt_remove.log" 2>&1 || fail "apt-get remove --purge etdem: exit $?"
trap 'rm -rf "$TMP"' EXIT
dpkg-query -W -f='${Status}' etdem 2> /dev/null | grep -q "installed" && fail "etdem still installed"
left=0
while IFS= read -r f; do
  [ "$f" = "/." ] && continue
  if [ -e "$f" ] && ! [ -d "$f" ]; then echo "left behind: $f" >&2; left=1; fi
  # A directory of the package left behind is only allowed while something else is in it.
  if [ -d "$f" ] && [ -z "$(ls -A "$f" 2> /dev/null)" ]; then echo "empty directory left: $f" >&2; left=1; fi
done < "$TMP/files.txt"
[ "$left" -eq 0 ] || fail "files of the package left after the purge"
echo "package: ok ($(cat "$TMP/version.log"); $(tail -n 1 "$TMP/validate.log"))"
