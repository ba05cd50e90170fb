import os
import sys

import numpy as np
import pytest

# The binding under test is the one in this tree, whatever the working directory.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import opkit  # noqa: E402


def pytest_report_header(config):
    lib = os.environ.get("OPKIT_LIBRARY", "(default search)")
    return f"opkit {opkit.version()} from {lib}"


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
