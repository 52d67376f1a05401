"""kusaw_step: write a step of the Kusaw step protocol v2 in Python.

One file, the standard library only, Python 3.9 or later. Copy it next to
your step (or put its folder on PYTHONPATH) and:

    #!/usr/bin/env python3
    import kusaw_step as ks

    def run(step):
        name = step.config.get("name", "world")
        step.progress("greeting " + name, 50)
        return ks.ok("greeted", "hello, " + name, outputs={"greeting": "hello, " + name})

    ks.main({"name": "greet", "version": "1.0.0"}, run)

main() answers the handshake when KUSAW_HANDSHAKE=1; otherwise it reads
the request (stdin, or the file KUSAW_REQUEST for an interactive step),
calls run(step) and writes the result it returns (the last stdout line, or
the file KUSAW_RESULT). Events are written as one JSON line each and
flushed at once, so the runner sees them as they happen. While run() runs,
print() goes to stderr: stdout carries only protocol lines. An exception
from run() becomes a result with status fail and reason_code step_error.
"""

import json
import os
import sys
import traceback

__all__ = ["PROTOCOL_VERSION", "Step", "main", "ok", "fail", "result", "log"]

PROTOCOL_VERSION = 2


def _line(obj):
    """One JSON line: UTF-8, compact, no NaN (it is not JSON)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"


def _writer(f):
    """A function that writes one line to f and flushes it: as UTF-8 bytes
    when f has a binary buffer, whatever the locale's encoding."""
    raw = getattr(f, "buffer", None)

    def write(text):
        if raw is not None:
            f.flush()
            raw.write(text.encode("utf-8"))
            raw.flush()
        else:
            f.write(text)
            f.flush()
    return write


def log(*args):
    """Print to stderr, the step's log (stdout carries only protocol lines)."""
    print(*args, file=sys.stderr, flush=True)


def result(status, reason_code, message, **fields):
    """A result: status is ok, fail, retry or reject; fields are the result's
    other members (outputs, artifacts, feedback, recovery, cost, ...)."""
    res = {"type": "result", "protocol_version": PROTOCOL_VERSION,
           "status": status, "reason_code": reason_code, "message": message}
    res.update({k: v for k, v in fields.items() if v is not None})
    return res


def ok(reason_code, message, outputs=None, **fields):
    """A result with status ok and, when given, outputs."""
    return result("ok", reason_code, message, outputs=outputs, **fields)


def fail(reason_code, message, **fields):
    """A result with status fail."""
    return result("fail", reason_code, message, **fields)


class Step:
    """One attempt as the step sees it: the request, and where events go.

    request is the request as a dict; config, mode and artifacts_dir are
    read from it."""

    def __init__(self, request, write):
        self.request = request
        self._write = write

    @property
    def config(self):
        """The step's config (request["config"]), a dict."""
        return self.request.get("config") or {}

    @property
    def mode(self):
        return self.request.get("mode")

    @property
    def artifacts_dir(self):
        """KUSAW_ARTIFACTS_DIR: where artifacts are written."""
        return os.environ.get("KUSAW_ARTIFACTS_DIR") or self.request.get("artifacts_dir")

    def emit(self, event):
        """Write one event (a dict with its "type") and flush it."""
        self._write(_line(event))

    def progress(self, message, percent=None, turn=None):
        """A progress event; percent is from 0 to 100."""
        ev = {"type": "progress", "message": message}
        if percent is not None:
            ev["percent"] = percent
        if turn is not None:
            ev["turn"] = turn
        self.emit(ev)

    def usage(self, tokens_input=None, tokens_output=None, tokens_cached=None, cost_usd=None, **fields):
        """A usage event: tokens and cost so far (provider, model,
        context_tokens, context_limit, cost_source as keywords)."""
        ev = {"type": "usage", "tokens_input": tokens_input, "tokens_output": tokens_output,
              "tokens_cached": tokens_cached, "cost_usd": cost_usd}
        ev.update(fields)
        self.emit({k: v for k, v in ev.items() if v is not None})

    def agent_action(self, summary):
        """An agent_action event: what the agent did, in a sentence."""
        self.emit({"type": "agent_action", "summary": summary})

    def tool_call(self, tool, allowed, args_summary=None):
        """A tool_call event."""
        ev = {"type": "tool_call", "tool": tool, "allowed": allowed}
        if args_summary is not None:
            ev["args_summary"] = args_summary
        self.emit(ev)

    def note_ack(self, note_id):
        """A note_ack event: the step read the steer note note_id."""
        self.emit({"type": "note_ack", "id": note_id})

    def artifact(self, path, kind, **fields):
        """Publish a file already under the artifacts dir (path relative to
        it) with an artifact event (caption, media, title... as keywords)."""
        self.emit(dict({"type": "artifact", "path": path, "kind": kind}, **fields))

    def write_artifact(self, path, data, kind, **fields):
        """Write data (str or bytes) to path under the artifacts dir, making
        its folders, then publish it. path must stay inside the folder."""
        root = self.artifacts_dir
        if not root:
            raise ValueError("the request gives no artifacts_dir")
        full = os.path.normpath(os.path.join(root, path))
        if os.path.isabs(path) or not full.startswith(os.path.normpath(root) + os.sep):
            raise ValueError(f"artifact path {path!r}: want a relative path inside the artifacts dir")
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        self.artifact(path, kind, **fields)


def _handshake(decl):
    h = {"type": "handshake", "interactive": False, "protocol_versions": [PROTOCOL_VERSION]}
    h.update(decl)
    return h


def _read_request(f):
    req = json.loads(getattr(f, "buffer", f).read())  # bytes: UTF-8 whatever the locale
    if not isinstance(req, dict) or req.get("protocol_version") != PROTOCOL_VERSION:
        raise ValueError(f"the request does not speak protocol {PROTOCOL_VERSION}")
    return req


def _attempt(run, request, write):
    step = Step(request, write)
    try:
        res = run(step)
        if not isinstance(res, dict):
            res = fail("step_error", f"run() returned {type(res).__name__}, not a result dict")
    except Exception as e:  # the step's own failure is a result, not a crash
        traceback.print_exc(file=sys.stderr)
        res = fail("step_error", f"{type(e).__name__}: {e}")
    res.setdefault("type", "result")
    res.setdefault("protocol_version", PROTOCOL_VERSION)
    return res


def main(handshake, run):
    """Run the step: handshake is its declaration (name, version, and
    optionally description, interactive, features, needs_env, egress,
    outputs_schema...); run(step) returns the result (see ok, fail)."""
    out = sys.stdout
    write = _writer(out)
    if os.environ.get("KUSAW_HANDSHAKE") == "1":
        write(_line(_handshake(handshake)))
        return
    request_file = os.environ.get("KUSAW_REQUEST")
    if request_file:  # interactive: the terminal is the person's, the protocol goes through files
        with open(request_file, encoding="utf-8") as f:
            request = _read_request(f)
        with open(os.environ["KUSAW_EVENTS"], "a", encoding="utf-8") as events:
            res = _attempt(run, request, _writer(events))
        with open(os.environ["KUSAW_RESULT"], "w", encoding="utf-8") as f:
            f.write(_line(res))
        return
    request = _read_request(sys.stdin)
    sys.stdout = sys.stderr  # a stray print() must not break the protocol
    try:
        res = _attempt(run, request, write)
    finally:
        sys.stdout = out
    write(_line(res))
