"""The configurations docs/production.md gives for running tala serve are checked by the tools
that read them: promtool (`make test-deps` installs Debian's prometheus) for the scrape config and
the alert rules, and, for the OpenTelemetry Collector's otlphttp exporter, a real `tala serve` with
a token taking what that exporter sends: protobuf, gzipped, with the configured header, at the
configured path (the bytes are the OpenTelemetry JS SDK's proto exporter's, recorded once)."""

import gzip
import os
import re
import subprocess
import time
import urllib.request

import pytest
import yaml

SOURCE = os.environ.get("TALA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("TALA_BINARY_DIR", os.path.join(SOURCE, "build"))
CHECK = re.compile(r"<!-- check: (?P<name>[\w.-]+) -->\n```yaml\n(?P<body>.*?)```", re.S)


def blocks():
    with open(os.path.join(SOURCE, "docs", "production.md"), encoding="utf-8") as f:
        return {m.group("name"): m.group("body") for m in CHECK.finditer(f.read())}


def test_the_page_has_the_three_configurations():
    assert set(blocks()) == {"prometheus.yml", "tala-rules.yml", "collector.yaml"}


def test_promtool_accepts_the_scrape_config_and_the_rules(tmp_path):
    for name, body in blocks().items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    (tmp_path / "tala-token").write_text("t0ken\n")
    config = (tmp_path / "prometheus.yml").read_text().replace("/etc/prometheus/tala-token",
                                                               str(tmp_path / "tala-token"))
    (tmp_path / "prometheus.yml").write_text(config)
    done = subprocess.run(["promtool", "check", "config", str(tmp_path / "prometheus.yml")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout + done.stderr
    rules = subprocess.run(["promtool", "check", "rules", str(tmp_path / "tala-rules.yml")],
                           capture_output=True, text=True)
    assert rules.returncode == 0, rules.stdout + rules.stderr
    assert "6 rules found" in rules.stdout + rules.stderr


def test_the_collectors_exporter_reaches_tala_serve(tmp_path):
    config = yaml.safe_load(blocks()["collector.yaml"])
    exporter = config["exporters"]["otlphttp/tala"]
    assert "otlphttp/tala" in config["service"]["pipelines"]["traces"]["exporters"]
    assert exporter["encoding"] == "proto" and exporter["compression"] == "gzip"
    url = exporter["traces_endpoint"]
    m = re.fullmatch(r"http://127\.0\.0\.1:(\d+)(/v1/traces)", url)
    assert m, url
    token = "s3cret-for-the-docs"
    headers = {k: v.replace("${env:TALA_SERVE_TOKEN}", token)
               for k, v in exporter["headers"].items()}
    serve = subprocess.Popen([os.path.join(BINARY, "tala"), "serve", "--db",
                              str(tmp_path / "t.sqlite"), "--port", "0", "--token", token,
                              "--trace-linger", "0"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        base = serve.stdout.readline().strip()
        with open(os.path.join(SOURCE, "tests", "data", "otlp", "js_sdk_trace.pb"), "rb") as f:
            body = gzip.compress(f.read())
        request = urllib.request.Request(
            base + m.group(2), data=body, method="POST",
            headers={**headers, "Content-Type": "application/x-protobuf",
                     "Content-Encoding": "gzip"})
        with urllib.request.urlopen(request, timeout=30) as reply:
            assert reply.status == 200
            assert reply.headers["Content-Type"] == "application/x-protobuf"
        # The trace becomes a row (its root span has ended; no linger here).
        scrape = urllib.request.Request(base + "/metrics",
                                        headers={"Authorization": "Bearer " + token})
        text = ""
        for _ in range(300):
            with urllib.request.urlopen(scrape, timeout=30) as reply:
                text = reply.read().decode()
            if "tala_rows_ingested_total 1\n" in text:
                break
            time.sleep(0.1)
        assert "tala_rows_ingested_total 1\n" in text
        assert "tala_traces_received_total 1\n" in text
        # Without the header the serve refuses it: the header is what makes the config work.
        bare = urllib.request.Request(base + m.group(2), data=body, method="POST",
                                      headers={"Content-Type": "application/x-protobuf",
                                               "Content-Encoding": "gzip"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(bare, timeout=30)
        assert refused.value.code == 401
    finally:
        serve.terminate()
        serve.wait()
