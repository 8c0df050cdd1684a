#!/usr/bin/env bash
# A run split over MPI ranks against the serial run: split_run.sh RANKS ETDEM SCENARIO [ARGS...]
# (ARGS, e.g. --set KEY=VALUE, given to both runs).
# Passes when `mpirun -np RANKS etdem run` ends with 0 within 300 s and writes state.csv,
# energy.csv and every state_SSSSSS.csv byte for byte as the serial run does. With
# EXPECT_REBALANCES=1 in the environment, the split run must also have drawn its rank boxes
# again (summary.json `ranks.rebalances` > 0); with EXPECT_SHARED=1, it must have solved some
# island with every rank together (`ranks.islands_shared` > 0), and its stages' times must be
# there: each rank's resting pass inside its island solves, the team's own exchanges timed, and
# some of its contacts kept by the rank that detected them (`ranks.contacts_kept_local`), and
# the row updates the ranks made in the shared piles counted (`ranks.shared_row_updates`).
set -uo pipefail
ranks=$1 etdem=$2 scenario=$3
shift 3
extra=("$@")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export OMP_NUM_THREADS=1
flags=(--oversubscribe --bind-to none)
if [ "$(id -u)" -eq 0 ]; then flags+=(--allow-run-as-root); fi
"$etdem" run "$scenario" -o "$dir/serial" "${extra[@]}" >/dev/null || { echo "serial run failed" >&2; exit 1; }
OMPI_MCA_rmaps_base_oversubscribe=1 timeout 300 mpirun "${flags[@]}" -np "$ranks" \
  "$etdem" run "$scenario" -o "$dir/split" "${extra[@]}" || { echo "split run failed ($?)" >&2; exit 1; }
status=0
for f in "$dir"/serial/*.csv; do
  name=$(basename "$f")
  if cmp -s "$f" "$dir/split/$name"; then
    echo "$name: equal"
  else
    echo "$name: differs from the serial run" >&2
    status=1
  fi
done
ls "$dir"/split/frames/*.vtu >/dev/null 2>&1 || { echo "no frames written" >&2; status=1; }
if [ "${EXPECT_REBALANCES:-0}" = 1 ]; then
  n=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["ranks"]["rebalances"])' \
      "$dir/split/summary.json") || { echo "no ranks.rebalances in summary.json" >&2; exit 1; }
  echo "rebalances: $n"
  [ "$n" -gt 0 ] || { echo "the rank boxes were never drawn again" >&2; status=1; }
fi
if [ "${EXPECT_SHARED:-0}" = 1 ]; then
  n=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["ranks"]["islands_shared"])' \
      "$dir/split/summary.json") || { echo "no ranks.islands_shared in summary.json" >&2; exit 1; }
  echo "islands shared: $n"
  [ "$n" -gt 0 ] || { echo "no island was solved by the ranks together" >&2; status=1; }
  python3 - "$dir/split/summary.json" <<'PY' || { echo "summary.json: stage times" >&2; status=1; }
import json, sys
s = json.load(open(sys.argv[1]))
top, mean, here = s["ranks"]["stage_seconds_max"], s["ranks"]["stage_seconds_mean"], s["profile_stages"]
assert set(top) == set(mean) == set(here), "the same stages everywhere"
for k in top:
    assert 0.0 <= mean[k] <= top[k] * (1 + 1e-9) + 1e-9, (k, mean[k], top[k])
    assert 0.0 <= here[k] <= top[k] * (1 + 1e-9) + 1e-9, (k, here[k], top[k])
resting = sum(v for k, v in mean.items() if k.startswith("resting_"))
assert 0.0 < resting <= mean["islands_solves"] * (1 + 1e-9), (resting, mean["islands_solves"])
for k in ("resting_team", "islands_gather", "grains_exchange", "world_rebuild"):
    assert mean[k] > 0.0, k
print("stages: resting pass %.3f s of %.3f s in island solves (mean rank)" % (resting, mean["islands_solves"]))
r = s["ranks"]
# Each stage's seconds in the transport's calls lie within its wall time, on the largest rank
# and on the mean; the stages that hold no call of the transport (a rank's own work) have none.
# The bytes are the stages' shares of what the ranks sent: the stages that do not nest (the
# islands' flow, the grains' exchange) sum to at most the run's bytes, and a shared pile's
# parts, team and grains moved some.
wait_top, wait_mean, sent = (r["stage_transfer_seconds_max"], r["stage_transfer_seconds_mean"],
                             r["stage_bytes"])
assert set(wait_top) == set(wait_mean) == set(sent) == set(top)
for k in top:
    assert 0.0 <= wait_mean[k] <= wait_top[k] * (1 + 1e-9) + 1e-9, (k, wait_mean[k], wait_top[k])
    assert wait_mean[k] <= mean[k] * (1 + 1e-9) + 1e-9, (k, wait_mean[k], mean[k])
    assert sent[k] >= 0, k
for k in ("islands_parts", "islands_assembly", "resting_order", "world_rebuild"):
    assert wait_top[k] == 0.0 and sent[k] == 0, (k, wait_top[k], sent[k])
flat = ("islands_labels", "islands_parts", "islands_gather", "islands_assembly", "islands_solves",
        "islands_results", "grains_exchange", "world_rebuild")
assert 0 < sum(sent[k] for k in flat) <= r["bytes"], (sum(sent[k] for k in flat), r["bytes"])
for k in ("islands_gather", "resting_team", "grains_exchange"):
    assert sent[k] > 0 and wait_mean[k] > 0.0, k
assert sum(wait_mean[k] for k in flat) <= r["collective_seconds_mean"] * (1 + 1e-9)
print("stages: %.3f s of %.3f s in the transport's calls, %d of %d bytes (mean rank)" %
      (sum(wait_mean[k] for k in flat), r["collective_seconds_mean"],
       sum(sent[k] for k in flat), r["bytes"]))
assert r["contacts_kept_local"] > 0, "a shared pile's contacts no other rank reads kept"
assert r["grains_sent_slim"] > 0, "a shared pile's grains no other rank reads sent slim"
assert 0 < r["collisions_kept_local"] < r["contacts_kept_local"], \
    "collision groups among grains no other rank reads kept by their rank"
assert 0 < r["worlds_refreshed_in_place_per_rank"] <= r["exchanges_per_rank"], \
    "a pile's ranks keep their bodies in the sub-steps no grain comes or goes"
# The rows the ranks swept in their shared piles: each update counted once, by the rank that
# made it, so their sum is at most every update the resting passes made; the largest rank's
# share lies between the mean and the whole.
updates, imbalance = r["shared_row_updates"], r["imbalance"]["shared_row_updates"]
assert 0 < updates <= s["resting"]["impulses"], (updates, s["resting"]["impulses"])
assert 1.0 <= imbalance <= r["count"] * (1 + 1e-12), imbalance
print("shared row updates: %d of %d, the largest rank %.3f of the mean" %
      (updates, s["resting"]["impulses"], imbalance))
print("contacts kept by their rank: %d (collisions %d); grains sent slim: %d; islands sent "
      "again whole: %d" % (r["contacts_kept_local"], r["collisions_kept_local"],
                           r["grains_sent_slim"], r["islands_sent_whole"]))
PY
fi
exit $status
