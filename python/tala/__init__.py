"""tala: evaluate retrieval-augmented generation (RAG) systems from Python.

The engine is tala's C++ library (the same one the ``tala`` command runs); this package hands it
your rows and options and shapes its answer::

    import tala
    result = tala.evaluate(rows, metrics=["faithfulness", "context_recall"])
    print(result)                      # the summary table `tala eval` prints
    result["faithfulness"]             # the mean
    result.summary()["faithfulness"]   # mean, ci, scored, undefined, failed, direction
    result.save("results.jsonl")       # the CLI's results format: tala report/compare/gate read it
    result.report_html("report.html")
    tala.gate(result, min={"faithfulness": 0.8})
    tala.compare(baseline_result, result)
    tala.history().add(result, label="nightly")   # then .trend("faithfulness"): drops flagged
    tala.testset(logs="logs.jsonl", docs="docs/", size=50).save("candidates.jsonl")
    answered = tala.run("golden.jsonl", target="http://127.0.0.1:8000/ask")  # as `tala run`
    tala.evaluate(answered, on_error="skip")      # the app's answers to the golden set, scored

Past one process: ``tala.evaluate(path, shard=(i, n), out=...)`` per part and ``tala.merge``,
or ``tala.dask.evaluate`` on a Dask cluster (docs/scale.md).
"""

from ._errors import (DatasetError, InvalidArgumentError, IoError, JudgeError, NotFoundError,
                      TalaError, error_for)
from ._analysis import Alignment, align, calibrate, Comparison, compare, power
from ._evaluate import Result, evaluate, merge
from ._gate import GateVerdict, gate
from ._history import History, history
from ._run import Diagnosis, RunResult, diagnose, run
from ._testset import Testset, accept_testset, testset
from ._judge import Judge
from ._tala import __version__
from ._tala import metrics as _metrics


def metrics():
    """Every metric tala implements: name, aliases, required_fields, needs_llm,
    needs_embeddings, direction, definition, offline_note, version."""
    return _metrics()


__all__ = [
    "evaluate", "merge", "Result", "run", "RunResult", "diagnose", "Diagnosis", "Judge", "gate", "GateVerdict", "compare", "Comparison", "calibrate", "align", "Alignment",
    "power", "history", "History", "testset", "Testset", "accept_testset", "metrics", "TalaError", "DatasetError", "InvalidArgumentError", "JudgeError",
    "NotFoundError", "IoError", "__version__",
]
