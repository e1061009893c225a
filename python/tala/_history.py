"""tala.history: every run remembered, as `tala history` keeps it (a SQLite file, or a running
`tala serve`). The engine stores and compares; this module shapes its answers as DataFrames."""

import json
import os

from . import _tala
from ._errors import error_for
from ._gate import _path_of

DEFAULT_STORE = os.path.join(".tala", "history.sqlite")


def _value(answer):
    if not answer["ok"]:
        raise error_for(answer["error"])
    return answer["value"]


def _tags(tags):
    """{"branch": "main"}, ["branch=main"] or [("branch", "main")] as (key, value) pairs."""
    if tags is None:
        return []
    if isinstance(tags, dict):
        return [(str(k), str(v)) for k, v in tags.items()]
    if isinstance(tags, str):
        raise TypeError("tags: a dict {key: value} or a list of 'key=value', not one string")
    out = []
    for tag in tags:
        if isinstance(tag, str):
            key, sep, value = tag.partition("=")
            if not sep or not key:
                raise ValueError(f"tag {tag!r}: expected 'key=value', such as 'branch=main'")
            out.append((key, value))
        else:
            key, value = tag
            out.append((str(key), str(value)))
    return out


def _frame(records, columns):
    import pandas as pd
    return pd.DataFrame.from_records(records, columns=columns)


class History:
    """A store of runs: ``add(result)``, ``runs()`` and ``trend(metric)`` (DataFrames),
    ``report(path)`` (the history page) and ``prune(keep=N | older_than_days=D)``."""

    def __init__(self, store=DEFAULT_STORE, token=None):
        store = store if isinstance(store, str) else os.fspath(store)
        self.store = store
        # A serve store's token: given, else $TALA_SERVE_TOKEN as `tala history` reads it.
        self.token = token if token is not None else os.environ.get("TALA_SERVE_TOKEN", "")

    def __repr__(self):
        return f"tala.history({self.store!r})"

    def add(self, result, label="", tags=None, report=""):
        """Stores a run (a Result, or a results file) with its label and tags. Returns the stored
        run as a dict; its "added" is False when the same results file was stored before."""
        added, runs = _value(_tala.history_add(self.store, self.token, _path_of(result),
                                               str(label), _tags(tags), os.fspath(report)))
        run = json.loads(runs)["runs"][0]
        run["added"] = added
        return run

    def runs(self, tags=None):
        """One row per run, oldest first: id, time, label, tags (a dict), judge, dataset,
        golden_digest (what runs are compared on), rows, results, report, and each metric's
        mean as a column of its own."""
        runs = json.loads(_value(_tala.history_runs(self.store, self.token, _tags(tags))))["runs"]
        metrics = []
        for run in runs:
            for m in run["metrics"]:
                if m["key"] not in metrics:
                    metrics.append(m["key"])
        base = ["id", "time", "label", "tags", "judge", "dataset", "golden_digest", "rows",
                "results", "report"]
        records = []
        for run in runs:
            row = {k: run[k] for k in base if k != "tags"}
            row["tags"] = dict(run["tags"])
            means = {m["key"]: m["mean"] for m in run["metrics"]}
            for key in metrics:
                row[key] = means.get(key)
            records.append(row)
        return _frame(records, base + metrics)

    def trend(self, metric, tags=None, min_effect=0.02):
        """A metric across runs, oldest first: run, time, label, mean, ci_low, ci_high, scored,
        segment, new_segment, compared, base_run, pairs, change, change_low, change_high, drop.
        A drop: the paired 95% interval against the previous comparable run excludes 0 and the
        change exceeds ``min_effect``. ``.attrs`` holds metric, direction and min_effect."""
        trend = json.loads(_value(_tala.history_trend(self.store, self.token, str(metric),
                                                      _tags(tags), float(min_effect))))
        columns = ["run", "time", "label", "mean", "ci_low", "ci_high", "scored", "segment",
                   "new_segment", "compared", "base_run", "pairs", "change", "change_low",
                   "change_high", "drop"]
        records = []
        for p in trend["points"]:
            compared = p["compared"]
            records.append({
                "run": p["run"]["id"], "time": p["run"]["time"], "label": p["run"]["label"],
                "mean": p["mean"], "ci_low": p["ci_low"], "ci_high": p["ci_high"],
                "scored": int(p["scored"]), "segment": int(p["segment"]),
                "new_segment": p["new_segment"], "compared": compared,
                "base_run": int(p["base_id"]) if compared else None,
                "pairs": int(p["pairs"]) if compared else 0,
                "change": p["change"] if compared else None,
                "change_low": p["change_low"] if compared else None,
                "change_high": p["change_high"] if compared else None,
                "drop": p["drop"],
            })
        frame = _frame(records, columns)
        frame.attrs.update(metric=trend["metric"], direction=trend["direction"],
                           min_effect=trend["min_effect"])
        return frame

    def report(self, path, metric="", tags=None, min_effect=0.02):
        """Writes the history page (a chart per metric, the runs, any two compared) to ``path``
        and returns the path."""
        page = _value(_tala.history_page(self.store, self.token, str(metric), _tags(tags),
                                         float(min_effect)))
        path = os.fspath(path)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(page)
        os.replace(tmp, path)
        return path

    def prune(self, keep=None, older_than_days=None):
        """Removes runs beyond the newest ``keep``, or made more than ``older_than_days`` ago.
        Returns how many were removed."""
        if keep is None and older_than_days is None:
            raise ValueError("prune: say what to remove: keep=N or older_than_days=D")
        return _value(_tala.history_prune(self.store, self.token,
                                          -1 if keep is None else int(keep),
                                          -1.0 if older_than_days is None
                                          else float(older_than_days)))


def history(store=DEFAULT_STORE, token=None):
    """The run history in ``store``: a SQLite file (created on first use; `tala history` reads
    the same) or the http:// address of a `tala serve`, with its ``token``."""
    return History(store, token)
