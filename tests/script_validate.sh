#!/usr/bin/env bash
# `etdem validate`: the quick cases all pass (exit 0) and the JSON lists every case with the
# paper's number, ours, the tolerance and the verdict; a tolerance scaled down makes a case fail
# (exit 1); an unknown case is bad input (exit 2). Run by ctest as
#   bash tests/script_validate.sh ETDEM_CLI SOURCE_DIR
. "$(dirname "$0")/cli_script_lib.sh"

"$CLI" validate --json > "$TMP/all.json" 2> "$TMP/all.log" || fail "validate: exit $?"
$PY - "$TMP/all.json" <<'PYEOF' || fail "validate --json"
import json, math, sys
j = json.load(open(sys.argv[1]))
assert j["pass"] is True and j["failed"] == 0, j
ids = [c["id"] for c in j["cases"]]
for want in ("V1", "V2", "V3", "V4", "V6", "V8", "V7 Table 2", "V7 Table 3", "V7 Table 4"):
    assert want in ids, (want, ids)
n = 0
for c in j["cases"]:
    assert c["pass"] is True and c["checks"], c["id"]
    for k in c["checks"]:
        n += 1
        assert k["pass"] is True and math.isfinite(k["ours"]), k
        if k["relation"] == "near":
            assert abs(k["ours"] - k["paper"]) <= k["tolerance"], k
        elif k["relation"] == "at most":
            assert k["ours"] <= k["paper"], k
        else:
            assert k["ours"] >= k["paper"], k
assert n == j["checks"] and n >= 60, n
# LZB Table 2, ball A, v3: the paper's 0.968 to half a unit.
t2 = next(c for c in j["cases"] if c["id"] == "V7 Table 2")
a3 = next(k for k in t2["checks"] if k["quantity"].startswith("ball A: v3"))
assert a3["paper"] == 0.968 and abs(a3["ours"] - 0.968) <= 0.0005, a3
PYEOF

# Tolerances scaled to nothing: V3's v_z (9.9897 for 10 at lambda 10) fails.
"$CLI" validate --only V3 --json --tolerance-scale 0 > "$TMP/fail.json" 2> "$TMP/fail.log"
rc=$?
[ "$rc" = 1 ] || fail "a failing case: exit $rc, expected 1"
$PY -c "
import json, sys
j = json.load(open('$TMP/fail.json'))
assert j['pass'] is False and j['failed'] >= 1 and [c['id'] for c in j['cases']] == ['V3'], j
" || fail "the failing case's JSON"
# The table: one line per check and the verdict.
"$CLI" validate --only V8 > "$TMP/table.txt" 2>&1 || fail "validate --only V8"
grep -q "^V8 .*pass$" "$TMP/table.txt" || fail "no V8 row in: $(cat "$TMP/table.txt")"
grep -q "2 of 2 checks pass" "$TMP/table.txt" || fail "no summary line"
"$CLI" validate --only V99 > /dev/null 2> "$TMP/bad.log"
rc=$?
[ "$rc" = 2 ] && grep -q "no case 'V99'" "$TMP/bad.log" || fail "unknown case: exit $rc"
echo "validate: ok"
