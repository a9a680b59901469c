#!/usr/bin/env python3
"""Load test of `pan-detect serve` (run by eval/serve-load.sh), loopback only.

    serve-load.py load BASE TOKEN PROBES_DIR JOURNAL [CHECKS] [CLIENTS]
    serve-load.py verify BASE JOURNAL

`load`: CLIENTS threads (default 50) send CHECKS checks (default 1000) in
all, each a POST /check of one of the probes in PROBES_DIR, while one writer
thread adds documents (PUT /documents/serve-load/NAME.txt) and deletes some
of them again. Prints the checks' latency (p50, p99, max), the throughput, the
writes' latency, and every error; each acknowledged write is appended to
JOURNAL ("put NAME" or "delete NAME"). Exits 1 on any error.

`verify`: after a restart, every document whose last acknowledged write was a
put is in the index (GET /documents/NAME/similar answers 200) and every one
whose last was a delete is not (404). Exits 1 on a lost write.
"""
import os
import random
import sys
import threading
import time
import urllib.error
import urllib.request


def request(method, url, body=None, token=None, timeout=120):
    """(status, body, seconds) of one request; status 0 when no answer came."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    started = time.monotonic()
    try:
        req = urllib.request.Request(url, data=body, method=method, headers=headers)
        with urllib.request.urlopen(req, timeout=timeout) as response:
            data = response.read()
            return response.status, data, time.monotonic() - started
    except urllib.error.HTTPError as error:
        return error.code, error.read(), time.monotonic() - started
    except OSError as error:
        return 0, str(error).encode(), time.monotonic() - started


def percentile(values, p):
    values = sorted(values)
    if not values:
        return float("nan")
    k = min(len(values) - 1, max(0, int(round(p / 100 * len(values) + 0.5)) - 1))
    return values[k]


def load(base, token, probes_dir, journal_path, checks, clients):
    probes = [open(os.path.join(probes_dir, n), "rb").read() for n in sorted(os.listdir(probes_dir))]
    next_check = iter(range(checks))
    lock = threading.Lock()
    latencies, errors = [], []
    stop_writer = threading.Event()

    def client():
        while True:
            with lock:
                i = next(next_check, None)
            if i is None:
                return
            status, body, seconds = request("POST", f"{base}/check?name=probe-{i}.txt", probes[i % len(probes)])
            with lock:
                latencies.append(seconds)
                if status != 200:
                    errors.append(f"check {i}: {status} {body[:200]!r}")

    write_latencies = []
    journal = open(journal_path, "a", encoding="utf-8")

    def writer():
        rng = random.Random(7)
        live = []
        n = 0
        while not stop_writer.is_set():
            if live and rng.random() < 0.3:
                name = live.pop(rng.randrange(len(live)))
                status, body, seconds = request("DELETE", f"{base}/documents/serve-load/{name}", token=token)
                op = "delete"
            else:
                n += 1
                name = f"doc-{n:05d}.txt"
                text = probes[rng.randrange(len(probes))][: 20_000 + rng.randrange(20_000)]
                status, body, seconds = request("PUT", f"{base}/documents/serve-load/{name}", text, token=token)
                op = "put"
            with lock:
                write_latencies.append(seconds)
            if status in (200, 201):
                journal.write(f"{op} serve-load/{name}\n")
                journal.flush()
                if op == "put":
                    live.append(name)
            else:
                with lock:
                    errors.append(f"{op} {name}: {status} {body[:200]!r}")

    started = time.monotonic()
    writer_thread = threading.Thread(target=writer)
    writer_thread.start()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop_writer.set()
    writer_thread.join()
    elapsed = time.monotonic() - started
    journal.close()
    print(f"checks: {len(latencies)} from {clients} clients in {elapsed:.1f} s ({len(latencies) / elapsed:.1f}/s)")
    print(f"check latency: p50 {percentile(latencies, 50):.3f} s, p99 {percentile(latencies, 99):.3f} s, "
          f"max {max(latencies):.3f} s")
    if write_latencies:
        print(f"writes: {len(write_latencies)} (put or delete, each answered once indexed): "
              f"p50 {percentile(write_latencies, 50):.3f} s, p99 {percentile(write_latencies, 99):.3f} s, "
              f"max {max(write_latencies):.3f} s")
    print(f"errors: {len(errors)}")
    for error in errors[:20]:
        print(f"  {error}")
    return 1 if errors else 0


def verify(base, journal_path):
    last = {}
    for line in open(journal_path, encoding="utf-8"):
        op, name = line.split(maxsplit=1)
        last[name.strip()] = op
    lost = []
    for name, op in sorted(last.items()):
        status, body, _ = request("GET", f"{base}/documents/{name}/similar?top=1")
        expected = 200 if op == "put" else 404
        if status != expected:
            lost.append(f"{name}: last acknowledged {op}, now {status}")
    puts = sum(op == "put" for op in last.values())
    print(f"acknowledged writes checked after the restart: {len(last)} documents "
          f"({puts} present, {len(last) - puts} deleted); lost: {len(lost)}")
    for line in lost[:20]:
        print(f"  {line}")
    return 1 if lost else 0


if __name__ == "__main__":
    if len(sys.argv) >= 6 and sys.argv[1] == "load":
        checks = int(sys.argv[6]) if len(sys.argv) > 6 else 1000
        clients = int(sys.argv[7]) if len(sys.argv) > 7 else 50
        sys.exit(load(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], checks, clients))
    if len(sys.argv) == 4 and sys.argv[1] == "verify":
        sys.exit(verify(sys.argv[2], sys.argv[3]))
    sys.exit(__doc__)
