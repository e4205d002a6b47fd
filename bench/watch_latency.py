#!/usr/bin/env python3
"""Median latency of one-file edits under `nerd watch`.

usage: watch_latency.py NERD DIR GLOB -> prints "<end-to-end ms> <nerd's own ms>"
Edits a mid-sized source file 15 times (toggling a trailing line), timing from
the write to the JSON change event; restores the file afterwards.
"""
import json
import pathlib
import statistics
import subprocess
import sys
import time

nerd, root, glob = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]
files = sorted(p for p in root.rglob(glob) if ".nerd" not in p.parts)
files.sort(key=lambda p: p.stat().st_size)
target = files[len(files) // 2]
original = target.read_bytes()
proc = subprocess.Popen([nerd, "watch", "--json", "--debounce-ms", "10"], cwd=root,
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
try:
    ready = json.loads(proc.stdout.readline())
    assert ready["event"] == "ready", ready
    comment = b"\n// nerd bench edit\n" if not glob.endswith(".py") else b"\n# nerd bench edit\n"
    e2e, own = [], []
    for i in range(15):
        time.sleep(0.15)
        body = original + (comment * (i % 2 + 1))
        start = time.perf_counter()
        target.write_bytes(body)
        while True:
            event = json.loads(proc.stdout.readline())
            if event.get("event") == "change":
                break
        e2e.append((time.perf_counter() - start) * 1000)
        own.append(event["elapsed_ms"])
    print(f"{statistics.median(e2e):.1f} {statistics.median(own):.1f}")
finally:
    target.write_bytes(original)
    proc.kill()
