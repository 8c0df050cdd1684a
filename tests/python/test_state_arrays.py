"""State arrays: positions, velocities and angular velocities are views of the world's own
memory (a write is seen by the next step), assignments are checked, orientations are a copy."""
import numpy as np
import pytest

import etdem


def ball_world(gravity=(0.0, 0.0, 0.0), velocity=(0.0, 0.0, 0.0), with_floor=False):
    s = etdem.Scenario()
    s.simulation(dt=0.001, duration=1.0, gravity=list(gravity))
    s.material(name="steel", density=7800.0, restitution=0.5, friction=0.3)
    s.shape(name="ball", type="sphere", radius=0.01)
    s.body(name="ball", shape="ball", material="steel", position=[0.0, 0.0, 0.5],
           velocity=list(velocity))
    if with_floor:
        s.wall(name="floor", type="plane", point=[0, 0, 0], normal=[0, 0, 1], material="steel")
    return s.build()


def test_arrays_are_views_of_the_world():
    w = ball_world()
    p = w.positions
    assert p.shape == (1, 3) and p.dtype == np.float64
    assert np.shares_memory(p, w.positions)  # the same memory at every access
    # A write through the view is what the next step reads.
    w.velocities[0] = (1.0, -2.0, 0.5)
    w.step()
    assert np.array_equal(w.positions[0], np.array([0.0, 0.0, 0.5]) + 0.001 * np.array([1.0, -2.0, 0.5]))
    # And a view taken before the step sees the step's result.
    assert np.array_equal(p[0], w.positions[0])
    w.positions[0, 2] = 2.0
    w.step()
    assert p[0, 2] == 2.0 + 0.001 * 0.5


def test_view_keeps_the_world_alive():
    p = ball_world().positions
    import gc
    gc.collect()
    assert p[0, 2] == 0.5


def test_assignment_checks_shape_and_values():
    w = ball_world(with_floor=True)
    assert len(w) == 2
    with pytest.raises(ValueError, match=r"positions: expected shape \(2, 3\) \(value \(3,\)\)"):
        w.positions = [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match=r"velocities\[0\]: must be finite \(value \[nan, 0, 0\]\)"):
        w.velocities = [[np.nan, 0, 0], [0, 0, 0]]
    with pytest.raises(ValueError, match=r"positions\[1\]: body 1 \('floor'\) is fixed: walls do not move"):
        w.positions = [[0, 0, 0.5], [0, 0, 1]]
    with pytest.raises(ValueError, match="expected an array of numbers"):
        w.velocities = [["a", "b", "c"], [0, 0, 0]]
    v = np.zeros((2, 3))
    v[0] = (0.1, 0.2, 0.3)
    w.velocities = v
    v[0] = 7.0  # the world copied it
    assert tuple(w.velocities[0]) == (0.1, 0.2, 0.3)


def test_writes_through_views_are_checked_before_the_next_step():
    w = ball_world(with_floor=True)
    w.velocities[1] = (1.0, 0.0, 0.0)  # a wall set moving through the view
    with pytest.raises(ValueError, match=r"<python>: velocities\[1\]: body 1 \('floor'\) is fixed: it stays at rest"):
        w.step()
    w.velocities[1] = 0.0
    w.positions[0, 0] = np.inf
    with pytest.raises(ValueError, match=r"positions\[0\]: must be finite \(value \[inf, 0, 0.5\]\)"):
        w.step()
    assert w.step_count == 0


def test_orientations_are_a_copy_in_w_x_y_z():
    w = ball_world()
    q = w.orientations
    assert q.shape == (1, 4) and tuple(q[0]) == (1.0, 0.0, 0.0, 0.0)
    q[0] = (0.0, 1.0, 0.0, 0.0)
    assert tuple(w.orientations[0]) == (1.0, 0.0, 0.0, 0.0)  # a copy
    half = np.sqrt(0.5)
    w.orientations = [[half, 0.0, 0.0, half * 1.0004]]  # within 1e-3 of unit: normalised
    assert abs(np.linalg.norm(w.orientations[0]) - 1.0) < 1e-15
    with pytest.raises(ValueError, match=r"orientations\[0\]: must be a unit quaternion"):
        w.orientations = [[2.0, 0.0, 0.0, 0.0]]


def test_energy_put_in_from_python_is_booked_as_external():
    w = ball_world()
    assert w.energy["external"] == 0.0
    m = w.masses[0]
    w.velocities[0] = (3.0, 0.0, 4.0)  # 1/2 m 25
    e = w.energy
    assert e["external"] == pytest.approx(12.5 * m, rel=1e-14)
    assert abs(e["residual"]) <= 1e-15 * e["external"]
    w.run(until=0.5)
    e = w.energy
    assert abs(e["residual"]) <= 1e-13 * e["external"]
    assert e["kinetic"] == pytest.approx(12.5 * m, rel=1e-14)


def test_bodies_masses_and_names():
    w = ball_world(with_floor=True)
    assert w.names == ["ball", "floor"]
    assert w.shape_names[0] == "ball"
    assert list(w.dynamic) == [True, False]
    r = 0.01
    assert w.masses[0] == pytest.approx(7800.0 * 4.0 / 3.0 * np.pi * r ** 3, rel=1e-14)
    assert w.masses[1] == 0.0
