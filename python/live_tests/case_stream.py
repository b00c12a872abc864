"""The command line every case generator here shares: `python3 GEN.py VERSION [SEED]` prints case
lines forever (until the reader closes the pipe), seeded so a campaign can be re-run."""

import random
import sys


def stream_cases(case):
    """Print case(rng, version) lines endlessly; a closed pipe (`| head`, chunkproof exiting) ends it."""
    version = sys.argv[1]
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    try:
        while True:
            print(case(rng, version), flush=False)
    except BrokenPipeError:
        sys.stderr.close()  # nothing more to say; keeps Python from reporting the closed pipe at exit
