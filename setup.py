"""Build of the Cython extensions and their C11 kernels (see docs/kernels.md: "Adding a kernel tier").

Every C file of a family is compiled into that family's extension; the
x86-64 tiers carry per-function target attributes and are chosen at run time,
so the baseline flags stay portable. neon sources compile to nothing off
aarch64 (guarded by CK_AARCH64).
"""

import glob
import os
import runpy

from Cython.Build import cythonize
from setuptools import Extension, setup

# -g: conformance.tools.isa reads from the DWARF which file each kernel row's function is compiled
# from (issue 35); most Pythons' own CFLAGS carry it too. It costs disk only (about 1.1 MB of
# .debug_* per kernel extension, never loaded), not load time or speed.
CFLAGS = ["-std=c11", "-O3", "-g", "-Wall", "-Wextra"]
# An instrumented build (python -m fuzz build) replaces the optimisation flags.
if os.environ.get("CHUNKERS_CFLAGS"):
    CFLAGS = ["-std=c11", "-g", "-Wall", "-Wextra", *os.environ["CHUNKERS_CFLAGS"].split()]


def c_sources(*patterns):
    return sorted(f for p in patterns for f in glob.glob(os.path.join("chunkers", "csrc", p)))


def extension(name, *patterns, libraries=()):
    return Extension(
        f"chunkers.{name}",
        [f"chunkers/{name}.pyx", *c_sources(*patterns)],
        extra_compile_args=CFLAGS,
        libraries=list(libraries),
        depends=sorted(f for ext in ("h", "def")     # kernels.def: a family's kernel list
                       for f in glob.glob(os.path.join("chunkers", "csrc", "**", f"*.{ext}"), recursive=True)),
    )


# the family table, read by path: the package's __init__ imports the extensions not built yet
FAMILIES = runpy.run_path(os.path.join("chunkers", "families.py"))["FAMILIES"]

extensions = [
    extension("driver", "driver.c", "readahead.c"),
    extension("sources", "driver.c"),           # ck_all_zero
    extension("bufpool", "readbuf.c"),
    extension("kerneltable", "cpu.c"),
    # a family's extension: chunkers/<family>.pyx, every C file of csrc/<family>/ and its shared sources
    *(extension(f.name, f"{f.name}/*.c", *f.sources, libraries=f.libraries)
      for f in FAMILIES.values() if f.sources is not None),
]

setup(ext_modules=cythonize(extensions, language_level=3, compiler_directives={"embedsignature": True}))
