#!/usr/bin/env python3
"""What each judge request layout bills (issue 56): --layout separate, row-first, combined and
auto, on short and on long rows, through a mock whose prompt cache works as the providers' do.

    /usr/bin/python3 bench/prompt_layouts.py [BUILD_DIR]     (default: build)

For each row set, provider and layout, a fresh `tala-mock-judge --prefix-cache 1024` answers one
`tala eval` of the core four metrics (faithfulness, context precision and recall, response
relevancy; embeddings offline, so only chat calls are counted). The mock counts what a provider's
cache would serve: OpenAI the longest start of a prompt (schema, then messages) an earlier request
had, in 128-token steps from 1,024 on; Anthropic the starts that end at the blocks tala marks
(the instructions), read at a tenth and written at 1.25 times the input price. Tokens are 4
characters, as everywhere in the mock.

Printed per sample: chat calls, prompt tokens, and billed input tokens in uncached-token
equivalents: OpenAI with cached input at half the price (gpt-4o-mini), Anthropic at a tenth with
writes at 1.25; and each layout's ratio to today's (separate) on the same rows and provider.

Row sets, built from bench/data/sources (ARES samples; see its README):
  short  NQ questions, the answer, five one-sentence contexts (about 300 data tokens a row)
  long   NQ questions, the answer, its passage and others up to about 6,400 characters (about
         1,600 data tokens a row)
"""
import gzip
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS = 40


def items():
    with gzip.open(os.path.join(HERE, "data", "sources", "nq.jsonl.gz"), "rt") as f:
        return [json.loads(line) for line in f]


def first_sentence(text):
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    return m.group(1) if m else text


def row_sets():
    nq = items()
    short, long = [], []
    for i, item in enumerate(nq[:ROWS]):
        others = [nq[(i + k) % len(nq)] for k in range(1, len(nq))]
        answer = item["answer"].strip()
        base = {"id": item["id"], "user_input": item["question"],
                "response": f"The answer is {answer}.", "reference": f"{answer}."}
        short.append(dict(base, retrieved_contexts=[first_sentence(item["knowledge"])] +
                          [first_sentence(o["knowledge"]) for o in others[:4]]))
        contexts, size = [item["knowledge"]], len(item["knowledge"])
        for o in others:
            if size >= 6000:
                break
            contexts.append(o["knowledge"])
            size += len(o["knowledge"])
        long.append(dict(base, retrieved_contexts=contexts))
    return {"short": short, "long": long}


def measure(build, rows_path, provider, layout, workdir):
    mock = subprocess.Popen([os.path.join(build, "tala-mock-judge"), "--prefix-cache", "1024"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = mock.stdout.readline().strip()
        model = "gpt-4o-mini" if provider == "openai" else "claude-sonnet-4-5"
        out = os.path.join(workdir, f"{provider}-{layout}.jsonl")
        subprocess.run([os.path.join(build, "tala"), "eval", rows_path, "--judge",
                        f"{provider}:{model}", "--base-url", url, "--embeddings", "offline",
                        "--cache", "off", "--layout", layout, "--metrics",
                        "faithfulness,context_precision,context_recall,response_relevancy",
                        "-o", out, "--overwrite"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        mock.send_signal(signal.SIGTERM)
        _, err = mock.communicate(timeout=30)
    m = re.search(r"(\d+) requests, (\d+) prompt tokens \((\d+) read from the prompt cache, "
                  r"(\d+) written to it\)", err)
    requests, prompt, read, written = (int(x) for x in m.groups())
    return requests, prompt, read, written


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    print("| rows | provider | layout | chat calls | prompt tokens | billed input tokens "
          "| vs separate |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as workdir:
        for name, rows in row_sets().items():
            path = os.path.join(workdir, f"{name}.jsonl")
            with open(path, "w") as f:
                for r in rows:
                    f.write(json.dumps(r) + "\n")
            for provider in ("openai", "anthropic"):
                base = None
                for layout in ("separate", "row-first", "combined", "auto"):
                    requests, prompt, read, written = measure(build, path, provider, layout,
                                                              workdir)
                    if provider == "openai":
                        billed = prompt - read + 0.5 * read
                    else:
                        billed = prompt - read - written + 0.1 * read + 1.25 * written
                    n = len(rows)
                    base = base or billed
                    print(f"| {name} | {provider} | {layout} | {requests / n:.2f} | "
                          f"{prompt / n:.0f} | {billed / n:.0f} | {billed / base:.2f} |")


if __name__ == "__main__":
    main()
