# Type stubs for editors and type checkers: the public API of the tala package.
import os
from typing import (Any, Callable, Iterable, Iterator, Literal, Mapping, Sequence, TypedDict,
                    Union, overload)

PathLike = Union[str, os.PathLike[str]]
Rows = Union[PathLike, Iterable[Mapping[str, Any]], Any]  # a path, dicts, or a pandas DataFrame
Verdicts = dict[str, Any]

class MetricSummary(TypedDict):
    mean: float | None
    ci: tuple[float, float] | None
    median: float | None
    stddev: float | None
    interval: str
    scored: int
    undefined: int
    failed: int
    direction: Literal["higher", "lower"]

class MetricInfo(TypedDict):
    name: str
    aliases: list[str]
    required_fields: list[str]
    needs_llm: bool
    needs_embeddings: bool
    direction: Literal["higher", "lower"]
    definition: str
    offline_note: str
    version: str

class TalaError(Exception):
    code: str
    file: str
    line: int
    field: str
    errors: list[str]

__version__: str

class DatasetError(TalaError, ValueError):
    index: Any  # the DataFrame index label of the first bad row; None for files and lists
class InvalidArgumentError(TalaError, ValueError): ...
class NotFoundError(TalaError, FileNotFoundError): ...
class JudgeError(TalaError, RuntimeError): ...
class IoError(TalaError, OSError): ...

class Judge:
    name: str
    def answer(self, sample: dict[str, Any], tasks: list[str]) -> Verdicts | str: ...

JudgeLike = Union[str, Judge, Callable[[dict[str, Any], list[str]], Union[Verdicts, str]]]

class Result(Mapping[str, float | None]):
    results_path: str
    def __getitem__(self, metric: str) -> float | None: ...
    def __contains__(self, metric: object) -> bool: ...
    def __iter__(self) -> Iterator[str]: ...
    def __len__(self) -> int: ...
    def _repr_html_(self) -> str: ...
    def summary(self) -> dict[str, MetricSummary]: ...
    @property
    def judge(self) -> str: ...
    @property
    def diagnoses(self) -> dict[str, int]: ...
    @property
    def notes(self) -> list[str]: ...
    @property
    def rows(self) -> list[dict[str, Any]]: ...
    @property
    def scores(self) -> list[dict[str, float | None]]: ...
    def to_pandas(self) -> Any: ...
    def save(self, path: PathLike) -> PathLike: ...
    def report_html(self, path: PathLike) -> str: ...
    def report(self, html: PathLike = ..., markdown: PathLike = ..., csv: PathLike = ...,
               junit: PathLike = ...) -> list[str]: ...

def evaluate(
    data: Rows,
    metrics: Sequence[str | Any] | str | None = ...,  # names, or objects with a .name
    judge: JudgeLike = ...,
    out: PathLike | None = ...,
    progress: Union[bool, Literal["auto"], Callable[[int, int], None]] = ...,
    *,
    embeddings: str = ...,
    format: str = ...,
    labels: str = ...,
    k: Sequence[int] = ...,
    on_error: Literal["fail", "skip"] = ...,
    diagnosis_threshold: float = ...,
    diagnosis_thresholds: Mapping[str, float] = ...,
    judge_profile: str | os.PathLike[str] | None = ...,
    resume: bool = ...,
    overwrite: bool = ...,
    repeats: int = ...,
    threads: int = ...,
    base_url: str = ...,
    api_key: str = ...,
    embeddings_base_url: str = ...,
    temperature: float = ...,
    max_tokens: int = ...,
    structured_output: bool = ...,
    max_in_flight: int = ...,
    requests_per_minute: float = ...,
    tokens_per_minute: float = ...,
    timeout_ms: int = ...,
    max_retries: int = ...,
    batching: Literal["batched", "per-chunk"] = ...,
    layout: Literal["auto", "separate", "row-first", "combined"] = ...,
    prompt_cache_key: Literal["auto", "on", "off"] = ...,
    questions: int = ...,
    cache: str = ...,
    seed: int | None = ...,
    shard: tuple[int, int] | str | None = ...,
    shard_by: Literal["range", "hash", "partition"] = ...,
    user_metrics: Mapping[str, Mapping[str, Any]] = ...,
    rubrics: Mapping[str, str] = ...,
) -> Result: ...

def merge(shards: Sequence[PathLike], out: PathLike | None = ...,
          dataset_name: str | None = ...) -> Result: ...

class RunResult(os.PathLike[str]):
    dataset: str
    report: dict[str, Any]
    def __fspath__(self) -> str: ...
    @property
    def failed(self) -> int: ...
    def save(self, path: PathLike) -> PathLike: ...

class Diagnosis:
    report: dict[str, Any]
    causes: dict[str, int]
    rows: list[dict[str, Any]]

def diagnose(
    golden: PathLike,
    target: str,
    out_dir: PathLike = ...,
    docs: PathLike | None = ...,
    conditions: Sequence[str] = ...,
    sample: int = ...,
    seed: int = ...,
    all_rows: bool = ...,
    threshold: float = ...,
    judge: str = ...,
    metrics: str | Sequence[str] | None = ...,
    dry_run: bool = ...,
    **options: Any,
) -> Diagnosis: ...

def run(
    golden: PathLike | None = ...,
    target: str | None = ...,
    out: PathLike | None = ...,
    progress: Union[bool, Literal["auto"], Callable[[int, int], None]] = ...,
    simulate: PathLike | None = ...,
    *,
    max_in_flight: int = ...,
    timeout_ms: int = ...,
    max_retries: int = ...,
    requests_per_minute: float = ...,
    max_restarts: int = ...,
    resume: bool = ...,
    cache: str = ...,
    method: str = ...,
    headers: Sequence[str] = ...,
    body: str = ...,
    response: str = ...,
    contexts: str = ...,
    context_ids: str = ...,
    context_text: str = ...,
    context_id: str = ...,
    user_judge: str = ...,
    user_base_url: str = ...,
    user_cache: str = ...,
) -> RunResult: ...

class GateVerdict:
    checks: list[dict[str, Any]]
    @property
    def passed(self) -> bool: ...
    @property
    def failed(self) -> list[dict[str, Any]]: ...
    def __bool__(self) -> bool: ...

def gate(result: Result | PathLike, min: Mapping[str, float] | None = ...,
         baseline: Result | PathLike | None = ...,
         max_drop: Mapping[str, float] | None = ...) -> GateVerdict: ...

class Comparison(dict[str, Any]):
    @property
    def worse(self) -> list[str]: ...

@overload
def compare(base: Result | PathLike, candidate: Result | PathLike, top: int = ...,
            allow_version_mismatch: bool = ...) -> Comparison: ...
@overload
def compare(base: Result | PathLike, candidate: Result | PathLike, top: int = ...,
            allow_version_mismatch: bool = ..., *, pairwise: Literal[True],
            criterion: str = ..., judge: str = ..., sequential: bool = ...,
            min_win_rate: float | None = ..., target_width: float = ..., alpha: float = ...,
            order_seed: int = ..., **judge_options: Any) -> dict[str, Any]: ...
class Alignment(dict[str, Any]): ...
def align(results: Result | PathLike, labels: PathLike, metrics: str | Sequence[str] | None = ...,
          out: PathLike | None = ..., force: bool = ..., folds: int = ...,
          seed: int = ..., data: PathLike | None = ...) -> Alignment: ...
def calibrate(data: Result | PathLike, human: str, judge: str, positive: str = ...,
              threshold: float = ..., pair_by: str = ...) -> dict[str, Any]: ...
def power(p: float | None = ..., n: int | None = ..., p1: float | None = ...,
          p2: float | None = ..., paired: bool = ..., discordant: float | None = ...,
          alpha: float = ..., power: float = ...) -> dict[str, Any]: ...
Tags = Mapping[str, str] | Sequence[str] | Sequence[tuple[str, str]]

class History:
    store: str
    token: str
    def __init__(self, store: PathLike = ..., token: str | None = ...) -> None: ...
    def add(self, result: Result | PathLike, label: str = ..., tags: Tags | None = ...,
            report: PathLike = ...) -> dict[str, Any]: ...
    def runs(self, tags: Tags | None = ...) -> Any: ...  # pandas.DataFrame
    def trend(self, metric: str, tags: Tags | None = ..., min_effect: float = ...) -> Any: ...
    def report(self, path: PathLike, metric: str = ..., tags: Tags | None = ...,
               min_effect: float = ...) -> str: ...
    def prune(self, keep: int | None = ..., older_than_days: float | None = ...) -> int: ...

def history(store: PathLike = ..., token: str | None = ...) -> History: ...

class Testset:
    items: list[dict[str, Any]]
    report: dict[str, Any]
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[dict[str, Any]]: ...
    def save(self, path: PathLike) -> str: ...
    def to_pandas(self) -> Any: ...  # pandas.DataFrame

def testset(logs: Rows | None = ...,
            docs: Rows | None = ..., size: int = ...,
            seed: int = ..., heldout: Rows | None = ...,
            judge: str = ..., synthetic_share: float = ..., dry_run: bool = ...,
            **llm_options: Any) -> Testset: ...
def accept_testset(candidates: PathLike | Testset, labels: PathLike,
                   out: PathLike | None = ...) -> dict[str, Any]: ...
def metrics() -> list[MetricInfo]: ...
