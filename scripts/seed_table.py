#!/usr/bin/env python3
"""docs/compare.md's table of the seed systems ("The seed systems, predicted"): `scalecheck compare
--predict` for the seeds' workloads on the ten seed systems, and the seeds' claims held to the
same predictions. Writes the table between the page's markers, or with --check says whether
the page matches what the code predicts now (exit 1 and a diff when not: CI runs it).
usage: scripts/seed_table.py [--check] [--scalecheck BIN] [--readme FILE]"""
import argparse
import difflib
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
README = os.path.join(ROOT, "docs", "compare.md")
BEGIN, END = "<!-- seed-table:begin -->", "<!-- seed-table:end -->"
SYSTEMS = ["dgx-a100", "asus-esc8000g4-a40", "dell-r750xa-a100pcie", "hpe-apollo6500-mi250",
           "sugon-ascend910b", "dell-r7525-a40", "inspur-nf5468m6-h100pcie",
           "supermicro-420gp-tnar-a100", "rtx4090-workstation", "aws-p4d"]
WORKLOADS = [("resnet50-dp", 8, "ResNet-50"), ("bert-large-dp", 8, "BERT-large"),
             ("yolov7-dp", 8, "YOLOv7"), ("gpt3-13b-3d", 16, "GPT-3 13B (3D: TP 8 x PP 2)")]
GPT3_TOKENS = 300e9  # GPT-3's training tokens (Brown et al. 2020, table 2.2)
SEQUENCE = 2048      # workloads/gpt3-13b-3d.yaml's tokens a sample


def predict(binary, workload, gpus):
    with tempfile.TemporaryDirectory() as out:
        p = subprocess.run([binary, "compare", "--predict", "-W", workload, "--gpus", str(gpus),
                            "-o", out] + SYSTEMS, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"seed_table: compare {workload}: exit {p.returncode}: {p.stderr}")
        with open(os.path.join(out, "compare.json")) as f:
            return json.load(f)["systems"]


def cell(row):
    if row["throughput"] <= 0:
        return "-"
    t = row["throughput"]
    return f"{100 * row['efficiency']:.0f} % / " + (f"{t:,.0f}" if t >= 100 else f"{t:.1f}")


def table(binary):
    results = {w: {r["system"]: r for r in predict(binary, w, g)} for w, g, _ in WORKLOADS}
    names = {r["system"]: r for r in results[WORKLOADS[0][0]].values()}
    head = "| system | GPU | " + " | ".join(f"{label} at {g} GPUs" for _, g, label in WORKLOADS)
    lines = [head + " |", "|---" * (2 + len(WORKLOADS)) + "|"]
    for system in sorted(names, key=lambda s: -results["resnet50-dp"][s]["throughput"]):
        cells = [cell(results[w][system]) for w, _, _ in WORKLOADS]
        lines.append(f"| {system} | {names[system]['gpu']} | " + " | ".join(cells) + " |")
    resnet = results["resnet50-dp"]["dgx-a100"]
    gpt = results["gpt3-13b-3d"]["dgx-a100"]
    tokens_72h = gpt["throughput"] * SEQUENCE * 72 * 3600
    lines += ["",
              "Each cell: predicted scaling efficiency (compute's share of the step) / samples per "
              "second, from `scalecheck compare --predict`; `-` where the system cannot run the "
              "layout at that scale (GPT-3's TP 8 needs 8 GPUs a node, or the model has no "
              "network between its nodes).", "",
              "The seeds' claims, held to the same model:",
              f"- *98 % linear scaling on 8 x A100 with NVLink* (seed 000): the model predicts "
              f"{100 * resnet['efficiency']:.0f} % for ResNet-50's data-parallel step on "
              f"dgx-a100 - "
              + ("supported." if resnet["efficiency"] >= 0.98 else
                 "not supported by the model: its step at 8 GPUs also holds the part of the "
                 "gradient all-reduce that compute does not hide and the wait for the slowest "
                 "rank (`scalecheck model -Y dgx-a100 -W resnet50-dp` shows the parts)."),
              f"- *GPT-3 13B trained in 72 h on DGX A100* (seed 000): at the predicted "
              f"{gpt['throughput']:.1f} samples/s on 16 GPUs (two DGX A100), 72 h is "
              f"{tokens_72h / 1e9:.1f} B tokens, {100 * tokens_72h / GPT3_TOKENS:.1f} % of the "
              f"300 B tokens GPT-3 was trained on - "
              + ("supported." if tokens_72h >= GPT3_TOKENS else
                 "not supported for a full training; it fits a fine-tune of that size.")]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--scalecheck", default=os.environ.get(
        "SCALECHECK", os.path.join(ROOT, "build", "scalecheck")))
    ap.add_argument("--readme", default=README)
    args = ap.parse_args()
    text = open(args.readme).read()
    if BEGIN not in text or END not in text:
        sys.exit(f"seed_table: {args.readme} lacks the markers {BEGIN} ... {END}")
    before, rest = text.split(BEGIN, 1)
    current, after = rest.split(END, 1)
    fresh = "\n" + table(args.scalecheck)
    if args.check:
        if current != fresh:
            sys.stdout.writelines(difflib.unified_diff(
                current.splitlines(True), fresh.splitlines(True), args.readme, "predicted now"))
            print(f"seed_table: {args.readme}'s table is not what the code predicts: run "
                  "scripts/seed_table.py")
            sys.exit(1)
        print(f"seed_table: {args.readme}'s table matches the code")
        return
    with open(args.readme, "w") as f:
        f.write(before + BEGIN + fresh + END + after)
    print(f"seed_table: {args.readme} updated")


if __name__ == "__main__":
    main()
