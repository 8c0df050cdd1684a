#!/usr/bin/env python3
"""etdem's repose demo against LIGGGHTS' rigid limit, from the two result tables.

    bench/repose_compare.py [--etdem CSV] [--liggghts CSV] [--version TEXT]

Reads bench/results/etdem_repose_seeds.csv (bench/run_repose_seeds.sh) and
bench/results/liggghts_repose_rigid_limit.csv (bench/peers/liggghts_repose_rigid_limit.sh) and
prints, for each rolling friction mu_r:

1. LIGGGHTS' rigid limit: the mean of every run at the two stiffest Young's moduli, each at its
   most-run step (the step checks are left out), with its standard error (sample sd / sqrt(n)).
2. etdem's runs of one binary (`--version`, a part of the `etdem_version` column; default the
   version of the table's last row), grouped by their settings (the runs' extra `--set`
   arguments): mean, sample sd of the fills, standard error, and the difference from the limit
   with the two standard errors combined in quadrature.
3. The angle against etdem's step: a least-squares line angle = a + b dt over every run whose
   settings change nothing but the step (simulation.dt, simulation.duration, output.state_every;
   no setting: the demo's 1/600 s), one point per run; a, the angle at dt -> 0, with the error
   from the residual scatter, and its difference from the limit.
"""
import argparse
import csv
import math
import re
import statistics
from collections import defaultdict

DEMO_DT = 1.0 / 600.0
STEP_ONLY = {"simulation.dt", "simulation.duration", "output.state_every"}


def rows_of(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def mean_se(values):
    m = statistics.mean(values)
    sd = statistics.stdev(values) if len(values) > 1 else float("nan")
    return m, sd, sd / math.sqrt(len(values))


def settings_of(text):
    """The --set pairs of a run's settings as a dict."""
    return dict(re.findall(r"--set\s+'?([^=\s']+)=([^\s']+)'?", text or ""))


def label_of(settings):
    """A run's settings, short: the step as 1/N s; the duration and snapshot interval, which
    only keep the run's 4 s and 0.5 s with another step, left out."""
    s = settings_of(settings)
    parts = []
    for k, v in s.items():
        if k in ("simulation.duration", "output.state_every"):
            continue
        parts.append(f"dt=1/{1 / float(v):.0f}" if k == "simulation.dt" else f"{k}={v}")
    return " ".join(parts) or "(the demo)"


def liggghts_limit(rows, mu_r):
    runs = [r for r in rows if float(r["mu_r"]) == mu_r]
    by_e = defaultdict(list)
    for r in runs:
        by_e[float(r["young_pa"])].append(r)
    stiff = sorted(by_e)[-2:]
    angles = []
    for e in stiff:
        steps = defaultdict(list)
        for r in by_e[e]:
            steps[r["dt_s"]].append(float(r["angle_deg"]))
        angles += max(steps.values(), key=len)
    return stiff, angles


def line_fit(xs, ys):
    """Least squares y = a + b x; a, its standard error, b."""
    n = len(xs)
    mx, my = statistics.mean(xs), statistics.mean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    a = my - b * mx
    s2 = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys)) / (n - 2)
    return a, math.sqrt(s2 * (1.0 / n + mx * mx / sxx)), b


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--etdem", default="bench/results/etdem_repose_seeds.csv")
    p.add_argument("--liggghts", default="bench/results/liggghts_repose_rigid_limit.csv")
    p.add_argument("--version", default=None)
    a = p.parse_args()
    etdem = rows_of(a.etdem)
    liggghts = rows_of(a.liggghts)
    version = a.version or etdem[-1]["etdem_version"]
    etdem = [r for r in etdem if version in r["etdem_version"]]
    if not etdem:
        raise SystemExit(f"{a.etdem}: no run of etdem_version containing '{version}'")
    print(f"etdem runs of '{version}'")
    for mu_r in sorted({float(r["mu_r"]) for r in etdem}, reverse=True):
        stiff, peer = liggghts_limit(liggghts, mu_r)
        if len(peer) < 2:
            print(f"\nmu_r = {mu_r:g}: fewer than two LIGGGHTS runs")
            continue
        pm, psd, pse = mean_se(peer)
        print(f"\nmu_r = {mu_r:g}: LIGGGHTS at E = {stiff[0]:g}, {stiff[-1]:g} Pa: {pm:.2f} +- "
              f"{pse:.2f} deg ({len(peer)} runs, sd {psd:.2f})")
        groups = defaultdict(list)
        for r in etdem:
            if float(r["mu_r"]) == mu_r:
                groups[r["settings"]].append(float(r["angle_deg"]))
        print(f"  {'settings':<56} {'n':>3} {'mean':>6} {'sd':>5} {'se':>5} {'- LIGGGHTS':>14}")
        for settings, angles in sorted(groups.items()):
            m, sd, se = mean_se(angles)
            label = label_of(settings)
            print(f"  {label:<56} {len(angles):>3} {m:>6.2f} {sd:>5.2f} "
                  f"{se:>5.2f} {m - pm:>+7.2f} +- {math.hypot(se, pse):.2f}")
        xs, ys = [], []
        for settings, angles in groups.items():
            s = settings_of(settings)
            if not set(s) <= STEP_ONLY:
                continue
            dt = float(s.get("simulation.dt", DEMO_DT))
            xs += [dt] * len(angles)
            ys += angles
        if len(set(xs)) >= 2 and len(xs) > 2:
            a0, se0, slope = line_fit(xs, ys)
            steps = ", ".join(f"1/{1 / x:.0f}" for x in sorted(set(xs), reverse=True))
            print(f"  angle = a + b dt over {len(xs)} runs at dt = {steps} s: a = {a0:.2f} +- "
                  f"{se0:.2f} deg, b dt = {slope * DEMO_DT:+.2f} deg at 1/600 s; a - LIGGGHTS "
                  f"{a0 - pm:+.2f} +- {math.hypot(se0, pse):.2f}")


if __name__ == "__main__":
    main()
