#!/usr/bin/python3
"""`flamex derive --emit html` in a real browser: Debian's chromium renders each page
headless, once per page, to a PNG and to its laid-out DOM.

A page fails on
  - a MathML error element (<merror>), or a formula the browser did not lay out as
    MathML: a <math> whose computed display is not "math"/"block math" (a browser
    without MathML), of zero size, or a script element (msub, msup, msubsup, mover,
    munder, mfrac, mroot) without its number of children, which MathML Core lays out
    as an error;
  - a blank render: the PNG's grey levels barely vary, or almost every pixel is white;
  - text that lacks an invariant `flamex derive --list` lists for the operation (its
    "variant N" or "unnumbered" with its task set, and each infeasible variant's reason),
    or, for the index, an operation.

usage: derive_html_test.py FLAMEX WORKDIR OP[:blk]... [index]
Exit 77 (skipped) without chromium or without python3's PIL.
"""
import html
import os
import re
import shutil
import subprocess
import sys

# Reads the laid-out page and writes what it finds into the DOM that --dump-dom prints.
PROBE = """<script>
(function () {
  const arity = {msub: 2, msup: 2, msubsup: 3, mover: 2, munder: 2, munderover: 3, mfrac: 2, mroot: 2};
  const bad = [];
  const maths = document.querySelectorAll("math");
  maths.forEach((m, i) => {
    const d = getComputedStyle(m).display, r = m.getBoundingClientRect();
    if (d !== "math" && d !== "block math") bad.push("formula " + i + " display " + d);
    if (!(r.width > 0 && r.height > 0)) bad.push("formula " + i + " of size " + r.width + "x" + r.height);
  });
  document.querySelectorAll("merror").forEach(e => bad.push("merror: " + e.textContent));
  for (const name in arity)
    document.querySelectorAll(name).forEach(e => {
      if (e.children.length !== arity[name]) bad.push(name + " with " + e.children.length + " children: " + e.textContent);
    });
  const probe = document.createElement("pre");
  probe.id = "flamex-probe";
  probe.style.display = "none";
  probe.textContent = "formulas " + maths.length + "\\n" + bad.join("\\n");
  document.body.appendChild(probe);
})();
</script>
"""


def skip(why):
    print("skipped: " + why)
    sys.exit(77)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=120, **kw)


def balanced_braces(text):
    """The leading {...} of text, nested braces ({-1} in L_TL^{-1}) included."""
    depth = 0
    for i, c in enumerate(text):
        depth += {"{": 1, "}": -1}.get(c, 0)
        if depth == 0:
            return text[:i + 1]
    return text


def invariants_listed(flamex):
    """{operation: [strings its page must show]} from `flamex derive --list`."""
    out = run([flamex, "derive", "--list"])
    if out.returncode != 0:
        sys.exit("flamex derive --list failed: " + out.stderr)
    listed, op = {}, None
    for line in out.stdout.splitlines():
        if not line.startswith(" "):
            op = line.split()[0]
            listed[op] = []
            continue
        m = re.match(r"\s+(variant \d+|unnumbered)\s+\{", line)
        if m:
            listed[op] += [m.group(1), balanced_braces(line[m.end() - 1:])]
            continue
        m = re.match(r"\s+(variant \d+)\s+(infeasible|not from this PME): (.*)", line)
        if m:
            listed[op] += [m.group(1), m.group(3)]
    return listed


def page_text(dom):
    dom = re.sub(r"<script.*?</script>", "", dom, flags=re.S)
    dom = re.sub(r"<math.*?</math>", " ", dom, flags=re.S)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", dom)))


def blank(png):
    from PIL import Image, ImageStat
    grey = Image.open(png).convert("L")
    stddev = ImageStat.Stat(grey).stddev[0]
    dark = sum(grey.histogram()[:200]) / (grey.width * grey.height)
    return stddev < 8 or dark < 0.005, "grey-level stddev %.1f, %.2f%% of pixels not near white" % (stddev, 100 * dark)


def check_page(chromium, page, expected, workdir):
    name = os.path.splitext(os.path.basename(page))[0]
    probe = os.path.join(workdir, name + ".probe.html")
    with open(page, encoding="utf-8") as f:
        text = f.read()
    if "<script" in text or "http://" in text or "https://" in text:
        return ["the page has a script or a network address"]
    with open(probe, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", PROBE + "</body>"))
    png = os.path.join(workdir, name + ".png")
    if os.path.exists(png):
        os.remove(png)
    r = run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=" + os.path.join(workdir, "profile"),
             "--window-size=1600,2000", "--screenshot=" + png, "--dump-dom", "file://" + os.path.abspath(probe)])
    dom = r.stdout
    problems = []
    m = re.search(r'<pre id="flamex-probe"[^>]*>(.*?)</pre>', dom, re.S)
    if r.returncode != 0 or not m:
        return ["chromium did not lay the page out (status %d): %s" % (r.returncode, r.stderr[-2000:])]
    report = html.unescape(m.group(1)).splitlines()
    formulas = int(report[0].split()[1])
    problems += [line for line in report[1:] if line]
    if formulas == 0 and not name.startswith("index"):
        problems.append("no formulas")
    if not os.path.exists(png):
        problems.append("no screenshot")
    else:
        is_blank, how = blank(png)
        print("%s: %d formulas; %s; %s" % (name, formulas, how, png))
        if is_blank:
            problems.append("blank render: " + how)
    shown = page_text(dom[:m.start()])
    problems += ["lacks '%s'" % s for s in expected if s not in shown]
    return problems


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    flamex, workdir, pages = sys.argv[1], sys.argv[2], sys.argv[3:]
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        skip("chromium not found (tools/setup.sh installs Debian's chromium)")
    try:
        import PIL  # noqa: F401
    except ImportError:
        skip("python3's PIL not found (tools/setup.sh installs python3-pil)")
    os.makedirs(workdir, exist_ok=True)
    listed = invariants_listed(flamex)
    failed = False
    for spec in pages:
        if spec == "index":
            site = os.path.join(workdir, "site")
            os.makedirs(site, exist_ok=True)
            r = run([flamex, "derive", "--site", site])
            if r.returncode != 0:
                sys.exit("flamex derive --site failed: " + r.stderr)
            page, expected = os.path.join(site, "index.html"), list(listed)
            missing = [op for op in listed if not os.path.exists(os.path.join(site, op + ".html"))]
            if missing:
                print("FAIL site: no page for " + ", ".join(missing))
                failed = True
        else:
            op, _, form = spec.partition(":")
            page = os.path.join(workdir, op + ("_blk" if form else "") + ".html")
            r = run([flamex, "derive", op, "--emit", "html", "-o", page] + (["--blocked"] if form else []))
            if r.returncode != 0:
                sys.exit("flamex derive %s --emit html failed: %s" % (op, r.stderr))
            if op not in listed:
                sys.exit("flamex derive --list does not list " + op)
            expected = listed[op]
        problems = check_page(chromium, page, expected, workdir)
        for p in problems:
            print("FAIL %s: %s" % (os.path.basename(page), p))
        failed |= bool(problems)
    shutil.rmtree(os.path.join(workdir, "profile"), ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
