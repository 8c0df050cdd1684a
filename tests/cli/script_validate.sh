#!/usr/bin/env bash
# `etdem validate`: the quick cases all pass (exit 0) and the JSON lists every case with the
# paper's number, ours, the tolerance and the verdict; a tolerance scaled down makes a case fail
# (exit 1); an unknown case is bad input (exit 2). Run by ctest as
#   bash tests/cli/script_validate.sh ETDEM_CLI SOURCE_DIR
. "$(dirname "$0")/../support/cli_script_lib.sh"

"$CLI" validate --json > "$TMP/all.json" 2> "$TMP/all.log" || fail "validate: exit $?"
$PY - "$TMP/all.json" <<'PYEOF' || fail "validate --json"
import json, math, sys
j = json.load(open(sys.argv[1]))
assert j["pass"] is True and j["failed"] == 0, j
ids = [c["id"] for c in j["cases"]]
for want in ("V1", "V2", "V3", "V4", "V6", "V8", "V7 Table 2", "V7 Table 3", "V7 Table 4",
             "V7 Bernoulli", "V7 four balls"):
    assert want in ids, (want, ids)
# The long cases only with --long (or --only); nothing reported without a verdict here.
assert "V5" not in ids and "V9" not in ids and "V4 1080" not in ids, ids
assert j["long"] is False and j["reported"] == 0, j
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
assert n == j["checks"] and n >= 120, n
def row(case, start):
    c = next(c for c in j["cases"] if c["id"] == case)
    return next(k for k in c["checks"] if k["quantity"].startswith(start))
# Bernoulli, Table 6 at pi/4: x1 = 0.50 to half a unit of the 2nd decimal (Eq. 4.2: 0.5).
b = row("V7 Bernoulli", "Table 6, alpha pi/4: x1")
assert b["paper"] == 0.5 and b["tolerance"] == 0.005 and abs(b["ours"] - 0.5) <= 1e-6, b
# The plastic impact at pi/6 leaves 0.2 J (by hand); the printed 0.185 J is pi/8's.
p6 = row("V7 Bernoulli", "e = 0, alpha pi/6: kinetic energy")
assert abs(p6["paper"] - 0.2) <= 1e-12 and abs(p6["ours"] - 0.2) <= 1e-6, p6
p8 = row("V7 Bernoulli", "e = 0, alpha pi/8: kinetic energy")
assert p8["paper"] == 0.185 and abs(p8["ours"] - 0.185) <= 0.0005, p8
# Four balls, case B at pi/3: B4 leaves at 0.84 (printed) and five contacts were built.
f = row("V7 four balls", "B, pi/3, B2 strikes: x4")
assert f["paper"] == 0.84 and abs(f["ours"] - 0.84) <= 0.005, f
assert row("V7 four balls", "B, pi/3, B2 strikes: contacts")["ours"] == 5, f
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
[ "$(wc -l < "$TMP/bad.log")" = 1 ] || fail "unknown case: not one line: $(cat "$TMP/bad.log")"
# A case id is matched whole: "V7" names no case.
"$CLI" validate --only V7 > /dev/null 2> "$TMP/bad.log"
rc=$?
[ "$rc" = 2 ] && grep -q "no case 'V7'" "$TMP/bad.log" || fail "partial case id: exit $rc"
# The new cases alone, as a table.
"$CLI" validate --only "V7 four balls" > "$TMP/four.txt" 2>&1 || fail "validate --only 'V7 four balls'"
grep -q "^V7 four balls .*x4 .*pass$" "$TMP/four.txt" || fail "no four-ball row in: $(cat "$TMP/four.txt")"
! grep -q "FAIL" "$TMP/four.txt" || fail "four balls: $(cat "$TMP/four.txt")"
# A tolerance scaled to nothing fails the Bernoulli table (Table 6 is printed to 2 decimals).
"$CLI" validate --only "V7 Bernoulli" --json --tolerance-scale 0 > "$TMP/fail2.json" 2>/dev/null
rc=$?
[ "$rc" = 1 ] || fail "Bernoulli with no tolerance: exit $rc, expected 1"
# The long cases' process count is checked before anything runs.
"$CLI" validate --only V9 --jobs 0 > /dev/null 2> "$TMP/jobs.log"
rc=$?
[ "$rc" = 2 ] && grep -q "jobs" "$TMP/jobs.log" || fail "--jobs 0: exit $rc: $(cat "$TMP/jobs.log")"
echo "validate: ok"
