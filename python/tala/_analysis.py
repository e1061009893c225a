"""tala.compare, tala.calibrate and tala.power: the analyses of `tala compare`, `tala calibrate`
and `tala power`, computed by the engine."""

import json
import os

from . import _tala
from ._errors import error_for
from ._gate import _path_of


def _value(answer):
    if not answer["ok"]:
        raise error_for(answer["error"])
    return answer["value"]


class _Report(dict):
    """A dict of figures whose str() is what the CLI prints."""

    def __str__(self):
        return self["text"]


class Comparison(_Report):
    """tala.compare's answer: ``metrics`` (one dict each: metric, direction, pairs, base_mean,
    candidate_mean, difference, ci, p_value, verdict, gains and losses as (id, change) pairs),
    ``unmatched_rows`` and ``version_warning``; ``comparison["faithfulness"]`` is that metric's
    dict."""

    def __getitem__(self, key):
        if key in self.keys():
            return dict.__getitem__(self, key)
        for m in dict.__getitem__(self, "metrics"):
            if m["metric"] == key:
                return m
        raise KeyError(key)

    @property
    def worse(self):
        """The metrics whose verdict is "worse"."""
        return [m["metric"] for m in self["metrics"] if m["verdict"] == "worse"]


def compare(base, candidate, top=3, allow_version_mismatch=False, pairwise=False,
            criterion="grounded", judge="offline", sequential=False, min_win_rate=None,
            target_width=0.0, alpha=0.05, order_seed=42, **judge_options):
    """Pairs two runs (Results or results files) row by row by id: per metric the mean
    difference (candidate − base) with a paired-bootstrap 95% interval, a permutation p-value, a
    direction-aware verdict (better, worse, no detectable change) and the rows that moved most.
    Raises InvalidArgumentError when the runs' metric or prompt versions differ, unless
    ``allow_version_mismatch``.

    ``pairwise=True``: `tala compare --pairwise` instead: which answer is better, row by row, on
    ``criterion`` (grounded, relevant, complete, or your own words), judged by ``judge`` (an LLM
    judge sees both answers, twice with the order swapped; the offline judge compares its
    readings), with tala.evaluate's ``judge_options`` (base_url=, cache=, ...). Returns a dict:
    wins, ties, losses, win_rate, ci, position_bias, rows.

    ``sequential=True`` (with pairwise and an LLM judge, as `--sequential`): the pairs are judged
    in an ``order_seed``-ed random order until an anytime-valid interval on the win rate at
    ``alpha`` decides ``min_win_rate`` (or is ``target_width`` narrow); the dict's
    ``sequential`` says how it ended (decided, passed, anytime_ci, pairs_judged, not_judged)."""
    if sequential and not pairwise:
        raise TypeError("tala.compare: sequential=True needs pairwise=True")
    if pairwise:
        from ._evaluate import OPTIONS
        unknown = sorted(set(judge_options) - OPTIONS)
        if unknown:
            raise TypeError(f"tala.compare got unknown options {', '.join(unknown)}")
        return json.loads(_value(_tala.compare_pairwise(
            _path_of(base), _path_of(candidate), criterion, dict(judge_options, judge=judge),
            bool(sequential), -1.0 if min_win_rate is None else float(min_win_rate),
            float(target_width), float(alpha), int(order_seed))))
    if judge_options:
        raise TypeError(f"tala.compare takes {', '.join(sorted(judge_options))} only with "
                        "pairwise=True")
    return Comparison(_value(_tala.compare(_path_of(base), _path_of(candidate), int(top),
                                           bool(allow_version_mismatch))))


class Alignment(_Report):
    """tala.align's answer: ``metrics`` (one dict each: metric, labels, positives, threshold,
    accuracy_before, accuracy_after, kappa_before, kappa_after, auroc, gain, gain_ci, improves),
    ``improves`` (some metric agrees better on held-out folds), ``profile`` (the judge profile's
    JSON text) and ``written`` (the path written, or None)."""


def align(results, labels, metrics=None, out="judge-profile.json", force=False, folds=5, seed=1,
          data=None):
    """Fit the judge to people's labels, as ``tala align``: for each labelled metric, the pass
    threshold that agrees with the labels most, by cross-validation, with held-out agreement
    before and after. ``results`` is a Result or a results file; ``labels`` the review export.
    For the offline judge's response_relevancy and context_relevance, the weights of its blend
    are refitted too (each metric's ``blend``: held-out figures, and ``kept`` when the profile
    holds them), from the dataset the results' manifest names, or ``data``.
    The judge profile is written to ``out`` only when some metric gains on held-out folds (or
    with ``force``); pass it as ``judge_profile=`` to tala.evaluate. ``out=None`` writes
    nothing."""
    if isinstance(metrics, str):
        metrics = [metrics]
    answer = Alignment(_value(_tala.align(_path_of(results), _path_of(labels),
                                          list(metrics or []), int(folds), int(seed),
                                          "" if data is None else os.fspath(data))))
    answer["written"] = None
    if out is not None and (answer["improves"] or force):
        tmp = f"{out}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(answer["profile"])
        os.replace(tmp, out)
        answer["written"] = str(out)
    return answer


def calibrate(data, human, judge, positive="", threshold=0.5, pair_by=""):
    """Agreement between a judge and human labels in one JSON Lines file (a Result, or a path):
    ``human`` and ``judge`` are dotted paths ("metadata.label", "scores.faithfulness"). Returns
    n, raw_agreement, kappa, confusion, and for numeric judges auroc and best_threshold(_accuracy);
    pairwise_accuracy with ``pair_by``."""
    return _Report(_value(_tala.calibrate(_path_of(data), human, judge, str(positive),
                                          pair_by, float(threshold))))


def power(p=None, n=None, p1=None, p2=None, paired=False, discordant=None, alpha=0.05,
          power=0.8):  # noqa: A002 (the CLI's flag name)
    """Sample sizes: with ``p`` and ``n`` the margin of error of a score (kind "margin": margin,
    interval); with ``p1`` and ``p2`` the rows needed to tell two systems apart (kind
    "independent", or "paired" with ``discordant``, the share of rows they disagree on): rows."""
    return _Report(_value(_tala.power(p, n, p1, p2, bool(paired), discordant, float(alpha),
                                      float(power))))
