"""The build matrix: ``python -m conformance --builds gcc-O0,gcc-O2,gcc-O3,clang-O0,clang-O2,clang-O3``.

borg's own kernel bugs were compiler- and flag-dependent, so one build proves
little. Each named build (``<compiler>-<optimisation>``, e.g. ``clang-O3``;
the compiler must be on PATH) is compiled into its own tree under
build/builds/<name> (conformance.tools.buildtree; the in-place build is untouched),
and in each

* the main job runs (scan catalogue against the reference kernel, the
  reference against the pure-Python model, chunk runs, golden vectors): every
  build must pass it;
* the fingerprint (``python -m conformance.tools.builds --fingerprint``) hashes every
  kernel's results on the scan catalogue and its cut points on a seeded
  corpus; every build must give the same hashes (bit-identical results, not
  only each build agreeing with itself);
* the benchmark (``python -m chunkers bench --json``) runs, the builds taking
  turns one repeat at a time so that load on the machine hits them alike;
  the table shows each build's MB/s per kernel.

Exit status 0 when every build passes and all fingerprints agree, 1
otherwise, 2 for a bad build name or a compiler that is missing or fails.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
import sys
import time

from chunkers.clihelp import ArgumentParser
from conformance.tools.buildtree import REPO, BuildError, Tree

BUILD_RE = re.compile(r"^(?P<cc>[A-Za-z0-9_.+/-]+?)-(?P<opt>O[0-3sz]|Ofast)$")
FINGERPRINT_SEED = 1
FINGERPRINT_BYTES = 1 << 20


def parse_builds(text: str) -> list[tuple[str, str, str]]:
    """``"gcc-O2,clang-O3"`` -> [(name, compiler, flags)]; ValueError naming a bad entry."""
    out = []
    for name in filter(None, (s.strip() for s in text.split(","))):
        m = BUILD_RE.match(name)
        if not m:
            raise ValueError(f"bad build name {name!r}: expected COMPILER-OLEVEL, e.g. gcc-O2 or clang-O3")
        if not shutil.which(m["cc"]):
            raise ValueError(f"build {name}: compiler {m['cc']!r} not found on PATH")
        out.append((name, m["cc"], f"-{m['opt']}"))
    if not out:
        raise ValueError("no build named")
    return out


def fingerprint() -> dict:
    """``{"family/kernel": sha256}`` over each native kernel's scan-catalogue results, and
    ``{"chunks params/kernel": sha256}`` over its cut points on a seeded corpus."""
    import chunkers
    from conformance.cases.families import FAMILIES, scan_families

    out = {}
    runnable = [k for k in chunkers.kernels() if k.runs and k.coverage == "native"]
    for k in runnable:
        if k.family in scan_families():
            h = hashlib.sha256()
            for case in FAMILIES[k.family].cases(FINGERPRINT_SEED):
                h.update(repr(FAMILIES[k.family].run(case, k.kernel)).encode())
            out[f"{k.family}/{k.kernel}"] = h.hexdigest()
    from chunkers.bench import BENCH_PARAMS
    from chunkers.families import CHUNKERS
    data = random.Random(FINGERPRINT_SEED).randbytes(FINGERPRINT_BYTES)
    data = data[: len(data) // 2] + bytes(4096) + data[len(data) // 2:]     # an all-zero island
    for k in runnable:
        for params in BENCH_PARAMS.get(k.family, []):
            hashed = "chunk_mask" in CHUNKERS[params.partition(",")[0]].fields     # not fixed sizes
            small = re.sub(r",\d+,\d+,\d+", ",13,17,14", params, count=1) if hashed else params
            sizes = chunkers.make_chunker(small, kernel=k.kernel).chunk_sizes(data)
            out[f"chunks {small}/{k.kernel}"] = hashlib.sha256(repr(sizes).encode()).hexdigest()
    return out


def _bench(trees: dict, size_mib: int, repeat: int, families) -> dict:
    """Best MB/s per (build, family, kernel, mode, params), builds taking turns per repeat."""
    best = {}
    fam = [a for f in families or () for a in ("--family", f)]
    for _ in range(repeat):
        for name, tree in trees.items():
            proc = tree.run("-m", "chunkers", "bench", "--json", "--size", str(size_mib), "--repeat", "1", *fam)
            if proc.returncode:
                raise BuildError(f"{name}: bench failed:\n{proc.stderr[-2000:]}")
            for row in json.loads(proc.stdout):
                key = (name, row["family"], row["kernel"], row["mode"], row["params"])
                best[key] = max(best.get(key, 0.0), row["mb_s"])
    return best


def run(builds: str, seed: int = 1, corpus_size: int = 1 << 20, families=None, bench_mib: int = 16,
        bench_repeat: int = 3, echo=print) -> int:
    """Build, check and benchmark every build of ``builds``; print the matrix; exit status."""
    try:
        specs = parse_builds(builds)
    except ValueError as e:
        echo(f"error: {e}")
        return 2
    trees, status, prints = {}, {}, {}
    for name, cc, flags in specs:
        tree = Tree(REPO / "build" / "builds" / name, cc=cc, cflags=flags)
        t0 = time.monotonic()
        try:
            tree.sync()
            tree.build()
        except BuildError as e:
            echo(f"error: build {name}: {e}")
            return 2
        secs = time.monotonic() - t0
        fam = [a for f in families or () for a in ("--family", f)]
        job = tree.run("-m", "conformance", "--seed", str(seed), "--corpus-size", str(corpus_size), *fam)
        fp = tree.run("-m", "conformance.tools.builds", "--fingerprint")
        prints[name] = json.loads(fp.stdout) if fp.returncode == 0 else {}
        status[name] = "passed" if job.returncode == 0 and fp.returncode == 0 else "FAILED"
        if status[name] != "passed":
            echo((job.stdout + job.stderr)[-3000:] + fp.stderr[-2000:])
        echo(f"{name:10} built in {secs:5.0f} s; main job {'passed' if job.returncode == 0 else 'FAILED'}"
             f" ({len(prints[name])} fingerprints)")
        trees[name] = tree
    first = specs[0][0]
    differ = {name: sorted(k for k in set(fp) | set(prints[first]) if fp.get(k) != prints[first].get(k))
              for name, fp in prints.items()}
    for name, keys in differ.items():
        if keys:
            status[name] = "FAILED"
            echo(f"{name}: results differ from {first}: {', '.join(keys[:8])}")
    best = _bench(trees, bench_mib, bench_repeat, families) if bench_repeat else {}
    rows = sorted({k[1:] for k in best})
    names = [n for n, _, _ in specs]
    echo(f"\nMB/s ({bench_mib} MiB seeded random data, best of {bench_repeat}, builds interleaved)")
    echo(f"{'family':10} {'kernel':10} {'mode':6} {'params':26}" + "".join(f"{n:>10}" for n in names))
    for fam, kernel, mode, params in rows:
        echo(f"{fam:10} {kernel:10} {mode:6} {params:26}"
             + "".join(f"{best.get((n, fam, kernel, mode, params), 0):10.0f}" for n in names))
    echo("\n" + "  ".join(f"{n}: {status[n]}" for n in names)
         + ("" if any(differ.values()) else f"; all {len(names)} builds bit-identical"))
    return 0 if all(s == "passed" for s in status.values()) else 1


def main(argv=None) -> int:
    ap = ArgumentParser(prog="python -m conformance.tools.builds", description=__doc__.splitlines()[0])
    ap.add_argument("--fingerprint", action="store_true", help="print this build's result hashes as JSON")
    ap.add_argument("--builds", default="gcc-O0,gcc-O2,gcc-O3,clang-O0,clang-O2,clang-O3")
    ap.add_argument("--bench-size", type=int, default=16, help="MiB per benchmark run (default 16)")
    ap.add_argument("--bench-repeat", type=int, default=3, help="benchmark turns per build (0: no benchmark)")
    ap.add_argument("--corpus-size", type=int, default=1 << 20, help="bytes per corpus input of each build's main job")
    args = ap.parse_args(argv)
    if args.fingerprint:
        json.dump(fingerprint(), sys.stdout, indent=1)
        return 0
    return run(args.builds, corpus_size=args.corpus_size, bench_mib=args.bench_size, bench_repeat=args.bench_repeat)


if __name__ == "__main__":
    sys.exit(main())
