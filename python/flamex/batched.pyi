# Type stubs of flamex.batched (batched solvers for many small symmetric systems); see
# flamex/__init__.pyi.
from typing import Any, Dict, Literal, Optional, Tuple

import numpy as np
import numpy.typing as npt

STATUS_NAMES: Tuple[str, ...]
METHOD_NAMES: Tuple[str, ...]

_Layout = Literal["system-major", "interleaved"]
_Precision = Literal["double", "single"]

def solve(A: npt.NDArray[Any], y: npt.NDArray[Any], method: str = "auto", tolerance: Optional[float] = None,
          threshold: Optional[float] = None, threads: int = 1, ldlt_variant: int = 3,
          device: Literal["cpu", "opencl"] = "cpu", organization: Literal["simd", "collaborative", "hybrid"] = "hybrid",
          cooperating: int = 0, work_group: int = 0, opencl_device: str = "", build_options: str = "",
          layout: _Layout = "system-major", count: Optional[int] = None) -> Dict[str, Any]: ...
def interleave(A: npt.NDArray[Any], y: npt.NDArray[Any]) -> Tuple[npt.NDArray[Any], npt.NDArray[Any]]: ...
def deinterleave(A: npt.NDArray[Any], y: npt.NDArray[Any],
                 count: Optional[int] = None) -> Tuple[npt.NDArray[Any], npt.NDArray[Any]]: ...
def generate_spd(n: int, count: int, cond_min: float = 1.0, cond_max: float = 1e6, seed: int = 0,
                 precision: _Precision = "double",
                 threads: int = 1) -> Tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[np.float64]]: ...
def generate_regression(n: int = 30, count: int = 1000, paths: int = 300, seed: int = 0, precision: _Precision = "double",
                        threads: int = 1, layout: _Layout = "system-major") -> Tuple[npt.NDArray[Any], npt.NDArray[Any]]: ...
def condition_numbers(A: npt.NDArray[Any], threads: int = 1) -> npt.NDArray[np.float64]: ...
