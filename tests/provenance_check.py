#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Provenance tracking (-i) on the provenance logs of ../shared/corpus/logs, checked against
the expected values of spec modes.md §5.2 (the reference's integration tests):

  - `tlparse LOG -o OUT --overwrite --no-browser --inductor-provenance` succeeds;
  - the files §5.2 lists exist;
  - the JSON between `<script id="lineMappings" type="application/json">` and the next
    `</script>` of OUT/provenance_tracking_<folder>.html equals the expected object (key order
    free, array order significant, integers stay integers), and its keys are written in
    ascending string order (spec §3.4);
  - a second run with --plain-text embeds the same mappings;
  - the JIT logs also write provenance_tracking_-_-_-_-.html, which embeds exactly {}.

    provenance_check.py TLPARSE SHARED_DIR

Prints one line per log ("ok   LOG" or "FAIL LOG: why"); a log §5.2 names that the corpus does
not hold is reported as absent. Exit 0 when every present log passes, 1 otherwise, 77 when
the corpus holds none of them.
"""
import json
import os
import subprocess
import sys
import tempfile

TAG = '<script id="lineMappings" type="application/json">'

EMPTY = {}


def tables(pre_to_post, post_to_pre, py_to_post, post_to_py, cpp_to_post, post_to_cpp):
    return {"preToPost": pre_to_post, "postToPre": post_to_pre,
            "pyCodeToPost": py_to_post, "postToPyCode": post_to_py,
            "cppCodeToPost": cpp_to_post, "postToCppCode": post_to_cpp}


AOT_LOG_GRAPH = (
    {"11": [15], "14": [18], "17": [21], "20": [24], "23": [27, 28, 29, 30, 31], "8": [11, 12]},
    {"11": [8], "12": [8], "15": [11], "18": [14], "21": [17], "24": [20], "27": [23],
     "28": [23], "29": [23], "30": [23], "31": [23]},
)

# Spec modes.md §5.2, one entry per reference test: the log, the files it must write, the page
# whose embedded mappings are checked and the expected object (facts from the spec).
CASES = [
    {
        "test": "test_provenance_tracking_aot_cuda",
        "log": "inductor_provenance_aot_cuda_log.txt",
        "files": ["-_-_-_-/before_pre_grad_graph_0.txt", "-_-_-_-/after_post_grad_graph_6.txt",
                  "provenance_tracking_-_-_-_-.html",
                  "-_-_-_-/inductor_provenance_tracking_node_mappings_12.json"],
        "page": "provenance_tracking_-_-_-_-.html",
        "jit": False,
        "mappings": tables(
            {"11": [18], "14": [21], "17": [24], "20": [27, 28], "23": [31, 32, 33, 34, 35],
             "8": [11, 14, 15]},
            {"11": [8], "14": [8], "15": [8], "18": [11], "21": [14], "24": [17], "27": [20],
             "28": [20], "31": [23], "32": [23], "33": [23], "34": [23], "35": [23]},
            EMPTY, EMPTY,
            {"1060": [14, 27, 24], "1064": [21, 18, 15], "1071": [24], "1079": [14, 27, 24],
             "1084": [35, 31, 28, 34, 33, 32]},
            {"14": [1060, 1079], "15": [1064], "18": [1064], "21": [1064],
             "24": [1071, 1060, 1079], "27": [1060, 1079], "28": [1084], "31": [1084],
             "32": [1084], "33": [1084], "34": [1084], "35": [1084]}),
    },
    {
        "test": "test_provenance_tracking_aot_debug_handle",
        "log": "inductor_provenance_aot_debug_handle_log.txt",
        "files": ["-_-_-_-/before_pre_grad_graph_0.txt", "-_-_-_-/after_post_grad_graph_6.txt",
                  "provenance_tracking_-_-_-_-.html",
                  "-_-_-_-/inductor_provenance_tracking_node_mappings_10.json"],
        "page": "provenance_tracking_-_-_-_-.html",
        "jit": False,
        "mappings": tables(
            {"11": [16], "14": [19], "17": [22], "20": [25, 26], "23": [29, 30, 31, 32, 33],
             "8": [11, 12, 13]},
            {"11": [8], "12": [8], "13": [8], "16": [11], "19": [14], "22": [17], "25": [20],
             "26": [20], "29": [23], "30": [23], "31": [23], "32": [23], "33": [23]},
            EMPTY, EMPTY,
            {"1074": [12], "1079": [19, 16, 13], "1087": [22], "1096": [25],
             "1102": [33, 29, 26, 32, 31, 30]},
            {"12": [1074], "13": [1079], "16": [1079], "19": [1079], "22": [1087],
             "25": [1096], "26": [1102], "29": [1102], "30": [1102], "31": [1102],
             "32": [1102], "33": [1102]}),
    },
    {
        "test": "test_provenance_tracking_aot_log",
        "log": "inductor_provenance_aot_log.txt",
        "files": ["-_-_-_-/before_pre_grad_graph_0.txt", "-_-_-_-/after_post_grad_graph_6.txt",
                  "provenance_tracking_-_-_-_-.html",
                  "-_-_-_-/inductor_provenance_tracking_node_mappings_11.json"],
        "page": "provenance_tracking_-_-_-_-.html",
        "jit": False,
        "mappings": tables(
            AOT_LOG_GRAPH[0], AOT_LOG_GRAPH[1], EMPTY, EMPTY,
            {"813": [12, 24, 21], "821": [18, 15, 21], "829": [12, 24, 21],
             "834": [31, 27, 30, 29, 28]},
            {"12": [813, 829], "15": [821], "18": [821], "21": [821, 813, 829],
             "24": [813, 829], "27": [834], "28": [834], "29": [834], "30": [834],
             "31": [834]}),
    },
    {
        "test": "test_provenance_tracking_aot_log_old",
        "log": "inductor_provenance_aot_log_old.txt",
        "files": ["-_-_-_-/inductor_pre_grad_graph_0.txt", "-_-_-_-/inductor_post_grad_graph_8.txt",
                  "provenance_tracking_-_-_-_-.html",
                  "-_-_-_-/inductor_provenance_tracking_node_mappings_11.json"],
        "page": "provenance_tracking_-_-_-_-.html",
        "jit": False,
        "mappings": tables(
            AOT_LOG_GRAPH[0], AOT_LOG_GRAPH[1], EMPTY, EMPTY,
            {"704": [21], "717": [31, 27, 30, 29, 28]},
            {"21": [704], "27": [717], "28": [717], "29": [717], "30": [717], "31": [717]}),
    },
    {
        "test": "test_provenance_tracking_jit_cuda",
        "log": "inductor_provenance_jit_cuda_log.txt",
        "files": ["-_0_0_0/before_pre_grad_graph_1.txt", "-_0_0_0/after_post_grad_graph_8.txt",
                  "provenance_tracking_-_0_0_0.html",
                  "-_0_0_0/inductor_provenance_tracking_node_mappings_14.json"],
        "page": "provenance_tracking_-_0_0_0.html",
        "jit": True,
        "mappings": tables(
            {"11": [4, 7, 8], "14": [11], "17": [14], "20": [17], "23": [20, 21],
             "26": [24, 25, 26, 27, 28]},
            {"11": [14], "14": [17], "17": [20], "20": [23], "21": [23], "24": [26], "25": [26],
             "26": [26], "27": [26], "28": [26], "4": [11], "7": [11], "8": [11]},
            {"186": [7, 20, 17], "192": [14, 11, 8], "197": [17], "201": [7, 20, 17],
             "207": [28, 24, 21, 27, 26, 25]},
            {"11": [192], "14": [192], "17": [197, 186, 201], "20": [186, 201], "21": [207],
             "24": [207], "25": [207], "26": [207], "27": [207], "28": [207], "7": [186, 201],
             "8": [192]},
            EMPTY, EMPTY),
    },
    {
        "test": "test_provenance_tracking_jit_log",
        "log": "inductor_provenance_jit_log.txt",
        "files": ["-_0_0_0/before_pre_grad_graph_1.txt", "-_0_0_0/after_post_grad_graph_8.txt",
                  "provenance_tracking_-_0_0_0.html",
                  "-_0_0_0/inductor_provenance_tracking_node_mappings_13.json"],
        "page": "provenance_tracking_-_0_0_0.html",
        "jit": True,
        "mappings": tables(
            {"11": [4, 5], "14": [8], "17": [11], "20": [14], "23": [17],
             "26": [20, 21, 22, 23, 24]},
            {"11": [17], "14": [20], "17": [23], "20": [26], "21": [26], "22": [26], "23": [26],
             "24": [26], "4": [11], "5": [11], "8": [14]},
            {"132": [5, 17, 14], "138": [11, 8, 14], "142": [5, 17, 14],
             "147": [24, 20, 23, 22, 21]},
            {"11": [138], "14": [138, 132, 142], "17": [132, 142], "20": [147], "21": [147],
             "22": [147], "23": [147], "24": [147], "5": [132, 142], "8": [138]},
            EMPTY, EMPTY),
    },
    {
        "test": "test_provenance_tracking_jit_debug_handle",
        "log": "inductor_provenance_jit_debug_handle_log.txt",
        "files": ["-_0_0_0/before_pre_grad_graph_1.txt", "-_0_0_0/after_post_grad_graph_11.txt",
                  "provenance_tracking_-_0_0_0.html",
                  "-_0_0_0/inductor_provenance_tracking_node_mappings_14.json"],
        "page": "provenance_tracking_-_0_0_0.html",
        "jit": True,
        "mappings": tables(
            {"11": [4, 5, 6], "14": [9], "17": [12], "20": [15], "23": [18, 19],
             "26": [22, 23, 24, 25, 26]},
            {"12": [17], "15": [20], "18": [23], "19": [23], "22": [26], "23": [26], "24": [26],
             "25": [26], "26": [26], "4": [11], "5": [11], "6": [11], "9": [14]},
            {"197": [5], "204": [12, 9, 6, 29], "211": [15], "216": [18],
             "223": [26, 22, 19, 25, 24, 23]},
            {"12": [204], "15": [211], "18": [216], "19": [223], "22": [223], "23": [223],
             "24": [223], "25": [223], "26": [223], "29": [204], "5": [197], "6": [204],
             "9": [204]},
            EMPTY, EMPTY),
    },
    {
        # Only one entry is known (spec: unverified, the input was not available).
        "test": "test_provenance_tracking_multiple_colons_in_kernel_name",
        "log": "inductor_provenance_long_log.txt",
        "files": ["-_-_-_-/before_pre_grad_graph_0.txt", "-_-_-_-/after_post_grad_graph_8.txt",
                  "provenance_tracking_-_-_-_-.html",
                  "-_-_-_-/inductor_provenance_tracking_node_mappings_12.json"],
        "page": "provenance_tracking_-_-_-_-.html",
        "jit": False,
        "entry": ("cppCodeToPost", "15892",
                  [10197, 10194, 10191, 10200, 10225, 10223, 10221, 10220, 10219, 10218, 10215,
                   10214, 10213, 10212, 10211, 10205, 10204, 10203, 10199, 10198, 10202, 10201,
                   10217, 10216, 10210, 10209, 10208, 10207, 10206, 10224, 10222, 10227,
                   10226]),
    },
]


class Bad(Exception):
    pass


def strict_equal(a, b):
    """JSON equality that keeps integers apart from floats and booleans."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b))
    return a == b


def sorted_pairs(pairs):
    keys = [k for k, _ in pairs]
    if keys != sorted(keys, key=lambda k: k.encode()):
        raise Bad("keys not in ascending string order: %s" % keys)
    return dict(pairs)


def embedded(path):
    """The JSON embedded after the lineMappings tag, keys checked for order."""
    try:
        with open(path, encoding="utf-8") as f:
            page = f.read()
    except OSError as e:
        raise Bad("cannot read %s: %s" % (path, e))
    start = page.find(TAG)
    if start < 0:
        raise Bad("%s: no %s" % (os.path.basename(path), TAG))
    start = page.index(">", start) + 1
    end = page.find("</script>", start)
    if end < 0:
        raise Bad("%s: no </script> after the mappings" % os.path.basename(path))
    try:
        return json.loads(page[start:end], object_pairs_hook=sorted_pairs)
    except ValueError as e:
        raise Bad("%s: the embedded mappings are not JSON: %s" % (os.path.basename(path), e))


def describe_diff(got, want):
    if not isinstance(got, dict) or not isinstance(want, dict):
        return "got %s, want %s" % (json.dumps(got), json.dumps(want))
    lines = []
    for k in sorted(set(got) | set(want)):
        if k not in got:
            lines.append("  %s: missing" % k)
        elif k not in want:
            lines.append("  %s: unexpected" % k)
        elif not strict_equal(got[k], want[k]):
            lines.append("  %s:\n    got  %s\n    want %s" % (k, json.dumps(got[k], sort_keys=True),
                                                              json.dumps(want[k], sort_keys=True)))
    return "\n" + "\n".join(lines)


def run(tlparse, log, out, plain):
    cmd = [tlparse, log, "-o", out, "--overwrite", "--no-browser", "--inductor-provenance"]
    if plain:
        cmd.append("--plain-text")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if p.returncode != 0:
        raise Bad("%s exited %d: %s" % (" ".join(cmd[2:]), p.returncode,
                                        p.stderr.decode(errors="replace").strip()[-500:]))


def check_mappings(case, got):
    if "mappings" in case:
        if not strict_equal(got, case["mappings"]):
            raise Bad("%s differs from spec §5.2:%s" % (case["page"],
                                                        describe_diff(got, case["mappings"])))
    else:
        table, key, want = case["entry"]
        have = got.get(table, {}).get(key) if isinstance(got.get(table), dict) else None
        if not strict_equal(have, want):
            raise Bad("%s[%s]: got %s, want %s" % (table, key, json.dumps(have), json.dumps(want)))


def check_case(tlparse, case, log, tmp):
    results = []
    for plain in (False, True):
        out = os.path.join(tmp, "plain" if plain else "html")
        run(tlparse, log, out, plain)
        for f in case["files"]:
            if not os.path.isfile(os.path.join(out, f)):
                raise Bad("%s missing%s" % (f, " (with --plain-text)" if plain else ""))
        got = embedded(os.path.join(out, case["page"]))
        check_mappings(case, got)
        if case["jit"]:
            other = embedded(os.path.join(out, "provenance_tracking_-_-_-_-.html"))
            if not strict_equal(other, {}):
                raise Bad("provenance_tracking_-_-_-_-.html embeds %s, want {}"
                          % json.dumps(other)[:200])
        results.append(got)
    if not strict_equal(results[0], results[1]):
        raise Bad("--plain-text embeds other mappings:%s" % describe_diff(results[1], results[0]))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    tlparse, shared = os.path.abspath(sys.argv[1]), sys.argv[2]
    logs = os.path.join(shared, "corpus", "logs")
    present = 0
    failed = 0
    for case in CASES:
        log = os.path.join(logs, case["log"])
        if not os.path.isfile(log):
            print("absent %s (%s): not in the corpus" % (case["log"], case["test"]))
            continue
        present += 1
        with tempfile.TemporaryDirectory() as tmp:
            try:
                check_case(tlparse, case, log, tmp)
                print("ok   %s" % case["log"])
            except (Bad, subprocess.TimeoutExpired) as e:
                print("FAIL %s: %s" % (case["log"], e))
                failed += 1
    if not present:
        print("SKIP: no provenance log of spec §5.2 in %s" % logs)
        return 77
    print("provenance: %d logs checked, %d failed" % (present, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
