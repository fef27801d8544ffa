#!/usr/bin/python3
"""The benchmark tables of docs/benchmarks.md, between <!-- BEGIN name --> and <!-- END name -->.

  bench_markdown.py splice DOC OUTPUT...   replace each block of DOC by the block of the same
                                           name in the programs' --markdown OUTPUT files
                                           (tools/benchmarks.sh); a block DOC lacks is an error
  bench_markdown.py check DOC PROGRAM...   run each PROGRAM --columns and check that DOC has
                                           exactly their blocks, each with the program's header
                                           row (the ctest bench_markdown_columns)
"""
import re
import subprocess
import sys

BLOCK = re.compile(r"^<!-- BEGIN (\S+) -->\n(.*?)^<!-- END \1 -->\n", re.S | re.M)


def blocks(text, where):
    """name -> the block's text (markers included), in order; a name twice or a stray marker is an error."""
    found = {}
    for m in BLOCK.finditer(text):
        if m.group(1) in found:
            sys.exit(f"{where}: the block {m.group(1)} appears twice")
        found[m.group(1)] = m.group(0)
    stray = len(re.findall(r"^<!-- (?:BEGIN|END) ", text, re.M)) - 2 * len(found)
    if stray:
        sys.exit(f"{where}: {stray} BEGIN/END marker(s) without their pair (each block: <!-- BEGIN name --> ... <!-- END name -->)")
    return found


def header(block):
    """The first table row of a block: its header."""
    for line in block.splitlines():
        if line.startswith("|"):
            return line
    return None


def splice(doc, outputs):
    text = open(doc, encoding="utf-8").read()
    have = blocks(text, doc)
    new = {}
    for path in outputs:
        new.update(blocks(open(path, encoding="utf-8").read(), path))
    missing = [name for name in new if name not in have]
    if missing:
        sys.exit(f"{doc} has no markers for {', '.join(missing)}: add <!-- BEGIN name --> <!-- END name --> where each belongs")
    text = BLOCK.sub(lambda m: new.get(m.group(1), m.group(0)), text)
    open(doc, "w", encoding="utf-8").write(text)
    print(f"{doc}: {len(new)} table(s) rewritten: {', '.join(new)}")


def check(doc, programs):
    have = blocks(open(doc, encoding="utf-8").read(), doc)
    declared = {}
    for program in programs:
        out = subprocess.run([program, "--columns"], capture_output=True, text=True, check=True).stdout
        declared.update(blocks(out, program + " --columns"))
    errors = []
    for name, block in declared.items():
        if name not in have:
            errors.append(f"{name}: declared by its program, no block in {doc}")
        elif header(have[name]) != header(block):
            errors.append(f"{name}: {doc} has the header\n    {header(have[name])}\n  the program writes\n    {header(block)}\n"
                          f"  (run tools/benchmarks.sh to regenerate it)")
    for name in have:
        if name not in declared:
            errors.append(f"{name}: a block in {doc} that no benchmark program writes")
    if errors:
        sys.exit("\n".join(errors))
    print(f"{doc}: the {len(declared)} tables of {len(programs)} programs, each header as its program writes it")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("splice", "check"):
        sys.exit(__doc__)
    (splice if sys.argv[1] == "splice" else check)(sys.argv[2], sys.argv[3:])
