#!/usr/bin/env python3
"""Median latency of one-file edits under `nerd watch`.

usage: watch_latency.py NERD DIR GLOB -> prints "<end-to-end ms> <nerd's own ms>"
Edits a mid-sized source file 15 times (toggling a trailing comment), timing
from the write to the first JSON change event after it; any stray events are
drained before the next edit. Restores the file afterwards.
"""
import json
import pathlib
import queue
import statistics
import subprocess
import sys
import threading
import time

nerd, root, glob = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]
files = sorted((p for p in root.rglob(glob) if ".nerd" not in p.parts), key=lambda p: (p.stat().st_size, str(p)))
target = files[len(files) // 2]
original = target.read_bytes()
proc = subprocess.Popen([nerd, "watch", "--json", "--debounce-ms", "10"], cwd=root,
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
events: "queue.Queue[tuple[float, dict]]" = queue.Queue()


def read() -> None:
    for line in proc.stdout:
        events.put((time.perf_counter(), json.loads(line)))


threading.Thread(target=read, daemon=True).start()
try:
    _, ready = events.get(timeout=600)
    assert ready["event"] == "ready", ready
    comment = b"\n# nerd bench edit\n" if glob.endswith(".py") else b"\n// nerd bench edit\n"
    e2e, own = [], []
    for i in range(15):
        time.sleep(0.3)
        while not events.empty():
            events.get_nowait()
        start = time.perf_counter()
        target.write_bytes(original + comment * (i % 2 + 1))
        while True:
            at, event = events.get(timeout=30)
            if event.get("event") == "change":
                break
        e2e.append((at - start) * 1000)
        own.append(event["elapsed_ms"])
    print(f"{statistics.median(e2e):.1f} {statistics.median(own):.1f}")
finally:
    target.write_bytes(original)
    proc.kill()
