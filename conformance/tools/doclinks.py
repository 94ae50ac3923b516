"""The reference pages' links and dates: every relative link and ``#anchor`` of README.md,
docs/*.md and fuzz/README.md resolves, and no reference page keeps a lab diary.

    python -m conformance.tools.doclinks [FILE.md ...]    # default: the reference pages

prints one line per broken link or dated line (``file:line: ...``) and exits 1 if there is any, 0
otherwise, 2 for a file that cannot be read. Dated measurements belong in docs/measurements.md
(``LOG``), the one page allowed dates; the reference pages link to it.

Anchors follow GitHub's heading slugs: the heading's text without its inline markup (code spans
keep their text, links their label), lower-cased, every character that is not a letter, digit,
space, ``-`` or ``_`` dropped, spaces turned into ``-``; a repeated slug gets ``-1``, ``-2``, ...
Links in fenced code blocks and code spans are not links; ``scheme:`` URLs are not checked.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[2]
LOG = "docs/measurements.md"
"""The measurement log, newest first: the one page with dates."""

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
INLINE_LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")

DIARY = [
    (re.compile(r"\b20\d\d-\d\d-\d\d\b"), "a date"),
    (re.compile(r"\b(January|February|March|April|May|June|July|August|September|October|November|"
                r"December) \d"), "a date"),
    (re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b"), "a commit"),
    (re.compile(r"\b(an|one|two|three|\d+) (hours?|days?|minutes?) (before|ago|earlier)\b", re.I), "a time"),
    (re.compile(r"\b(yesterday|last week|this morning)\b", re.I), "a time"),
]
"""What a dated diary line of a reference page contains (link targets are left out first, so a
link into the log's dated sections is fine)."""


class Problem(NamedTuple):
    path: Path
    line: int
    text: str

    def __str__(self):
        try:
            name = self.path.relative_to(ROOT)
        except ValueError:
            name = self.path
        return f"{name}:{self.line}: {self.text}"


def reference_pages(root: Path = ROOT) -> list[Path]:
    """README.md, every docs/*.md and fuzz/README.md under ``root`` (those that exist)."""
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md")), root / "fuzz" / "README.md"]
    return [p for p in pages if p.is_file()]


def _prose(text: str):
    """(line number, line) of ``text`` outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def slug(heading: str) -> str:
    """GitHub's anchor of a heading's text (without the repeat suffix)."""
    text = CODE_SPAN.sub(lambda m: m.group(2), heading)
    text = INLINE_LINK.sub(lambda m: m.group(1), text)
    text = re.sub(r"<[^>]+>", "", text).lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor of a markdown page: its headings' slugs (repeats numbered) and HTML anchors."""
    seen: dict[str, int] = {}
    out = set()
    for _number, line in _prose(text):
        m = HEADING.match(line)
        if m:
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
        out.update(HTML_ANCHOR.findall(line))
    return out


def links(text: str):
    """(line number, target) of every link of a page outside code."""
    for number, line in _prose(text):
        bare = CODE_SPAN.sub("", line)
        for m in INLINE_LINK.finditer(bare):
            yield number, m.group(2)
        m = REF_DEF.match(bare)
        if m:
            yield number, m.group(1)


def broken_links(path: Path) -> list[Problem]:
    """The links of ``path`` whose file or anchor does not exist (a relative target is taken from
    the page's folder; ``#anchor`` alone is an anchor of the page itself)."""
    text = path.read_text(encoding="utf-8")
    out = []
    cache: dict[Path, set] = {}
    for number, target in links(text):
        if not target or SCHEME.match(target):
            continue
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.exists():
            out.append(Problem(path, number, f"link to {target}: {file} does not exist"))
            continue
        if anchor and dest.suffix == ".md":
            if dest not in cache:
                cache[dest] = anchors(dest.read_text(encoding="utf-8"))
            if anchor not in cache[dest]:
                out.append(Problem(path, number, f"link to {target}: no heading #{anchor} in {dest.name}"))
    return out


def dated_lines(path: Path) -> list[Problem]:
    """The lines of a reference page that date what they say (see DIARY); the log is exempt."""
    if path.resolve() == (ROOT / LOG).resolve():
        return []
    out = []
    for number, line in _prose(path.read_text(encoding="utf-8")):
        bare = INLINE_LINK.sub(lambda m: m.group(1), line)
        for pattern, what in DIARY:
            m = pattern.search(bare)
            if m:
                out.append(Problem(path, number, f"{what} ({m.group(0)!r}): dated measurements go to {LOG}"))
                break
    return out


def problems(paths) -> list[Problem]:
    """Broken links and dated lines of every page of ``paths``."""
    return [p for path in paths for p in (*broken_links(path), *dated_lines(path))]


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if any(a.startswith("-") for a in args):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 0 if args in (["-h"], ["--help"]) else 2
    paths = [Path(a).resolve() for a in args] or reference_pages()
    try:
        found = problems(paths)
    except (OSError, UnicodeDecodeError) as e:
        print(f"doclinks: {e}", file=sys.stderr)
        return 2
    for p in found:
        print(p)
    print(f"doclinks: {len(paths)} pages, {len(found)} problems", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
