#!/usr/bin/env python3
"""Write a log with many compilations, to check that the report scales linearly.

    make_many_ids.py N OUT            N distinct compile ids [i/0]
    make_many_ids.py N OUT --repeat   one compile id [0/0] compiled N times

Each compilation has a dynamo_start, a dynamo_output_graph with a payload and a
compilation_metrics entry. Deterministic; stdlib only.
"""
import hashlib
import json
import sys


def main():
    n = int(sys.argv[1])
    repeat = "--repeat" in sys.argv[3:]
    with open(sys.argv[2], "w") as f:
        f.write('V1121 10:00:00.000000 1 torch/_logging/structured.py:20] %s\n'
                % json.dumps({"str": ["/home/u/train.py", 0]}))
        for i in range(n):
            frame = 0 if repeat else i
            cid = {"frame_id": frame, "frame_compile_id": 0, "attempt": 0}
            stack = [{"filename": 0, "line": 10 + i % 50, "name": "f%d" % (i % 50)}]
            pre = "V1121 10:00:00.%06d 1 torch/_dynamo/convert_frame.py:1] " % (i % 1000000)
            f.write(pre + json.dumps(dict(cid, dynamo_start={"stack": stack})) + "\n")
            payload = "graph %d():\n    return x" % i
            md5 = hashlib.md5(payload.encode()).hexdigest()
            f.write(pre + json.dumps(dict(cid, dynamo_output_graph={}, has_payload=md5)) + "\n")
            f.write("".join("\t" + l + "\n" for l in payload.split("\n")))
            metrics = {"co_name": "f", "graph_op_count": 1, "restart_reasons": [],
                       "entire_frame_compile_time_s": 0.5}
            f.write(pre + json.dumps(dict(cid, compilation_metrics=metrics)) + "\n")


if __name__ == "__main__":
    main()
