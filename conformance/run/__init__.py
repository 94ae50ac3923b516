"""The runner: the main job (job.py; python -m conformance), the comparisons behind it and pytest (engine.py),
what an implementation's run checked (audit.py, impl_cells.py, proof.py), the checks run under qemu-user
(cross.py), --jobs and progress (parallel.py, progress.py), real files (realfiles.py)."""
