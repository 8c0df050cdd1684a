"""The GIL is released while a world steps: other Python threads run meanwhile, and a second
thread that tries to step the same world gets an error instead of a data race."""
import threading
import time

import pytest

import etdem


def pile():
    s = etdem.Scenario(name="pile")
    s.simulation(dt=1.0 / 600, duration=100.0, gravity=[0.0, 0.0, -9.81])
    s.material(name="glass", density=2500.0, restitution=0.3, friction=0.5)
    s.shape(name="grain", type="sphere", radius=0.005)
    s.fill(shape="grain", material="glass", count=200,
           region={"min": [0.0, 0.0, 0.0], "max": [0.1, 0.1, 0.1]}, seed=2)
    s.wall(name="box", type="box", min=[0.0, 0.0, 0.0], max=[0.1, 0.1, 0.3], material="glass")
    return s.build(threads=1)


def test_other_threads_run_while_a_world_steps():
    w = pile()
    target = 3000
    worker = threading.Thread(target=w.step, args=(target,))
    worker.start()
    seen = set()
    while worker.is_alive():  # this thread needs the GIL to read step_count
        seen.add(w.step_count)
        time.sleep(0.001)
    worker.join()
    assert w.step_count == target
    # Counts strictly between the start and the end were read while the other thread stepped.
    assert any(0 < n < target for n in seen), sorted(seen)[:5]


def test_a_second_thread_cannot_step_the_same_world():
    w = pile()
    worker = threading.Thread(target=w.step, args=(3000,))
    worker.start()
    try:
        while w.step_count == 0:
            time.sleep(0.001)
        with pytest.raises(RuntimeError, match="the world is being stepped"):
            w.step()
        with pytest.raises(RuntimeError, match="the world is being stepped"):
            w.velocities = w.velocities.copy()
    finally:
        worker.join()
    assert w.step_count == 3000


def test_a_callback_cannot_step_its_own_run():
    w = pile()
    with pytest.raises(RuntimeError, match="the world is being stepped"):
        w.run(until=0.1, callback=lambda world: world.step())
