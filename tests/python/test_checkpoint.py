"""World.save_checkpoint and etdem.load(..., resume=path): a world resumed from a checkpoint
ends in the state of one that never stopped, bit for bit; a CLI checkpoint resumes in Python;
bad checkpoints are ValueErrors with the CLI's one-line messages."""
import os

import pytest

import etdem

PILE = {"fill[0].count": 60, "simulation.duration": 0.3, "event[0].time": 0.15,
        "output.every": 0}


def spheres(source):
    return os.path.join(source, "examples", "repose", "spheres.toml")


def state(w, path):
    w.write_state(str(path))
    return path.read_bytes()


def test_resume_from_a_python_checkpoint_is_bit_for_bit(source, tmp_path):
    straight = etdem.load(spheres(source), set=PILE)
    straight.run()
    expected = state(straight, tmp_path / "straight.csv")

    first = etdem.load(spheres(source), set=PILE)
    first.step(97)
    first.save_checkpoint(str(tmp_path / "w.bin"))
    first.run()  # the writer goes on: the checkpoint must not depend on it
    assert state(first, tmp_path / "first.csv") == expected

    resumed = etdem.load(spheres(source), set=PILE, resume=str(tmp_path / "w.bin"))
    assert resumed.step_count == 97
    resumed.run()
    assert resumed.step_count == straight.step_count
    assert state(resumed, tmp_path / "resumed.csv") == expected
    assert resumed.energy == straight.energy


def test_resume_a_cli_checkpoint(cli, source, tmp_path):
    sets = [f"--set={k}={v}" for k, v in PILE.items()] + ["--set=output.checkpoint_every=50"]
    r = cli("run", spheres(source), "-o", tmp_path / "run", *sets)
    assert r.returncode == 0, r.stderr
    w = etdem.load(spheres(source), set=PILE,
                   resume=str(tmp_path / "run" / "checkpoints" / "checkpoint_000150.bin"))
    assert w.step_count == 150
    w.run()
    assert state(w, tmp_path / "py.csv") == (tmp_path / "run" / "state.csv").read_bytes()


def test_bad_checkpoints_are_value_errors(cli, source, tmp_path):
    w = etdem.load(spheres(source), set=PILE)
    w.step(10)
    path = tmp_path / "w.bin"
    w.save_checkpoint(str(path))
    # Another scenario (other set values).
    with pytest.raises(ValueError, match="written for another scenario"):
        etdem.load(spheres(source), set={**PILE, "material[0].friction": 0.1}, resume=str(path))
    # Truncated, missing, not a checkpoint.
    (tmp_path / "cut.bin").write_bytes(path.read_bytes()[:200])
    with pytest.raises(ValueError, match="truncated or corrupted|checksum mismatch"):
        etdem.load(spheres(source), set=PILE, resume=str(tmp_path / "cut.bin"))
    with pytest.raises(ValueError, match="no such checkpoint"):
        etdem.load(spheres(source), set=PILE, resume=str(tmp_path / "none.bin"))
    with pytest.raises(ValueError, match="expected a path"):
        etdem.load(spheres(source), set=PILE, resume=3)
    # An unwritable place.
    with pytest.raises(ValueError, match="cannot be written"):
        w.save_checkpoint(str(tmp_path / "no" / "such" / "dir" / "w.bin"))
    # The CLI refuses a world-only checkpoint: it holds no run outputs.
    r = cli("run", spheres(source), *[f"--set={k}={v}" for k, v in PILE.items()],
            "-o", tmp_path / "run", "--resume", path)
    assert r.returncode == 2
    assert "holds a world only" in r.stderr and len(r.stderr.strip().splitlines()) == 1
