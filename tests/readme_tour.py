#!/usr/bin/python3
"""README.md's tour runs as written: its shell block with build/flamex this build's
program (and /tmp/ a scratch folder), then its Python block with this build's module;
each shows what the text says it shows.

usage: readme_tour.py SOURCE_DIR FLAMEX_CLI PYTHON_MODULE_DIR
"""
import os
import re
import subprocess
import sys
import tempfile


def main(source, cli, module_dir):
    readme = open(os.path.join(source, "README.md"), encoding="utf-8").read()
    tour = readme[readme.index("## A tour"):]
    shell = re.search(r"^```sh\n(.*?)^```", tour, re.S | re.M)
    python = re.search(r"^```python\n(.*?)^```", tour, re.S | re.M)
    if not shell or not python:
        sys.exit("README.md's tour has no ```sh or no ```python block")
    with tempfile.TemporaryDirectory() as scratch:
        # One pass: the program's own path may lie under /tmp/ too.
        script = re.sub(r"build/flamex|/tmp/", lambda m: cli if m.group(0) == "build/flamex" else scratch + "/",
                        shell.group(1))
        r = subprocess.run(["bash", "-e", "-c", script], capture_output=True, text=True, cwd=scratch)
        print(r.stdout, r.stderr)
        if r.returncode != 0 or "exact: the same bits on 1 and 2 threads" not in r.stdout \
                or "blis: other bits than exact's" not in r.stdout:
            sys.exit(f"the tour's shell block (status {r.returncode}) did not show exact's bits equal and blis's other")
        env = dict(os.environ, PYTHONPATH=module_dir, PYTHONDONTWRITEBYTECODE="1")
        r = subprocess.run([sys.executable, "-c", python.group(1)], capture_output=True, text=True, cwd=scratch, env=env)
        print(r.stdout[:2000], r.stderr)
        lines = r.stdout.splitlines()
        if r.returncode != 0 or len(lines) < 3 or lines[0] != "True" or not re.fullmatch(r"[1-9]\d* entries differ", lines[1]) \
                or "lu_piv_unb_var3" not in r.stdout:
            sys.exit(f"the tour's Python block (status {r.returncode}) did not print True, a count of differing entries "
                     "and the derived variant")
    print("README.md's tour runs as written")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
