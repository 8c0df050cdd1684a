"""examples/python/parameter_study.py runs (quickly) and its rebound heights follow e^2 h."""
import json
import os
import subprocess
import sys


def test_parameter_study_runs_and_plots(source, tmp_path):
    script = os.path.join(source, "examples", "python", "parameter_study.py")
    png = tmp_path / "study.png"
    r = subprocess.run([sys.executable, script, "--quick", "--output", str(png)],
                       capture_output=True, text=True, env=os.environ)
    assert r.returncode == 0, r.stdout + r.stderr
    assert png.stat().st_size > 1000
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = json.loads((tmp_path / "study.json").read_text())
    assert len(rows) >= 3
    for row in rows:
        # Rebound apex of a ball dropped from h onto a plane: e^2 h (Newton = Stronge for a
        # frictionless central impact); the apex sampled at the steps (1/600 s) and the impact
        # within a step leave 1e-5 to 3e-5 m of the 0.5 m drop.
        assert abs(row["rebound"] - row["restitution"] ** 2 * row["drop"]) <= 2e-4 * row["drop"], row
        assert abs(row["residual"]) <= 1e-14, row
