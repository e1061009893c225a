# Type stubs for tala.testing: gates as pytest assertions.
from typing import Mapping

from . import GateVerdict, PathLike, Result

def assert_gate(result: Result | PathLike, min: Mapping[str, float] | None = ...,
                baseline: Result | PathLike | None = ...,
                max_drop: Mapping[str, float] | None = ..., worst: int = ...,
                artifacts: PathLike | None = ...) -> GateVerdict: ...
