"""etdem.load and etdem.Scenario go through the CLI's loader and step the same world: the state
after a run is the CLI's state.csv bit for bit."""
import os
import tomllib

import etdem


def cli_state(cli, scenario, out):
    r = cli("run", scenario, "-o", out, "--set", "output.every=0")
    assert r.returncode == 0, r.stderr
    with open(os.path.join(out, "state.csv"), "rb") as fh:
        return fh.read()


def test_load_and_run_matches_cli_bit_for_bit(cli, source, tmp_path):
    scenario = os.path.join(source, "examples", "drop_box.toml")
    expected = cli_state(cli, scenario, tmp_path / "cli")
    w = etdem.load(scenario)
    assert w.run() == 1200  # 2 s of 1/600 s, as the CLI counts them
    w.write_state(str(tmp_path / "py.csv"))
    assert (tmp_path / "py.csv").read_bytes() == expected
    # The ledger too: the energies of summary.json, exactly.
    import json
    summary = json.loads((tmp_path / "cli" / "summary.json").read_text())
    for key in ("kinetic_translational", "potential", "restitution", "friction", "residual"):
        assert w.energy[key] == summary["energy"][key], key
    assert w.summary()["status"] == "completed"


def test_scenario_built_from_the_files_tables_matches_cli(cli, source, tmp_path):
    scenario = os.path.join(source, "examples", "drop_box.toml")
    expected = cli_state(cli, scenario, tmp_path / "cli")
    with open(scenario, "rb") as fh:
        tables = tomllib.load(fh)
    w = etdem.Scenario(tables, name="drop_box (python)").build()
    w.run()
    w.write_state(str(tmp_path / "py.csv"))
    assert (tmp_path / "py.csv").read_bytes() == expected


def test_built_scenario_saved_as_toml_runs_the_same_in_the_cli(cli, tmp_path):
    s = etdem.Scenario(name="pile")
    s.simulation(dt=1.0 / 600, duration=0.1, gravity=[0.0, 0.0, -9.81], solver="etm")
    s.set("simulation.etm", {"lambda": 20})
    s.material(name="glass", density=2500.0, restitution=0.3, friction=0.5)
    s.shape(name="grain", type="sphere", radius=0.005)
    s.fill(shape="grain", material="glass", count=30,
           region={"min": [0.0, 0.0, 0.0], "max": [0.05, 0.05, 0.08]}, seed=3)
    s.wall(name="box", type="box", min=[0.0, 0.0, 0.0], max=[0.05, 0.05, 0.2], material="glass")
    path = tmp_path / "pile.toml"
    path.write_text(s.toml())
    expected = cli_state(cli, path, tmp_path / "cli")
    w = s.build(threads=1)
    w.run()
    w.write_state(str(tmp_path / "py.csv"))
    assert (tmp_path / "py.csv").read_bytes() == expected


def test_set_overrides_like_the_cli(cli, source, tmp_path):
    scenario = os.path.join(source, "examples", "drop_box.toml")
    r = cli("run", scenario, "-o", tmp_path / "cli", "--set", "output.every=0",
            "--set", "simulation.duration=0.5", "--set", "material[0].friction=0.2")
    assert r.returncode == 0, r.stderr
    w = etdem.load(scenario, set={"simulation.duration": 0.5, "material[0].friction": 0.2})
    w.run()
    w.write_state(str(tmp_path / "py.csv"))
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli" / "state.csv").read_bytes()
    w2 = etdem.load(scenario, set=["simulation.duration=0.5", "material[0].friction=0.2"])
    w2.run()
    assert (w2.positions == w.positions).all()
