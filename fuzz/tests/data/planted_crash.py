#!/usr/bin/env python3
"""Test-only fuzz target: any input containing b"FUZ" is a finding (exercises find -> minimize -> regression)."""

import os
import sys

sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))

from fuzz.harness import check  # noqa: E402
from fuzz.input import Input  # noqa: E402


def decode(inp):
    return inp.rest("data")


def TestOneInput(data: bytes) -> None:
    check(b"FUZ" not in decode(Input(data)), "planted finding")


def seeds() -> list:
    return [b"xxxxFUZZxxxx"]


if __name__ == "__main__":
    from fuzz.harness import main
    main(TestOneInput)
