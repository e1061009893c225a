"""The dashboard of `tala serve` as a person sees it: a screenshot in headless Chromium.

A day of traffic, a row every 15 minutes, is drawn on the default (24-hour) view. Before this
view existed, the 7-day chart put a recent day of rows into a few dots at its right edge; here
the first metric's line must run across the chart, read off the screenshot's pixels.
"""
import json
import os
import shutil
import subprocess
import time
import urllib.request

import pytest

Image = pytest.importorskip("PIL.Image", reason="make test-deps installs python3-pil")

SOURCE = os.environ.get("TALA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("TALA_BINARY_DIR", os.path.join(SOURCE, "build"))
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-extensions", "--no-first-run", "--disable-dev-shm-usage", "--hide-scrollbars",
         "--force-device-scale-factor=1", "--window-size=1400,1000",
         "--virtual-time-budget=10000"]
LINE = (0x3A, 0x5B, 0xD9)  # the charts' line colour (--accent)


def near(pixel, colour, tolerance=40):
    return all(abs(int(a) - b) <= tolerance for a, b in zip(pixel[:3], colour))


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="make test-deps installs chromium")
def test_a_day_of_traffic_runs_across_the_24_hour_chart(tmp_path):
    serve = subprocess.Popen([os.path.join(BINARY, "tala"), "serve", "--db",
                              str(tmp_path / "t.sqlite"), "--port", "0"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        base = serve.stdout.readline().strip()
        with open(os.path.join(SOURCE, "examples", "data", "interactions.jsonl")) as f:
            examples = [json.loads(line) for line in f if line.strip()]
        now = time.time()
        rows = []
        for k in range(96):
            row = dict(examples[k % len(examples)])
            row["id"] = "shot-%d" % k
            row["timestamp"] = now - 60 - k * 900
            rows.append(json.dumps(row))
        post = urllib.request.Request(base + "/v1/interactions", data="\n".join(rows).encode(),
                                      method="POST",
                                      headers={"Content-Type": "application/x-ndjson"})
        with urllib.request.urlopen(post, timeout=30) as reply:
            assert reply.status == 202
        for _ in range(600):
            with urllib.request.urlopen(base + "/v1/summary?window=1d", timeout=30) as reply:
                summary = json.load(reply)
            if summary["rows_pending"] == 0 and summary["rows_scored"] == 96:
                break
            time.sleep(0.1)
        assert summary["rows_scored"] == 96, summary
        with urllib.request.urlopen(base + "/", timeout=30) as reply:
            page = reply.read()
    finally:
        serve.terminate()
        serve.wait()
    html = tmp_path / "dashboard.html"
    html.write_bytes(page)
    # Where the first chart is, from the page itself, at the screenshot's window size.
    dom = subprocess.run([CHROMIUM, *FLAGS, "--dump-dom", "file://%s#layout" % html],
                         capture_output=True, text=True, timeout=120).stdout
    marker = '<pre id="layout">LAYOUT '
    assert marker in dom, "the page did not report its layout"
    left, top, width, height = (int(v) for v in
                                dom.split(marker, 1)[1].split("<", 1)[0].split(","))
    shot = tmp_path / "dashboard.png"
    subprocess.run([CHROMIUM, *FLAGS, "--screenshot=%s" % shot, "file://%s" % html],
                   capture_output=True, timeout=120)
    image = Image.open(shot).convert("RGB")
    assert image.size == (1400, 1000)
    assert top + height <= image.size[1], "the first chart is below the fold"
    pixels = image.load()
    columns = [x for x in range(left, left + width)
               if any(near(pixels[x, y], LINE) for y in range(top, top + height))]
    assert columns, "no line drawn in the first chart"
    # A row every 15 minutes over the day: the line spans the chart, not a dot at its edge.
    assert (max(columns) - min(columns)) >= 0.9 * width, (min(columns), max(columns), width)
    assert len(columns) >= 0.8 * width, (len(columns), width)
