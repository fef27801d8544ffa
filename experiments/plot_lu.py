#!/usr/bin/python3
"""Turn the main job's CSV files into figures (PNG and PDF) beside them.

usage: plot_lu.py RESULTS_DIR
"""
import csv
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def save(fig, out, stem):
    fig.tight_layout()
    for ext in ("png", "pdf"):
        fig.savefig(out / f"{stem}.{ext}", dpi=120)
    plt.close(fig)
    print(f"wrote {out / stem}.png and .pdf")


def error_vs_condition(rows, out, column, stem, ylabel):
    backends = sorted({r["backend"] for r in rows})
    fig, axes = plt.subplots(1, len(backends), figsize=(6.5 * len(backends), 4.8), squeeze=False, sharey=True)
    for ax, backend in zip(axes[0], backends):
        largest = max(int(r["n"]) for r in rows if r["backend"] == backend)
        series = defaultdict(list)
        for r in rows:
            if r["backend"] == backend and int(r["n"]) == largest:
                series[r["variant"]].append((float(r["target_cond"]), max(float(r[column]), 1e-18)))
        for variant, points in sorted(series.items()):
            points.sort()
            style = "-" if "_piv_" in variant else "--"
            ax.plot([p[0] for p in points], [p[1] for p in points], style, marker="o", ms=3, label=variant)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("condition number of A (infinity norm, measured with MPFR by the generator tests)")
        ax.set_ylabel(ylabel)
        ax.set_title(f"{backend}, n = {largest}")
        ax.grid(True, which="major", alpha=0.3)
    axes[0][-1].legend(fontsize=7, ncol=2, loc="best")
    save(fig, out, stem)


def time_vs_size(rows, out):
    fig, ax = plt.subplots(figsize=(8, 5))
    series = defaultdict(lambda: defaultdict(list))
    for r in rows:
        series[(r["backend"], r["variant"])][int(r["n"])].append(float(r["seconds"]))
    for (backend, variant), by_n in sorted(series.items()):
        ns = sorted(by_n)
        ax.plot(ns, [min(by_n[n]) for n in ns], marker="o", ms=3, label=f"{backend}: {variant}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n")
    ax.set_ylabel("time [s]")
    ax.set_title("LU factorization time per variant and backend")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=6, ncol=2)
    save(fig, out, "lu_time")


def reproducibility(rows, out):
    comparisons = sorted({r["comparison"] for r in rows})
    labels = sorted({(r["backend"], r["variant"]) for r in rows})
    fig, ax = plt.subplots(figsize=(max(8, 0.45 * len(labels) * len(comparisons) ** 0.5), 5))
    width = 0.8 / len(comparisons)
    for k, comparison in enumerate(comparisons):
        values = []
        for label in labels:
            match = [r for r in rows if (r["backend"], r["variant"]) == label and r["comparison"] == comparison]
            values.append(int(match[0]["elements_differing"]) if match else 0)
        ax.bar([i + k * width for i in range(len(labels))], [v + 0.0 for v in values], width, label=comparison)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(labels))])
    ax.set_xticklabels([f"{b}\n{v}" for b, v in labels], rotation=90, fontsize=6)
    ax.set_ylabel("elements of L\\U (and pivots) that differ")
    ax.set_yscale("symlog", linthresh=1)
    ax.set_title("Reproducibility: bits of the factors that change")
    ax.legend(fontsize=8)
    save(fig, out, "lu_reproducibility")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    accuracy = read(out / "lu_accuracy.csv")
    error_vs_condition(accuracy, out, "backward_error", "lu_backward_error", "||PA - LU|| / (||A|| n u)")
    error_vs_condition(accuracy, out, "forward_error", "lu_forward_error", "relative forward error of A x = b")
    time_vs_size(accuracy, out)
    reproducibility(read(out / "lu_reproducibility.csv"), out)


if __name__ == "__main__":
    main()
