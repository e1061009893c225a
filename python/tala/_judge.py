"""A judge written in Python: tala hands it each row and the verdicts the requested metrics need,
and does the arithmetic and statistics on what it answers."""

import json


class Judge:
    """Subclass and implement :meth:`answer` to plug in your own model client::

        class MyJudge(tala.Judge):
            name = "my-model"
            def answer(self, sample, tasks):
                claims = split_into_claims(sample["response"])
                return {"response_claims": [
                    {"text": c, "supported": my_model_says_supported(c, sample["retrieved_contexts"])}
                    for c in claims]}

        tala.evaluate(rows, metrics=["faithfulness"], judge=MyJudge())

    ``sample`` is the row as a dict with tala's field names (``id``, ``user_input``,
    ``response``, ``retrieved_contexts``, ``reference``, ..., and ``metadata`` with the row's other
    fields). ``tasks`` lists the verdicts wanted, by their names in the replay format:
    ``chunk_relevant``, ``chunk_relevant_to_response``, ``response_claims`` (each with
    ``supported``), ``response_claims.correct``, ``reference_claims`` (each with ``attributed``),
    ``reference_claims.in_response``, ``generated_questions`` (each with ``text``,
    ``noncommittal`` and ``cosine``), ``entities`` (``reference_entities`` and
    ``context_entities``), ``response_reference_similarity``.

    Metrics that ask questions (user_metrics, criteria, rubrics) list them in
    ``sample["questions"]``, each with its ``kind``; answer them under ``"answers"``, by key:
    ``{"answers": {"polite": {"values": [1]}}}``. A ``choice`` question is answered with the
    index of the choice (``choices`` = ``["no", "yes"]``: 1 means "yes"), never its label; a
    ``score`` question with a number on its scale (``min`` to ``max``).

    Return a dict in the replay format of a dataset row's ``verdicts`` field
    (docs/datasets.md, "Replay verdicts"). A verdict left out is reported as missing for that row
    (its metrics are undefined, with the reason); a malformed answer fails the row, with the reason
    in the summary; an exception stops the run and is raised from ``tala.evaluate`` (finished rows
    stay in the results file, and ``resume=True`` carries on). Called from the evaluating thread
    only.
    """

    name = "python"

    def answer(self, sample, tasks):
        raise NotImplementedError("a tala.Judge subclass implements answer(sample, tasks)")


def _decoded(sample):
    sample["metadata"] = {k: json.loads(v) for k, v in sample["metadata"].items()}
    for message in sample["user_input"] if isinstance(sample.get("user_input"), list) else ():
        raw = message.pop("tool_calls_json", None)
        if raw is not None:
            message["tool_calls"] = json.loads(raw)
    return sample


def engine_judge(judge):
    """(name, answer) for the engine when ``judge`` is a tala.Judge or a callable; None for a
    judge the engine knows by name."""
    if isinstance(judge, str):
        return None
    if isinstance(judge, Judge):
        name, call = judge.name, judge.answer
    elif callable(judge):
        name, call = getattr(judge, "__name__", "callable"), judge
    else:
        raise TypeError("judge must be a name (\"offline\", \"openai:MODEL\", ...), a tala.Judge "
                        f"or a callable, not {type(judge).__name__}")

    def answer(sample, tasks):
        verdicts = call(_decoded(sample), list(tasks))
        if isinstance(verdicts, (str, bytes)):
            return verdicts if isinstance(verdicts, str) else verdicts.decode("utf-8")
        if not isinstance(verdicts, dict):
            raise TypeError(f"judge {name!r} must return a dict of verdicts, not "
                            f"{type(verdicts).__name__}")
        return json.dumps(verdicts, ensure_ascii=False)

    return "python:" + str(name), answer
