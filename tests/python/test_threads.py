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
    target = 1000
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
    worker = threading.Thread(target=w.step, args=(1000,))
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
    assert w.step_count == 1000


def test_a_callback_cannot_step_its_own_run():
    w = pile()
    with pytest.raises(RuntimeError, match="the world is being stepped"):
        w.run(until=0.1, callback=lambda world: world.step())


def test_ctrl_c_stops_a_long_run():
    import os
    import signal
    w = pile()
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        w.step(10 ** 9)  # hours of stepping
    timer.join()
    assert time.monotonic() - start < 5.0
    assert 0 < w.step_count < 10 ** 9
    w.step()  # the world is still usable
