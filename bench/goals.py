#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The speed goals of tlparse, from paired runs, as one table (`make bench` prints it):

    bench/goals.py --tlparse build/tlparse --log200 L --log1g L --ranks DIR --runs-dir D
                   [--reference BIN] [--runs 5]

Paired: the two commands of a figure run in turn (A B A B ...), and a ratio is taken pair by
pair, its median reported, so that a machine whose speed drifts (a VM: 2x from run to run)
still gives a meaningful ratio. Each run writes a new report folder under --runs-dir (no
deletion between timed runs: ext4 creates files slowly right after a mass deletion); the
caller removes them. Before each run a throw-away allocation touches 2.5 times the input's
size, as bench/run.sh does (a VM backs the page cache's memory lazily).

Rows (the goal in brackets):
  200 MiB against the reference (TLPARSE_REFERENCE, --reference)   [>= 30x]
  200 MiB against the floor (--floor: bench/floor.c, the log read once and the same files
    written, no parsing), wall: on a settled disk (no file deleted in the last minute) [-],
    and as a run again is timed, right after the last run's report was deleted (rm -rf:
    ext4 then creates files slowly, for the floor as for tlparse)  [<= 1.3]
  1 GiB / 200 MiB, wall time                                        [<= 5.5]
  8 ranks: -j 2 / -j 1, wall time                                   [<= 0.62]
  8 ranks at -j 1: cores in use (CPU / wall; A = CPU, B = wall), and the floor that sets
    on -j 2 / -j 1 with this machine's cores: max(1/2, cores in use / cores)
  64 ranks against 8 of the same size, wall time per rank (--many)  [<= 1.1]
  peak RSS, 1 GiB                                                   [<= 64 MB]
"""

import argparse
import collections
import os
import shutil
import statistics
import subprocess
import sys
import time


# ext4's window for "recently deleted" inodes: 60 s once their inode table block is written.
SETTLE_SECONDS = 61

# What a paired figure gives: medians of A's and B's wall times, of the ratios A/B pair by
# pair, and of A's and B's CPU times; the peak RSS of each.
Pair = collections.namedtuple("Pair", "wall_a wall_b ratio rss_a rss_b cpu_a cpu_b")


def rank_logs(folder):
    """The number of rank logs (*.log) in folder, and their bytes."""
    logs = [f for f in os.listdir(folder) if f.endswith(".log")]
    return len(logs), sum(os.path.getsize(os.path.join(folder, f)) for f in logs)


def prefault(nbytes):
    """Touch and free nbytes of memory, in a process of its own (whose peak RSS is not ours
    to count: a child forked from a big process would carry it)."""
    subprocess.run([sys.executable, "-c", "import sys; b = b'\\1' * int(sys.argv[1])", str(nbytes)],
                   check=True)


def run(cmd, out, touch):
    """Run cmd (a list; "{out}" replaced by out) once: wall seconds, CPU seconds, peak RSS in
    MiB (of the process and the children it waited for)."""
    # The run before wrote gigabytes the kernel has yet to write back: on two cores its
    # flusher would take one from this run. Each run starts with nothing dirty.
    os.sync()
    prefault(touch)
    argv = [a.replace("{out}", out) for a in cmd]
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    err = p.stderr.read().decode("utf-8", "replace")
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("bench: %s exited %d:\n%s" % (" ".join(argv), p.returncode, err[-2000:]))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


class Pairs:
    def __init__(self, runs_dir):
        self.runs_dir = runs_dir
        self.n = 0

    def out(self):
        self.n += 1
        return os.path.join(self.runs_dir, "goal%d" % self.n)

    def clean(self, settle=True):
        """Remove the reports of the figure done (the 1 GiB ones are 2.3 GB each), then let the
        file system settle: an ext4 without a journal (this VM's root file system) skips each
        free inode deleted in the last minute (six while its inode table block is dirty), one
        buffer lookup each, and creating files right after deleting tens of thousands took
        several times longer (perf: recently_deleted under __ext4_new_inode, a third of a
        run). Waiting lessens it; new files dirty the same blocks again, so it stays noise."""
        gone = False
        for name in os.listdir(self.runs_dir):
            if name.startswith("goal"):
                shutil.rmtree(os.path.join(self.runs_dir, name), ignore_errors=True)
                gone = True
        if gone and settle:
            os.sync()
            time.sleep(SETTLE_SECONDS)

    def paired_rerun(self, a, b, runs, touch_a, touch_b):
        """A and B in turn, runs times each, as a run again is timed: each run right after the
        report of the same command's last run was deleted (not timed). A Pair."""
        self.clean()
        last = {}

        def again(cmd, touch, key):
            if key in last:
                shutil.rmtree(last[key], ignore_errors=True)
            last[key] = self.out()
            return run(cmd, last[key], touch)

        again(a, touch_a, "a")  # a warm-up each, not counted
        again(b, touch_b, "b")
        wa, wb, ratios, ca, cb = [], [], [], [], []
        for _ in range(runs):
            x = again(a, touch_a, "a")
            y = again(b, touch_b, "b")
            wa.append(x[0])
            wb.append(y[0])
            ratios.append(x[0] / y[0])
            ca.append(x[1])
            cb.append(y[1])
        return Pair(statistics.median(wa), statistics.median(wb), statistics.median(ratios),
                    0, 0, statistics.median(ca), statistics.median(cb))

    def paired(self, a, b, runs, touch_a, touch_b):
        """A and B in turn, runs times each (after a warm-up each): a Pair."""
        self.clean()
        run(a, self.out(), touch_a)  # a warm-up each, not counted
        run(b, self.out(), touch_b)
        wa, wb, ratios, ra, rb, ca, cb = [], [], [], [], [], [], []
        for _ in range(runs):
            x = run(a, self.out(), touch_a)
            y = run(b, self.out(), touch_b)
            wa.append(x[0])
            wb.append(y[0])
            ratios.append(x[0] / y[0])
            ca.append(x[1])
            cb.append(y[1])
            ra.append(x[2])
            rb.append(y[2])
        return Pair(statistics.median(wa), statistics.median(wb), statistics.median(ratios),
                    max(ra), max(rb), statistics.median(ca), statistics.median(cb))


def floor_rows(pairs, ours200, log200, floor_bin, runs):
    """The rows of tlparse against the floor (bench/floor.c) on log200: on a settled disk, and
    as a run again is timed."""
    s200 = os.path.getsize(log200)
    # the floor writes the files of one of our reports: their list, from a report made now
    pairs.clean(settle=False)
    model = pairs.out()
    run(ours200, model, 0)
    manifest = os.path.join(pairs.runs_dir, "floor-manifest.txt")
    with open(manifest, "w") as f:
        for root, _dirs, files in os.walk(model):
            for name in sorted(files):
                path = os.path.join(root, name)
                f.write("%d\t%s\n" % (os.path.getsize(path), os.path.relpath(path, model)))
    floor = [floor_bin, log200, "{out}", manifest]
    rows = []
    p = pairs.paired(ours200, floor, runs, 5 * s200 // 2, 5 * s200 // 2)
    rows.append(("%.0f MiB: tlparse / floor, settled disk" % (s200 / 2**20), "%.3f s" % p.wall_a,
                 "%.3f s" % p.wall_b, "%.2f" % p.ratio, "-", None))
    # what two cores could do at best: tlparse's CPU shared by both, against the floor
    rows.append(("  tlparse's CPU / 2 cores / floor", "%.3f s" % p.cpu_a, "%.3f s" % p.wall_b,
                 "%.2f" % (p.cpu_a / 2 / p.wall_b), "-", None))
    p = pairs.paired_rerun(ours200, floor, runs, 5 * s200 // 2, 5 * s200 // 2)
    rows.append(("%.0f MiB: tlparse / floor, run again" % (s200 / 2**20), "%.3f s" % p.wall_a,
                 "%.3f s" % p.wall_b, "%.2f" % p.ratio, "<= 1.3", p.ratio <= 1.3))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tlparse", required=True)
    ap.add_argument("--reference", default=os.environ.get("TLPARSE_REFERENCE"))
    ap.add_argument("--log200", required=True)
    ap.add_argument("--log1g", required=True)
    ap.add_argument("--ranks", required=True, help="a folder of rank logs")
    ap.add_argument("--many", nargs=2, metavar=("DIR64", "DIR8"),
                    help="two folders of 64 and of 8 rank logs of the same size")
    ap.add_argument("--floor", help="bench/floor built (its rows are left out without it)")
    ap.add_argument("--runs-dir", required=True)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    os.makedirs(args.runs_dir, exist_ok=True)
    pairs = Pairs(args.runs_dir)
    ours = [args.tlparse]
    quiet = ["--no-browser", "--no-progress"]
    s200 = os.path.getsize(args.log200)
    s1g = os.path.getsize(args.log1g)
    nranks, ranks = rank_logs(args.ranks)
    rows = []  # (figure, A, B, value, goal, met)

    if args.reference:
        # The reference takes no --no-progress; -o and the log as ours.
        p = pairs.paired(ours + [args.log200, "-o", "{out}"] + quiet,
                         [args.reference, args.log200, "-o", "{out}", "--no-browser"],
                         args.runs, 5 * s200 // 2, 5 * s200 // 2)
        rows.append(("200 MiB: tlparse / reference, wall", "%.3f s" % p.wall_a,
                     "%.3f s" % p.wall_b, "%.1fx" % (1 / p.ratio), ">= 30x", 1 / p.ratio >= 30))
    else:
        rows.append(("200 MiB: tlparse / reference, wall", "-", "-",
                     "unset: TLPARSE_REFERENCE", ">= 30x", None))

    if args.floor:
        rows += floor_rows(pairs, ours + [args.log200, "-o", "{out}"] + quiet, args.log200,
                           args.floor, args.runs)
    else:
        rows.append(("200 MiB: tlparse / floor", "-", "-", "unset: --floor", "<= 1.3", None))

    p = pairs.paired(ours + [args.log1g, "-o", "{out}"] + quiet,
                     ours + [args.log200, "-o", "{out}"] + quiet,
                     args.runs, 5 * s1g // 2, 5 * s200 // 2)
    rss1g = p.rss_a * 1.048576  # MiB to MB
    rows.append(("%.0f MiB / %.0f MiB, wall" % (s1g / 2**20, s200 / 2**20), "%.3f s" % p.wall_a,
                 "%.3f s" % p.wall_b, "%.2f" % p.ratio, "<= 5.5", p.ratio <= 5.5))
    rows.append(("peak RSS, %.0f MiB log" % (s1g / 2**20), "%.1f MB" % rss1g, "-",
                 "%.1f MB" % rss1g, "<= 64 MB", rss1g <= 64))

    p = pairs.paired(
        ours + ["--all-ranks-html", args.ranks, "-j", "2", "-o", "{out}"] + quiet,
        ours + ["--all-ranks-html", args.ranks, "-j", "1", "-o", "{out}"] + quiet,
        args.runs, 5 * ranks // 2, 5 * ranks // 2)
    rows.append(("%d ranks x %.0f MiB: -j 2 / -j 1, wall" % (nranks, ranks / nranks / 2**20),
                 "%.3f s" % p.wall_a, "%.3f s" % p.wall_b, "%.2f" % p.ratio, "<= 0.62",
                 p.ratio <= 0.62))
    # One rank at a time already keeps more than one core busy (the payloads' MD5, the kernel
    # copying the report into the page cache, raw.log's copy run beside the parser). Two at
    # a time can only share the same cores: -j 2 takes at least CPU / cores, so the ratio
    # cannot go below max(1/2, busy / cores) unless -j 2 does less work in all than -j 1.
    busy, cores = p.cpu_b / p.wall_b, os.cpu_count() or 1
    rows.append(("%d ranks, -j 1: cores in use (CPU/wall)" % nranks, "%.3f s" % p.cpu_b,
                 "%.3f s" % p.wall_b, "%.2f" % busy, "-", None))
    rows.append(("  floor of -j 2 / -j 1 on %d cores" % cores, "-", "-",
                 "%.2f" % max(0.5, busy / cores), "-", None))
    rows.append(("%d ranks: -j 2 / -j 1, CPU" % nranks, "%.3f s" % p.cpu_a, "%.3f s" % p.cpu_b,
                 "%.2f" % (p.cpu_a / p.cpu_b), "-", None))

    if args.many:
        big, small = args.many
        (nbig, sbig), (nsmall, ssmall) = rank_logs(big), rank_logs(small)
        p = pairs.paired(
            ours + ["--all-ranks-html", big, "-j", "2", "-o", "{out}"] + quiet,
            ours + ["--all-ranks-html", small, "-j", "2", "-o", "{out}"] + quiet,
            args.runs, 5 * sbig // 2, 5 * ssmall // 2)
        per = p.ratio * nsmall / nbig
        rows.append(("%d ranks / %d ranks, wall per rank" % (nbig, nsmall),
                     "%.3f s" % p.wall_a, "%.3f s" % p.wall_b, "%.2f" % per, "<= 1.1", per <= 1.1))

    pairs.clean(settle=False)
    print("\nthe speed goals, paired runs (A B A B ...), medians of %d pairs:" % args.runs)
    print("%-36s %10s %10s %12s %9s %5s" % ("figure", "A", "B", "value", "goal", "met"))
    for fig, a, b, v, goal, met in rows:
        print("%-36s %10s %10s %12s %9s %5s" % (fig, a, b, v, goal,
                                                "-" if met is None else "yes" if met else "NO"))


if __name__ == "__main__":
    main()
