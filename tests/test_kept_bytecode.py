"""The test processes keep their bytecode under the checkout where the environment forbids writing it
(``tests/helpers/bytecode.py``), and leave a prefix of the user's own, or no setting, as it is."""

from __future__ import annotations

import os
import sys

from tests.helpers.bytecode import BYTECODE, keep_bytecode


def test_a_forbidding_environment_gets_the_prefix_and_others_stay_as_they_are() -> None:
    env = {"PATH": "/bin", "PYTHONDONTWRITEBYTECODE": "1"}
    assert keep_bytecode(env) and env == {"PATH": "/bin", "PYTHONPYCACHEPREFIX": str(BYTECODE)}
    assert not keep_bytecode(env)  # once is enough
    own = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": "/elsewhere"}
    assert not keep_bytecode(own) and own == {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": "/elsewhere"}
    plain = {"PATH": "/bin"}
    assert not keep_bytecode(plain) and plain == {"PATH": "/bin"}


def test_this_process_and_its_children_may_write_bytecode() -> None:
    assert "PYTHONDONTWRITEBYTECODE" not in os.environ or os.environ.get("PYTHONPYCACHEPREFIX")
    assert not sys.dont_write_bytecode or os.environ.get("PYTHONPYCACHEPREFIX")
    if os.environ.get("PYTHONPYCACHEPREFIX") == str(BYTECODE):
        assert sys.pycache_prefix == str(BYTECODE)
