"""Relevance pairs made mechanically from real labelled text (issue 34), not written beside the
rules they test. From HaluEval's QA items (question, Wikipedia knowledge, right answer), for
question i:

- next_answer:      response = its right answer, against the next question's right answer;
- answer_sentence:  response = the knowledge sentence that holds the answer, against a sentence
                    of the same knowledge that does not;
- bare_answer:      response = the bare right answer ("2010"), against that non-answering
                    sentence;
- answer_padded:    response = the answering sentence, against it followed by the first two
                    sentences of the next question's knowledge (an answer with text about
                    something else in it);
- context_sentence: retrieved_contexts = [the answering sentence], against [the non-answering
                    sentence] (context relevance, question fixed);
- context_passage:  retrieved_contexts = [its knowledge], against [the next question's];
- context_padded:   retrieved_contexts = [its knowledge], against [its knowledge followed by the
                    first two sentences of the next question's] (the right page diluted with
                    text about something else: a worse context of the same page);
- offtopic_sentence: response = the answering sentence, against the first sentence of the next
                    question's knowledge (a fluent answer about something else).

The first half of the questions is the one blends and thresholds are fitted on ("fit"), the
second the one reported ("held"). Each row carries metadata.kind, .half, .pair_id and .label
(positive or negative). Importable (build(path) -> rows) and runnable:
    /usr/bin/python3 bench/relevance_sets.py ../shared/data/halueval-qa-dev.jsonl OUT.jsonl"""
import json
import os
import re
import sys
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spread_reference import sentences  # noqa: E402  (HaluEval's knowledge split the same way)


def fold(text):
    text = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"[^\w]+", " ", text).strip()


def content_words(text):
    stop = {"the", "a", "an", "of", "in", "on", "and", "or", "to", "is", "was", "for", "by", "at",
            "it", "its", "as", "with", "from", "that", "this", "be", "are", "were", "he", "she"}
    return {w for w in fold(text).split() if w not in stop}


def questions(path):
    """One item per distinct question, in file order: question, knowledge, answer."""
    seen, out = set(), []
    with open(path) as f:
        for line in f:
            row = json.loads(line)
            key = row.get("pair_id", row.get("question"))
            if key in seen:
                continue
            seen.add(key)
            out.append({"question": row.get("user_input", row.get("question")),
                        "knowledge": " ".join(row.get("retrieved_contexts") or [row.get("knowledge", "")]),
                        "answer": row.get("reference", row.get("answer"))})
    return out


def build(path):
    items = questions(path)
    half = len(items) // 2
    rows = []

    def pair(kind, i, positive, negative):
        side = "fit" if i < half else "held"
        for label, fields in (("positive", positive), ("negative", negative)):
            row = {"id": "%s-%03d-%s" % (kind, i, label[:3]), "user_input": items[i]["question"]}
            row.update(fields)
            row["metadata"] = {"kind": kind, "half": side, "pair_id": "%s-%03d" % (kind, i),
                               "label": label}
            rows.append(row)

    for i, item in enumerate(items):
        answer = item["answer"]
        following = items[(i + 1) % len(items)]["answer"]
        if fold(answer) != fold(following):
            pair("next_answer", i, {"response": answer}, {"response": following})
        following_knowledge = items[(i + 1) % len(items)]["knowledge"]
        if following_knowledge != item["knowledge"]:
            pair("context_passage", i, {"retrieved_contexts": [item["knowledge"]]},
                 {"retrieved_contexts": [following_knowledge]})
            padding = " ".join(sentences(following_knowledge)[:2])
            pair("context_padded", i, {"retrieved_contexts": [item["knowledge"]]},
                 {"retrieved_contexts": [item["knowledge"] + " " + padding]})
        own = sentences(item["knowledge"])
        # Holding the answer as whole words: "no" is not held by "known".
        holding = [s for s in own if fold(answer) and
                   re.search(r"(?<!\w)" + re.escape(fold(answer)) + r"(?!\w)", fold(s))]
        # A non-answering sentence shares no content word with the answer, so no part of it is
        # the answer either.
        others = [s for s in own if not (content_words(s) & content_words(answer))]
        if not holding or not others:
            continue
        elsewhere = sentences(following_knowledge)
        if following_knowledge == item["knowledge"]:
            elsewhere = []  # the next question reads the same page: nothing about something else
        if elsewhere:
            pair("offtopic_sentence", i, {"response": holding[0]}, {"response": elsewhere[0]})
        pair("answer_sentence", i, {"response": holding[0]}, {"response": others[0]})
        if elsewhere:
            pair("answer_padded", i, {"response": holding[0]},
                 {"response": holding[0] + " " + " ".join(elsewhere[:2])})
        pair("bare_answer", i, {"response": answer}, {"response": others[0]})
        pair("context_sentence", i, {"retrieved_contexts": [holding[0]]},
             {"retrieved_contexts": [others[0]]})
    return rows


if __name__ == "__main__":
    with open(sys.argv[2], "w") as out:
        for row in build(sys.argv[1]):
            out.write(json.dumps(row) + "\n")
