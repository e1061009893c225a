"""tala.run: the Python twin of `tala run` (calls the system under test for every golden row)."""

import json
import os
import shutil
import tempfile

from . import _tala
from ._errors import error_for
from ._evaluate import _progress_for

# tala run's options, by their long names with underscores (python/src/module.cc reads them).
OPTIONS = frozenset({
    "max_in_flight", "timeout_ms", "max_retries", "requests_per_minute", "max_restarts",
    "resume", "cache", "method", "headers", "body", "response", "contexts", "context_ids",
    "context_text", "context_id", "user_judge", "user_base_url", "user_cache",
})


class RunResult(os.PathLike):
    """What tala.run wrote: ``dataset`` (the path tala.evaluate scores; the RunResult itself is a
    path too), ``report`` (rows read, answered and failed, calls, latency, why rows failed) and,
    as text, the report `tala run` prints."""

    def __init__(self, dataset, report, keep_dir=None):
        self.dataset = dataset
        self.report = report
        self._keep_dir = keep_dir  # a temporary folder holding the dataset, removed with us

    def __fspath__(self):
        return self.dataset

    def __del__(self):
        if self._keep_dir is not None:
            shutil.rmtree(self._keep_dir, ignore_errors=True)

    @property
    def failed(self):
        """Rows the target failed (each has ``target_error`` in the dataset and no response)."""
        return self.report["rows_failed"]

    def save(self, path):
        """Copies the dataset to ``path``."""
        shutil.copyfile(self.dataset, path)
        return path

    def __str__(self):
        return self.report["text"]

    def __repr__(self):
        r = self.report
        return (f"<tala.RunResult {r['rows_answered']} of {r['rows_read']} rows answered, "
                f"{r['rows_failed']} failed: {self.dataset}>")


def run(golden=None, target=None, out=None, progress="auto", simulate=None, **options):
    """Calls the system under test once per golden row, as `tala run` does, and returns a
    RunResult: the dataset of the golden fields with the target's ``response``,
    ``retrieved_contexts`` (and ids), ``latency_ms`` and any token or cost figures it reports.

    golden: a golden set (JSON Lines with user_input, optional id, reference, ...), such as
        `tala testset accept` writes; a row whose user_input lists the user's messages is a
        conversation, played turn by turn.
    simulate: instead of golden, scenarios (JSON Lines: goal, opening, facts, success,
        max_turns) that tala's offline user plays against the target until the goal is met, the
        turn limit, or it gives up (`tala run --simulate`); each conversation is one row.
        ``user_judge="openai:MODEL"`` (or anthropic:MODEL) has a model play the user instead,
        with ``user_base_url=`` and ``user_cache=`` (`--user-judge`, `--user-base-url`,
        `--user-cache`).
    target: "http://HOST:PORT/PATH" (POST {"question": ...}, reads answer and contexts),
        "exec:COMMAND ARGS" (one long-lived process speaking JSON Lines) or "exec-once:COMMAND".
    out: where the dataset goes; None: a temporary file kept as long as the RunResult.
    options: `tala run`'s options by their long names with underscores: ``max_in_flight=``,
        ``timeout_ms=``, ``max_retries=``, ``resume=``, ``cache=``, and the [target] table's
        ``body=`` (a request template), ``response=``, ``contexts=``, ``headers=[...]``, ...

    Then score it: ``tala.evaluate(tala.run("golden.jsonl", target=...), on_error="skip")``
    (rows the target failed have no response; on_error="skip" counts them instead of raising).

    Raises DatasetError for a bad golden row (before any call), InvalidArgumentError for a bad
    target, JudgeError when the target cannot be reached; KeyboardInterrupt after Ctrl-C, the
    rows already answered kept in ``out``.
    """
    unknown = sorted(set(options) - OPTIONS)
    if unknown:
        raise TypeError(f"tala.run got unknown options {', '.join(unknown)}; besides golden, "
                        f"target, out and progress it takes {', '.join(sorted(OPTIONS))}")
    if (golden is None) == (simulate is None):
        raise TypeError("tala.run takes golden or simulate=, one of them")
    if target is None:
        raise TypeError("tala.run needs target=")
    keep_dir = None
    if out is None:
        keep_dir = tempfile.mkdtemp(prefix="tala-run-")
        out = os.path.join(keep_dir, "dataset.jsonl")
    callback, bar = _progress_for(progress)
    try:
        answer = _tala.run(dict(options, golden=os.fspath(golden) if golden else None,
                                simulate=os.fspath(simulate) if simulate else None,
                                target=target, out=os.fspath(out)), callback)
    except BaseException:
        if keep_dir is not None:
            shutil.rmtree(keep_dir, ignore_errors=True)
        raise
    finally:
        if bar is not None:
            bar.close()
    if not answer["ok"]:
        if answer["error"]["code"] == "cancelled":
            raise KeyboardInterrupt(f"tala.run stopped; answered rows are in {out}")
        if keep_dir is not None:
            shutil.rmtree(keep_dir, ignore_errors=True)
        raise error_for(answer["error"])
    return RunResult(os.fspath(out), answer["report"], keep_dir=keep_dir)


class Diagnosis:
    """What tala.diagnose found: ``causes`` (retriever, ranking, generator, parametric, unknown:
    rows each), ``rows`` (each experimented row with its cause, why, and every condition's
    answer), ``report`` (the whole of diagnose.json) and, as text, what `tala diagnose` prints."""

    def __init__(self, report, text):
        self.report = report
        self.causes = report["causes"]
        self.rows = report["rows"]
        self._text = text

    def __str__(self):
        return self._text

    def __repr__(self):
        shown = ", ".join(f"{k} {v}" for k, v in self.causes.items() if v)
        return f"<tala.Diagnosis {self.report['experimented']} rows: {shown or 'no failure'}>"


def diagnose(golden, target, out_dir="tala-diagnose", docs=None,
             conditions=("gold", "reordered", "none"), sample=0, seed=42, all_rows=False,
             threshold=0.7, judge="offline", metrics=None, dry_run=False, **options):
    """The cause of each wrong answer, by experiment, as `tala diagnose` finds it: the app
    answers every golden row; each answer that is not right is asked again with the gold
    passages, its own reversed, and none; returns a Diagnosis.

    golden, target and ``options`` (``max_in_flight=``, ``body=``, ``headers=``, ...) as
    tala.run takes them; ``docs``: a knowledge base (JSON Lines of id and text) for gold passages
    named by reference_context_ids; ``judge``/``metrics``: how the answers are scored.
    """
    unknown = sorted(set(options) - OPTIONS)
    if unknown:
        raise TypeError(f"tala.diagnose got unknown options {', '.join(unknown)}; besides its "
                        f"own it takes tala.run's: {', '.join(sorted(OPTIONS))}")
    request = dict(options, golden=os.fspath(golden), target=target, out_dir=os.fspath(out_dir),
                   docs=None if docs is None else os.fspath(docs), conditions=list(conditions),
                   sample=sample, seed=seed, all_rows=all_rows, threshold=threshold,
                   dry_run=dry_run,
                   eval={"judge": judge, "metrics": metrics if isinstance(metrics, str)
                         else ",".join(metrics or [])})
    answer = _tala.diagnose(request)
    if not answer["ok"]:
        if answer["error"]["code"] == "cancelled":
            raise KeyboardInterrupt(f"tala.diagnose stopped; what was written is in {out_dir}")
        raise error_for(answer["error"])
    return Diagnosis(json.loads(answer["json"]), answer["text"])
