"""tala.evaluate and its Result."""

import collections.abc
import json
import os
import shutil
import sys
import tempfile
import warnings

from . import _names, _tala
from ._errors import DatasetError, error_for
from ._judge import engine_judge

# tala eval's options, by their long names with underscores (python/src/convert.cc reads them).
OPTIONS = frozenset({
    "format", "k", "labels", "on_error", "diagnosis_threshold", "diagnosis_thresholds",
    "judge_profile", "resume",
    "overwrite",
    "repeats", "threads", "base_url", "api_key", "embeddings", "embeddings_base_url", "temperature",
    "max_tokens", "structured_output", "max_in_flight", "requests_per_minute",
    "tokens_per_minute", "timeout_ms", "max_retries", "batching", "layout", "prompt_cache_key",
    "questions", "cache", "seed",
    "shard", "shard_by", "user_metrics", "rubrics",
})


def _shard_text(shard):
    """(index, count) or "index/count" as the engine reads it."""
    if shard is None or isinstance(shard, str):
        return shard
    try:
        index, count = shard
    except (TypeError, ValueError):
        raise TypeError(f"shard must be (index, count) or 'index/count', not {shard!r}") from None
    return f"{int(index)}/{int(count)}"


def _is_dataframe(data):
    return type(data).__name__ == "DataFrame" and hasattr(data, "to_dict")


# The core metrics' fields: what a run without metrics= reads (docs/metrics.md, "core").
_CORE_FIELDS = ("user_input", "response", "retrieved_contexts", "reference")


def _check_columns(columns, metrics, label):
    """A table's columns against what the metrics read, before any row is scored: a column a
    requested metric needs that is absent, or misspelt ("Response"), is a DatasetError naming it.
    A misspelt field no metric needs is a warning with a "did you mean" (tala keeps it as
    metadata, not as the field); other columns are metadata, as in a dataset file."""
    fields = _names.dataset_fields()
    present = {fields[c] for c in columns if c in fields}
    if metrics is None:
        needed = {f: "the core metrics" for f in _CORE_FIELDS}
    else:
        needed = {}
        for spec in (m.strip() for m in metrics.split(",")):
            for field in _names.required_fields(spec) or ():
                needed.setdefault(field, spec)
    for column in columns:
        if not isinstance(column, str) or column in fields:
            continue
        meant = _names.near_field(column)
        if meant is not None and fields[meant] not in present and fields[meant] in needed:
            who = needed[fields[meant]]
            raise DatasetError(
                f'{label}: column "{column}" is not a field tala reads; did you mean "{meant}"? '
                f"({who} {'need' if who == 'the core metrics' else 'needs'} {fields[meant]})",
                code="data error", file=label, field=column)
        if meant is not None:
            warnings.warn(f'{label}: column "{column}" is not a field tala reads (did you mean '
                          f'"{meant}"?): it is kept as metadata', stacklevel=4)
    if metrics is not None:
        missing = sorted(f for f in needed if f not in present)
        if missing:
            have = ", ".join(str(c) for c in columns) or "none"
            who = sorted({needed[f] for f in missing})
            raise DatasetError(
                f"{label}: no column {' or '.join(missing)}, which {', '.join(who)} "
                f"{'needs' if len(who) == 1 else 'need'} (the columns: {have})",
                code="data error", file=label, field=missing[0])


class _Origin:
    """Where a run's rows came from, for to_pandas: the DataFrame's index (each row's label,
    found by the id it was given) and the names the caller gave the fields ("question")."""

    def __init__(self, index=None, position_of_id=None, names=None):
        self.index = index
        self.position_of_id = position_of_id or {}
        self.names = names or {}

    def index_of(self, ids):
        positions = [self.position_of_id.get(str(i)) for i in ids]
        if any(p is None for p in positions):
            import pandas
            return pandas.RangeIndex(len(ids))  # an id the frame never had (cannot happen)
        return self.index[positions]


def _id_text(label):
    """A DataFrame index label as a row id: an integer stays one, anything else is its text."""
    if hasattr(label, "item") and not isinstance(label, str):
        label = label.item()  # numpy integers
    return label if isinstance(label, int) and not isinstance(label, bool) else str(label)


def _frame_rows(frame):
    """A DataFrame's rows for the engine, and its _Origin. Each row's id is its index label when
    the frame has no id column and the labels are unique (then tala's ids are the labels a
    pandas user sees); the result is put back on the index by those ids."""
    fields = _names.dataset_fields()
    columns = [c for c in frame.columns if isinstance(c, str)]
    id_column = next((c for c in columns if fields.get(c) == "id"), None)
    names = {fields[c]: c for c in columns if c in fields and fields[c] != c}
    rows = frame.to_dict(orient="records")
    if id_column is not None:
        ids = [str(_id_text(r.get(id_column))) for r in rows]
    elif frame.index.is_unique:
        ids = []
        for row, label in zip(rows, frame.index):
            row["id"] = _id_text(label)
            ids.append(str(row["id"]))
    else:
        # Repeated labels cannot be ids: the engine numbers the rows from 1, as for a file.
        ids = [str(n) for n in range(1, len(rows) + 1)]
    position_of_id = {}
    for position, i in enumerate(ids):
        position_of_id.setdefault(i, position)
    return rows, _Origin(frame.index, position_of_id, names)


def _caller_names(rows):
    """The fields a list of dicts names another way ("question" -> user_input), to give back."""
    fields = _names.dataset_fields()
    return {fields[c]: c for c in (_columns_of_rows(rows) or ())
            if isinstance(c, str) and c in fields and fields[c] != c}


def _as_rows(data):
    """The shapes Ragas users hand over, as rows: a dict of columns (what ``Dataset.from_dict``
    takes), an object with ``to_pandas()`` or ``to_list()`` (Ragas' EvaluationDataset, a
    Hugging Face Dataset), or anything else as it is."""
    if isinstance(data, dict):
        columns = list(data.items())
        if columns and all(isinstance(v, (list, tuple)) for _, v in columns):
            lengths = {len(v) for _, v in columns}
            if len(lengths) != 1:
                detail = ", ".join(f"{k}: {len(v)}" for k, v in columns)
                raise ValueError(f"tala.evaluate: a dict of columns needs columns of one length "
                                 f"({detail})")
            return [dict(zip(data, values)) for values in zip(*data.values())]
        raise TypeError("tala.evaluate: a dict is read as columns (field -> list of values, as "
                        "Dataset.from_dict takes); for one row pass [row]")
    if isinstance(data, (str, os.PathLike, list, tuple)) or _is_dataframe(data):
        return data
    for method in ("to_pandas", "to_list"):
        convert = getattr(data, method, None)
        if callable(convert):
            return convert()
    return data


def _columns_of_rows(rows):
    """Every key of a list of dicts, in first-seen order (None when rows is not such a list)."""
    if not isinstance(rows, (list, tuple)) or not all(isinstance(r, dict) for r in rows):
        return None
    seen = {}
    for r in rows:
        seen.update(dict.fromkeys(r))
    return list(seen)


def _progress_for(progress):
    """The engine's progress callback: a callable as given, a tqdm bar when progress is True,
    or "auto" with tqdm importable and a terminal on stderr; None for no progress."""
    if callable(progress):
        return progress, None
    if progress is False or progress is None:
        return None, None
    if progress == "auto" and not sys.stderr.isatty():
        return None, None
    try:
        from tqdm import tqdm
    except ImportError:
        return None, None
    bar = tqdm(unit="row", desc="tala", file=sys.stderr)

    def update(done, total):
        if total and bar.total != total:
            bar.total = total
            bar.refresh()
        bar.update(done - bar.n)

    return update, bar


class Result(collections.abc.Mapping):
    """The outcome of tala.evaluate: the run summary and the per-row results file.

    A read-only mapping of metric -> mean, as Ragas' result is: ``result["faithfulness"]``,
    ``"faithfulness" in result``, ``dict(result)``, ``result.keys()``. A metric may be named by
    its alias ("answer_relevancy") wherever a name is taken."""

    def __init__(self, summary, results_path, keep_dir=None, asked=None, origin=None):
        self._summary = summary
        self.results_path = results_path
        self._keep_dir = keep_dir  # a temporary folder holding the results file, removed with us
        self._rows = None
        # Results key -> the name the caller asked for it by, where that was an alias: the
        # columns of to_pandas() carry the caller's names.
        self._asked = dict(asked or {})
        # Where the rows came from (_Origin): to_pandas() gives them back on the frame's own
        # index and under the caller's column names.
        self._origin = origin

    def __del__(self):
        if self._keep_dir is not None:
            shutil.rmtree(self._keep_dir, ignore_errors=True)

    def _key(self, metric):
        keys = [m["key"] for m in self._summary["metrics"]]
        if metric in keys:
            return metric
        key = _names.canonical(metric)
        if key in keys:
            return key
        raise KeyError(f"{metric!r} was not evaluated (this run has: {', '.join(keys)})")

    def __getitem__(self, metric):
        """The metric's mean over its defined values (None when no row was scored)."""
        key = self._key(metric)
        return next(m["mean"] for m in self._summary["metrics"] if m["key"] == key)

    def __contains__(self, metric):
        try:
            self._key(metric)
        except KeyError:
            return False
        return True

    def __iter__(self):
        return iter([m["key"] for m in self._summary["metrics"]])

    def __len__(self):
        return len(self._summary["metrics"])

    def summary(self):
        """Per metric: mean, ci (lo, hi), median, stddev, scored, undefined, failed, direction;
        keyed by results key, and answering to aliases."""
        return _names.AliasDict((m["key"], {k: v for k, v in m.items() if k != "key"})
                                for m in self._summary["metrics"])

    @property
    def judge(self):
        return self._summary["judge"]

    @property
    def diagnoses(self):
        """Diagnosis name -> rows, in pipeline order."""
        return dict(self._summary["diagnoses"])

    @property
    def notes(self):
        return list(self._summary["notes"])

    @property
    def rows(self):
        """Each row's result as written to the results file: id, scores, reasons, diagnosis,
        inputs, verdicts, metadata."""
        if self._rows is None:
            with open(self.results_path, encoding="utf-8") as f:
                self._rows = [r for r in map(json.loads, f) if "id" in r]
        return self._rows

    @property
    def scores(self):
        """Each row's scores as a dict of metric -> score (None where undefined or failed), in
        the rows' order: Ragas' ``result.scores``. A metric asked for by an alias is keyed so."""
        keys = [m["key"] for m in self._summary["metrics"]]
        return [{self._asked.get(k, k): r["scores"].get(k) for k in keys} for r in self.rows]

    def to_pandas(self):
        """One row per result, as Ragas' to_pandas gives it: id, the inputs (user_input,
        response, retrieved_contexts, reference, ...), the row's metadata (the columns tala does
        not read), each metric's score, then each metric's reason as ``METRIC_reason`` and the
        diagnosis (needs pandas). A metric asked for by an alias has that name as its column, and
        an input given under another name ("question") keeps it.

        For a DataFrame given to tala.evaluate the result is on that frame's index, so
        ``df["faithfulness"] = result.to_pandas()["faithfulness"]`` puts each score on its own
        row (a row skipped with ``on_error="skip"`` is NaN there).

        A run over conversations gives one row per turn instead (conversation_id, turn, ...:
        see _turns_frame)."""
        import pandas

        keys = [m["key"] for m in self._summary["metrics"]]
        names = [self._asked.get(k, k) for k in keys]
        origin = self._origin or _Origin()
        if any("turns" in r for r in self.rows):
            return self._turns_frame(keys, names, origin)
        inputs = list(dict.fromkeys(f for r in self.rows for f in r.get("inputs", {})))
        shown = {f: origin.names.get(f, f) for f in inputs}
        taken = {"id", *shown.values(), *names, *(n + "_reason" for n in names), "diagnosis"}
        # The row's metadata: its own columns, each named as given unless that name is taken.
        extra = list(dict.fromkeys(m for r in self.rows for m in r.get("metadata") or {}))
        extra_names = {m: m if m not in taken else "metadata." + m for m in extra}
        records = []
        for r in self.rows:
            record = {"id": r["id"]}
            record.update((shown[f], r.get("inputs", {}).get(f)) for f in inputs)
            metadata = r.get("metadata") or {}
            record.update((extra_names[m], metadata.get(m)) for m in extra)
            record.update((n, r["scores"].get(k)) for k, n in zip(keys, names))
            record.update((n + "_reason", r.get("reasons", {}).get(k)) for k, n in zip(keys, names))
            record["diagnosis"] = r.get("diagnosis")
            records.append(record)
        columns = ["id", *shown.values(), *extra_names.values(), *names,
                   *(n + "_reason" for n in names), "diagnosis"]
        frame = pandas.DataFrame.from_records(records, columns=columns)
        if origin.index is not None:
            frame.index = origin.index_of([r["id"] for r in self.rows])
        return frame

    def _turns_frame(self, keys, names, origin):
        """A run over conversations: one row per turn (conversation_id, turn, the turn's
        question and answer, each metric's value on that turn, or the conversation's for a
        metric scored once per conversation, the reasons and the turn's diagnosis); a row that is
        no conversation keeps one row, with no turn. For a frame given as a row per turn, the
        result is on that frame's index."""
        import pandas

        records = []
        for r in self.rows:
            turns = r.get("turns")
            if turns is None:
                inputs = r.get("inputs", {})
                record = {"conversation_id": r["id"], "turn": None,
                          "user_input": inputs.get("user_input"), "response": inputs.get("response")}
                for k, n in zip(keys, names):
                    record[n] = r["scores"].get(k)
                    record[n + "_reason"] = r.get("reasons", {}).get(k)
                record["diagnosis"] = r.get("diagnosis")
                records.append(record)
                continue
            for t in turns:
                record = {"conversation_id": r["id"], "turn": t["turn"], "user_input": t["question"],
                          "response": t["response"]}
                for k, n in zip(keys, names):
                    base = k[len("turn_"):] if k.startswith("turn_") else k
                    if base in t["scores"]:
                        record[n] = t["scores"][base]
                        record[n + "_reason"] = t.get("reasons", {}).get(base)
                    else:
                        record[n] = r["scores"].get(k)
                        record[n + "_reason"] = r.get("reasons", {}).get(k)
                record["diagnosis"] = t.get("diagnosis")
                records.append(record)
        columns = ["conversation_id", "turn", "user_input", "response", *names,
                   *(n + "_reason" for n in names), "diagnosis"]
        frame = pandas.DataFrame.from_records(records, columns=columns)
        if origin.index is not None and len(origin.index) == len(frame):
            frame.index = origin.index
        return frame

    def report_html(self, path):
        """Writes the HTML report of this run (one self-contained file: metric cards, histograms,
        diagnosis, a sortable table, a drill-down per row), as `tala report --html` does."""
        return self.report(html=path)[0]

    def report(self, html="", markdown="", csv="", junit=""):
        """Writes the reports `tala report` writes (HTML, Markdown, CSV, JUnit XML); returns the
        paths written."""
        answer = _tala.write_reports(self.results_path, os.fspath(html), os.fspath(markdown),
                                     os.fspath(csv), os.fspath(junit))
        if not answer["ok"]:
            raise error_for(answer["error"])
        return answer["value"]

    def save(self, path):
        """Copies the results file (the CLI's format) to ``path``."""
        shutil.copyfile(self.results_path, path)
        return path

    def __str__(self):
        return self._summary["table"]

    def _repr_html_(self):
        # A notebook shows the summary in the order `tala eval` prints it: the diagnosis verdict,
        # the worst rows, then the metrics by the half of the pipeline they judge.
        return self._summary["html"]

    def __repr__(self):
        means = ", ".join(f"{m['key']}={m['mean']:.4f}" for m in self._summary["metrics"]
                          if m["mean"] is not None)
        return f"<tala.Result judge={self.judge} rows={self._summary['rows_scored']} {means}>"

    # A Mapping compares by its items; a Result is one run, equal only to itself.
    __eq__ = object.__eq__
    __hash__ = object.__hash__


def evaluate(data, metrics=None, judge="offline", out=None, progress="auto", **options):
    """Scores ``data`` with tala's engine and returns a Result.

    data: a path (JSON Lines, JSON array or CSV), a list of dicts with Ragas field names
        (``user_input``, ``response``, ``retrieved_contexts``, ``reference``, ...), or a pandas
        DataFrame with those columns.
    metrics: a list of metric names and group names (or one comma-separated string); Ragas'
        names ("answer_relevancy") and metric objects (by their ``.name``) are taken too; None: the
        core metrics the data allows (faithfulness, response_relevancy, context_precision,
        context_recall, and the id-based pair when contexts have ids); "all": every metric the
        data allows; groups: "retrieval", "generation", "reference", "ir", "strings", "agents",
        "criteria", "sql", "summaries", "conversation" (the per-turn metrics).
    judge: "offline" (default, no model), "replay", "openai:MODEL" or "anthropic:MODEL"; or a
        judge of your own: a tala.Judge, or a callable ``judge(sample, tasks) -> verdicts``.
    out: where the results file goes; None: a temporary file (``Result.save`` copies it).
    progress: "auto" (a tqdm bar when tqdm is installed and stderr is a terminal), True (a tqdm
        bar), False, or a callable ``progress(rows_done, rows_total)``.
    options: every ``tala eval`` option by its long name with underscores: ``base_url=``,
        ``max_in_flight=``, ``cache=``, ``repeats=``, ``on_error="skip"``, ``k=[5]``, ...
        ``threads=0`` judges the offline judge's rows on every core (default 1 here, as a
        library; ``tala eval`` uses every core); the results are the same whatever the count.
        ``shard=(i, n)`` with ``shard_by="range"|"hash"|"partition"`` scores one shard of a
        path's rows (``out`` appears once it is done, with its state beside it); tala.merge
        joins the shards; tala.dask runs them on a Dask cluster.
        ``user_metrics={"polite": {"prompt": "Is {response} polite?", "output": "discrete",
        "values": ["no", "yes"]}}`` defines metrics as ``[metrics.NAME]`` in tala.toml does
        (keys prompt, output, values, min, max, integer, direction); ``rubrics={"score1": ...}``
        is rubrics_score's rubric. An existing ``out`` holding an LLM judge's verdicts (or a
        file that is not a results file) is refused: pass ``resume=True`` to continue it, or
        ``overwrite=True`` to replace it. An ``out`` that is the dataset itself is refused.

    A DataFrame's or list's columns are checked before anything is scored: a column that a
    requested metric needs and the data lacks, or that is misspelt ("Response"), raises
    DatasetError; a column tala does not read warns (UserWarning) and is kept as metadata. None,
    NaN and pd.NA cells are missing values.

    Raises DatasetError (a ValueError, with .line and .field, and .index for a DataFrame),
    InvalidArgumentError (a ValueError), NotFoundError (a FileNotFoundError), IoError (an
    OSError) or JudgeError (a RuntimeError), as the CLI reports them; TypeError for an unknown
    option or a metric that is neither a name nor has one; KeyboardInterrupt after Ctrl-C, with
    every finished row kept in ``out``.
    """
    unknown = sorted(set(options) - OPTIONS)
    if unknown:
        hint = ""
        if {"llm", "model", "llm_model", "evaluator_llm"} & set(unknown):
            hint = (" (a model is chosen with judge=, such as judge='openai:gpt-4o-mini', or "
                    "judge=a tala.Judge or a callable of your own)")
        raise TypeError(f"tala.evaluate got unknown options {', '.join(unknown)}{hint}; besides "
                        f"data, metrics, judge, out and progress it takes "
                        f"{', '.join(sorted(OPTIONS))}")
    if "shard" in options:
        options["shard"] = _shard_text(options["shard"])
        if options["shard"] is not None and out is None:
            raise TypeError("a shard needs out=: its results file is what tala.merge joins")
    if options.get("judge_profile") is not None:
        options["judge_profile"] = os.fspath(options["judge_profile"])
    custom = engine_judge(judge)
    metrics = _names.metric_list(metrics)
    # Results key -> the alias the caller named it by (to_pandas keeps the caller's names).
    named = [m.strip() for m in metrics.split(",")] if metrics else []
    asked = {key: m for m in named if (key := _names.canonical(m)) != m}
    index = None
    origin = None
    data = _as_rows(data)
    if not isinstance(data, (str, os.PathLike)):
        if _is_dataframe(data):
            _check_columns(list(data.columns), metrics, "dataframe")
            index = data.index
        elif (columns := _columns_of_rows(data)) is not None:
            _check_columns(columns, metrics, "rows")
            origin = _Origin(names=_caller_names(data))
    workdir = tempfile.mkdtemp(prefix="tala-")
    rows_file = None
    label = "rows"
    try:
        if isinstance(data, (str, os.PathLike)):
            dataset = os.fspath(data)
        else:
            if _is_dataframe(data):
                # Missing cells (None, NaN, pd.NA) are written as null, which the reader takes as
                # an absent field; numpy values as their plain Python values.
                data, origin = _frame_rows(data)
                label = "dataframe"
            rows_file = os.path.join(workdir, "rows.jsonl")
            _tala.write_rows_jsonl(data, rows_file)
            dataset = rows_file
        results = os.fspath(out) if out is not None else os.path.join(workdir, "results.jsonl")
        callback, bar = _progress_for(progress)
        try:
            answer = _tala.evaluate(
                dict(options, dataset=dataset, metrics=metrics or "",
                     judge=judge if custom is None else "offline", out=results),
                callback, custom)
        finally:
            if bar is not None:
                bar.close()
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    if not answer["ok"]:
        if answer["error"]["code"] == "cancelled":
            # The finished rows stay in the results file (a temporary one is kept too).
            raise KeyboardInterrupt(f"tala.evaluate stopped; finished rows are in {results}")
        error = error_for(answer["error"], rows_file, label, answer["partial"]["errors"], index)
        shutil.rmtree(workdir, ignore_errors=True)
        raise error
    if out is not None:
        # Only the rows written for the engine were there; the results went to `out`.
        shutil.rmtree(workdir, ignore_errors=True)
        workdir = None
    return Result(answer["summary"], results, keep_dir=workdir, asked=asked, origin=origin)


def merge(shards, out=None, dataset_name=None):
    """Joins the shards of one run (each a results file written with ``shard=``, or its
    ``.shard.json``) into one results file and returns its Result: the rows in the dataset's
    order and the summary one process would have given. ``out=None`` writes a temporary file.

    Raises NotFoundError for a shard that is missing or unfinished, InvalidArgumentError when the
    shards are not every part of one run.
    """
    workdir = None
    if out is None:
        workdir = tempfile.mkdtemp(prefix="tala-")
        out = os.path.join(workdir, "results.jsonl")
    answer = _tala.merge([os.fspath(s) for s in shards], os.fspath(out), dataset_name or "")
    if not answer["ok"]:
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
        raise error_for(answer["error"])
    return Result(answer["summary"], os.fspath(out), keep_dir=workdir)
