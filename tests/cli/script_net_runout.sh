#!/usr/bin/env bash
# The deposit analyses leave a [[net]]'s nodes out: they are sphere bodies in state.csv, but
# shapes.json marks their shape with the net's name. 60 spheres drop on a floor; a clamped net
# of 4 x 4 nodes stands 1 m away. With and without the net, analyze runout and mound give the
# same deposit (the grains never reach the net), and the run with the net reports its 4 free
# nodes left out (state.csv holds the moving bodies; the 12 clamped nodes are fixed); counted as
# grains, the nodes would put the runout near 1 m. Run by ctest
#   bash tests/cli/script_net_runout.sh ETDEM_CLI SOURCE_DIR
. "$(dirname "$0")/../support/cli_script_lib.sh"

cat > "$TMP/plain.toml" <<'TOML'
[simulation]
dt = 1e-3
duration = 0.4
gravity = [0.0, 0.0, -9.81]

[[material]]
name = "glass"
density = 2500.0
restitution = 0.3
friction = 0.5

[[shape]]
name = "grain"
type = "sphere"
radius = 0.005

[[fill]]
shape = "grain"
material = "glass"
count = 60
region = { min = [0.0, 0.0, 0.0], max = [0.06, 0.06, 0.08] }
seed = 3

[[wall]]
name = "floor"
type = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
material = "glass"

[output]
every = 0
TOML
cp "$TMP/plain.toml" "$TMP/net.toml"
cat >> "$TMP/net.toml" <<'TOML'

[[net]]
name = "fence"
pattern = "square"
origin = [1.0, 0.0, 0.02]
axis_u = [0.0, 1.0, 0.0]
axis_v = [0.0, 0.0, 1.0]
counts = [4, 4]
spacing = 0.05
node_radius = 0.01
material = "glass"
stiffness = 100.0
damping = 0.5
clamp = ["u0", "u1", "v0", "v1"]
TOML

for case in plain net; do
  "$CLI" run "$TMP/$case.toml" -o "$TMP/$case" --threads 1 > "$TMP/run_$case.log" 2>&1 \
    || fail "etdem run $case exited with $?"
  "$CLI" analyze runout "$TMP/$case" --direction 1,0 --origin 0.03,0.03 \
    > "$TMP/runout_$case.log" 2>&1 || fail "analyze runout ($case) exited with $?"
  "$CLI" analyze mound "$TMP/$case" > "$TMP/mound_$case.log" 2>&1 \
    || fail "analyze mound ($case) exited with $?"
done
grep -q "60 grains, 4 net nodes left out" "$TMP/runout_net.log" \
  || fail "runout with the net: no '60 grains, 4 net nodes left out' line"
grep -q "60 grains, 4 net nodes left out" "$TMP/mound_net.log" \
  || fail "mound with the net: no '60 grains, 4 net nodes left out' line"
"$PY" - "$TMP" <<'PY' || fail "runout.json / mound.json with and without the net"
import json, sys
d = sys.argv[1]
shapes = json.load(open(d + "/net/shapes.json"))["shapes"]
assert shapes["fence.node"]["net"] == "fence" and "net" not in shapes["grain"], shapes.keys()
for kind, keys in (("runout", ("runout", "runout_fraction", "rear", "width", "area")),
                   ("mound", ("height", "spread", "reach"))):
    a = json.load(open(f"{d}/plain/{kind}.json"))
    b = json.load(open(f"{d}/net/{kind}.json"))
    assert a["grains"] == b["grains"] == 60, (a["grains"], b["grains"])
    assert a["net_nodes_left_out"] == 0 and b["net_nodes_left_out"] == 4, kind
    for k in keys:
        assert abs(a[k] - b[k]) <= 1e-9 * max(1.0, abs(a[k])), (kind, k, a[k], b[k])
r = json.load(open(d + "/net/runout.json"))
# The grains spread a few centimetres about the drop; the net stands 0.97 m ahead of the origin.
assert 0.0 < r["runout"] < 0.5, r["runout"]
PY
echo "net nodes left out of runout and mound: ok"
