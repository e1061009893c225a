"""tala.testset: a golden set's candidates from your logged questions and your documents, as
`tala testset` builds them (docs/testset.md), and tala.accept_testset for the reviewed ones."""

import json
import os
import tempfile

from . import _tala
from ._errors import error_for


def _value(answer):
    if not answer["ok"]:
        raise error_for(answer["error"])
    return answer["value"]


def _path(source, scratch, name):
    """A path as given, or rows (a list of dicts, or a pandas DataFrame) written as JSON Lines."""
    if source is None:
        return ""
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    if hasattr(source, "to_dict"):  # a DataFrame
        source = source.to_dict(orient="records")
    path = os.path.join(scratch, name)
    with open(path, "w", encoding="utf-8") as f:
        for row in source:
            if not isinstance(row, dict):
                raise TypeError(f"{name}: rows must be dicts (or give a path, or a DataFrame)")
            f.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
    return path


class Testset:
    """The candidates (``items``: dicts, one per candidate line) and the ``report`` (a dict; its
    text is ``str(testset)``). ``save(path)`` writes the candidates file `tala review --testset`
    and `tala testset accept` read; ``to_pandas()`` gives one row per item."""

    def __init__(self, items, report, text):
        self.items = items
        self.report = report
        self._text = text

    def __len__(self):
        return len(self.items)

    def __iter__(self):
        return iter(self.items)

    def __repr__(self):
        return f"<tala.Testset: {len(self.items)} candidates>"

    def __str__(self):
        return self._text

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            for item in self.items:
                f.write(json.dumps(item, ensure_ascii=False) + "\n")
        return os.fspath(path)

    def to_pandas(self):
        import pandas as pd
        rows = []
        for item in self.items:
            meta = item.get("metadata", {})
            rows.append({
                "id": item["id"], "user_input": item["user_input"],
                "reference": item.get("reference"),
                "reference_context_ids": item.get("reference_context_ids"),
                "answerable": meta.get("answerable"), "coverage": meta.get("coverage"),
                "style": meta.get("style"), "cluster": meta.get("cluster"),
                "asked": len(meta.get("log_ids", [])), "difficulty": meta.get("difficulty"),
                "self_contained": meta.get("checks", {}).get("self_contained"),
                "source": meta.get("source"), "hops": meta.get("hops"),
                "persona": meta.get("persona"), "flag": meta.get("flag"),
            })
        return pd.DataFrame.from_records(rows, columns=[
            "id", "user_input", "reference", "reference_context_ids", "answerable", "coverage",
            "style", "cluster", "asked", "difficulty", "self_contained", "source", "hops",
            "persona", "flag"])


# The LLM judge's options `tala testset` takes, by their long names with underscores.
LLM_OPTIONS = frozenset({
    "base_url", "api_key", "embeddings", "embeddings_base_url", "temperature", "max_tokens",
    "structured_output", "max_in_flight", "requests_per_minute", "tokens_per_minute",
    "timeout_ms", "max_retries", "cache"})


def testset(logs=None, docs=None, size=50, seed=1, heldout=None, judge="offline",
            synthetic_share=0.2, dry_run=False, **llm_options):
    """Candidates for a golden set, real questions first. ``logs``: a dataset path, or rows (a
    list of dicts with ``user_input``, or a DataFrame); ``docs``: a folder of .txt/.md/.html/.pdf
    files or a JSON Lines file of chunks ``{id, text, source}``; ``heldout``: questions the set
    must not repeat. The same inputs and ``seed`` give the same candidates.

    ``judge``: ``"offline"`` drafts references extractively and writes no question;
    ``"openai:MODEL"`` or ``"anthropic:MODEL"`` drafts each reference with quotes checked
    character for character and writes questions for the documents no logged question touches
    (up to ``synthetic_share`` of the set with a log, all of it without). ``dry_run=True``
    estimates its calls and cost (``report["judge_calls"]``) and calls nothing. Further options
    as in ``tala testset``: ``base_url=``, ``api_key=``, ``embeddings=`` (the model that reads
    the intents' and chunks' meaning: ``"auto"``, ``"offline"`` or ``"openai:MODEL"``),
    ``cache=``, ``max_in_flight=``, ..."""
    if isinstance(size, bool) or not isinstance(size, int):
        raise TypeError("size: an int, the number of items")
    unknown = sorted(set(llm_options) - LLM_OPTIONS)
    if unknown:
        raise TypeError(f"testset() got unknown options {unknown}; the judge's options are "
                        f"{sorted(LLM_OPTIONS)}")
    with tempfile.TemporaryDirectory(prefix="tala-testset-") as scratch:
        # Chunks given as rows ({id, text, source}) are a JSON Lines file of chunks.
        answer = _tala.testset_build(_path(logs, scratch, "logs.jsonl"),
                                     _path(docs, scratch, "chunks.jsonl"),
                                     _path(heldout, scratch, "heldout.jsonl"), size, int(seed),
                                     judge, float(synthetic_share), bool(dry_run),
                                     dict(llm_options))
        items, report, text = _value(answer)
    return Testset([json.loads(line) for line in items], json.loads(report), text)


def accept_testset(candidates, labels, out=None):
    """The reviewed candidates as golden rows (`tala testset accept`): accepted and edited items
    and unanswerable ones; written to ``out`` when given. Returns the counts and, under
    ``"rows"``, the golden rows as dicts."""
    if isinstance(candidates, Testset):
        with tempfile.TemporaryDirectory(prefix="tala-testset-") as scratch:
            path = candidates.save(os.path.join(scratch, "candidates.jsonl"))
            answer = _tala.testset_accept(path, os.fspath(labels))
    else:
        answer = _tala.testset_accept(os.fspath(candidates), os.fspath(labels))
    value = _value(answer)
    golden = value.pop("golden_jsonl")
    if out is not None:
        with open(out, "w", encoding="utf-8") as f:
            f.write(golden)
    value["rows"] = [json.loads(line) for line in golden.splitlines() if line.strip()]
    return value
