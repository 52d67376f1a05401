#!/usr/bin/env python3
"""A step of the Kusaw step protocol v2 in Python.

One handshake line when KUSAW_HANDSHAKE=1; otherwise read the request from
stdin, print events as JSON lines (flushed as they happen), and the result
last. Logs go to stderr.
"""
import json
import os
import sys


def emit(obj):
    print(json.dumps(obj), flush=True)


def main():
    if os.environ.get("KUSAW_HANDSHAKE") == "1":
        emit({"type": "handshake", "name": "hello-py", "version": "1.0.0",
              "description": "Lists the request's top-level fields.",
              "interactive": False, "protocol_versions": [2]})
        return
    request = json.load(sys.stdin)
    print(f"hello-py: mode {request['mode']}", file=sys.stderr)
    fields = sorted(request)
    for i, name in enumerate(fields):
        emit({"type": "progress", "message": f"field {name}",
              "percent": 100 * (i + 1) / len(fields)})
    emit({"type": "agent_action", "summary": f"listed {len(fields)} fields"})
    # The outputs must fit limits.outputs_max_bytes, which may be small:
    # when the list does not, say how many fields there are instead.
    limit = request["limits"].get("outputs_max_bytes", 65536)
    outputs = {"fields": fields}
    if len(json.dumps(outputs).encode()) > limit:
        outputs = {"count": len(fields)}
    emit({"type": "result", "protocol_version": 2, "status": "ok",
          "reason_code": "listed", "message": f"{len(fields)} fields",
          "outputs": outputs})


if __name__ == "__main__":
    main()
