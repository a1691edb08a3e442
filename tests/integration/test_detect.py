"""`scalecheck detect` writes what this host has as a topology file that validates, and lists
what differs from a declared topology (DGX A100 here: fewer GPUs and NICs than declared)."""
import os

from sclib import *

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def test():
    wd = workdir("detect")
    out_yaml = os.path.join(wd, "detected.yaml")
    rc, out, err, _ = mpirun(2, ["detect", "--output", out_yaml, "--topology",
                                 os.path.join(ROOT, "topologies", "dgx-a100.yaml")])
    expect(rc == 0, f"exit {rc}\n{err[-800:]}")
    cores = os.cpu_count()
    text = open(out_yaml).read()
    expect(f"cores: {cores}" in text or "cores:" in text, text)
    rc, vout, verr, _ = mpirun(1, ["validate", out_yaml])
    expect(rc == 0 and ": ok (topology detected-" in vout, f"validate: {rc} {vout} {verr}")
    expect("error    fewer GPUs than declared" in out and "fewer NICs up than declared" in out,
           f"findings:\n{out}")
    rc, out, err, _ = mpirun(1, ["detect", "--bogus"])
    expect(rc == 2 and "--bogus: unknown option" in err, f"bad flag: {rc} {err}")


main(test)
