#!/usr/bin/python3
"""Every relative link in README.md and docs/*.md resolves: the file (or folder) it
names exists, and the anchor it gives, if any, is a heading of that page (GitHub's
slugs) or an explicit <a id/name>. Links and images in Markdown's inline form are
checked; code spans and fenced blocks are skipped; http(s) and mailto links are not
fetched.

usage: doc_links.py SOURCE_DIR
"""
import glob
import os
import re
import sys
import urllib.parse

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.M)
EXPLICIT = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")


def prose(text):
    """The text outside fenced blocks and code spans (code spans blanked, not removed)."""
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return CODE.sub(lambda m: " " * len(m.group(0)), text)


def slug(heading):
    """GitHub's anchor for a heading: lower case, the Markdown of links and code
    unwrapped, punctuation other than - and _ dropped, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path):
    text = open(path, encoding="utf-8").read()
    seen = {}
    found = set(EXPLICIT.findall(text))
    for heading in HEADING.findall(FENCE.sub("", text)):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def check(source):
    pages = [os.path.join(source, "README.md")] + sorted(glob.glob(os.path.join(source, "docs", "*.md")))
    errors, count = [], 0
    for page in pages:
        text = prose(open(page, encoding="utf-8").read())
        for m in LINK.finditer(text):
            target = m.group(1)
            if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
                continue
            count += 1
            line = text.count("\n", 0, m.start()) + 1
            where = f"{os.path.relpath(page, source)}:{line}: {target}"
            path, _, anchor = target.partition("#")
            path = urllib.parse.unquote(path)
            resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(resolved):
                errors.append(f"{where}: no such file {os.path.relpath(resolved, source)}")
            elif anchor and (not resolved.endswith(".md") or anchor not in anchors(resolved)):
                errors.append(f"{where}: no heading or <a id> gives the anchor #{anchor} in {os.path.relpath(resolved, source)}")
    return pages, count, errors


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    pages, count, errors = check(sys.argv[1])
    if errors:
        sys.exit("\n".join(errors))
    print(f"{count} relative links in {len(pages)} pages, every one resolves")
