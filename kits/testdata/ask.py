#!/usr/bin/env python3
# An interactive step with the Python kit: it asks a name on its terminal;
# the kit reads KUSAW_REQUEST and writes KUSAW_EVENTS and KUSAW_RESULT.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "python"))
import kusaw_step as ks  # noqa: E402


def run(step):
    step.progress("asking a name")
    name = input("Whom shall I greet? ").strip()
    return ks.ok("greeted", f"hello, {name}", outputs={"name": name})


ks.main({"name": "ask-py", "version": "1.0.0", "interactive": True}, run)
