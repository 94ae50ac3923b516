"""Coverage-guided differential fuzzing of the chunkers' kernels (atheris/libFuzzer, ASan+UBSan).

Targets: fuzz/<target>.py (see fuzz/targets.py); tooling: ``python -m fuzz``.
"""
