#!/usr/bin/env python3
"""greet: a step written with the Python kit, kits/python/kusaw_step.py."""
import os
import sys

# The kit is one file: copy it next to your step, or put its folder on
# the path as this in-repo example does.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "kits", "python"))
import kusaw_step as ks  # noqa: E402


def run(step):
    name = step.config.get("name", "world")
    ks.log(f"greet: mode {step.mode}")
    step.progress(f"greeting {name}", 50)
    step.usage(tokens_input=12, tokens_output=3, cost_usd=0.0001)
    step.write_artifact("greeting.txt", f"hello, {name}\n", "log")
    return ks.ok("greeted", f"hello, {name}", outputs={"greeting": f"hello, {name}"})


ks.main({"name": "greet-py", "version": "1.0.0",
         "description": "Greets someone, with the Python kit."}, run)
