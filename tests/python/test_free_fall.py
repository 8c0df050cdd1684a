"""A world built in Python: free fall against the closed form, run(until, callback, every)."""
import pytest

import etdem


def falling_ball(dt=1e-3):
    s = etdem.Scenario(name="free fall")
    s.simulation(dt=dt, duration=1.0, gravity=[0.0, 0.0, -9.81])
    s.material(name="rock", density=2650.0, restitution=0.6, friction=0.5)
    s.shape(name="grain", type="sphere", radius=0.02)
    s.body(shape="grain", material="rock", position=[0.1, -0.2, 10.0], velocity=[0.5, 0.0, 2.0])
    return s.build()


def test_free_fall_matches_the_closed_form():
    w = falling_ball()
    assert w.run(until=0.75) == 750
    t = w.time
    assert t == pytest.approx(0.75, rel=1e-12)
    x, y, z = w.positions[0]
    # Velocity Verlet is exact for a constant force (docs/design.md "The position update"):
    # round-off only.
    assert x == pytest.approx(0.1 + 0.5 * t, rel=1e-13)
    assert y == -0.2
    assert z == pytest.approx(10.0 + 2.0 * t - 0.5 * 9.81 * t * t, rel=1e-13)
    assert w.velocities[0, 2] == pytest.approx(2.0 - 9.81 * t, rel=1e-12)
    e = w.energy
    assert abs(e["residual"]) <= 1e-12 * abs(e["initial"])
    # The rest of the scenario's duration.
    assert w.run() == 250
    assert w.time == pytest.approx(1.0, rel=1e-12)
    assert w.run() == 0


def test_callback_every_k_steps_and_stopping():
    w = falling_ball()
    seen = []

    def record(world):
        seen.append(world.step_count)

    assert w.run(until=0.1, callback=record, every=30) == 100
    assert seen == [30, 60, 90, 100]

    def stop_at_apex(world):
        return world.velocities[0, 2] > 0.0  # False once the ball descends: stop

    w2 = falling_ball()
    taken = w2.run(callback=stop_at_apex)
    # 2 m/s up: the apex at t = 2 / 9.81 = 0.2039 s, the first step after it is step 204.
    assert taken == 204
    assert w2.velocities[0, 2] <= 0.0


def test_step_and_run_reject_bad_arguments():
    w = falling_ball()
    with pytest.raises(ValueError, match=r"free fall: step: n must be in \[0, 1e12\] \(value -1\)"):
        w.step(-1)
    with pytest.raises(ValueError, match="until must be finite"):
        w.run(until=float("nan"))
    with pytest.raises(ValueError, match="every must be >= 1"):
        w.run(every=0)
    with pytest.raises(ValueError, match="callback must be callable"):
        w.run(callback=3)
    with pytest.raises(ZeroDivisionError):
        w.run(callback=lambda world: 1 / 0)
    assert w.step_count == 1  # the step before the callback was taken
