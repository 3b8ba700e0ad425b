"""Shared fixtures for the end-to-end tests: each test gets an isolated home for tk-agent."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from agent_helpers import TK  # noqa: E402


@pytest.fixture
def tk(tmp_path):
    """An isolated tk-agent environment (data, config and runtime folders under tmp_path)."""
    env = TK(tmp_path)
    yield env
    env.stop_all()
