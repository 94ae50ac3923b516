#!/usr/bin/env python3
"""Fuzz target: every legacy buzhash scan kernel against single and the model (see fuzz/scan_diff.py).

Run: python -m fuzz run scan_diff_buzhash   (or directly: python fuzz/scan_diff_buzhash.py [libFuzzer args]).
"""

import os
import sys

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repo, after PYTHONPATH

from fuzz.scan_diff import target  # noqa: E402

TestOneInput, decode, seeds = target("buzhash")

if __name__ == "__main__":
    from fuzz.harness import main
    main(TestOneInput)
