"""Minimal-edit faithfulness pairs made mechanically from HaluEval's knowledge (issue 34's "negation,
roles, bound values" row), not written beside the structure checks they test. For question i, the
context is its own knowledge and the faithful response one of its knowledge sentences, verbatim;
the flipped response is that sentence with one edit:

- negation:  "not" put after its first "is", "was", "are", "were", "has" or "had";
- value:     its first number replaced by another number of the same knowledge (one bound to
             another slot: the hard case), or, when the knowledge has none, by that number + 7;
- roles:     its first two names (runs of capitalised words, with "of"/"the" inside) swapped.

The first half of the questions is "fit" (what rules may be read against), the second "held"
(reported). Rows carry metadata.kind, .half, .pair_id and .label. Importable (build(path) ->
rows) and runnable, printing faithfulness's pairwise accuracy per kind and half (a tie counts
half) and how often the flipped sentence falls under 0.5:
    /usr/bin/python3 bench/minimal_edits.py [TALA] [HALUEVAL_JSONL]"""
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import relevance_sets  # noqa: E402
from spread_reference import sentences  # noqa: E402

COPULA = re.compile(r"\b(is|was|are|were|has|had) (?!not\b|never\b|no\b)")
NUMBER = re.compile(r"(?<![\w.,])(\d{1,4})(?![\w]|[.,]\d)")
# A name: capitalised words, "of"/"the"/"de" allowed between them ("University of Oxford").
NAME = re.compile(r"\b[A-Z][\w'-]+(?:\s+(?:(?:of|the|de|von|van)\s+)?[A-Z][\w'-]+)*")
OPENERS = {"The", "A", "An", "It", "He", "She", "They", "This", "These", "In", "On", "At", "His",
           "Her", "Its", "Their", "During", "After", "Before", "As"}


def negate(s):
    m = COPULA.search(s)
    return s[:m.end(1)] + " not" + s[m.end(1):] if m else None


def revalue(s, knowledge):
    m = NUMBER.search(s)
    if not m:
        return None
    here = set(NUMBER.findall(s))
    others = [n for n in NUMBER.findall(knowledge)
              if n not in here and len(n) == len(m.group(1))]
    new = others[0] if others else str(int(m.group(1)) + 7)
    return s[:m.start(1)] + new + s[m.end(1):]


# What may follow a name that fills a slot of its clause, rather than modifying a noun ("American
# musician", "Oberoi family"): punctuation, the end, a function word or a past-tense verb.
SLOT_FOLLOWERS = {"is", "was", "are", "were", "has", "had", "and", "or", "in", "on", "at", "of",
                  "for", "to", "from", "by", "with", "as", "who", "which", "that", "under", "into",
                  "after", "before", "during", "than", "but", "while", "since", "until", "over",
                  "through", "between", "against", "about", "became", "won", "wrote", "led"}


def _lemmas():
    """WordNet's lemmas (Debian's wordnet-base), to tell a capitalised common word opening a
    sentence ("Vocals are handled by...") from a name."""
    words = set()
    for part in ("noun", "verb", "adj", "adv"):
        try:
            with open("/usr/share/wordnet/index." + part) as f:
                words.update(line.split(" ", 1)[0] for line in f if not line.startswith(" "))
        except OSError:
            pass
    return words


LEMMAS = _lemmas()
MONTHS = {"January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"}


def common_word(word):
    w = word.lower()
    return word in MONTHS or w in LEMMAS or (w.endswith("s") and w[:-1] in LEMMAS)


def fills_a_slot(s, m):
    rest = s[m.end():].lstrip()
    if not rest or not rest[0].isalpha():
        return True
    word = re.match(r"[\w'-]+", rest).group(0)
    return word[0].isupper() is False and (word in SLOT_FOLLOWERS or word.endswith("ed"))


ALIASES = {"known", "referred", "called", "aka", "born", "formerly", "nee", "née", "also"}


def swap_roles(s):
    names = []
    for m in NAME.finditer(s):
        text = m.group(0)
        first, _, rest = text.partition(" ")
        if m.start() == 0 and first in OPENERS and not rest:  # "The" alone is no name
            continue
        if not rest and (first in MONTHS or (m.start() == 0 and common_word(first))):
            continue  # "April 3", "Vocals are handled by
        if (names and text == names[0].group(0)) or not fills_a_slot(s, m):
            continue
        names.append(m)
        if len(names) == 2:
            break
    if len(names) < 2:
        return None
    a, b = names
    between = s[a.end():b.start()]
    words = set(re.findall(r"[a-z]+", between))
    # "Paris, France" (one place), "A and B" (either order), "A (also known as B)" (one thing):
    # no roles to swap.
    if not words - {"and", "or"} or words & ALIASES:
        return None
    return s[:a.start()] + b.group(0) + between + a.group(0) + s[b.end():]


EDITS = {"negation": lambda s, k: negate(s), "value": revalue, "roles": lambda s, k: swap_roles(s)}


def build(path):
    items = relevance_sets.questions(path)
    half = len(items) // 2
    return build_items(items, lambda i: "fit" if i < half else "held")


def build_items(items, side_of):
    """The edits of each item's knowledge sentences (items: dicts with question and knowledge);
    `side_of(i)` is item i's metadata.half (a half, or the item's source)."""
    rows = []
    for i, item in enumerate(items):
        own = [s for s in sentences(item["knowledge"]) if len(s.split()) >= 5]
        for kind, edit in EDITS.items():
            for s in own:
                flipped = edit(s, item["knowledge"])
                if flipped and flipped != s:
                    break
            else:
                continue
            rows.extend(_pair(kind, i, side_of(i), item["question"], item["knowledge"], s, flipped))
    return rows


def build_claims(items, side_of):
    """The edits of claims worded unlike their evidence (items: dicts with claim, knowledge and
    supported; only supported claims are edited): the claim against the claim with one edit, the
    evidence as the context and the claim, as a statement, as the question."""
    rows = []
    for i, item in enumerate(items):
        if not item["supported"]:
            continue
        claim = item["claim"]
        for kind, edit in EDITS.items():
            flipped = edit(claim, item["knowledge"])
            if flipped and flipped != claim:
                rows.extend(_pair("claim_" + kind, i, side_of(i), "Is it true that " + claim,
                                  item["knowledge"], claim, flipped))
    return rows


def _pair(kind, i, side, question, knowledge, faithful, flipped):
    pair_id = "%s-%s-%03d" % (kind, side, i)
    return [{"id": "%s-%s" % (pair_id, label[:3]), "user_input": question,
             "retrieved_contexts": [knowledge], "response": response,
             "metadata": {"kind": kind, "half": side, "pair_id": pair_id, "label": label}}
            for label, response in (("positive", faithful), ("negative", flipped))]


def table(rows, scores):
    """(kind, half) -> (pairwise, ties, pairs, flipped under 0.5)."""
    pairs = {}
    for r in rows:
        m = r["metadata"]
        pairs.setdefault((m["kind"], m["half"], m["pair_id"]), {})[m["label"]] = \
            scores.get(r["id"]) or 0.0
    out = {}
    for (kind, half, _), p in pairs.items():
        wins, ties, n, refuted = out.get((kind, half), (0.0, 0, 0, 0))
        a, b = p["positive"], p["negative"]
        out[(kind, half)] = (wins + (1.0 if a > b else 0.5 if a == b else 0.0),
                             ties + (1 if a == b else 0), n + 1, refuted + (1 if b < 0.5 else 0))
    return {k: (w / n, t, n, r) for k, (w, t, n, r) in out.items()}


def main(tala, halueval):
    from offline_trust import evaluate  # which imports this module: here, not at the top
    rows = build(halueval)
    with tempfile.TemporaryDirectory() as scratch:
        scores = evaluate(tala, rows, "faithfulness", scratch, "edits")
    print("| minimal edit (HaluEval knowledge) | half | pairwise | ties | pairs | flipped < 0.5 |")
    print("| --- | --- | --- | --- | --- | --- |")
    for (kind, half), (acc, ties, n, refuted) in sorted(table(rows, scores).items()):
        print("| %s | %s | %.3f | %d | %d | %d |" % (kind, half, acc, ties, n, refuted))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build", "tala"),
         sys.argv[2] if len(sys.argv) > 2 else
         os.path.join(HERE, "..", "..", "shared", "data", "halueval-qa-dev.jsonl"))
