"""The planner side of chunkproof's external-planner protocol (docs/live.md).

chunkproof writes one request per line (a JSON object: the canonical case line under "case" and
the same case as fields); the planner answers each with one line: a chunkproof.plan/4 object, or
an error record {"error": {"kind", "type", "message", "location"}} when the planner's own code
raised. `serve(plan)` is that loop for a function `plan(request) -> dict`.
"""

import json
import os
import sys
import traceback

PLAN_SCHEMA = "chunkproof.plan/4"
REQUEST_SCHEMA = "chunkproof.live-request/1"

# Exit codes shared with chunkproof (README): 2 usage, 4 cannot run here (engine code missing).
EXIT_USAGE = 2
EXIT_CANNOT_RUN = 4


def error_record(exc):
    """The error record of an exception: its kind, type, message and the raising frame."""
    frames = traceback.extract_tb(exc.__traceback__)
    location = ""
    if frames:
        f = frames[-1]
        location = f"{os.path.basename(f.filename)}:{f.lineno} in {f.name}"
    return {
        "error": {
            "kind": "assert" if isinstance(exc, AssertionError) else "exception",
            "type": type(exc).__name__,
            "message": str(exc),
            "location": location,
        }
    }


def answer(plan, line):
    """One reply object for one request line."""
    try:
        request = json.loads(line)
        if not isinstance(request, dict) or request.get("schema") != REQUEST_SCHEMA:
            raise ValueError(f"not a {REQUEST_SCHEMA} request")
        return plan(request)
    except Exception as exc:  # the planner's failure is data, sent back
        return error_record(exc)


def serve(plan, stdin=None, stdout=None):
    """Answers request lines until stdin closes. Nothing else may go to stdout."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    for line in stdin:
        if not line.strip():
            continue
        stdout.write(json.dumps(answer(plan, line), separators=(",", ":")) + "\n")
        stdout.flush()


def cannot_run(message):
    """Exit 4 with a message on stderr (the engine's code is not there or not as expected)."""
    print(f"chunkproof adapter: {message}", file=sys.stderr)
    sys.exit(EXIT_CANNOT_RUN)
