"""tala's pytest plugin, registered as a ``pytest11`` entry point when tala is installed with pip
(or loaded with ``-p tala.pytest_plugin``):

- assertion rewriting for tala.testing, so a failing ``assert_gate`` shows its full message;
- the ``tala_gate`` fixture, which is ``tala.testing.assert_gate``;
- ``--tala-judge NAME``: the judge ``tala_judge`` gives to tests (default "offline"), so one
  suite runs offline on every commit and with an LLM judge when asked
  (``pytest --tala-judge openai:gpt-4o-mini``);
- a header line naming tala and that judge.
"""

import pytest

pytest.register_assert_rewrite("tala.testing")


def pytest_addoption(parser):
    group = parser.getgroup("tala")
    group.addoption("--tala-judge", default="offline",
                    help="the judge the tala_judge fixture gives (default: offline)")


def pytest_report_header(config):
    return f"tala: judge {config.getoption('--tala-judge')}"


@pytest.fixture(scope="session")
def tala_judge(request):
    """The judge named by --tala-judge (default "offline"). Session-scoped, so a module- or
    session-scoped fixture that evaluates once can take it."""
    return request.config.getoption("--tala-judge")


@pytest.fixture(scope="session")
def tala_gate():
    """tala.testing.assert_gate: ``tala_gate(result, min={"faithfulness": 0.8})``."""
    from .testing import assert_gate

    return assert_gate
