"""The suite measuring itself: mutation testing (mutants/), the build matrix (builds, buildtree), C coverage,
the instruction check (isa), the tier matrix (tiers) and the CPU emulator behind its emulated rows (emulate/)."""
