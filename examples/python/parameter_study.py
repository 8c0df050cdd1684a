#!/usr/bin/python3
"""A small parameter study with the etdem Python module: a steel ball dropped on a floor, for
several coefficients of restitution e. After the first impact the ball rises to e^2 h (the
impact is central and frictionless, where Newton's and Stronge's restitution agree), which the
plot compares with the simulated apex. Each run stops itself from a callback once the ball
falls again after its first bounce.

  PYTHONPATH=build/release/python /usr/bin/python3 examples/python/parameter_study.py
      [--quick] [--output restitution_study.png]

Writes the plot and, next to it, the numbers as JSON (same name, .json).
"""
import argparse
import json
import os

import etdem


def rebound_height(restitution, drop=0.5, radius=0.01, dt=1.0 / 600):
    s = etdem.Scenario(name=f"bounce e={restitution}")
    s.simulation(dt=dt, duration=3.0, gravity=[0.0, 0.0, -9.81])
    s.material(name="ball", density=7800.0, restitution=restitution, friction=0.0)
    s.material(name="floor", density=7800.0, restitution=1.0, friction=0.0)  # pair: min(e)
    s.shape(name="ball", type="sphere", radius=radius)
    s.body(shape="ball", material="ball", position=[0.0, 0.0, radius + drop])
    s.wall(name="floor", type="plane", point=[0, 0, 0], normal=[0, 0, 1], material="floor")
    w = s.build()
    state = {"bounced": False, "apex": 0.0}

    def follow(world):
        vz = world.velocities[0, 2]
        if vz > 0.0:
            state["bounced"] = True
        if state["bounced"]:
            state["apex"] = max(state["apex"], world.positions[0, 2] - radius)
            return vz > 0.0  # falling again: the apex is behind, stop the run
        return True

    w.run(callback=follow)
    return state["apex"], w.energy


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="three values of e (for the tests)")
    ap.add_argument("--output", default="restitution_study.png")
    a = ap.parse_args()
    values = [0.3, 0.6, 0.9] if a.quick else [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    drop = 0.5
    rows = []
    print(f"{'e':>5} {'rebound [m]':>12} {'e^2 h [m]':>10} {'error':>8} {'energy residual [J]':>20}")
    for e in values:
        apex, energy = rebound_height(e, drop)
        rows.append({"restitution": e, "drop": drop, "rebound": apex,
                     "restitution_dissipated": energy["restitution"], "residual": energy["residual"]})
        print(f"{e:5.2f} {apex:12.6f} {e * e * drop:10.6f} {apex / (e * e * drop) - 1:+8.2%} "
              f"{energy['residual']:20.3g}")
    with open(os.path.splitext(a.output)[0] + ".json", "w") as fh:
        json.dump(rows, fh, indent=1)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    fine = [k / 100 for k in range(101)]
    ax.plot(fine, [e * e * drop for e in fine], "-", color="grey", label="e$^2$ h (closed form)")
    ax.plot([r["restitution"] for r in rows], [r["rebound"] for r in rows], "o",
            label="etdem (ETM), dt = 1/600 s")
    ax.set_xlabel("coefficient of restitution e")
    ax.set_ylabel("rebound height [m]")
    ax.set_title(f"steel ball dropped from h = {drop} m")
    ax.legend()
    fig.tight_layout()
    fig.savefig(a.output, dpi=110)
    print(f"plot written to {a.output}")


if __name__ == "__main__":
    main()
