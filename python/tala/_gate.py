"""tala.gate: the CI gates of `tala gate`, on a Result or a results file."""

import os

from . import _names, _tala
from ._errors import error_for


class GateVerdict:
    """The gates' outcome: ``passed``, ``checks`` (name, pass, detail each) and the same lines
    `tala gate` prints as its str()."""

    def __init__(self, checks):
        self.checks = checks

    @property
    def passed(self):
        return all(c["pass"] for c in self.checks)

    @property
    def failed(self):
        return [c for c in self.checks if not c["pass"]]

    def __bool__(self):
        return self.passed

    def __str__(self):
        return "\n".join(("PASS  " if c["pass"] else "FAIL  ") + c["detail"] for c in self.checks)

    def __repr__(self):
        return f"<tala.GateVerdict {'passed' if self.passed else 'failed'}: {len(self.failed)} " \
               f"of {len(self.checks)} gates failed>"


def _path_of(run):
    if run is None:
        return ""
    return run.results_path if hasattr(run, "results_path") else os.fspath(run)


def gate(result, min=None, baseline=None, max_drop=None):  # noqa: A002 (the CLI's flag name)
    """Gates ``result`` (a Result or a results file): ``min={"faithfulness": 0.8}`` fails when a
    mean is on the wrong side of its bound (direction-aware); ``max_drop={...}`` against
    ``baseline`` fails only when the whole 95% interval of the paired drop exceeds it."""
    answer = _tala.gate(_path_of(result), dict(min or {}), _path_of(baseline),
                        dict(max_drop or {}))
    if not answer["ok"]:
        raise error_for(answer["error"])
    # Each gate is named as the caller named its metric (P7: a gate on answer_relevancy failed
    # as "response_relevancy >= 0.9").
    asked = {_names.canonical(k): k for k in [*(min or {}), *(max_drop or {})]
             if _names.canonical(k) != k}
    checks = []
    for check in answer["value"]:
        check = dict(check)
        for key, name in asked.items():  # the line printed; "name" stays the results key
            if isinstance(check.get("detail"), str) and check["detail"].startswith(key + " "):
                check["detail"] = name + check["detail"][len(key):]
        checks.append(check)
    return GateVerdict(checks)
