#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Re-parse TORCH_TRACE logs the way tlparse reads them and report what is in them.

Follows spec core §1: unanchored glog-prefix search, one JSON object per envelope,
TAB-prefixed payload lines (empty lines skipped), md5 of the payload checked against
has_payload, `str` entries interned and not counted, rank filtering.  Also checks the
types of the fields the report relies on (compile ids, stack frames, metrics), so a
generator bug shows up here rather than as a confusing page.

    scripts/check_trace.py LOG [LOG...]     # exit 1 if any log has a problem
Python 3 standard library only.
"""
import argparse
import collections
import hashlib
import json
import re
import sys

GLOG = re.compile(r"[VIWEC]\d{4} \d{2}:\d{2}:\d{2}.\d{6} (\d+)([^:]+):(\d+)\] (.+)", re.DOTALL)
CID_KEYS = ("compiled_autograd_id", "frame_id", "frame_compile_id", "attempt")
U32 = (0, 2**32 - 1)


def is_int(v, lo=None, hi=None):
    if isinstance(v, bool) or not isinstance(v, int):
        return False
    return (lo is None or v >= lo) and (hi is None or v <= hi)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_stack(stack, where, errs):
    if not isinstance(stack, list):
        errs.append(f"{where}: stack is not a list")
        return
    for i, f in enumerate(stack):
        if not isinstance(f, dict):
            errs.append(f"{where}: frame {i} is not an object")
            continue
        if not is_int(f.get("filename"), *U32):
            errs.append(f"{where}: frame {i} filename is not a u32 string id")
        if not is_int(f.get("line"), -(2**31), 2**31 - 1):
            errs.append(f"{where}: frame {i} line is not an i32")
        if not isinstance(f.get("name"), str):
            errs.append(f"{where}: frame {i} name is not a string")
        for k in ("loc", "uninterned_filename"):
            if f.get(k) is not None and not isinstance(f[k], str):
                errs.append(f"{where}: frame {i} {k} is not a string")


METRIC_TYPES = {
    "co_name": "str", "co_filename": "str", "co_firstlineno": "i32", "cache_size": "u64",
    "accumulated_cache_size": "u64", "guard_count": "u64", "shape_env_guard_count": "u64",
    "graph_op_count": "u64", "graph_node_count": "u64", "graph_input_count": "u64",
    "start_time": "f64", "entire_frame_compile_time_s": "f64", "backend_compile_time_s": "f64",
    "inductor_compile_time_s": "f64", "code_gen_time_s": "f64", "fail_type": "str",
    "fail_reason": "str", "fail_user_frame_filename": "str", "fail_user_frame_lineno": "u32",
    "non_compliant_ops": "[str]", "compliant_custom_ops": "[str]", "restart_reasons": "[str]",
    "dynamo_time_before_restart_s": "f64",
}


def type_ok(v, t):
    if v is None:
        return True
    if t == "str":
        return isinstance(v, str)
    if t == "f64":
        return is_num(v)
    if t == "u64":
        return is_int(v, 0, 2**64 - 1)
    if t == "u32":
        return is_int(v, *U32)
    if t == "i32":
        return is_int(v, -(2**31), 2**31 - 1)
    if t == "[str]":
        return isinstance(v, list) and all(isinstance(x, str) for x in v)
    raise ValueError(t)


def check_envelope(env, where, errs):
    """Type checks for the keys the report uses; appends messages to errs."""
    for k in CID_KEYS:
        if env.get(k) is not None and not is_int(env[k], *U32):
            errs.append(f"{where}: {k} is not a u32")
    if env.get("stack") is not None:
        check_stack(env["stack"], where, errs)
    ds = env.get("dynamo_start")
    if ds is not None:
        if not isinstance(ds, dict):
            errs.append(f"{where}: dynamo_start is not an object")
        elif ds.get("stack") is not None:
            check_stack(ds["stack"], where, errs)
    for key, req in (("link", ("name", "url")), ("artifact", ("name", "encoding")),
                     ("dump_file", ("name",)), ("graph_dump", ("name",)),
                     ("optimize_ddp_split_child", ("name",))):
        v = env.get(key)
        if v is not None and not (isinstance(v, dict) and all(isinstance(v.get(r), str) for r in req)):
            errs.append(f"{where}: {key} lacks string field(s) {', '.join(req)}")
    m = env.get("compilation_metrics")
    if m is not None:
        if not isinstance(m, dict):
            errs.append(f"{where}: compilation_metrics is not an object")
        else:
            for k, t in METRIC_TYPES.items():
                if not type_ok(m.get(k), t):
                    errs.append(f"{where}: compilation_metrics.{k} is not {t}")
            if m.get("fail_type") is not None and m.get("fail_reason") is None:
                errs.append(f"{where}: fail_type without fail_reason")
    for key in ("symbolic_shape_specialization", "guard_added_fast"):
        v = env.get(key)
        if isinstance(v, dict):
            for sk in ("stack", "user_stack"):
                if v.get(sk) is not None:
                    check_stack(v[sk], f"{where} {key}.{sk}", errs)
    if env.get("describe_storage") is not None:
        v = env["describe_storage"]
        if not (isinstance(v, dict) and all(is_int(v.get(k), 0) for k in ("id", "describer_id", "size"))):
            errs.append(f"{where}: describe_storage lacks u64 id/describer_id/size")
    if env.get("describe_source") is not None:
        v = env["describe_source"]
        if not (isinstance(v, dict) and is_int(v.get("id"), 0) and is_int(v.get("describer_id"), 0)
                and isinstance(v.get("source"), str)):
            errs.append(f"{where}: describe_source lacks id/describer_id/source")
    if env.get("describe_tensor") is not None:
        v = env["describe_tensor"]
        ok = isinstance(v, dict) and all(is_int(v.get(k), 0) for k in ("id", "describer_id", "ndim"))
        ok = ok and isinstance(v.get("dtype"), str) and isinstance(v.get("device"), str)
        ok = ok and isinstance(v.get("size"), list)
        if not ok:
            errs.append(f"{where}: describe_tensor lacks required fields")
    if env.get("has_payload") is not None and not isinstance(env["has_payload"], str):
        errs.append(f"{where}: has_payload is not a string")


def check(path, out):
    with open(path, "rb") as f:
        raw_lines = f.read().split(b"\n")
    lines = []
    for b in raw_lines:
        if b.endswith(b"\r"):
            b = b[:-1]
        try:
            lines.append(b.decode("utf-8"))
        except UnicodeDecodeError:
            lines.append(None)
    stats = collections.Counter()
    kinds = collections.Counter()
    errs = []
    strings = {}
    rank = None
    i, n = 0, len(lines)
    # A final "\n" leaves one empty string after split: it is an empty line, skipped.
    while i < n:
        line = lines[i]
        lineno = i + 1
        i += 1
        if line is None:
            stats["invalid_utf8"] += 1
            errs.append(f"{path}:{lineno}: not valid UTF-8")
            continue
        if line == "":
            continue
        m = GLOG.search(line)
        if not m:
            stats["fail_glog"] += 1
            errs.append(f"{path}:{lineno}: no glog prefix")
            continue
        try:
            env = json.loads(m.group(4))
        except ValueError:
            env = None
        if not isinstance(env, dict):
            stats["fail_json"] += 1
            errs.append(f"{path}:{lineno}: envelope is not a JSON object")
            continue
        where = f"{path}:{lineno}"
        if "str" in env:
            s = env["str"]
            if not (isinstance(s, list) and len(s) == 2 and isinstance(s[0], str) and is_int(s[1], *U32)):
                errs.append(f"{where}: bad str entry")
            else:
                strings[s[1]] = s[0]
            stats["str"] += 1
            continue
        check_envelope(env, where, errs)
        payload = ""
        if isinstance(env.get("has_payload"), str):
            parts = []
            while i < n and lines[i] is not None and (lines[i] == "" or lines[i].startswith("\t")):
                if lines[i]:
                    parts.append(lines[i][1:])
                i += 1
            payload = "\n".join(parts)
            if hashlib.md5(payload.encode("utf-8")).hexdigest() != env["has_payload"]:
                stats["fail_payload_md5"] += 1
                errs.append(f"{where}: payload md5 mismatch")
            else:
                stats["md5_ok"] += 1
        r = env.get("rank")
        if rank is None and r is not None:
            rank = r
        elif rank is not None and r != rank:
            stats["other_rank"] += 1
            continue
        stats["ok"] += 1
        kind = next((k for k in env if k not in CID_KEYS and k not in ("has_payload", "rank", "stack")), "(none)")
        kinds[kind] += 1
        if "chromium_event" in env:
            try:
                json.loads(payload)
            except ValueError:
                errs.append(f"{where}: chromium_event payload is not JSON")
        if "dynamo_guards" in env:
            try:
                g = json.loads(payload)
                if not (isinstance(g, list) and all(isinstance(x, dict) and isinstance(x.get("code"), str)
                                                    for x in g)):
                    raise ValueError
            except ValueError:
                errs.append(f"{where}: dynamo_guards payload is not a list of {{code: str}}")
        for st in _stacks(env):
            for fr in st:
                if isinstance(fr, dict) and "uninterned_filename" not in fr and fr.get("filename") not in strings:
                    errs.append(f"{where}: frame refers to string id {fr.get('filename')} not interned yet")
    order = ("ok", "str", "md5_ok", "other_rank", "fail_glog", "fail_json", "fail_payload_md5", "invalid_utf8")
    print(f"{path}: {sum(1 for x in lines if x)} non-empty lines; "
          + ", ".join(f"{k} {stats[k]}" for k in order if stats[k] or k in ("ok", "fail_payload_md5")), file=out)
    print("  kinds: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))),
          file=out)
    for e in errs[:20]:
        print("  " + e, file=out)
    if len(errs) > 20:
        print(f"  ... {len(errs) - 20} more problems", file=out)
    return not errs


def _stacks(env):
    ds = env.get("dynamo_start")
    if isinstance(ds, dict) and isinstance(ds.get("stack"), list):
        yield ds["stack"]
    if isinstance(env.get("stack"), list):
        yield env["stack"]
    for key in ("symbolic_shape_specialization", "guard_added_fast"):
        v = env.get(key)
        if isinstance(v, dict):
            for sk in ("stack", "user_stack"):
                if isinstance(v.get(sk), list):
                    yield v[sk]


def main():
    ap = argparse.ArgumentParser(description="Check TORCH_TRACE logs: prefixes, envelopes, payload md5s.")
    ap.add_argument("logs", nargs="+")
    a = ap.parse_args()
    good = True
    for p in a.logs:
        good = check(p, sys.stdout) and good
    sys.exit(0 if good else 1)


if __name__ == "__main__":
    main()
