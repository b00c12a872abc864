#!/usr/bin/env python3
"""Checks docs/json.md against real output: runs each section's example command and checks
every document it prints against the section's field table (see docs/json.md for the rules).

usage: json_schema_check.py DOCS_JSON_MD CHUNKPROOF_BINARY [WORK_DIR]"""
import json
import re
import shlex
import subprocess
import sys

TYPES = {
    "string": lambda v: isinstance(v, str),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}


def sections(text):
    """-> [(schema names, [(example command, fields)])]: fields = {dotted name: (types, optional)}"""
    out = []
    for block in re.split(r"^## ", text, flags=re.M)[1:]:
        names = re.findall(r"`(chunkproof\.[a-z-]+/\d+)`", block.splitlines()[0])
        # A section may hold several (example, table) pairs, one per schema.
        parts = re.split(r"^example: ", block, flags=re.M)
        tables = []
        for part in parts[1:] if len(parts) > 1 else [block]:
            cmd = None
            if len(parts) > 1:
                cmd = re.match(r"`([^`]*)`", part).group(1)
            fields = {}
            for row in re.findall(r"^\| (`[^|]*`(?:, `[^|]*`)*) \| ([^|]+(?:\\\|[^|]+)*) \|", part, flags=re.M):
                types = [t.strip() for t in row[1].replace("\\|", "|").split("|")]
                for name in re.findall(r"`([^`]+)`", row[0]):
                    optional = name.endswith("?")
                    fields[name.rstrip("?")] = (types, optional)
            tables.append((cmd, fields))
        out.append((names, tables))
    return out


def values(doc, path):
    """Values at a dotted path; `a[]` walks every element of array a."""
    cur = [doc]
    for part in path.split("."):
        nxt = []
        arr = part.endswith("[]")
        key = part[:-2] if arr else part
        for v in cur:
            if not isinstance(v, dict) or key not in v:
                continue
            x = v[key]
            if arr:
                if isinstance(x, list):
                    nxt.extend(x)
            else:
                nxt.append(x)
        cur = nxt
    return cur


def check(doc, fields, where):
    errors = []
    for name, (types, optional) in fields.items():
        parent, _, last = name.rpartition(".")
        holders = values(doc, parent) if parent else [doc]
        for h in holders:
            if not isinstance(h, dict):
                continue
            if last not in h:
                if not optional:
                    errors.append(f"{where}: missing field '{name}'")
                continue
            if not any(TYPES[t](h[last]) for t in types):
                errors.append(f"{where}: field '{name}' is {type(h[last]).__name__}, documented {'|'.join(types)}")
    top = {n.split(".")[0].replace("[]", "") for n in fields}
    for k in doc:
        if k not in top:
            errors.append(f"{where}: undocumented field '{k}'")
    return errors


def main():
    docs, binary = sys.argv[1], sys.argv[2]
    cwd = sys.argv[3] if len(sys.argv) > 3 else None
    errors, checked = [], 0
    for names, tables in sections(open(docs).read()):
        for cmd, fields in tables:
            if cmd is None:
                continue
            p = subprocess.run([binary] + shlex.split(cmd), capture_output=True, text=True, cwd=cwd)
            docs_out = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
            if not docs_out:
                errors.append(f"`{cmd}` printed no JSON (exit {p.returncode}): {p.stderr.strip()[:300]}")
                continue
            if p.returncode == 4 and all(d.get("kind") == "cannot_run" for d in docs_out):
                print(f"`{cmd}`: skipped, this machine cannot run it: {docs_out[0].get('error', '')[:120]}")
                continue
            want = [n for n in names if any(d.get("schema") == n for d in docs_out)]
            if not want:
                errors.append(f"`{cmd}`: printed schema(s) {[d.get('schema') for d in docs_out]}, section documents {names}")
                continue
            for i, d in enumerate(docs_out):
                errors += check(d, fields, f"`{cmd}` document {i + 1} ({d.get('schema')})")
                checked += 1
    for e in errors:
        print(e)
    print(f"json schemas: {checked} document(s) checked, {len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
