"""tala: evaluate retrieval-augmented generation (RAG) systems from Python.

The engine is tala's C++ library (the same one the ``tala`` command runs); this package hands it
your rows and options and shapes its answer::

    import tala
    result = tala.evaluate(rows, metrics=["faithfulness", "context_recall"])
    print(result)                      # the summary table `tala eval` prints
    result["faithfulness"]             # the mean
    result.summary()["faithfulness"]   # mean, ci, scored, undefined, failed, direction
    result.save("results.jsonl")       # the CLI's results format: tala report/compare/gate read it
"""

from ._errors import (DatasetError, InvalidArgumentError, JudgeError, NotFoundError,
                      TalaError, error_for)
from ._evaluate import Result, evaluate
from ._gate import GateVerdict, gate
from ._tala import metrics as _metrics


def metrics():
    """Every metric tala implements: name, aliases, required_fields, needs_llm,
    needs_embeddings, direction, definition, offline_note, version."""
    return _metrics()


__all__ = [
    "evaluate", "gate", "GateVerdict", "metrics", "Result", "TalaError", "DatasetError", "InvalidArgumentError", "JudgeError",
    "NotFoundError",
]
