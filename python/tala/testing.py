"""tala in a pytest test: the seed's CI rule in three lines::

    import tala, tala.testing
    def test_rag_quality():
        tala.testing.assert_gate(tala.evaluate("golden.jsonl"), min={"faithfulness": 0.8})

A failing gate keeps what it judged: the results file and its HTML report are written under
``.tala/failed-gates/<test>/`` (or ``artifacts=``), and the message names both.
"""

import os
import re
import shutil

from ._gate import gate


def _worst_rows(result, metric, direction, count):
    scored = [r for r in result.rows if r["scores"].get(metric) is not None]
    scored.sort(key=lambda r: r["scores"][metric], reverse=(direction == "lower"))
    lines = []
    for r in scored[:count]:
        reason = r.get("reasons", {}).get(metric, "")
        question = " ".join(str(r.get("inputs", {}).get("user_input") or "").split())
        lines.append(f"    {r['id']}: {r['scores'][metric]:.4f}  {reason}")
        if question:
            lines.append(f"      question: {question[:100]}{'...' if len(question) > 100 else ''}")
    return lines


def _artifacts_dir(artifacts):
    if artifacts is not None:
        return os.fspath(artifacts)
    # pytest names the running test in PYTEST_CURRENT_TEST: "tests/test_x.py::test_y (call)".
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", test.replace("::", "-")).strip("-") or "gate"
    return os.path.join(".tala", "failed-gates", name)


def _keep(result, artifacts):
    """Saves the failed run's results and HTML report; their paths, or a line saying why not."""
    if not hasattr(result, "report_html"):
        return [f"  results: {os.fspath(result)}"]
    folder = _artifacts_dir(artifacts)
    try:
        os.makedirs(folder, exist_ok=True)
        results = os.path.join(folder, "results.jsonl")
        if os.path.abspath(result.results_path) != os.path.abspath(results):
            shutil.copyfile(result.results_path, results)
        report = result.report_html(os.path.join(folder, "report.html"))
    except Exception as e:  # the gate's verdict matters more than its keepsakes
        return [f"  (the results could not be kept in {folder}: {e})"]
    return [f"  results: {results}", f"  report:  {report}"]


def assert_gate(result, min=None, baseline=None, max_drop=None, worst=5,  # noqa: A002
                artifacts=None):
    """Fails the test (AssertionError) when a gate fails; the message lists each failing gate
    with its mean and 95% interval, the metric's worst rows with their reasons and questions,
    and where the run's results file and HTML report were kept (``artifacts``, by default
    ``.tala/failed-gates/<test>/``). Metrics may be named by their aliases."""
    __tracebackhide__ = True  # pytest shows the failing gate, not this function's body
    verdict = gate(result, min=min, baseline=baseline, max_drop=max_drop)
    if verdict.passed:
        return verdict
    summary = result.summary() if hasattr(result, "summary") else {}
    lines = [f"{len(verdict.failed)} of {len(verdict.checks)} tala gates failed:"]
    for check in verdict.failed:
        lines.append("  FAIL  " + check["detail"])
        metric = check["name"].split(" ")[0]
        if metric in summary and hasattr(result, "rows"):
            rows = _worst_rows(result, metric, summary[metric]["direction"], worst)
            if rows:
                lines.append(f"  worst rows for {metric}:")
                lines.extend(rows)
    lines.extend(_keep(result, artifacts))
    raise AssertionError("\n".join(lines))
