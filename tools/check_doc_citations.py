#!/usr/bin/python3
"""Checks that every citation of a documentation section by title names a section that exists.

A citation is a Markdown file's path followed by a quoted title, in code comments or documents:
    docs/design.md "The resting pass"        (docs/notes/sleep.md, "Sleeping islands")
    bench/README.md "Current figures"        docs/design.md "Collision groups" and "Sub-steps"
Titles may be wrapped across comment lines. A title matches when it is part of a heading of the
cited file (headings compared with their markup and backticks removed, whitespace collapsed).
Checked: citations of docs/design.md, docs/notes/*.md, bench/README.md and bench/results/log.md
(--all: of every docs/*.md too). Usage: tools/check_doc_citations.py [--all] [--exclude PATH ...];
exits 1 when a citation is unresolved.
"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCOPES = ("src", "apps", "tests", "bench", "tools", "docs", "python", "cmake", "scripts",
          "examples", "CMakeLists.txt", "Makefile", "README.md", "CONTRIBUTING.md")
CHECKED = r"(?:docs/notes/[\w.-]+|docs/design|bench/README|bench/results/log|design)"
EVERY = r"(?:docs/notes/[\w.-]+|docs/[\w.-]+|bench/README|bench/results/log|design)"
TITLE = r"\"([^\";<>{}=]{3,200})\""
TITLE_UNCAPTURED = r"\"[^\";<>{}=]{3,200}\""
MORE = re.compile(TITLE)


def cite_pattern(paths):
    return re.compile("(" + paths + r"\.md)[,:]?\s*\(?\s*" + TITLE
                      + r"((?:\s*(?:,|and|,\s*and)\s*" + TITLE_UNCAPTURED + r")*)")


def flat(text):
    """The text with comment markers at line starts removed and whitespace collapsed."""
    lines = [re.sub(r"^\s*(?://+|#+(?=\s)|\*+(?=\s)|/\*+)?\s*", "", ln) for ln in text.split("\n")]
    return re.sub(r"\s+", " ", " ".join(lines))


def norm(s):
    return re.sub(r"\s+", " ", s.replace("`", "")).strip().rstrip(".").lower()


def headings(path):
    text = (ROOT / path).read_text(encoding="utf-8", errors="replace")
    return [norm(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", text, re.M)]


def main():
    exclude = set(sys.argv[sys.argv.index("--exclude") + 1:]) if "--exclude" in sys.argv else set()
    cite = cite_pattern(EVERY if "--all" in sys.argv else CHECKED)
    files = subprocess.run(["git", "ls-files", *SCOPES], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    files += [f for f in SCOPES if (ROOT / f).is_file() and f not in files]
    cache, bad, good, skipped = {}, [], 0, 0
    for f in files:
        if not re.search(r"\.(cpp|hpp|h|py|sh|md|txt|csv|toml|cmake)$|CMakeLists\.txt$|Makefile$", f):
            continue
        text = flat((ROOT / f).read_text(encoding="utf-8", errors="replace"))
        for m in cite.finditer(text):
            target = "docs/design.md" if m.group(1) == "design.md" else m.group(1)
            titles = [m.group(2)] + MORE.findall(m.group(3) or "")
            for title in titles:
                if f in exclude:
                    skipped += 1
                    continue
                if not (ROOT / target).is_file():
                    bad.append((f, target, title, "no such file"))
                    continue
                if target not in cache:
                    cache[target] = headings(target)
                t = norm(title)
                if any(t in h for h in cache[target]):
                    good += 1
                else:
                    bad.append((f, target, title, "no such section"))
    for f, target, title, why in bad:
        print(f"{f}: {target} \"{title}\": {why}")
    print(f"{good} citations resolved, {len(bad)} unresolved, {skipped} in excluded files")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
