# Type stubs for tala.dask: tala.evaluate over a Dask cluster.
from typing import Any, Callable, Literal, Mapping, Sequence, Union

from . import JudgeLike, PathLike, Result, Rows

def split_budget(options: Mapping[str, Any], slots: int) -> dict[str, Any]: ...
def evaluate(
    data: Union[Rows, Sequence[PathLike]],
    metrics: Sequence[str | Any] | str | None = ...,
    judge: JudgeLike = ...,
    out: PathLike | None = ...,
    client: Any = ...,  # a distributed.Client; None starts a LocalCluster
    shards: int | None = ...,
    shard_by: Literal["range", "hash"] = ...,
    endpoints: Sequence[str] | None = ...,
    workdir: PathLike | None = ...,
    progress: Union[bool, Literal["auto"], Callable[[int, int], None]] = ...,
    **options: Any,
) -> Result: ...
