"""chunkers: BorgBackup 2.0's content-defined chunkers, every scan kernel.

Algorithm-compatible with borg 2.0.0b25: the same 32-byte key, parameters and
input give the same cut points (specification: spec 01-10 of the project).
"""

from chunkers.chunk import Chunk
from chunkers.kerneltable import cpu_features
from chunkers.fastcdc import FastCDC
from chunkers.buzhash64 import BuzHash64
from chunkers.buzhash import BuzHash
from chunkers.fixed import Fixed
from chunkers.aes import GoldilocksAES, RabinAES, ToeplitzAES
from chunkers.families import FAMILIES as _FAMILIES
import importlib as _importlib
for _family in _FAMILIES:       # every family of the table registers its kernels (chunkers.registry)
    _importlib.import_module(f"chunkers.{_family}")
from chunkers.registry import KernelStatus, kernels
from chunkers.params import ParamsError, parse_params
from chunkers.api import chunk_sizes, make_chunker

__all__ = [
    "BuzHash",
    "BuzHash64",
    "Chunk",
    "FastCDC",
    "Fixed",
    "GoldilocksAES",
    "KernelStatus",
    "ParamsError",
    "RabinAES",
    "ToeplitzAES",
    "chunk_sizes",
    "cpu_features",
    "kernels",
    "make_chunker",
    "parse_params",
]
