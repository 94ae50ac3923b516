"""A model key stream that logs what it hands out (spec 01 §9): the boundary-key searches of the
keyed families (conformance.cases.buzhash64_keys, conformance.cases.aes_keys) read it."""

from __future__ import annotations


def key_names(seeds: dict) -> tuple:
    """Key names ``R<seed>`` of the seeds of ``seeds`` (target -> seed), each once, by seed."""
    return tuple(sorted({f"R{s}" for s in seeds.values()}, key=lambda k: int(k[1:])))


def recorder(key: bytes):
    """A model key stream (spec 01 §9) that logs the bytes it hands out (``log``) and the first
    candidate of every ``random_int(n)`` (``firsts``: n -> value after the mask)."""
    from vectors.model.csprng import KeyStream

    class Recorder(KeyStream):
        def __init__(self):
            super().__init__(key)
            self.log, self.firsts = bytearray(), {}

        def random_bytes(self, n):
            out = super().random_bytes(n)
            self.log += out
            return out

        def random_int(self, n):
            start = len(self.log)
            value = super().random_int(n)
            if n > 1 and n not in self.firsts:
                bits = (n - 1).bit_length()
                self.firsts[n] = int.from_bytes(self.log[start:start + (bits + 7) // 8], "big") & ((1 << bits) - 1)
            return value

    return Recorder()
