#!/usr/bin/python3
"""A small but real RAG app over the demo knowledge base, for `tala run` and `tala ci`.

Retrieval: BM25 (k1 1.2, b 0.75) over the chunks of examples/data/knowledge_base.jsonl, top 3.
Generation: extractive, no model: the sentence of the retrieved chunks that shares the most words
with the question (ties go to the higher-ranked chunk).

It answers in two ways, as `tala run` calls it:
  rag_app.py serve [--port 8765]   HTTP: POST {"question": ...} -> {"answer", "contexts": [{id, text}]}
  rag_app.py jsonl                 JSON Lines on stdin/stdout: {"id", "user_input"} -> {"id", "answer", "contexts"}

and has two deliberately broken variants, so `tala ci --baseline` shows a regression caught:
  --broken rank     retrieval off by one rank (the best chunk is dropped)
  --broken claim    every answer gains a sentence no chunk supports
Standard library only.
"""

import argparse
import json
import math
import os
import re
import sys
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


class App:
    def __init__(self, broken=None, k=3):
        with open(KNOWLEDGE_BASE, encoding="utf-8") as f:
            self.index = Bm25([json.loads(line) for line in f if line.strip()])
        self.broken, self.k = broken, k

    def answer(self, question):
        if not isinstance(question, str) or not question.strip():
            raise ValueError("the question must be a non-empty string")
        ranked = self.index.search(question, self.k + 1)
        contexts = ranked[1:] if self.broken == "rank" else ranked[:self.k]
        query = set(words(question))
        best, best_overlap = "", -1
        for chunk in contexts:
            for sentence in re.split(r"(?<=[.!?])\s+", chunk["text"]):
                overlap = len(query & set(words(sentence)))
                if overlap > best_overlap:
                    best, best_overlap = sentence, overlap
        if self.broken == "claim":
            best = f"{best} {UNSUPPORTED}"
        return {"answer": best, "contexts": [{"id": c["id"], "text": c["text"]} for c in contexts]}


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
                body, status = app.answer(request.get("question")), 200
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
            reply = dict(app.answer(request.get("user_input")), id=request.get("id"))
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
    args = parser.parse_args()
    app = App(broken=args.broken)
    if args.mode == "serve":
        serve(app, args.port)
    else:
        jsonl(app)


if __name__ == "__main__":
    main()
