"""Writes the format samples of this folder (README.md names the thread each layout follows).
The numbers are made up and consistent (algbw = size / time, busbw by nccl-tests' factors); the
layouts are the tools'. Run by hand when a sample is added; the tests read the files."""
N = 8
SIZES = [1 << k for k in range(10, 31, 4)]  # 1K .. 1G


def rowvals(size, slow=1.0):
    t = 24.0 + size / 230e3 * slow  # us: 24 us base, ~230 GB/s algbw at large sizes
    alg = size / t / 1e3
    return t, alg, alg * 2 * (N - 1) / N


def fmt_t(t):
    return f"{t:8.2f}" if t < 1e4 else f"{t:8.0f}"


def dev(style, r, host="node1"):
    if style == "new":
        return (f"#  Rank {r:2d} Group  0 Pid {5000 + r:6d} on {host:>10s} device {r:2d} "
                f"[0x{r:02x}] NVIDIA A100-SXM4-80GB")
    return f"#   Rank {r:2d} Pid {5000 + r:6d} on {host:>10s} device {r:2d} [0x{r:02x}] Tesla V100-SXM2-16GB"


def preamble(ngpus, tail, style, header):
    """The '#' lines before a table: the run's settings, the device list, the column header."""
    out = [f"# nThread 1 nGpus {ngpus} minBytes 1024 maxBytes 1073741824 step: 16(factor) "
           f"warmup iters: 5 iters: 20 {tail}", "#", "# Using devices"]
    return out + [dev(style, r) for r in range(N)] + ["#"] + header


def table(row):
    return [row(s) for s in SIZES]


def modern():
    out = preamble(1, "agg iters: 1 validation: 1 graph: 0", "new", [
        "#                                                              out-of-place                       in-place",
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)"])

    def row(s):
        t, a, b = rowvals(s)
        return (f"{s:12d}  {s // 4:12d}     float     sum      -1 {fmt_t(t)} {a:7.2f} {b:7.2f}      0 "
                f"{fmt_t(t)} {a:7.2f} {b:7.2f}      0")
    return out + table(row) + ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 123.45", "#"]


def before_root():
    out = preamble(1, "validation: 1", "old", [
        "#                                                       out-of-place                       in-place",
        "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error",
        "#        (B)    (elements)                       (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)"])

    def row(s):
        t, a, b = rowvals(s)
        return (f"{s:12d}  {s // 4:12d}     float     sum {fmt_t(t)} {a:7.2f} {b:7.2f}  0e+00 "
                f"{fmt_t(t)} {a:7.2f} {b:7.2f}  0e+00")
    return out + table(row)


def gather_without_redop():
    out = preamble(8, "validation: 1", "old", [
        "#                                             out-of-place                       in-place",
        "#       size         count    type     time   algbw   busbw  error     time   algbw   busbw  error",
        "#        (B)    (elements)             (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)"])

    def row(s):
        t = 24.0 + s / 230e3
        a = s / t / 1e3 * (N - 1) / N  # algbw then held the (n - 1) / n factor
        return (f"{s:12d}  {s // 4 // N:12d}   float {fmt_t(t)} {a:7.2f} {a:7.2f}  0e+00 "
                f"{fmt_t(t)} {a:7.2f} {a:7.2f}  0e+00")
    return out + table(row)


def nccl1():
    out = ["# Using devices"] + [f"#   Rank {r} uses device {r} [0x{r:02x}] Tesla P100-SXM2-16GB"
                                 for r in range(N)]
    out += ["#                                            out-of-place                    in-place",
            "#  bytes             N    type      op     time  algbw  busbw      res     time  algbw  busbw      res"]
    for s in [10000000, 100000000]:
        t, a, b = rowvals(s)
        out.append(f"{s:10d}  {s // 4:12d}   float     sum  {t / 1e3:7.3f} {a:6.2f} {b:6.2f}    0e+00  "
                   f"{t / 1e3:7.3f} {a:6.2f} {b:6.2f}    0e+00")
    return out


def misread():
    out = modern()
    i = next(k for k, line in enumerate(out) if line.lstrip().startswith(str(1 << 22) + " "))
    t, a, b = rowvals(1 << 22)  # algbw where the time should be
    out[i] = (f"{1 << 22:12d}  {(1 << 22) // 4:12d}     float     sum      -1 {a:8.2f} {b:7.2f} {t:7.2f}      0 "
              f"{a:8.2f} {b:7.2f} {t:7.2f}      0")
    return out


def cut_list():
    """A device list cut short (a log's tail kept): only the last of 16 ranks on 2 nodes."""
    out = [line for line in modern() if "Rank " not in line]
    i = out.index("# Using devices")
    return out[:i + 1] + [dev("new", 15, "node2").replace("device 15", "device  7")] + out[i + 1:]


def main():
    m = modern()
    rows_at = next(k for k, line in enumerate(m) if line.lstrip()[:1].isdigit())
    files = {
        "nccl-tests-2.13.txt": m,
        "rows-only.txt": [line for line in m if not line.startswith("#")],
        "nccl-tests-2.0-noroot.txt": before_root(),
        "all-gather-noredop.txt": gather_without_redop(),
        "tagged-openmpi.txt": ["[1,0]<stdout>:" + line for line in m],
        "tagged-hydra.txt": ["[0] " + line for line in m],
        "tagged-srun.txt": ["0: " + line for line in m],
        "indented.txt": ["    " + line for line in m],
        "nccl1-ms.txt": nccl1(),
        "misread.txt": misread(),
        "footer-only.txt": m + ["# Collective test concluded: all_reduce_perf"],
        "cut-list.txt": cut_list(),
        "two-runs.txt": (["# Collective test starting: all_reduce_perf"] + m +
                         ["# Collective test starting: all_reduce_perf"] + m),
        "garbage.txt": m[:rows_at] + ["<<<<<<< HEAD"] + m[rows_at:],
        "osu_mbw_mr.txt": ["# OSU MPI Multiple Bandwidth / Message Rate Test v7.3",
                           "# [ pairs: 1 ] [ window size: 64 ]",
                           "# Size                  MB/s        Messages/s"] +
                          [f"{s:<12d} {s / (1 + s / 12000.0):18.2f} {1e6 / (1 + s / 12000.0):18.2f}"
                           for s in [1, 1024, 1048576]],
        "osu_bw.txt": ["# OSU MPI Bandwidth Test v7.3", "# Size      Bandwidth (MB/s)"] +
                      [f"{s:<10d} {s / (2 + s / 12000.0):16.2f}" for s in [1, 1024, 1048576]],
    }
    for name, lines in files.items():
        with open(name, "w") as f:
            f.write("\n".join(lines) + "\n")


main()
