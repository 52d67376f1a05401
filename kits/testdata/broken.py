#!/usr/bin/env python3
# A step whose run() raises and prints to stdout: the Python kit keeps
# stdout for the protocol and turns the exception into a fail result.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "python"))
import kusaw_step as ks  # noqa: E402


def run(step):
    print("a stray print")
    raise RuntimeError("the disk is full")


ks.main({"name": "broken-py", "version": "1.0.0"}, run)
