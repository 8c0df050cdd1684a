"""Bad input raises ValueError with the CLI's one-line message (file, key, value); failures while
running raise RuntimeError."""
import os

import numpy as np
import pytest

import etdem


def cli_message(cli, *args):
    r = cli(*args)
    assert r.returncode == 2, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


def test_override_errors_are_the_clis(cli, source):
    scenario = os.path.join(source, "examples", "drop_box.toml")
    for key, value in (("simulation.dt", "-0.001"), ("material[0].friction", "-1"),
                       ("simulation.solver", '"nosuch"'), ("material[3].density", "1.0")):
        expected = cli_message(cli, "check", scenario, "--set", f"{key}={value}")
        with pytest.raises(ValueError) as e:
            etdem.load(scenario, set=[f"{key}={value}"])
        assert str(e.value) == expected
        assert key.split(".")[-1].split("[")[0] in str(e.value)
    # A dict gives the same overrides as the CLI's strings.
    expected = cli_message(cli, "check", scenario, "--set", "simulation.dt=-0.001")
    assert expected == f"{scenario}: --set simulation.dt: must be > 0 (value -0.001)"
    with pytest.raises(ValueError) as e:
        etdem.load(scenario, set={"simulation.dt": -0.001})
    assert str(e.value) == expected
    expected = cli_message(cli, "check", scenario, "--set", 'simulation.solver="nosuch"')
    with pytest.raises(ValueError) as e:
        etdem.load(scenario, set={"simulation.solver": "nosuch"})
    assert str(e.value) == expected


def test_file_errors_are_the_clis(cli, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[simulation]\ndt = 0.001\nduration = 1.0\nsolver = "etm"\n'
                   '[[material]]\nname = "m"\ndensity = 1000.0\nrestitution = 1.5\nfriction = 0.1\n')
    expected = cli_message(cli, "check", bad)
    with pytest.raises(ValueError) as e:
        etdem.load(str(bad))
    assert str(e.value) == expected
    assert "material[0].restitution" in expected and "1.5" in expected
    with pytest.raises(ValueError, match="cannot"):
        etdem.load(str(tmp_path / "missing.toml"))


def test_builder_errors_name_key_and_value():
    s = etdem.Scenario()
    s.simulation(dt=0.001, duration=1.0)
    s.material(name="m", density=1000.0, restitution=1.5, friction=0.1)
    with pytest.raises(ValueError, match=r"^<python>: material\[0\]\.restitution: .* \(value 1\.5\)$"):
        s.build()
    s = etdem.Scenario(name="study")
    s.simulation(dt=0.001, duration=1.0)
    s.material(name="m", density=1000.0, restitution=0.5, friction=0.1)
    s.shape(name="ball", type="sphere", radius=-0.01)
    s.body(shape="ball", material="m", position=[0, 0, 1])
    with pytest.raises(ValueError, match=r"^study: shape\[0\]\.radius: .*\(value -0\.01\)$"):
        s.check()
    s = etdem.Scenario(name="study")
    s.simulation(dt=0.001, duration=1.0, gravty=[0, 0, -9.81])
    with pytest.raises(ValueError, match=r"^study: simulation\.gravty: unknown key \(value \[0, 0, -9\.81\]\)$"):
        s.build()
    # Values Python has and TOML has not.
    with pytest.raises(ValueError, match=r"study: shape\[0\]\.radius: a Python object is not a scenario value"):
        etdem.Scenario(name="study").shape(name="b", type="sphere", radius=object())
    with pytest.raises(ValueError, match=r"body\[0\]\.position\[1\]: None is not a value"):
        etdem.Scenario().body(position=[0, None, 0])
    # numpy values are numbers.
    s = etdem.Scenario()
    s.simulation(dt=np.float32(0.001), duration=np.int64(1))
    s.body(position=np.array([0.0, 0.0, 1.0]))
    assert "position = [0.0, 0.0, 1.0]" in s.toml()


def test_overlapping_bodies_are_refused_before_the_run():
    s = etdem.Scenario()
    s.simulation(dt=0.001, duration=1.0)
    s.material(name="m", density=1000.0, restitution=0.5, friction=0.1)
    s.shape(name="ball", type="sphere", radius=0.1)
    s.body(shape="ball", material="m", position=[0, 0, 1])
    s.body(shape="ball", material="m", position=[0, 0, 1.1])
    with pytest.raises(ValueError, match="overlap"):
        s.build()


def test_threads_and_set_are_checked(source):
    scenario = os.path.join(source, "examples", "drop_box.toml")
    with pytest.raises(ValueError, match=r"threads: must be in \[0, 4096\] \(value -2\)"):
        etdem.load(scenario, threads=-2)
    with pytest.raises(ValueError, match="set: expected a dict"):
        etdem.load(scenario, set=3)


def test_a_non_finite_run_is_a_runtime_error():
    s = etdem.Scenario()
    s.simulation(dt=0.001, duration=1.0, gravity=[0, 0, -9.81])
    s.material(name="m", density=1000.0, restitution=0.5, friction=0.1)
    s.shape(name="ball", type="sphere", radius=0.1)
    s.body(shape="ball", material="m", position=[0, 0, 1])
    w = s.build()
    w.velocities[0] = (1e300, 0.0, 0.0)  # finite, but its kinetic energy is not
    with pytest.raises(RuntimeError, match="non-finite energy of body 0"):
        w.step()


def test_outputs_to_unwritable_places_are_value_errors(tmp_path):
    s = etdem.Scenario()
    s.simulation(dt=0.001, duration=1.0)
    s.material(name="m", density=1000.0, restitution=0.5, friction=0.1)
    s.shape(name="ball", type="sphere", radius=0.1)
    s.body(shape="ball", material="m", position=[0, 0, 1])
    w = s.build()
    with pytest.raises(ValueError, match=r"/proc/x/state.csv: cannot open for writing"):
        w.write_state("/proc/x/state.csv")
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="cannot create the output directory"):
        w.write_frame(str(tmp_path / "file"))
    with pytest.raises(ValueError, match=r"<python>: scenario: expected a dict \(value 3\)"):
        etdem.Scenario(3)
