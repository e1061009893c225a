"""tala.dask: one evaluation spread over a Dask cluster, merged into one Result.

Each task scores one shard with tala's engine in a worker process (the same C++ engine
tala.evaluate runs) and writes an ordinary results file plus its merge state; the client joins
the shards with tala.merge, so the Result equals the one a single tala.evaluate would give: the
same rows in the same order, the same means and intervals. A task whose worker dies is run again
by Dask; a shard's file appears only once it is complete, so a retried shard duplicates nothing.

Budgets are global: ``max_in_flight``, ``requests_per_minute`` and ``tokens_per_minute`` are
divided among the cluster's worker threads (the most shards that can run at once), so the whole
cluster stays within a provider's limits. See docs/scale.md.
"""

import ipaddress
import json
import os
import shutil
import socket
import tempfile
import threading
from urllib.parse import urlparse

from . import _names, _tala
from ._evaluate import OPTIONS, _is_dataframe, merge

_DEFAULT_IN_FLIGHT = 32  # tala eval's --max-in-flight


def _is_dask_dataframe(data):
    return type(data).__module__.startswith("dask.") and hasattr(data, "to_delayed")


def _local(address):
    host = urlparse(address).hostname or ""
    if host in ("localhost", socket.gethostname()):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def split_budget(options, slots):
    """Each task's share of the global budgets when ``slots`` tasks may run at once: integer
    shares round down (at least 1 request in flight), rates are divided exactly, so the sum
    over the cluster never exceeds the global limit."""
    share = dict(options)
    slots = max(1, int(slots))
    in_flight = options.get("max_in_flight") or _DEFAULT_IN_FLIGHT
    share["max_in_flight"] = max(1, int(in_flight) // slots)
    for key in ("requests_per_minute", "tokens_per_minute"):
        if options.get(key):
            share[key] = float(options[key]) / slots
    return share


def _run_shard(task):
    """One shard, in a worker. Returns where its files are, or their bytes when the client
    cannot see the worker's disk."""
    from . import _evaluate as ev

    workdir = task["workdir"] or tempfile.mkdtemp(prefix="tala-shard-")
    out = os.path.join(workdir, f"shard-{task['index']:05d}.jsonl")
    dataset = task["dataset"]
    try:
        if task.get("frame") is not None:
            # A Dask partition: its rows, with the ids a single run would give them: the index
            # labels where the frame's index is known (sorted divisions), else their numbers.
            frame = task["frame"]
            if task.get("index_ids"):
                rows = ev._frame_rows(frame)[0]
            else:
                rows = frame.to_dict(orient="records")
            offset = task["offset"]
            for j, row in enumerate(rows):
                if row.get("id") is None or row.get("id") != row.get("id"):  # absent or NaN
                    row["id"] = offset + j + 1
            dataset = out + ".rows.jsonl"
            _tala.write_rows_jsonl(rows, dataset)
        ev.evaluate(dataset, metrics=task["metrics"], judge=task["judge"], out=out,
                    progress=False, shard=(task["index"], task["count"]), shard_by=task["by"],
                    **task["options"])
        if task["workdir"]:
            return {"path": out}
        with open(out, "rb") as f:
            results = f.read()
        with open(out + ".shard.json", "rb") as f:
            state = f.read()
        answer = {"results": results, "state": state}
        if os.path.exists(out + ".shard.rows"):  # lets the merge skip parsing the rows
            with open(out + ".shard.rows", "rb") as f:
                answer["rows"] = f.read()
        return answer
    finally:
        if task.get("frame") is not None and os.path.exists(dataset):
            os.remove(dataset)
        if not task["workdir"]:
            shutil.rmtree(workdir, ignore_errors=True)


def evaluate(data, metrics=None, judge="offline", out=None, client=None, shards=None,
             shard_by="range", endpoints=None, workdir=None, progress="auto", **options):
    """Scores ``data`` on a Dask cluster and returns the same Result as tala.evaluate.

    data: a dataset path every worker can read (split into ``shards`` by byte range or id
        hash), a list of paths (one shard each, in order), a Dask DataFrame (one shard per
        partition), or rows/a pandas DataFrame (written once, then split).
    client: a ``distributed.Client``; None starts a LocalCluster of processes for this call.
    shards: how many parts a path is split into; default twice the worker threads, so a
        retried part is small.
    shard_by: "range" (a JSON Lines file is split by bytes: each task reads only its part) or
        "hash" (by row id).
    endpoints: judge base URLs to spread the shards over (shard i uses endpoints[i % len]).
    workdir: a folder every worker and this process can reach, for the shard files; None: a
        temporary one when the workers run on this machine, else the shards travel back
        through Dask.
    options: tala.evaluate's options. ``max_in_flight``, ``requests_per_minute`` and
        ``tokens_per_minute`` are the cluster's totals, divided among its worker threads.

    A script that starts its own cluster (client=None) must guard its entry point, because the
    worker processes import the script again::

        if __name__ == "__main__":
            result = tala.dask.evaluate("rows.jsonl", shards=8)
    """
    unknown = sorted(set(options) - OPTIONS)
    if unknown:
        raise TypeError(f"tala.dask.evaluate got unknown options {', '.join(unknown)}")
    if "shard" in options or "shard_by" in options:
        raise TypeError("tala.dask.evaluate makes the shards itself: pass shards= and "
                        "shard_by=, not shard")
    if options.get("resume") or (options.get("repeats") or 1) > 1 or options.get("labels"):
        raise TypeError("resume, repeats and labels are not for sharded runs; give labels to "
                        "tala estimate on the merged results")
    if shard_by not in ("range", "hash"):
        raise ValueError(f"shard_by must be 'range' or 'hash', not {shard_by!r}")
    metrics = _names.metric_list(metrics)
    import distributed

    own_cluster = None
    if client is None:
        own_cluster = distributed.LocalCluster(processes=True)
        client = distributed.Client(own_cluster)
    scratch = tempfile.mkdtemp(prefix="tala-dask-")
    try:
        return _evaluate_on(client, data, metrics, judge, out, shards, shard_by, endpoints,
                            workdir, progress, options, scratch)
    finally:
        if own_cluster is not None:
            client.close()
            own_cluster.close()
        _remove_in_background(scratch)


def _remove_in_background(folder):
    """Removes the shard files (as large as the results themselves) on a thread of their own,
    so the Result is returned without waiting for them. Python waits for the thread at exit."""
    threading.Thread(target=shutil.rmtree, args=(folder,), kwargs={"ignore_errors": True},
                     name="tala-dask-cleanup").start()


def _evaluate_on(client, data, metrics, judge, out, shards, shard_by, endpoints, workdir,
                 progress, options, scratch):
    workers = client.scheduler_info()["workers"]
    if not workers:
        raise RuntimeError("the Dask cluster has no workers")
    slots = sum(w.get("nthreads", 1) for w in workers.values())
    shared = workdir is not None or all(_local(a) for a in workers)
    shard_dir = os.fspath(workdir) if workdir is not None else (
        os.path.join(scratch, "shards") if shared else None)
    if shard_dir:
        os.makedirs(shard_dir, exist_ok=True)
    if options.get("cache") not in (None, "off"):
        options["cache"] = os.path.abspath(options["cache"])
    elif options.get("cache") is None:
        # One SQLite file (WAL) shared by the processes of each machine.
        options["cache"] = os.path.abspath(os.path.join(".tala", "cache.sqlite"))
    share = split_budget(options, slots)
    base = {"metrics": metrics or None, "judge": judge, "workdir": shard_dir}
    tasks, label = _tasks(client, data, shards, shard_by, slots, base)
    for i, task in enumerate(tasks):
        task["options"] = dict(share)
        if endpoints:
            task["options"]["base_url"] = endpoints[i % len(endpoints)]
    futures = client.map(_run_shard, tasks, pure=False, key=[
        f"tala-shard-{i}-{os.path.basename(scratch)}" for i in range(len(tasks))])
    paths = _collect(futures, scratch, progress)
    answer_out = os.fspath(out) if out is not None else None
    keep = None
    if answer_out is None:
        keep = tempfile.mkdtemp(prefix="tala-")
        answer_out = os.path.join(keep, "results.jsonl")
    try:
        result = merge(paths, out=answer_out, dataset_name=label)
    except BaseException:
        if keep is not None:
            shutil.rmtree(keep, ignore_errors=True)
        raise
    result._keep_dir = keep
    return result


def _tasks(client, data, shards, shard_by, slots, base):
    """The shard tasks for ``data`` and the dataset name for the merged manifest."""
    if isinstance(data, (list, tuple)) and data and all(
            isinstance(p, (str, os.PathLike)) for p in data):
        n = len(data)
        return [dict(base, dataset=os.path.abspath(os.fspath(p)), index=i, count=n,
                     by="partition") for i, p in enumerate(data)], ",".join(map(os.fspath, data))
    if _is_dask_dataframe(data):
        lengths = data.map_partitions(len).compute().tolist()
        offsets = [sum(lengths[:i]) for i in range(len(lengths))]
        # Each partition is computed where Dask likes and handed to its shard's task.
        parts = client.compute(data.to_delayed())
        n = len(parts)
        return [dict(base, dataset="", frame=part, offset=offsets[i], index=i, count=n,
                     by="partition", index_ids=bool(data.known_divisions))
                for i, part in enumerate(parts)], "dask dataframe"
    if isinstance(data, (str, os.PathLike)):
        path = os.path.abspath(os.fspath(data))
        label = os.fspath(data)
    else:
        # Rows in memory: written once where the workers can read them.
        if base["workdir"] is None:
            raise ValueError("rows in memory need workdir= on a filesystem the workers share, "
                             "or a dataset path they can read")
        if _is_dataframe(data):
            from ._evaluate import _frame_rows
            data = _frame_rows(data)[0]  # ids from the index, as tala.evaluate gives them
        path = os.path.join(base["workdir"], "rows.jsonl")
        _tala.write_rows_jsonl(data, path)
        label = "rows"
    n = int(shards) if shards else 2 * slots
    if n < 1:
        raise ValueError("shards must be at least 1")
    return [dict(base, dataset=path, index=i, count=n, by=shard_by) for i in range(n)], label


def _collect(futures, scratch, progress):
    """Waits for every shard (Dask retries those whose worker died) and returns their results
    files, in shard order."""
    import distributed

    bar = None
    if progress is True or (progress == "auto" and _tty()):
        try:
            from tqdm import tqdm
            bar = tqdm(total=len(futures), unit="shard", desc="tala.dask")
        except ImportError:
            bar = None
    order = {f.key: i for i, f in enumerate(futures)}
    paths = [None] * len(futures)
    try:
        for future in distributed.as_completed(futures):
            i = order[future.key]
            got = future.result()  # raises the shard's error (TalaError, KeyboardInterrupt...)
            if "path" in got:
                paths[i] = got["path"]
            else:
                path = os.path.join(scratch, f"shard-{i:05d}.jsonl")
                with open(path, "wb") as f:
                    f.write(got["results"])
                with open(path + ".shard.json", "wb") as f:
                    f.write(got["state"])
                if "rows" in got:
                    with open(path + ".shard.rows", "wb") as f:
                        f.write(got["rows"])
                    _keep_modified_time(path, got["state"])
                paths[i] = path
            if callable(progress):
                progress(sum(p is not None for p in paths), len(paths))
            if bar is not None:
                bar.update(1)
    except BaseException:
        for f in futures:
            f.cancel()
        raise
    finally:
        if bar is not None:
            bar.close()
    return paths


def _keep_modified_time(path, state):
    """Gives a results file that travelled back from a worker the modification time its shard
    recorded: the merge then trusts the shard's rows file instead of parsing every row again."""
    try:
        modified = json.loads(state)["rows"]["file_modified_ns"]
        os.utime(path, ns=(modified, modified))
    except (ValueError, KeyError, TypeError, OSError):
        pass  # the merge parses the rows instead


def _tty():
    import sys
    return sys.stderr.isatty()


__all__ = ["evaluate", "split_budget"]
