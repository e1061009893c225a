#!/usr/bin/python3
"""A small but real RAG app over the demo knowledge base, for `tala run` and `tala ci`.

Retrieval: BM25 (k1 1.2, b 0.75) over the chunks of examples/data/knowledge_base.jsonl, top 3.
Generation: extractive, no model: the sentence of the retrieved chunks that shares the most words
with the question (ties go to the higher-ranked chunk).

It answers in two ways, as `tala run` calls it:
  rag_app.py serve [--port 8765]   HTTP: POST {"question": ...} -> {"answer", "contexts": [{id, text}]}
  rag_app.py jsonl                 JSON Lines on stdin/stdout: {"id", "user_input"} -> {"id", "answer", "contexts"}
A request may carry the conversation so far as "messages" ([{"role": "user"|"assistant",
"content"}], the question last, as tala run sends a conversation's turns): a follow-up ("And
for children?") is then searched with the user's question before it.

A request that carries "contexts" (a list of passages, strings or {id, text}; `tala diagnose`
sends them) is answered from those passages, with no retrieval, and they come back as its contexts.

It has two deliberately broken variants, so `tala ci --baseline` shows a regression caught:
  --broken rank     retrieval off by one rank (the best chunk is dropped)
  --broken claim    every answer gains a sentence no chunk supports
and seeded faults per question, so `tala diagnose` can be checked against a known cause:
  --faults FILE     JSON Lines of {"user_input", "fault"}, the fault one of
                    retriever  retrieval misses: the chunks ranked just below the top 3 come back
                    ignore     the generator ignores its contexts and answers from "memory" (the
                               best sentence of the second-best chunk of the whole knowledge base)
                    last       the generator reads only the last of its contexts
                    claim      the answer gains a sentence no chunk supports
Standard library only.
"""

import argparse
import json
import math
import os
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
KNOWLEDGE_BASE = os.path.join(HERE, "..", "data", "knowledge_base.jsonl")
STOPWORDS = set("a an the is are was were be been of to in on at for from by with and or how "
                "what when where which who whom why do does did can could i my me it its this "
                "that there their they you your much many long".split())
UNSUPPORTED = "Tickets are also sold at every kiosk in the city, and seniors ride free on weekends."


def words(text):
    return [w for w in re.findall(r"[a-z0-9]+(?:[.:][0-9]+)?", text.lower()) if w not in STOPWORDS]


class Bm25:
    def __init__(self, chunks, k1=1.2, b=0.75):
        self.chunks = chunks
        self.docs = [words(c["text"]) for c in chunks]
        self.avg = sum(map(len, self.docs)) / len(self.docs)
        self.k1, self.b = k1, b
        df = {}
        for doc in self.docs:
            for w in set(doc):
                df[w] = df.get(w, 0) + 1
        n = len(self.docs)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}

    def search(self, question, k):
        query = set(words(question))
        scored = []
        for i, doc in enumerate(self.docs):
            score = 0.0
            for w in query:
                tf = doc.count(w)
                if tf:
                    norm = tf + self.k1 * (1 - self.b + self.b * len(doc) / self.avg)
                    score += self.idf[w] * tf * (self.k1 + 1) / norm
            scored.append((-score, i))
        scored.sort()
        return [self.chunks[i] for _, i in scored[:k]]


FAULTS = ("retriever", "ignore", "last", "claim")


def best_sentence(question, contexts):
    """The sentence of the chunks sharing the most words with the question (first chunk wins)."""
    query = set(words(question))
    best, best_overlap = "", -1
    for chunk in contexts:
        for sentence in re.split(r"(?<=[.!?])\s+", chunk["text"]):
            overlap = len(query & set(words(sentence)))
            if overlap > best_overlap:
                best, best_overlap = sentence, overlap
    return best


def given_chunks(contexts):
    """Passages given with a request, as chunks; ValueError when they are not a list of passages."""
    if not isinstance(contexts, list):
        raise ValueError("contexts must be a list of passages")
    chunks = []
    for i, c in enumerate(contexts):
        if isinstance(c, str):
            chunks.append({"id": f"given-{i + 1}", "text": c})
        elif isinstance(c, dict) and isinstance(c.get("text"), str):
            chunks.append({"id": str(c.get("id", f"given-{i + 1}")), "text": c["text"]})
        else:
            raise ValueError(f"contexts[{i}] must be a string or an object with a text")
    return chunks


FOLLOW_UPS = ("and ", "but ", "also ", "so ", "what about", "how about")


def with_what_came_before(question, messages):
    """A follow-up ("And for children?") is searched with the user's question before it, from
    the conversation so far (`messages`: [{"role": "user"|"assistant", "content"}], the current
    question last)."""
    if not isinstance(messages, list):
        return question
    earlier = [m.get("content", "") for m in messages[:-1]
               if isinstance(m, dict) and m.get("role") == "user"]
    lower = question.strip().lower()
    if earlier and (len(lower.split()) <= 3 or lower.startswith(FOLLOW_UPS)):
        return earlier[-1] + " " + question
    return question


class App:
    def __init__(self, broken=None, k=3, faults=None, delay_ms=0):
        with open(KNOWLEDGE_BASE, encoding="utf-8") as f:
            self.index = Bm25([json.loads(line) for line in f if line.strip()])
        self.broken, self.k, self.faults, self.delay = broken, k, faults or {}, delay_ms / 1000

    def answer(self, question, contexts=None, messages=None):
        if not isinstance(question, str) or not question.strip():
            raise ValueError("the question must be a non-empty string")
        if self.delay:
            time.sleep(self.delay)
        fault = self.faults.get(question.strip())
        question = with_what_came_before(question, messages)
        if contexts is not None:
            chunks = given_chunks(contexts)
        else:
            ranked = self.index.search(question, 2 * self.k + 1)
            if fault == "retriever":
                chunks = ranked[self.k:2 * self.k]
            else:
                chunks = ranked[1:self.k + 1] if self.broken == "rank" else ranked[:self.k]
        if fault == "ignore":
            best = best_sentence(question, self.index.search(question, 2)[1:])
        elif fault == "last":
            best = best_sentence(question, chunks[-1:])
        else:
            best = best_sentence(question, chunks)
        if self.broken == "claim" or fault == "claim":
            best = f"{best} {UNSUPPORTED}".strip()
        return {"answer": best, "contexts": [{"id": c["id"], "text": c["text"]} for c in chunks]}


def read_faults(path):
    faults = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            if row.get("fault") is None:
                continue
            if row["fault"] not in FAULTS:
                sys.exit(f"{path}:{n}: fault must be one of {', '.join(FAULTS)}")
            faults[row["user_input"].strip()] = row["fault"]
    return faults


def serve(app, port):
    class Handler(BaseHTTPRequestHandler):
        # Kept-alive connections (tala run's client reuses them), each reply sent at once: with
        # Nagle's algorithm the body waited for the client's delayed ACK, ~40 ms a request.
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def do_POST(self):
            try:
                length = int(self.headers.get("Content-Length", 0))
                request = json.loads(self.rfile.read(length))
                body = app.answer(request.get("question"), request.get("contexts"),
                                  request.get("messages"))
                status = 200
            except (ValueError, AttributeError) as e:
                body, status = {"error": str(e)}, 400
            data = json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    class Server(ThreadingHTTPServer):
        request_queue_size = 128  # tala calls with many connections at once
        daemon_threads = True

    server = Server(("127.0.0.1", port), Handler)
    print(f"rag_app listening on http://127.0.0.1:{server.server_address[1]}/", flush=True)
    server.serve_forever()


def jsonl(app):
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            reply = dict(app.answer(request.get("user_input"), request.get("contexts"),
                                    request.get("messages")), id=request.get("id"))
        except ValueError as e:
            reply = {"id": request.get("id"), "error": str(e)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["serve", "jsonl"])
    parser.add_argument("--port", type=int, default=8765, help="serve: the port (0: any free)")
    parser.add_argument("--broken", choices=["rank", "claim"], help="a deliberately broken variant")
    parser.add_argument("--faults", metavar="FILE", help="seeded faults per question (see above)")
    parser.add_argument("--delay-ms", type=float, default=0,
                        help="wait this long before each answer, as a model would (benchmarks)")
    args = parser.parse_args()
    app = App(broken=args.broken, faults=read_faults(args.faults) if args.faults else None,
              delay_ms=args.delay_ms)
    if args.mode == "serve":
        serve(app, args.port)
    else:
        jsonl(app)


if __name__ == "__main__":
    main()
