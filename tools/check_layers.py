#!/usr/bin/python3
"""Checks that the includes of src/etdem point one way (docs/design.md "Layout and dependency
direction") and counts the arrows that point back.

Between folders: a file of a layer includes headers of its own layer and of the layers below it
only. Inside io/: the scenario's data (scenario_spec.hpp) and the readers and writers sit below
the loader (scenario.hpp, scenario_tree.hpp: the functions that read a scenario and build its
world), which sits below the run (run.hpp); a reader or writer that includes the loader or the
run points back. Usage: tools/check_layers.py [--list]; prints the count of each kind and exits 1
when any arrow points back (--list names each).
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "etdem"

BELOW = {
    "core": set(),
    "shapes": {"core"},
    "collision": {"core", "shapes"},
    "solvers": {"core", "shapes", "collision"},
    "world": {"core", "shapes", "collision", "solvers"},
    "analysis": {"core"},
    # The transport and the algorithms written against it use core only; the decomposed world
    # sits on world.
    "distributed": {"core", "shapes", "collision", "solvers", "world"},
    "io": {"core", "shapes", "collision", "solvers", "world", "distributed"},
    "validation": {"core", "shapes", "collision", "solvers", "world", "distributed", "io"},
}

# io/'s own order: every other file of io/ is level 0.
IO_LEVEL = {"scenario": 1, "scenario_tree": 1, "run": 2}
IO_NAMES = {0: "the data, readers and writers", 1: "the loader", 2: "the run"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"etdem/([a-z_]+)/(?:[a-z_]+/)*([a-z_0-9]+)\.hpp"', re.M)


def main():
    listing = "--list" in sys.argv[1:]
    across, inside = [], []
    for path in sorted(SRC.rglob("*.[ch]pp")):
        layer = path.relative_to(SRC).parts[0]
        rel = path.relative_to(ROOT)
        for m in INCLUDE.finditer(path.read_text(encoding="utf-8")):
            target, stem = m.group(1), m.group(2)
            if target != layer and target not in BELOW.get(layer, set()):
                across.append(f"{rel}: includes {target}/{stem}.hpp ({target} is not below {layer})")
            if layer == "io" and target == "io":
                own, other = IO_LEVEL.get(path.stem, 0), IO_LEVEL.get(stem, 0)
                if other > own:
                    inside.append(f"{rel}: includes io/{stem}.hpp ({IO_NAMES[other]} is above "
                                  f"{IO_NAMES[own]})")
    print(f"includes pointing back between layers: {len(across)}")
    print(f"includes pointing back inside io/: {len(inside)}")
    if listing or across or inside:
        for line in across + inside:
            print("  " + line)
    return 1 if across or inside else 0


if __name__ == "__main__":
    sys.exit(main())
