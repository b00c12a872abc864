"""The trivial planner of the protocol benchmark (bench/live_bench.sh): one fixed, schema-valid
plan for every request, so what is timed is the protocol (pipes, JSON both ways, the reading
back into a Plan), not a planner.

    python3 -m chunkproof_adapters.trivial
"""

import sys

REPLY = '{"schema":"chunkproof.plan/4","workspace":0,"chunks":[]}\n'


def main():
    out = sys.stdout
    for line in sys.stdin:
        out.write(REPLY)
        out.flush()


if __name__ == "__main__":
    main()
