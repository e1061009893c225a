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
                    question's knowledge (a fluent answer about something else);
- context_window:   retrieved_contexts = [the answering sentence and the one either side], against
                    [the whole knowledge, of six sentences or more] (more sentences that do not
                    help: Ragas' context relevance counts the share that do);
- pronoun_answer:   response = the answering sentence with its opening name, which the question
                    gives, said as "It", against the non-answering sentence;
- multipart:        question i and question i+1 asked as one ("..., and ...?"); response = both
                    answering sentences, against question i's answering sentence followed by a
                    sentence of question i+1's knowledge that does not answer it (a complete
                    answer against one that answers one part).

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
    """The pairs of HaluEval's items, halved: the first half "fit", the second "held"."""
    items = questions(path)
    half = len(items) // 2
    return build_items(items, lambda i: "fit" if i < half else "held")


def holding_sentence(item):
    """The first sentence of the item's knowledge that holds its answer as whole words ("no" is
    not held by "known"), or None."""
    answer = fold(item["answer"])
    for s in sentences(item["knowledge"]):
        if answer and re.search(r"(?<!\w)" + re.escape(answer) + r"(?!\w)", fold(s)):
            return s
    return None


def with_pronoun_subject(sentence, question):
    """The sentence with its opening name said as "It", when the name (two or more capitalised
    words, or one of four letters or more) is in the question and a verb follows it; else None."""
    m = re.match(r"((?:The )?[A-Z][\w'-]+(?: [A-Z][\w'-]+)*) (is|was|are|were|has|had|did|won|"
                 r"became|\w+ed)\b", sentence)
    if not m or m.group(1) not in question or len(m.group(1)) < 4:
        return None
    return "It " + sentence[len(m.group(1)) + 1:]


def joined_question(first, second):
    """Two questions as one that asks both: "When was X founded, and where is its headquarters?"."""
    head = first.rstrip(" ?")
    tail = second.strip()
    if tail[:1].isupper() and not tail.split()[0].isupper() and tail.split()[0] not in NAMES_OPEN:
        tail = tail[0].lower() + tail[1:]
    return head + ", and " + tail


# Question openers kept capitalised when a question becomes the second part of another.
NAMES_OPEN = {"I"}


def build_items(items, side_of):
    """The pair kinds of the module's docstring for `items` (dicts with question, knowledge and
    answer); `side_of(i)` is item i's metadata.half (a half, or the item's source)."""
    rows = []

    def pair(kind, i, positive, negative, question=None):
        side = side_of(i)
        for label, fields in (("positive", positive), ("negative", negative)):
            row = {"id": "%s-%s-%03d-%s" % (kind, side, i, label[:3]),
                   "user_input": question or items[i]["question"]}
            row.update(fields)
            row["metadata"] = {"kind": kind, "half": side, "pair_id": "%s-%s-%03d" % (kind, side, i),
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
        held = holding_sentence(item)
        # A non-answering sentence shares no content word with the answer, so no part of it is
        # the answer either.
        others = [s for s in own if not (content_words(s) & content_words(answer))]
        if not held or not others:
            continue
        elsewhere = sentences(following_knowledge)
        if following_knowledge == item["knowledge"]:
            elsewhere = []  # the next question reads the same page: nothing about something else
        if elsewhere:
            pair("offtopic_sentence", i, {"response": held}, {"response": elsewhere[0]})
        pair("answer_sentence", i, {"response": held}, {"response": others[0]})
        if elsewhere:
            pair("answer_padded", i, {"response": held},
                 {"response": held + " " + " ".join(elsewhere[:2])})
        pair("bare_answer", i, {"response": answer}, {"response": others[0]})
        # The answering sentence with its subject, a name the question gives, said as "It"
        # ("It was completed in 1889." for "When was the Eiffel Tower completed?").
        pronoun = with_pronoun_subject(held, item["question"])
        if pronoun:
            pair("pronoun_answer", i, {"response": pronoun}, {"response": others[0]})
        # The answering sentence with the sentences either side of it, against the whole page:
        # the same answer with more sentences that do not help (Ragas' context relevance).
        at = own.index(held) if held in own else -1
        if at >= 0 and len(own) >= 6:
            window = " ".join(own[max(0, at - 1):at + 2])
            pair("context_window", i, {"retrieved_contexts": [window]},
                 {"retrieved_contexts": [" ".join(own)]})
        pair("context_sentence", i, {"retrieved_contexts": [held]},
             {"retrieved_contexts": [others[0]]})
        # A two-part question: this item's and the next one's asked as one. The complete answer
        # gives both answering sentences; the partial one gives this item's and, in place of the
        # other, a sentence of the next item's page that does not answer it.
        nxt = items[(i + 1) % len(items)]
        nxt_held = holding_sentence(nxt)
        nxt_others = [s for s in sentences(nxt["knowledge"])
                      if not (content_words(s) & content_words(nxt["answer"]))]
        if nxt_held and nxt_others and nxt_held != held and fold(answer) != fold(nxt["answer"]):
            pair("multipart", i, {"response": held + " " + nxt_held},
                 {"response": held + " " + nxt_others[0]},
                 question=joined_question(item["question"], nxt["question"]))
    return rows


if __name__ == "__main__":
    with open(sys.argv[2], "w") as out:
        for row in build(sys.argv[1]):
            out.write(json.dumps(row) + "\n")
