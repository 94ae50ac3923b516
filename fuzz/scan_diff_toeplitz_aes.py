#!/usr/bin/env python3
"""Fuzz target: every toeplitz-aes scan path against evp, and evp against the model (see fuzz/scan_aes.py).

Run: python -m fuzz run scan_diff_toeplitz_aes   (or directly: python fuzz/scan_diff_toeplitz_aes.py [libFuzzer args]).
"""

import os
import sys

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repo, after PYTHONPATH

from fuzz.scan_diff import target  # noqa: E402

TestOneInput, decode, seeds = target("toeplitz_aes")

if __name__ == "__main__":
    from fuzz.harness import main
    main(TestOneInput)
