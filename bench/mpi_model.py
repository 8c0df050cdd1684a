#!/usr/bin/env python3
"""Strong and weak scaling model of a distributed etdem step (docs/distributed.md).

Inputs, measured on this machine and kept in bench/results/:
  profile_10000.csv   serial CPU cost per grain-step and phase (bench_partition, one thread)
  own_work_100000.csv the split step's own work per stage on the 100,000-sphere pour, 2 ranks
  island_wide_work.csv a shared pile's work that every member does whole (instructions per
                      member on 1-8 thread-ranks, bench_split_local under callgrind)
  partition_10000.csv what a distributed step would move on the 10,000-sphere pour for 2-512
                      ranks (bench_partition): ghosts, neighbours, islands, label rounds
The network is stated, not measured (no cluster here): latency ALPHA per message, bandwidth
BETA per rank, a reduction costing log2(P) latencies.

Three designs are modelled for a settled pile, which is one contact island:
  paper   the 2024 paper's Alg. 3: rank 0 gathers every rank's contact list and builds the
          island graph, islands are resolved on one host each, every rank receives every
          grain's velocity (all-gather);
  hosted  ours as built so far: islands labelled along shared grains (no gather), resolved
          whole on the owner of their smallest grain, velocities returned to owners and ghost
          holders only;
  coloured the pile's island solved where its grains live (planned): every stage of the resting
          pass over the fixed spatial blocks coloured 8 ways (docs/design.md, "Blocked sweeps of
          a large island"), each rank updating the rows of its own blocks and sending the
          velocities it changed to its neighbours after every colour. Its messages per step are
          those of the stages as measured on the 10,000-sphere pour (results/stages_10000.csv):
          the warm start and every main and closing-round sweep are 8 colour exchanges plus one
          reduction (the stopping test), the shock pass one neighbour exchange per level, the
          booking and the guard one reduction each. A rank holds every body of its blocks' rows:
          its ghost shell is two blocks (four diameters) deep.
The shock pass's levels grow with the pile's height: measured 5.5 levels per grain layer (72 on
the pour's 13 layers); the model's piles are cubes of grains, N^(1/3) layers, the tallest a pile
of N grains stands in practice.
Usage: bench/mpi_model.py [--alpha S] [--beta BYTES_PER_S] [--terms]
       bench/mpi_model.py --check   the hosted design against the measured split runs

The check (results/split.csv, bench/run_split.sh): on one machine the network costs nothing, but
each byte an island moves is written, sent, read and sorted on the way. With S the solve's time
and W the wall time of one rank, two ranks hosting a pile's island take
  T2 = S + (W - S) / 2 + gamma * B / 2
(the host solves the island alone, the rest halves, B bytes sent by both ranks cost gamma each
on the rank handling them). gamma is fitted on the first measured pair (the 10,000-sphere pour)
and the others (the 100,000-sphere pour, other commits) are predicted with it.
"""
import argparse
import csv
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
GHOST_B, CONTACT_B, BODY_B, VEL_B, ID_B = 112, 184, 136, 56, 16  # bytes per item (bench_partition)
SLIM_B = 12  # a slim grain in an island's part: id and owner (host_scratch.hpp)


def read_profile(path):
    out = {}
    with open(path) as f:
        for row in csv.reader(f):
            if len(row) == 3 and row[0] == "profile":
                out[row[1]] = float(row[2]) * 1e-6  # seconds per grain-step
    return out


def read_partition(path):
    rows = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            rows.setdefault(int(r["ranks"]), []).append(r)
    # The last snapshot (settled bed) per rank count.
    return {p: {k: float(v) for k, v in rs[-1].items()} for p, rs in rows.items()}


def ghosts_per_rank(n, p, halo_d=2.1, volume_d3=0.873):
    """Ghosts of a box of n grains: the shell of width halo around it (interior box, 3-D cuts)."""
    if p == 1:
        return 0.0
    side = (n * volume_d3) ** (1 / 3)
    return n * ((1 + 2 * halo_d / side) ** 3 - 1)


def read_stages(path):
    with open(path) as f:
        rows = [r for r in csv.DictReader(line for line in f if not line.startswith("#"))]
    return {k: float(v) for k, v in next(r for r in rows if r["statistic"] == "mean").items()
            if k != "statistic"}


def read_shock_share(path):
    """The shock pass's share of a step's instructions (callgrind, results/blocks_10000.csv)."""
    with open(path) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            if r["run"] == "callgrind":
                return float(r["shock_instructions"]) / float(r["instructions"])
    return 0.0


def read_own_work(path):
    """The split step's own work (labels, parts, gather, assembly, results, the grains' exchange
    and the rank's world rebuilt, less their time in the transport's calls) as a share of a
    serial step's time per grain, measured on the 100,000-sphere pour (results/own_work_100000.csv).
    """
    rows = {}
    with open(path) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            rows[r["stage"]] = (float(r["seconds_mean"]), float(r["transfer_seconds_mean"]))
    meta = {k: rows.pop(k)[0] for k in ("one_rank_wall_s", "steps", "grains", "ranks")}
    own = sum(s - t for s, t in rows.values())
    per_grain_step = own / (meta["steps"] * meta["grains"] / meta["ranks"])
    serial_per_grain_step = meta["one_rank_wall_s"] / (meta["steps"] * meta["grains"])
    return per_grain_step / serial_per_grain_step


def read_island_wide(path):
    """A shared pile's island-wide work: what each member of the team does over the whole island
    whatever the rank count (its grains merged and numbered, the island's solve before the pass
    over every body, the pass's per-body work over the bodies it holds), as a share of a serial step's time per island grain,
    from the per-member instruction counts of results/island_wide_work.csv: each function's
    member count fitted as a + b / P over 2-8 thread-ranks (a is the floor no rank count
    divides), the merge's as a + c log2 P (a heap of the parts' runs), per island grain the
    solves held and against the serial run's instructions per grain-step. Returns (share, merge
    share per doubling): the floor's share, and the merge's growth per doubling of the ranks.
    """
    floor = merge_per_doubling = 0.0
    meta = {}
    with open(path) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            if r["function"] in ("island_grain_solves", "serial_instructions_per_grain_step"):
                meta[r["function"]] = float(r["a_millions"])
            elif r["function"] == "merge_per_doubling":
                merge_per_doubling = float(r["a_millions"])
            else:
                floor += float(r["a_millions"])
    per = 1e6 / meta["island_grain_solves"] / meta["serial_instructions_per_grain_step"]
    return floor * per, merge_per_doubling * per


def read_noise(path):
    """The machine's noise at a sync (bench_sync_noise): interval [s] -> [(k, wait [s])]."""
    table = {}
    with open(path) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            table.setdefault(float(r["interval_us"]) * 1e-6, []).append(
                (int(r["k"]), float(r["expected_wait_us"]) * 1e-6))
    return {i: sorted(rows) for i, rows in table.items()}


def noise_wait(table, interval, k):
    """The expected wait [s] at a sync of a rank that hears from k others, phases of `interval`
    [s] apart: the table interpolated log-log in the interval and in k; past its intervals the
    wait is taken in proportion to the interval, past its k the last k's."""
    if not table or k < 1 or interval <= 0.0:
        return 0.0

    def loglog(x, points):
        """y at x on the line through the (x, y) points (x ascending) in log-log, linear in y
        where a y is not positive; below the first x, y in proportion to x; past the last, y
        there."""
        (x0, y0), (xn, yn) = points[0], points[-1]
        if x <= x0:
            return y0 * x / x0
        if x >= xn:
            return yn
        (xa, ya), (xb, yb) = next((p, q) for p, q in zip(points, points[1:]) if x <= q[0])
        f = math.log(x / xa) / math.log(xb / xa)
        if ya <= 0.0 or yb <= 0.0:
            return ya + (yb - ya) * f
        return math.exp(math.log(ya) + f * (math.log(yb) - math.log(ya)))

    intervals = sorted(table)
    waits = [(i, loglog(k, table[i])) for i in intervals]
    if interval >= intervals[-1]:  # (in proportion to the interval past the table, too)
        return waits[-1][1] * interval / intervals[-1]
    return loglog(interval, waits)


def coloured_terms(N, P, prof, alpha, beta, stages, neighbours, shock_share, columns=False,
                   own_share=0.0, noise=None, island_wide=(0.0, 0.0)):
    """Per-step time of the coloured design's parts for a pile of N grains on P ranks [s].

    The shock pass settles the pile bottom-up: a rank whose box lies above another's waits for
    the levels below it, so its share of the step runs once per rank stacked along the height
    (P^(1/3) for boxes cut along every axis of a cube of grains; 1 when the boxes are columns).
    """
    n = N / P
    local = sum(prof[k] for k in ("forces", "broad", "narrow", "islands", "correct", "integrate", "ledger", "checks"))
    g = ghosts_per_rank(n, P)  # the detection's halo, as today
    g_blocks = ghosts_per_rank(n, P, halo_d=4.2)  # every body of the rank's blocks' rows
    red = math.log2(P) * alpha if P > 1 else 0.0
    layers_pour = 13.0
    levels = stages["levels"] / layers_pour * N ** (1 / 3)
    colour_rounds = 1 + stages["sweeps"] + stages["round_sweeps"]  # warm start, main, closing
    reduction_count = colour_rounds + 2 + 2  # stopping tests, booking, guard, ledger
    terms = {
        "compute": local * n + (prof["broad"] + prof["narrow"]) * g + prof["solve"] * n,
        "ghosts": (neighbours * alpha + g_blocks * GHOST_B / beta) if P > 1 else 0.0,
        "colour latency": colour_rounds * 8 * neighbours * alpha if P > 1 else 0.0,
        "colour bytes": colour_rounds * 8 * (g_blocks / 8 * VEL_B / beta) if P > 1 else 0.0,
        "reductions": reduction_count * red,
        "shock levels": levels * (neighbours * alpha + g_blocks / max(levels, 1.0) * VEL_B / beta)
        if P > 1 else 0.0,
        "shock wavefront": shock_share * prof["step_total_us_per_grain_step"] * n
        * ((1.0 if columns else P ** (1 / 3)) - 1.0),
        # As built: each rank labels the islands, writes, gathers and assembles the pile's parts,
        # takes the results, exchanges its grains and rebuilds its world every sub-step, a share
        # of the serial step's time per grain it holds (measured, read_own_work).
        "own work": own_share * prof["step_total_us_per_grain_step"] * n if P > 1 else 0.0,
        # As built: every member numbers the whole island (the other members' grains as slim
        # records, gathered from every member and merged) and solves it over all of its bodies
        # before the pass (read_island_wide). A member holding only the bodies its rows read
        # (docs/distributed.md, "Speed work left") has none of it.
        "island-wide": ((island_wide[0] + island_wide[1] * math.log2(P)) * prof["step_total_us_per_grain_step"] * N
                        + (P - 1) * alpha + N * SLIM_B / beta) if P > 1 and any(island_wide) else 0.0,
    }
    # The machine's noise at the syncs (bench_sync_noise): the same work on every rank still
    # waits at each sync for the slowest of the ranks it hears from; the step's compute spread
    # evenly over its syncs. A colour phase or a shock level hears from the neighbours (a delay
    # that travels on through later phases is not counted: a lower estimate), a reduction from
    # every rank.
    terms["noise"] = 0.0
    if noise and P > 1:
        neighbour_syncs = colour_rounds * 8 + levels
        interval = terms["compute"] / (neighbour_syncs + reduction_count)
        terms["noise"] = (neighbour_syncs * noise_wait(noise, interval, max(1, round(neighbours)))
                          + reduction_count * noise_wait(noise, interval, P - 1))
    return terms


def model(N, P, prof, alpha, beta, stages, contacts_per_grain, rounds, neighbours, giant,
          shock_share, noise=None):
    n = N / P
    local = sum(prof[k] for k in ("forces", "broad", "narrow", "islands", "correct", "integrate", "ledger", "checks"))
    t_solve = prof["solve"]
    g = ghosts_per_rank(n, P)
    red = math.log2(P) * alpha if P > 1 else 0.0  # one reduction
    # Work every design shares: phases per grain over owned + ghosts (ghosts see broad/narrow).
    t_local = local * n + (prof["broad"] + prof["narrow"]) * g
    t_ghost = (neighbours * alpha + g * GHOST_B / beta) if P > 1 else 0.0
    # The step's reductions besides the label rounds: the ledger's sum (with the stop flag) and
    # one element-wise max (deepest contact, largest island, halo speed, next sub-steps).
    t_ledger = 2 * red
    contacts = contacts_per_grain * N
    out = {}
    # paper: gather all contact lists to rank 0, its graph, distribute, solve on one host,
    # all-gather velocities.
    t_graph = prof["islands"] * N if P > 1 else 0.0  # rank 0 builds the whole graph
    # The solve: the largest island (a share `giant` of the contacts) on one host, the rest
    # spread evenly over the ranks.
    t_hosted_solve = t_solve * N * giant + t_solve * N * (1 - giant) / P
    gather0 = (P - 1) * alpha + contacts * ID_B / beta if P > 1 else 0.0
    to_host = (contacts * (P - 1) / P * CONTACT_B / beta) if P > 1 else 0.0
    allgather = (red + N * VEL_B * (P - 1) / P / beta) if P > 1 else 0.0
    out["paper"] = t_local + t_ghost + gather0 + t_graph + to_host + t_hosted_solve + allgather + t_ledger
    # hosted: labels along shared grains, gather the island to its host, solve there, return.
    t_label = rounds * (2 * neighbours * alpha + red) if P > 1 else 0.0
    # Only islands spanning ranks move: the giant one (to its host) and, of the rest, those cut
    # by a box face (the ghost shell's share of the grains).
    moved = giant + (1 - giant) * min(1.0, g / n if n > 0 else 0.0)
    gather = (min(P - 1, 64) * alpha + moved * (contacts * CONTACT_B + N * BODY_B) * (P - 1) / P / beta) if P > 1 else 0.0
    ret = (min(P - 1, 64) * alpha + moved * (N + P * g) * VEL_B / beta) if P > 1 else 0.0
    out["hosted"] = t_local + t_ghost + t_label + gather + t_hosted_solve + ret + t_ledger
    out["coloured"] = sum(coloured_terms(N, P, prof, alpha, beta, stages, neighbours,
                                         shock_share, noise=noise).values())
    return out


def check(path):
    """The hosted design on two ranks of one machine against the measured split runs."""
    groups = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["code"] != "etdem":
                continue
            groups.setdefault((r["date"], r["n"], r["duration_s"]), {})[(r["ranks"], r["threads"])] = r
    pairs = [(k, g[("1", "1")], g[("2", "1")]) for k, g in groups.items()
             if ("1", "1") in g and ("2", "1") in g]
    if not pairs:
        print("no pair of 1 x 1 and 2 x 1 runs in", path)
        return
    def parts(one, two):
        w, s = float(one["wall_s"]), float(one["solve_s_rank0"])
        return w, s, float(two["bytes"]), float(two["wall_s"])
    w, s, b, t2 = parts(pairs[0][1], pairs[0][2])
    gamma = (t2 - s - (w - s) / 2) / (b / 2)
    print(f"gamma = {gamma * 1e9:.2f} ns per byte moved (fitted on {pairs[0][0][1]} grains, "
          f"{pairs[0][0][0]})\n")
    print("| grains | duration [s] | measured | 1 x 1 [s] | solve [s] | bytes | 2 x 1 measured [s] "
          "| 2 x 1 model [s] | model / measured | speed-up measured | model |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (date, n, dur), one, two in pairs:
        w, s, b, t2 = parts(one, two)
        model_t2 = s + (w - s) / 2 + gamma * b / 2
        print(f"| {n} | {dur} | {date} | {w:.1f} | {s:.1f} | {b / 1e9:.2f} GB | {t2:.1f} | "
              f"{model_t2:.1f} | {model_t2 / t2:.2f} | {w / t2:.2f} | {w / model_t2:.2f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true",
                    help="the hosted design against the measured split runs (results/split.csv)")
    ap.add_argument("--alpha", type=float, default=2e-6, help="latency per message [s] (2e-6)")
    ap.add_argument("--beta", type=float, default=10e9, help="bandwidth per rank [B/s] (10e9)")
    ap.add_argument("--terms", action="store_true",
                    help="the coloured design's parts for the 10^7-grain pile, 10^5 grains per rank")
    ap.add_argument("--noise", default=os.path.join(HERE, "results", "sync_noise.csv"),
                    help="the noise at a sync (bench_sync_noise's table; 'none': no noise term)")
    ap.add_argument("--flow-giant", type=float, default=0.001,
                    help="largest island's share of the contacts in a dilute flow (stated: 0.001)")
    a = ap.parse_args()
    if a.check:
        check(os.path.join(HERE, "results", "split.csv"))
        return
    noise = None if a.noise == "none" else read_noise(a.noise)
    prof = read_profile(os.path.join(HERE, "results", "profile_10000.csv"))
    stages = read_stages(os.path.join(HERE, "results", "stages_10000.csv"))
    shock_share = read_shock_share(os.path.join(HERE, "results", "blocks_10000.csv"))
    part = read_partition(os.path.join(HERE, "results", "partition_10000.csv"))
    cpg = part[2]["contacts"] / part[2]["grains"]
    # Label rounds and neighbour counts: measured at 2-512 ranks (10,000 grains); beyond, the
    # 512-rank values.
    def measured(p, key, default):
        return part[p][key] if p in part else (part[max(part)][key] if p > 1 else default)

    print(f"network: latency {a.alpha * 1e6:.1f} us, bandwidth {a.beta / 1e9:.1f} GB/s; "
          f"serial step {prof['step_total_us_per_grain_step'] * 1e6:.2f} us per grain "
          f"(solve {prof['solve'] * 1e6:.2f}); {cpg:.2f} contacts per grain; per step "
          f"{stages['sweeps']:.1f} sweeps, {stages['round_sweeps']:.1f} closing-round sweeps, "
          f"{stages['levels'] / 13:.1f} shock levels per grain layer; noise at a sync "
          + (f"from {os.path.relpath(a.noise, HERE)}" if noise else "none") + "\n")
    if a.terms:
        print("coloured design, a pile of 10^5 grains per rank (weak scaling): per-step time of "
              "each part [ms]\n")
        own_share = read_own_work(os.path.join(HERE, "results", "own_work_100000.csv"))
        island_wide = read_island_wide(os.path.join(HERE, "results", "island_wide_work.csv"))
        print(f"the split step's own work as built: {own_share:.3f} of a serial step's time per "
              "grain held (measured on the 100,000-sphere pour, 2 ranks); a shared pile's "
              f"island-wide work: {island_wide[0]:.3f} + {island_wide[1]:.4f} log2 P of a serial "
              "step's time per grain of the pile, on every member (results/island_wide_work.csv), "
              "with the pile's slim records gathered from every member; the efficiency without "
              "the island-wide work is the design's with a member "
              "holding only the bodies its rows read, without the own work too the design's with "
              "the island kept across sub-steps\n")
        names = list(coloured_terms(1e5, 1, prof, a.alpha, a.beta, stages, 0, 0.0).keys())
        for columns in (False, True):
            print("boxes cut along every axis" if not columns else
                  "boxes cut along the horizontal axes only (columns)")
            print()
            print("| ranks | grains | " + " | ".join(names) +
                  " | total | efficiency | without the island-wide work | without it or own work "
                  "| without them or noise |")
            print("|---" * (len(names) + 7) + "|")
            for P, per_rank in ((1, 1e5), (8, 1e5), (64, 1e5), (64, 1e7 / 64), (512, 1e5)):
                t = coloured_terms(per_rank * P, P, prof, a.alpha, a.beta, stages,
                                   measured(P, "neighbours_mean", 0), shock_share, columns,
                                   own_share, noise, island_wide)
                total = sum(t.values())
                one = sum(coloured_terms(per_rank, 1, prof, a.alpha, a.beta, stages, 0,
                                         shock_share).values())
                design = total - t["island-wide"]
                print(f"| {P} | {per_rank * P:.3g} | " +
                      " | ".join(f"{t[k] * 1e3:.3g}" for k in names) +
                      f" | {total * 1e3:.4g} | {one / total:.2f} | {one / design:.2f} | "
                      f"{one / (design - t['own work']):.2f} | "
                      f"{one / (design - t['own work'] - t['noise']):.2f} |")
            print()
        return
    pile = part[2]["largest_island_contacts"] / part[2]["contacts"]
    cases = []
    for regime, giant in ((f"settled pile (largest island {pile:.0%} of the contacts, measured)", pile),
                          (f"dilute flow (largest island {a.flow_giant:.1%}, stated)", a.flow_giant)):
        cases.append((f"{regime}, strong scaling, 1,000,000 grains", lambda p: 1e6, giant, "speed-up"))
        cases.append((f"{regime}, strong scaling, 10,000,000 grains", lambda p: 1e7, giant, "speed-up"))
        cases.append((f"{regime}, weak scaling, 100,000 grains per rank", lambda p: 1e5 * p, giant, "efficiency"))
    for title, sizes, giant, what in cases:
        print(f"{title}: time per step [s] ({what} against 1 rank)\n")
        print("| ranks | paper | hosted | coloured |")
        print("|---|---|---|---|")
        base = None
        for P in (1, 8, 64, 512):
            N = sizes(P)
            r = model(N, P, prof, a.alpha, a.beta, stages, cpg,
                      measured(P, "label_rounds", 1), measured(P, "neighbours_mean", 0), giant,
                      shock_share, noise)
            if base is None:
                base = r
            cells = [f"{r[d]:.3g} ({base[d] / r[d]:.2f})" for d in ("paper", "hosted", "coloured")]
            print(f"| {P} | " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main()
