#!/usr/bin/python3
"""A stand-in for a user's app behind `exec:` / `exec-once:`, with faults on demand.

JSON Lines mode (default): one request line in, one reply line out, {"id", "answer", "contexts"}.
  --pairs          answer requests two at a time, in reverse order (ids must match them up)
  --crash-on ID    exit with status 3 on the request of this id, the first time only (a marker
                   file beside --state records it), after writing a line to stderr
  --garbage-on ID  reply to this id with a line that is not JSON, then carry on
  --sleep-ms MS    wait before each reply
--once: read one request from stdin, print one reply, exit (exec-once); --fail-once-on ID exits
  with status 2 and a stderr line for that id.
"""

import argparse
import json
import os
import sys
import time


def reply(request):
    question = request.get("user_input", "")
    return {"id": request.get("id"), "answer": f"echo: {question}",
            "contexts": [{"id": f"doc-{request.get('id')}", "text": f"about {question}"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3}}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pairs", action="store_true")
    p.add_argument("--crash-on")
    p.add_argument("--garbage-on")
    p.add_argument("--sleep-ms", type=int, default=0)
    p.add_argument("--state", default="")
    p.add_argument("--once", action="store_true")
    p.add_argument("--fail-once-on")
    args = p.parse_args()
    if args.once:
        request = json.loads(sys.stdin.readline())
        if args.fail_once_on and str(request.get("id")) == args.fail_once_on:
            sys.stderr.write("fake_target: refusing this one\n")
            sys.exit(2)
        sys.stderr.write(f"fake_target: answered {request.get('id')}\n")
        print(json.dumps(reply(request)))
        return
    pending = []
    for line in sys.stdin:
        request = json.loads(line)
        rid = str(request.get("id"))
        marker = os.path.join(args.state, "crashed") if args.state else ""
        if args.crash_on == rid and marker and not os.path.exists(marker):
            open(marker, "w").close()
            sys.stderr.write("fake_target: crashing on purpose\n")
            sys.stderr.flush()
            sys.exit(3)
        if args.garbage_on == rid:
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
            continue
        pending.append(request)
        if args.pairs and len(pending) < 2:
            continue
        time.sleep(args.sleep_ms / 1000)
        for r in reversed(pending):
            sys.stdout.write(json.dumps(reply(r)) + "\n")
        sys.stdout.flush()
        pending = []
    for r in pending:
        sys.stdout.write(json.dumps(reply(r)) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
