#!/usr/bin/python3
"""Turn a results folder written by flamex_experiments into figures (PNG and PDF).

usage: plot_results.py RESULTS_DIR

Every CSV file the suite writes that is present in RESULTS_DIR becomes one figure
(or three for lu_accuracy.csv), saved beside it as NAME.png and NAME.pdf:

  lu_accuracy.csv        lu_accuracy (Fig. 7c: ||PA - LU|| with MPFR vs condition number),
                         lu_backward_error, lu_forward_error
  lu_time.csv            lu_time (Figs. 7a-b)
  lu_reproducibility.csv lu_reproducibility (entries that differ, per comparison)
  gemv_time.csv          gemv_time (Figs. 5a-c)
  gemv_accuracy.csv      gemv_accuracy (Fig. 5d)
  trsv_time.csv          trsv_time (Figs. 6a-c)
  trsv_accuracy.csv      trsv_accuracy (Fig. 6d, without and with iterative refinement)
  chol_accuracy.csv      chol_accuracy (Cholesky and LDL^T backward and forward error vs kappa_2,
                         per variant and backend)
  chol_reproducibility.csv chol_reproducibility (the same heat map for the Cholesky and
                         LDL^T variants)
  batch_conditioning.csv batch_conditioning (Abbas-Turki and Graillat, Fig. 2)
  batch_accuracy.csv     batch_accuracy (residual and forward error of every batched method
                         against the condition number, single precision)

Errors above 1 are drawn at 1, as in the paper; exact zeros at FLOOR (1e-18).
"""
import csv
import math
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import LogNorm  # noqa: E402

FLOOR = 1e-18
U = 2.0 ** -53
WRITTEN = []


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def err(text):
    """An error as plotted: capped at 1 (NaN too), zeros at FLOOR."""
    v = num(text)
    if math.isnan(v) or v > 1:
        return 1.0
    return max(v, FLOOR)


def cond_of(row):
    """The measured condition number when there is one, else the target."""
    m = num(row.get("measured_cond"))
    return m if math.isfinite(m) and m > 0 else num(row["target_cond"])


def save(fig, out, stem, legend_right=False):
    if legend_right:
        fig.tight_layout(rect=(0, 0, 0.85, 1))
    else:
        fig.tight_layout()
    for ext in ("png", "pdf"):
        fig.savefig(out / f"{stem}.{ext}", dpi=110)
    plt.close(fig)
    WRITTEN.append(stem)


BACKEND_COLORS = {}


def backend_style(backend):
    """A fixed colour and marker per backend (in order of first appearance)."""
    if backend not in BACKEND_COLORS:
        k = len(BACKEND_COLORS)
        BACKEND_COLORS[backend] = (plt.cm.tab10(k % 10), "osD^v<>ph*"[k % 10])
    return BACKEND_COLORS[backend]


def variant_style(variants, variant):
    k = sorted(variants).index(variant)
    return {
        "color": plt.cm.tab20(k % 20),
        "linestyle": "-" if "_piv_" in variant else "--",
        "marker": "o" if "_unb_" in variant else "s",
    }


def panels(count, width=6.0, height=4.6, sharey=True, columns=2):
    """`count` panels, at most `columns` per row; unused cells are hidden."""
    ncols = max(1, min(count, columns))
    nrows = -(-count // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False, sharey=sharey)
    flat = [ax for row in axes for ax in row]
    for ax in flat[count:]:
        ax.set_visible(False)
    return fig, flat[:count]


def variant_legend(fig, axes):
    """One legend for every panel, right of them (variants: 16 entries)."""
    seen = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    labels = sorted(seen)
    fig.legend([seen[k] for k in labels], labels, loc="center right", fontsize=7, title="variant",
               title_fontsize=8)


def log_axes(ax, xlabel, ylabel, title, xbase=10):
    ax.set_xscale("log", base=xbase)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="major", alpha=0.3)


def backends_of(rows):
    seen = []
    for r in rows:
        if r["backend"] not in seen:
            seen.append(r["backend"])
    return seen


# --- LU -------------------------------------------------------------------------------


def lu_error_vs_condition(rows, out, column, stem, ylabel, title, want_mpfr=False):
    if want_mpfr:
        rows = [r for r in rows if math.isfinite(num(r["residual_mpfr"]))]
    if not rows:
        print(f"plot_results: {stem}: no rows with {column}, skipped")
        return
    backends = backends_of(rows)
    variants = sorted({r["variant"] for r in rows})
    fig, axes = panels(len(backends))
    for ax, backend in zip(axes, backends):
        mine = [r for r in rows if r["backend"] == backend]
        largest = max(int(r["n"]) for r in mine)
        series = defaultdict(list)
        for r in mine:
            if int(r["n"]) == largest:
                series[r["variant"]].append((cond_of(r), err(r[column])))
        for variant, points in sorted(series.items()):
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], ms=3, label=variant,
                    **variant_style(variants, variant))
        log_axes(ax, "condition number kappa_inf(A)", ylabel, f"{title}: {backend}, n = {largest}")
    variant_legend(fig, axes)
    save(fig, out, stem, legend_right=True)


def chol_accuracy(rows, out):
    """Per backend: backward error (in units of n u, not capped) and forward error vs kappa_2."""
    backends = backends_of(rows)
    variants = sorted({r["variant"] for r in rows})
    fig, axes = panels(2 * len(backends), sharey=False)
    for k, backend in enumerate(backends):
        mine = [r for r in rows if r["backend"] == backend]
        largest = max(int(r["n"]) for r in mine)
        backward, forward = defaultdict(list), defaultdict(list)
        for r in mine:
            if int(r["n"]) != largest:
                continue
            cond = num(r["target_cond"])
            b = num(r["backward_error"])
            backward[r["variant"]].append((cond, max(b, FLOOR) if math.isfinite(b) else math.nan))
            forward[r["variant"]].append((cond, err(r["forward_error"])))
        for ax, series, ylabel, what in ((axes[2 * k], backward, "||A - L L^T|| / (||A|| n u)", "backward"),
                                         (axes[2 * k + 1], forward, "forward error of A x = b (capped at 1)",
                                          "forward")):
            for variant, points in sorted(series.items()):
                points.sort()
                ax.plot([p[0] for p in points], [p[1] for p in points], ms=3, label=variant,
                        **variant_style(variants, variant))
            log_axes(ax, "condition number kappa_2(A)", ylabel, f"Cholesky / LDL^T {what}: {backend}, n = {largest}")
    variant_legend(fig, axes)
    save(fig, out, "chol_accuracy", legend_right=True)


def lu_time(rows, out):
    backends = backends_of(rows)
    variants = sorted({r["variant"] for r in rows})
    fig, axes = panels(len(backends))
    for ax, backend in zip(axes, backends):
        series = defaultdict(list)
        for r in rows:
            if r["backend"] == backend:
                series[r["variant"]].append((int(r["n"]), num(r["seconds_min"])))
        for variant, points in sorted(series.items()):
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], ms=3, label=variant,
                    **variant_style(variants, variant))
        log_axes(ax, "n (matrix n x n)", "time [s] (min over repetitions)", f"LU time: {backend}", xbase=2)
    variant_legend(fig, axes)
    save(fig, out, "lu_time", legend_right=True)


COMPARISON_ORDER = ["threads 1 vs 2", "run 1 vs run 2", "kernel block default vs 7", "variant block 16 vs 32",
                    "variant block 16 vs 64", "vs exact backend"]


def reproducibility(rows, out, stem, entries):
    """One heat map per backend: variants x comparisons, the count of `entries` whose
    bits differ; green = bit-identical, grey = not applicable, blue = a variant block
    size comparison (another algorithm, expected to differ)."""
    backends = backends_of(rows)
    variants = []
    for r in rows:
        if r["variant"] not in variants:
            variants.append(r["variant"])
    present = {r["comparison"] for r in rows}
    comparisons = [c for c in COMPARISON_ORDER if c in present] + sorted(present - set(COMPARISON_ORDER))
    value = {(r["backend"], r["variant"], r["comparison"]): int(r["elements_differing"]) for r in rows}
    norm = LogNorm(vmin=1, vmax=max(2, max(value.values(), default=2)))
    fig, axes = panels(len(backends), width=0.75 * len(comparisons) + 2.4, height=0.3 * len(variants) + 2.4,
                       sharey=True)
    for ax, backend in zip(axes, backends):
        image = []
        for v in variants:
            line = []
            for c in comparisons:
                g = value.get((backend, v, c))
                cmap = plt.cm.Blues if c.startswith("variant block") else plt.cm.Reds
                line.append((0.85, 0.85, 0.85, 1) if g is None else (0.80, 0.93, 0.80, 1) if g == 0
                            else cmap(0.25 + 0.75 * norm(g)))
            image.append(line)
        ax.imshow(image, aspect="auto")
        for i, v in enumerate(variants):
            for j, c in enumerate(comparisons):
                g = value.get((backend, v, c))
                ax.text(j, i, "n/a" if g is None else str(g), ha="center", va="center", fontsize=6,
                        color="dimgrey" if g is None else ("white" if g and norm(g) > 0.6 else "black"))
        ax.set_xticks(range(len(comparisons)))
        ax.set_xticklabels(comparisons, rotation=35, ha="right", fontsize=7)
        ax.set_yticks(range(len(variants)))
        ax.set_yticklabels(variants, fontsize=7)
        ax.set_xlabel("green: bit-identical; red: bits change;\nblue: another algorithm (block size)", fontsize=8)
        ax.set_title(f"{backend}: {entries} that differ, n = {rows[0]['n']}", fontsize=9)
    axes[0].set_ylabel("variant")
    save(fig, out, stem)


# --- gemv and trsv ---------------------------------------------------------------------


def gemv_time(rows, out):
    shapes = [("square", "m = n", "n"), ("row_panel", "row panel", "n"), ("col_panel", "column panel", "m")]
    fig, axes = panels(3, columns=3)
    for ax, (shape, label, varying) in zip(axes, shapes):
        mine = [r for r in rows if r["shape"] == shape]
        for backend in backends_of(mine):
            points = sorted((int(r[varying]), num(r["seconds_min"])) for r in mine if r["backend"] == backend)
            color, marker = backend_style(backend)
            ax.plot([p[0] for p in points], [p[1] for p in points], color=color, marker=marker, ms=4, label=backend)
        fixed = ""
        if mine and shape != "square":
            other = "m" if varying == "n" else "n"
            fixed = f", {other} = {mine[0][other]}"
        log_axes(ax, varying, "time [s] (min over repetitions)", f"gemv, {label}{fixed}", xbase=2)
        ax.legend(fontsize=8)
    save(fig, out, "gemv_time")


def accuracy_panel(ax, rows, title, xlabel):
    for backend in backends_of(rows):
        points = sorted((cond_of(r), err(r["forward_error"])) for r in rows if r["backend"] == backend)
        color, marker = backend_style(backend)
        ax.plot([p[0] for p in points], [p[1] for p in points], color=color, marker=marker, ms=4, lw=1,
                label=backend)
    ax.axhline(U, color="grey", lw=0.8, ls=":", label="u = 2^-53")
    log_axes(ax, xlabel, "relative forward error (capped at 1)", title)
    ax.set_ylim(FLOOR / 3, 3)
    ax.legend(fontsize=8)


def gemv_accuracy(rows, out):
    fig, axes = panels(1, width=6.5)
    n = rows[0]["n"] if rows else "?"
    accuracy_panel(axes[0], rows, f"gemv y = A x, n = {n}", "condition number || |A| |x| || / || A x || (MPFR)")
    save(fig, out, "gemv_accuracy")


def trsv_time(rows, out):
    fig, axes = panels(1, width=9.5)
    ax = axes[0]
    for backend in backends_of(rows):
        color, marker = backend_style(backend)
        for method, style in (("trsv", "-"), ("trsv_refined", "--")):
            points = sorted((int(r["n"]), num(r["seconds_min"]), r["refine"]) for r in rows
                            if r["backend"] == backend and r["method"] == method)
            if not points:
                continue
            label = backend if method == "trsv" else f"{backend} + refinement (<= {points[0][2]} steps)"
            ax.plot([p[0] for p in points], [p[1] for p in points], style, color=color, marker=marker, ms=4,
                    label=label)
    log_axes(ax, "n (lower triangular n x n)", "time [s] (min over repetitions)",
             "trsv time (solid: one trsv; dashed: trsv_refined)", xbase=2)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1))
    save(fig, out, "trsv_time")


def trsv_accuracy(rows, out):
    refines = sorted({int(r["refine"]) for r in rows})
    fig, axes = panels(len(refines), width=6.5, columns=len(refines))
    n = rows[0]["n"] if rows else "?"
    for ax, k in zip(axes, refines):
        mine = [r for r in rows if int(r["refine"]) == k]
        title = f"trsv, n = {n}, " + ("no refinement" if k == 0 else f"iterative refinement (<= {k} steps)")
        accuracy_panel(ax, mine, title, "Skeel condition number cond(T, x) (MPFR)")
    save(fig, out, "trsv_accuracy")


# --- batched solvers (Abbas-Turki and Graillat 2017) ------------------------------------

U_SINGLE = 2.0 ** -24
STATUS_COLORS = {"ok": "tab:green", "flagged": "tab:red", "repaired": "tab:blue", "breakdown": "black",
                 "invalid": "tab:gray"}
BATCH_METHODS = ["ldlt", "householder-pcr", "dc", "auto"]


def batch_conditioning(rows, out):
    fig, ax = plt.subplots(figsize=(8, 4.6))
    systems = [int(r["system"]) + 1 for r in rows]
    ax.scatter(systems, [num(r["kappa"]) for r in rows], s=6, label="accumulated in single precision")
    ax.scatter(systems, [num(r["kappa_double"]) for r in rows], s=6, marker="x", alpha=0.6,
               label="the same paths in double")
    ax.axhline(1 / U_SINGLE, color="tab:red", linestyle=":", label="1/u (single)")
    ax.set_yscale("log")
    ax.set_xlabel("regression matrix l (outer trajectory)")
    ax.set_ylabel("condition number kappa_2")
    ax.set_title("Black & Scholes regression matrices (Abbas-Turki & Graillat, Fig. 2)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, out, "batch_conditioning")


def batch_accuracy(rows, out):
    cpu = [r for r in rows if r["engine"] == "cpu"]
    methods = [m for m in BATCH_METHODS if any(r["method"] == m for r in cpu)]
    if not methods:
        return
    fig, axes = plt.subplots(2, len(methods), figsize=(4.2 * len(methods), 8), squeeze=False, sharey="row")
    for col, method in enumerate(methods):
        mine = [r for r in cpu if r["method"] == method]
        for row, (column, label) in enumerate((("residual", "residual ||Ax - y|| / (||A|| ||x|| + ||y||)"),
                                               ("forward_error", "forward error vs double (capped at 1)"))):
            ax = axes[row][col]
            for status, color in STATUS_COLORS.items():
                pts = [r for r in mine if r["status"] == status]
                if pts:
                    ax.scatter([num(r["kappa"]) for r in pts], [err(r[column]) for r in pts], s=6, color=color,
                               label=status)
            if row == 0:
                ax.axhline(num(mine[0]["tolerance"]), color="tab:red", linestyle=":", label="tolerance")
            log_axes(ax, "kappa_2", label if col == 0 else "", method if row == 0 else "")
            ax.legend(fontsize=7, loc="lower right")
    # The device's rows, where there are any, against the CPU's.
    key = ("method", "system", "status", "residual", "forward_error")
    device = {tuple(r[k] for k in key) for r in rows if r["engine"] != "cpu"}
    note = ""
    if device:
        same = device == {tuple(r[k] for k in key) for r in cpu}
        note = "; OpenCL device: " + ("the same reports" if same else "other reports (see batch_accuracy.csv)")
    fig.suptitle(f"Batched solvers in single precision on the regression matrices, CPU{note}", fontsize=10)
    save(fig, out, "batch_accuracy")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    plots = {
        "lu_accuracy.csv": lambda rows: (
            lu_error_vs_condition(rows, out, "residual_mpfr", "lu_accuracy", "||PA - LU||_inf (MPFR, capped at 1)",
                                  "LU", want_mpfr=True),
            lu_error_vs_condition(rows, out, "backward_error", "lu_backward_error", "||PA - LU|| / (||A|| n u)",
                                  "LU backward error"),
            lu_error_vs_condition(rows, out, "forward_error", "lu_forward_error",
                                  "forward error of A x = b (capped at 1)", "LU solve"),
        ),
        "lu_time.csv": lambda rows: lu_time(rows, out),
        "lu_reproducibility.csv": lambda rows: reproducibility(rows, out, "lu_reproducibility",
                                                              "entries of L\\U + pivots"),
        "gemv_time.csv": lambda rows: gemv_time(rows, out),
        "gemv_accuracy.csv": lambda rows: gemv_accuracy(rows, out),
        "trsv_time.csv": lambda rows: trsv_time(rows, out),
        "trsv_accuracy.csv": lambda rows: trsv_accuracy(rows, out),
        "chol_accuracy.csv": lambda rows: chol_accuracy(rows, out),
        "chol_reproducibility.csv": lambda rows: reproducibility(rows, out, "chol_reproducibility",
                                                                "entries of the factor"),
        "batch_conditioning.csv": lambda rows: batch_conditioning(rows, out),
        "batch_accuracy.csv": lambda rows: batch_accuracy(rows, out),
    }
    found = 0
    for name, plot in plots.items():
        path = out / name
        if not path.exists():
            continue
        found += 1
        rows = read(path)
        if not rows:
            print(f"plot_results: {name} has no rows, no figure")
            continue
        plot(rows)
    if found == 0:
        sys.exit(f"plot_results: no CSV files of the suite in {out}")
    print(f"plot_results: {len(WRITTEN)} figures (.png and .pdf) in {out}/: {', '.join(WRITTEN)}")


if __name__ == "__main__":
    main()
