import numpy as np
import pytest

from cuegym.configs import load_params, load_table


@pytest.fixture(scope="session")
def kegle():
    return load_table("keglebillard"), load_params("keglebillard")


@pytest.fixture(scope="session")
def golf():
    return load_table("golfbillard"), load_params("golfbillard")


@pytest.fixture(scope="session")
def open_bed():
    """A very large pocketless table: balls stop long before any cushion."""
    from cuegym.configs import custom_table

    return custom_table(100.0, 50.0), load_params("keglebillard")


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
