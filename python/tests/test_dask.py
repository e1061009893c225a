"""Past one process: shards joined by tala.merge, and tala.dask on a real multi-process
LocalCluster — the same results as one process, a killed worker's shard run again without a
row lost or duplicated, a global request budget kept across workers."""

import hashlib
import json
import os
import random
import signal
import subprocess
import tempfile
import threading

import distributed
import pytest

import tala
import tala.dask

SOURCE = os.environ.get("TALA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("TALA_BINARY_DIR", os.path.join(SOURCE, "build"))
DEMO = os.path.join(SOURCE, "examples", "data", "interactions.jsonl")
# Non-LLM metrics and the offline judge's, as a team scoring every logged interaction runs.
BULK_METRICS = ["faithfulness", "context_recall", "hit_rate", "mrr", "ndcg", "rouge"]


def write_rows(path, n, seed=1):
    rng = random.Random(seed)
    words = ("fare pass ticket bus tram ferry night station refund card student monthly "
             "single ride price euro minute hour").split()
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            a, b = rng.sample(words, 2), rng.sample(words, 3)
            right = rng.random() < 0.8
            f.write(json.dumps({
                "id": f"r{i}",
                "user_input": f"How much is the {a[0]} {a[1]}?",
                "response": f"The {a[0]} {a[1]} costs {i % 50 if right else i % 50 + 1} euros.",
                "retrieved_contexts": [f"The {a[0]} {a[1]} costs {i % 50} euros.",
                                       f"The {b[0]} is {b[1]} on {b[2]}."],
                "retrieved_context_ids": [f"c{i % 97}", f"c{(i + 1) % 97}"],
                "reference_context_ids": [f"c{i % 97}" if right else "c-none"],
                "reference": f"It costs {i % 50} euros.",
            }) + "\n")


def row_lines_digest(path):
    """A digest of a results file's lines, its manifest (which is dated) left out."""
    digest, rows = hashlib.sha256(), 0
    with open(path, "rb") as f:
        for line in f:
            if line.startswith(b'{"tala_manifest"'):
                continue
            digest.update(line)
            rows += 1
    return digest.hexdigest(), rows


def same_run(a, b):
    assert a.summary() == b.summary()
    assert a.diagnoses == b.diagnoses
    assert str(a) == str(b)
    assert row_lines_digest(a.results_path) == row_lines_digest(b.results_path)


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=":0") as c, distributed.Client(c) as client:
        yield client


def test_shards_merge_into_the_single_run(tmp_path):
    single = tala.evaluate(DEMO, out=tmp_path / "single.jsonl", progress=False)
    for by in ("range", "hash"):
        parts = [tmp_path / f"{by}-{i}.jsonl" for i in range(4)]
        for i, part in enumerate(parts):
            tala.evaluate(DEMO, out=part, shard=(i, 4), shard_by=by, progress=False)
            assert os.path.exists(f"{part}.shard.json")
        merged = tala.merge(reversed(parts), out=tmp_path / f"merged-{by}.jsonl")
        same_run(single, merged)
        with pytest.raises(tala.InvalidArgumentError, match="missing: 2/4"):
            tala.merge(parts[:2] + parts[3:])
    os.remove(f"{parts[1]}.shard.json")
    with pytest.raises(tala.NotFoundError, match="has not finished"):
        tala.merge(parts)
    with pytest.raises(TypeError, match="needs out="):
        tala.evaluate(DEMO, shard=(0, 2))
    with pytest.raises(tala.InvalidArgumentError, match="must be below the count"):
        tala.evaluate(DEMO, shard="2/2", out=tmp_path / "x.jsonl")


def test_200k_rows_on_two_workers_equal_one_process_with_a_worker_killed(tmp_path, cluster):
    data = tmp_path / "logs.jsonl"
    write_rows(data, 200_000)
    single = tala.evaluate(data, metrics=BULK_METRICS, out=tmp_path / "single.jsonl",
                           progress=False)
    killed = []

    def kill_a_busy_worker(done, total):
        # Once the first shard is in, kill -9 a worker that is scoring another one.
        if killed or done != 1:
            return
        for address, keys in cluster.processing().items():
            if keys:
                pid = cluster.run(os.getpid, workers=[address])[address]
                os.kill(pid, signal.SIGKILL)
                killed.append(address)
                return

    spread = tala.dask.evaluate(data, metrics=BULK_METRICS, client=cluster, shards=8,
                                out=tmp_path / "spread.jsonl", progress=kill_a_busy_worker)
    assert killed, "no worker was busy to kill"
    same_run(single, spread)
    assert spread.summary()["faithfulness"]["scored"] == 200_000


def test_the_shard_files_are_removed_once_merged(tmp_path, cluster, monkeypatch):
    single = tala.evaluate(DEMO, progress=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = tala.dask.evaluate(DEMO, client=cluster, shards=3, out=tmp_path / "r.jsonl",
                                progress=False)
    assert result.summary() == single.summary()
    for thread in threading.enumerate():
        if thread.name == "tala-dask-cleanup":
            thread.join()
    assert sorted(os.listdir(tmp_path)) == ["r.jsonl"]


def test_workers_without_a_shared_disk_send_their_shards_back(tmp_path, cluster, monkeypatch):
    # Workers on other machines: the shard files travel back through Dask, the results file
    # with the time its shard recorded, so the merge still counts it from its rows file.
    single = tala.evaluate(DEMO, progress=False)
    monkeypatch.setattr(tala.dask, "_local", lambda address: False)
    spread = tala.dask.evaluate(DEMO, client=cluster, shards=3, out=tmp_path / "r.jsonl",
                                progress=False)
    same_run(single, spread)
    part = tmp_path / "part.jsonl"
    tala.evaluate(DEMO, shard=(0, 2), out=part, progress=False)
    state = (tmp_path / "part.jsonl.shard.json").read_bytes()
    recorded = json.loads(state)["rows"]["file_modified_ns"]
    os.utime(part, ns=(recorded + 10**9, recorded + 10**9))  # as a copy would leave it
    tala.dask._keep_modified_time(str(part), state)
    assert os.stat(part).st_mtime_ns == recorded


def test_a_dask_dataframe_scores_as_the_same_pandas_rows(cluster):
    import dask.dataframe as dd
    import pandas

    frame = pandas.read_json(DEMO, lines=True).drop(columns=["id"])  # ids from the index
    whole = tala.evaluate(frame, progress=False)
    spread = tala.dask.evaluate(dd.from_pandas(frame, npartitions=3), client=cluster,
                                progress=False)
    same_run(whole, spread)
    # A frame without an id column: its index labels are the ids, as tala.evaluate gives them.
    assert [r["id"] for r in spread.rows][:3] == [0, 1, 2]


def test_the_global_budget_is_divided_among_the_worker_threads():
    share = tala.dask.split_budget({"max_in_flight": 10, "requests_per_minute": 60,
                                    "tokens_per_minute": 90000, "cache": "off"}, 4)
    assert share == {"max_in_flight": 2, "requests_per_minute": 15.0,
                     "tokens_per_minute": 22500.0, "cache": "off"}
    assert tala.dask.split_budget({}, 64)["max_in_flight"] == 1
    assert "requests_per_minute" not in tala.dask.split_budget({}, 2)


def start_mock(log):
    mock = subprocess.Popen([os.path.join(BINARY, "tala-mock-judge"), "--arrival-log", str(log)],
                            stdout=subprocess.PIPE, text=True)
    return mock, mock.stdout.readline().strip()


def test_two_workers_keep_a_global_60_rpm_measured_at_the_judge(tmp_path, cluster):
    rows = tmp_path / "sixteen.jsonl"
    with open(DEMO, encoding="utf-8") as f:
        rows.write_text("".join(f.readlines()[:16]))
    logs = [tmp_path / "arrivals-a.log", tmp_path / "arrivals-b.log"]
    mocks = [start_mock(log) for log in logs]
    try:
        result = tala.dask.evaluate(
            rows, metrics=["faithfulness"], judge="openai:mock-model", client=cluster, shards=2,
            endpoints=[url for _, url in mocks], requests_per_minute=60, cache="off",
            progress=False)
    finally:
        for mock, _ in mocks:
            mock.terminate()
            mock.wait()
    assert result.summary()["faithfulness"]["scored"] > 0
    seconds = []
    for log in logs:
        with open(log, encoding="utf-8") as f:
            arrived = [int(line) / 1e6 for line in f if line.strip()]
        assert arrived, f"{log}: the endpoints were not both used"
        seconds += arrived
    seconds.sort()
    assert len(seconds) >= 16  # one call a row
    # 60 per minute is one a second after a burst of a tenth of the minute's allowance (6), as
    # one process with the whole budget would send. Counted at the server, for every window;
    # one request of slack for network jitter.
    for i in range(len(seconds)):
        for j in range(i, len(seconds)):
            assert j - i + 1 <= 6 + (seconds[j] - seconds[i]) * 1.0 + 1, (i, j)
