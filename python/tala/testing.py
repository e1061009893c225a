"""tala in a pytest test: the seed's CI rule in three lines::

    import tala, tala.testing
    def test_rag_quality():
        tala.testing.assert_gate(tala.evaluate("golden.jsonl"), min={"faithfulness": 0.8})
"""

from ._gate import gate


def _worst_rows(result, metric, direction, count):
    scored = [r for r in result.rows if r["scores"].get(metric) is not None]
    scored.sort(key=lambda r: r["scores"][metric], reverse=(direction == "lower"))
    lines = []
    for r in scored[:count]:
        reason = r.get("reasons", {}).get(metric, "")
        lines.append(f"    {r['id']}: {r['scores'][metric]:.4f}  {reason}")
    return lines


def assert_gate(result, min=None, baseline=None, max_drop=None, worst=5):  # noqa: A002
    """Fails the test (AssertionError) when a gate fails; the message lists each failing gate
    with its mean and 95% interval, and the metric's worst rows with their reasons."""
    verdict = gate(result, min=min, baseline=baseline, max_drop=max_drop)
    if verdict.passed:
        return verdict
    summary = result.summary() if hasattr(result, "summary") else {}
    lines = [f"{len(verdict.failed)} of {len(verdict.checks)} tala gates failed:"]
    for check in verdict.failed:
        lines.append("  FAIL  " + check["detail"])
        metric = check["name"].split(" ")[0]
        if metric in summary and hasattr(result, "rows"):
            lines.append(f"  worst rows for {metric}:")
            lines.extend(_worst_rows(result, metric, summary[metric]["direction"], worst))
    raise AssertionError("\n".join(lines))
