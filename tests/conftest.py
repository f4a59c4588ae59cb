import argparse
import os

import numpy as np
import pytest

from cuegym.configs import load_params, load_table


@pytest.fixture(scope="session", autouse=True)
def sb3_log_dir(tmp_path_factory):
    """Models a test trains without a logger of its own log here, not in SB3-<date> folders
    of the system's temp directory (SB3's default when ``SB3_LOGDIR`` is unset)."""
    old = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3_logs"))
    yield
    if old is None:
        os.environ.pop("SB3_LOGDIR", None)
    else:
        os.environ["SB3_LOGDIR"] = old


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


@pytest.fixture
def stop_after_parsing(monkeypatch):
    """``argparse`` stops right after parsing, raising ``markdown_docs.Parsed`` with the
    namespace: a documented command is checked against the real parser without running it."""
    from markdown_docs import Parsed

    original = argparse.ArgumentParser.parse_args

    def parse_args(self, args=None, namespace=None):
        raise Parsed(original(self, args, namespace))

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_args)
