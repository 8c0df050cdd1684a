"""contacts(), write_frame(), summary() and the world's bookkeeping seen from Python."""
import os

import numpy as np
import pytest

import etdem


def resting_ball_scenario(s):
    s.simulation(dt=1.0 / 600, duration=1.0, gravity=[0.0, 0.0, -9.81])
    s.material(name="steel", density=7800.0, restitution=0.5, friction=0.3)
    s.shape(name="ball", type="sphere", radius=0.01)
    s.body(name="ball", shape="ball", material="steel", position=[0.0, 0.0, 0.01])
    s.wall(name="floor", type="plane", point=[0, 0, 0], normal=[0, 0, 1], material="steel")
    return s


def resting_ball():
    return resting_ball_scenario(etdem.Scenario(name="resting")).build()


def test_contacts_of_a_ball_resting_on_the_floor():
    w = resting_ball()
    assert w.contacts()["points"].shape == (0, 3)  # nothing before the first step
    w.run(until=0.2)
    c = w.contacts()
    assert c["points"].shape == (1, 3)
    assert list(c["bodies"][0]) == [0, 1]  # the ball (A) on the floor (B)
    assert np.allclose(c["normals"][0], [0.0, 0.0, 1.0], atol=1e-12)
    assert abs(c["gaps"][0]) < 1e-6
    assert c["points"][0] == pytest.approx([0.0, 0.0, 0.0], abs=1e-6)
    # At rest, the resting pass's impulse carries the weight over one step: m g dt.
    m = w.masses[0]
    assert c["normal_impulses"][0] == pytest.approx(m * 9.81 * w.dt, rel=1e-6)
    assert c["impulses"][0] == pytest.approx([0.0, 0.0, m * 9.81 * w.dt], rel=1e-6, abs=1e-15)


def read_appended_raw(path):
    """The arrays of a .vtu written with appended raw data, read by their declared offsets."""
    import xml.etree.ElementTree as ET

    raw = path.read_bytes()
    start = raw.index(b'<AppendedData encoding="raw">')
    data = raw[raw.index(b"_", start) + 1 :]
    root = ET.fromstring(raw[:start] + b"</VTKFile>")
    assert root.get("header_type") == "UInt64" and root.get("byte_order") == "LittleEndian"
    types = {"Float64": "<f8", "Int64": "<i8", "UInt8": "u1"}
    arrays = {}
    for a in root.iter("DataArray"):
        offset = int(a.get("offset"))
        size = int(np.frombuffer(data[offset : offset + 8], "<u8")[0])
        values = np.frombuffer(data[offset + 8 : offset + 8 + size], types[a.get("type")])
        arrays[a.get("Name")] = values.reshape(-1, int(a.get("NumberOfComponents", "1")))
    return arrays


def test_write_frame_writes_vtk_that_meshio_reads(tmp_path):
    meshio = pytest.importorskip("meshio")
    w = resting_ball()
    w.write_frame(str(tmp_path))
    w.step(10)
    w.write_frame(str(tmp_path))
    frames = sorted(os.listdir(tmp_path / "frames"))
    # One multiblock per frame; the static walls are written once and referenced by every frame.
    assert frames == [
        "frame_000000.vtm",
        "frame_000010.vtm",
        "spheres_000000.vtu",
        "spheres_000010.vtu",
        "walls_000000.vtu",
    ]
    assert (tmp_path / "particles.pvd").read_text().count("<DataSet") == 2
    vtm = (tmp_path / "frames" / "frame_000010.vtm").read_text()
    assert 'name="spheres" file="spheres_000010.vtu"' in vtm
    assert 'name="walls" file="walls_000000.vtu"' in vtm
    # Binary frames hold the state's bits.
    arrays = read_appended_raw(tmp_path / "frames" / "spheres_000010.vtu")
    assert list(arrays["Points"][0]) == list(w.positions[0])
    assert list(arrays["velocity"][0]) == list(w.velocities[0])
    assert arrays["radius"][0, 0] == 0.01 and list(arrays["types"][:, 0]) == [1]
    assert w.summary()["frames"] == 2
    with pytest.raises(ValueError, match="cannot create the output directory"):
        w.write_frame("/proc/etdem-not-here")
    # meshio reads the same frame written as text (its 5.0 raw-appended reader can confuse two
    # blocks' offsets in small files: docs/scenario.md, "Encoding").
    s = etdem.Scenario(name="resting")
    w = resting_ball_scenario(s).output(vtk_format="ascii").build()
    w.step(10)
    w.write_frame(str(tmp_path / "ascii"))
    mesh = meshio.read(str(tmp_path / "ascii" / "frames" / "spheres_000010.vtu"))
    assert mesh.points[0] == pytest.approx(w.positions[0], rel=1e-9)


def test_summary_is_summary_json():
    w = resting_ball()
    w.run(until=0.5)
    s = w.summary()
    assert s["status"] == "in progress"  # the scenario's duration is 1 s
    assert s["steps"] == 300 and s["bodies"]["dynamic"] == 1
    assert s["energy"]["residual"] == w.energy["residual"]
    assert s["max_penetration"]["m"] < 1e-6
    assert "<etdem.World 'resting': 2 bodies (1 dynamic), step 300" in repr(w)
