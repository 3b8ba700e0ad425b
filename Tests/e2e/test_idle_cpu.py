"""Waiting for a model costs no CPU: the HTTP client sleeps in the kernel while the server thinks
(the old URLSession transport spun a core: ~4 s of CPU per 5 s of waiting). bench/idle_cpu.py
measures the same against a baseline binary."""
import os
import subprocess
import time

import pytest
from fakellm import FakeLLM
from review_helpers import suggestion, write_config

WAIT = 5.0


@pytest.fixture
def fake():
    f = FakeLLM().start()
    yield f
    f.stop()


def test_a_five_second_wait_for_the_model_costs_under_a_second_of_cpu(tk, fake):
    write_config(tk, fake)
    doc = tk.project() / "ch1.md"
    doc.write_text("# Chapter\n\nThe keeper lit the lamp at dusk and waited for the boat.\n")
    fake.enqueue("anthropic", fake.suggestions([suggestion("lit the lamp", "lit the lantern")], delay=WAIT))
    from agent_helpers import BIN
    t0 = time.monotonic()
    p = subprocess.Popen([BIN, "review", str(doc), "--now", "--wait", "--json"], env={**tk.env, **fake.env()},
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    assert os.waitstatus_to_exitcode(status) == 0, p.stderr.read().decode()
    cpu = usage.ru_utime + usage.ru_stime
    assert wall >= WAIT, wall  # it did wait for the reply
    # Generous for a loaded machine (the process's own work is ~0.1 s); the spinning client used ~4 s.
    assert cpu < 1.0, f"{cpu:.2f} s of CPU (user {usage.ru_utime:.2f}, sys {usage.ru_stime:.2f}) in {wall:.1f} s"
