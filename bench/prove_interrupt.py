#!/usr/bin/env python3
"""Time from a signal to the exit of `chunkproof prove`, and what it leaves behind.

  bench/prove_interrupt.py BIN [--signal INT|TERM] [--after S,S,..] [--ignore-sigint] [-- PROVE ARGS]

Each run starts `BIN prove PROVE ARGS` (default: --version v1-dcp --platform cuda --no-cache) in
a new session (its own process group), sends the signal to the group S seconds later, and
prints the exit status, the milliseconds from the signal to the exit, the workers (children
seen just before the signal) still alive right after, and whether the table and an
'interrupted' line were printed. --ignore-sigint starts it with SIGINT ignored (as a script's
`cmd &` or `trap '' INT` does)."""
import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time


def children(pid):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read()
        except OSError:
            continue
        fields = st[st.rfind(")") + 2:].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(d))
    return out


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            st = f.read()
    except OSError:
        return False
    return st[st.rfind(")") + 2] != "Z"


def one_run(binary, sig, after, ignore_sigint, prove_args):
    pre = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignore_sigint else None
    with tempfile.TemporaryFile("w+") as out:
        p = subprocess.Popen([binary, "prove"] + prove_args, stdout=out, stderr=subprocess.STDOUT,
                             start_new_session=True, preexec_fn=pre)
        time.sleep(after)
        workers = children(p.pid)
        t0 = time.monotonic()
        os.killpg(p.pid, sig)
        try:
            rc = p.wait(timeout=600)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            rc = "still running after 600 s"
        ms = 1000 * (time.monotonic() - t0)
        left = [w for w in workers if alive(w)]
        out.seek(0)
        text = out.read()
    status = f"exit {rc}" if isinstance(rc, int) and rc >= 0 else (f"killed by signal {-rc}" if isinstance(rc, int) else rc)
    print(f"{signal.Signals(sig).name:7} after {after:4.1f} s: {status:18} {ms:7.0f} ms  workers {len(workers)}, "
          f"alive after exit {len(left)}; table {'yes' if 'verdict' in text else 'no'}, "
          f"'interrupted' line {'yes' if 'interrupted (' in text else 'no'}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--signal", default="INT", choices=["INT", "TERM"])
    ap.add_argument("--after", default="2,4,6,8,12", help="seconds before the signal, one run each")
    ap.add_argument("--ignore-sigint", action="store_true")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = ap.parse_args(argv[:cut])
    args = argv[cut + 1:] or ["--version", "v1-dcp", "--platform", "cuda", "--no-cache"]
    with open("/proc/loadavg") as f:
        print("load average:", " ".join(f.read().split()[:3]), "| prove", " ".join(args))
    for s in a.after.split(","):
        one_run(a.binary, getattr(signal, "SIG" + a.signal), float(s), a.ignore_sigint, args)


if __name__ == "__main__":
    main()
