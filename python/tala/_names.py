"""Metric names as Ragas users write them: aliases ("answer_relevancy"), metric objects (read by
their ``.name``), and the dataset's field names. The tables are the engine's (tala.metrics() and
the reader's field list); this module only looks names up in them."""

import difflib
import functools
import types

from . import _tala


@functools.lru_cache(maxsize=None)
def _tables():
    by_name, infos = {}, {}
    for info in _tala.metrics():
        infos[info["name"]] = info
        by_name[info["name"]] = info["name"]
        for alias in info["aliases"]:
            by_name[alias] = info["name"]
    return by_name, infos


def canonical(key):
    """The results key for ``key`` named as the user named it: an alias becomes the metric's
    name, options and cut-offs kept ("answer_relevancy" -> "response_relevancy", "precision@5" ->
    "precision_at_k@5"); other keys are returned as they are."""
    if not isinstance(key, str):
        return key
    cut = min((i for i in (key.find("("), key.find("@")) if i >= 0), default=len(key))
    name = _tables()[0].get(key[:cut])
    return key if name is None else name + key[cut:]


def required_fields(metric):
    """The dataset fields a metric named by ``metric`` (a name or an alias, options allowed)
    needs; None for a name tala does not know (a group or a metric of the user's)."""
    info = _tables()[1].get(canonical(metric.split(":")[0].split("@")[0]))
    return None if info is None else list(info["required_fields"])


def metric_name(metric):
    """A metric as tala.evaluate takes it: a name as it is, or a metric object (Ragas') by its
    ``.name``. Anything else is a TypeError that says what is wanted."""
    if isinstance(metric, str):
        return metric
    name = getattr(metric, "name", None)
    if isinstance(name, str) and name:
        return name
    what = type(metric).__name__
    raise TypeError(
        f"metrics takes metric names such as 'faithfulness' (or objects with a .name, as Ragas' "
        f"metric objects have), not a {what}: {metric!r:.80}. tala.metrics() lists the names; "
        f"a metric of your own goes in user_metrics={{'name': {{'prompt': ...}}}}")


def metric_list(metrics):
    """``metrics`` as the engine's comma-separated list (None stays None)."""
    if metrics is None or isinstance(metrics, str):
        return metrics
    try:
        items = list(metrics)
    except TypeError:
        items = [metrics]
    return ",".join(metric_name(m) for m in items)


@functools.lru_cache(maxsize=None)
def dataset_fields():
    """Every top-level field the dataset reader takes (Ragas' names and their older spellings),
    each to the field it fills ("question" -> "user_input")."""
    return types.MappingProxyType(dict(_tala.dataset_fields()))


def near_field(column):
    """The field a column name most likely means ("Response" -> "response"), or None."""
    if column in dataset_fields():
        return None
    lowered = {f.lower(): f for f in dataset_fields()}
    if column.lower().strip() in lowered:
        return lowered[column.lower().strip()]
    close = difflib.get_close_matches(column.lower(), list(lowered), n=1, cutoff=0.8)
    return lowered[close[0]] if close else None


class AliasDict(dict):
    """A dict keyed by results keys that also answers to the metrics' aliases."""

    def __getitem__(self, key):
        return dict.__getitem__(self, key if dict.__contains__(self, key) else canonical(key))

    def __contains__(self, key):
        return dict.__contains__(self, key) or dict.__contains__(self, canonical(key))

    def get(self, key, default=None):
        return self[key] if key in self else default
