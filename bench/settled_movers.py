#!/usr/bin/python3
"""What keeps a settled bed awake: the fastest grain of each step of the pour scenario after it
has settled, followed while it is faster than a threshold (docs/notes/sleep.md, "What keeps the
10,000-sphere pour's bed awake"). Runs bench/scenarios/pour_10000.toml through the Python
module, one thread, and prints one line per episode: the grain, when it moved, its top speed and
mean acceleration, its height and the number of grains above it, the distance to the nearest side
wall, and its contacts (within the contact margin: touching or speculative).

  PYTHONPATH=build/release/python bench/settled_movers.py [FROM_S=1.0] [TO_S=3.0] [FAST_M_S=0.02]
      [KEY=VALUE ...]  (scenario overrides, as `etdem run --set`)
"""
import sys

import numpy as np

import etdem


def main():
    overrides = [a for a in sys.argv[1:] if "=" in a]
    args = [a for a in sys.argv[1:] if "=" not in a]
    start = float(args[0]) if len(args) > 0 else 1.0
    end = float(args[1]) if len(args) > 1 else 3.0
    fast = float(args[2]) if len(args) > 2 else 0.02
    if not (0.0 <= start < end) or not fast > 0.0:
        sys.exit("settled_movers: need 0 <= FROM_S < TO_S and FAST_M_S > 0")
    world = etdem.load("bench/scenarios/pour_10000.toml",
                       set=[f"simulation.duration={end}"] + overrides, threads=1)
    n = 10000
    side = 0.264  # the scenario's box, x and y
    dt = world.dt
    episode = None  # [grain, t0, t1, v0, vmax, z, above, wall, contacts]
    episodes = 0
    for step in range(int(round(end / dt))):
        world.step()
        t = (step + 1) * dt
        if t < start:
            continue
        speed = np.linalg.norm(world.velocities[:n], axis=1)
        i = int(np.argmax(speed))
        if episode is not None and (episode[0] != i or speed[i] <= fast):
            g, t0, t1, v0, vmax, z, above, wall, contacts = episode
            accel = (vmax - v0) / (t1 - t0) if t1 > t0 else float("nan")
            print(f"grain {g}: {t0:.3f}-{t1:.3f} s, top speed {vmax:.3f} m/s, mean acceleration "
                  f"{accel:.2f} m/s^2, z {z:.4f} m ({above} grains above), side wall "
                  f"{1000 * wall:.1f} mm, {contacts} contacts", flush=True)
            episodes += 1
            episode = None
        if speed[i] <= fast:
            continue
        if episode is None:
            p = world.positions[i]
            bodies = world.contacts()["bodies"]
            contacts = int(((bodies[:, 0] == i) | (bodies[:, 1] == i)).sum())
            wall = min(p[0], side - p[0], p[1], side - p[1]) - 0.005
            episode = [i, t, t, speed[i], speed[i], p[2],
                       int((world.positions[:n, 2] > p[2]).sum()), wall, contacts]
        else:
            episode[2] = t
            episode[4] = max(episode[4], speed[i])
    print(f"{episodes} episodes faster than {fast} m/s over {start}-{end} s; at the end mean "
          f"speed {np.linalg.norm(world.velocities[:n], axis=1).mean():.2e} m/s")


if __name__ == "__main__":
    main()
