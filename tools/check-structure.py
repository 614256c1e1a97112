#!/usr/bin/python3
"""Checks the size rules of model/ and helper/: no .cc over 800 lines, no
function over 80 lines (ns-3 GetTypeId attribute lists excepted), and no
include of model/core/ (the simulator core) from the model. Prints each
breach and exits 1 if there is one.

    tools/check-structure.py [ROOT]
"""
import os
import re
import sys

MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 80
ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))


def functions(lines):
    """(name, first line, length) of each top-level function definition: a
    line opening a body at column 0 ('{') after a signature."""
    out = []
    i = 0
    while i < len(lines):
        prev = lines[i - 1].strip() if i > 0 else ""
        if lines[i].rstrip() == "{" and re.match(r"(namespace|class|struct|enum|union)\b|$", prev):
            i += 1  # a namespace (its functions are inside) or a type's body
            continue
        if lines[i].rstrip() == "{" and i > 0:
            # the signature: the nearest earlier line that names Type::Func( or Func(
            j = i - 1
            while j > 0 and "(" not in lines[j] and lines[j].strip():
                j -= 1
            head = lines[j]
            k = i + 1
            while k < len(lines) and lines[k].rstrip() != "}":
                k += 1
            m = re.search(r"([A-Za-z_][\w:~]*)\s*\(", head)
            name = m.group(1) if m else head.strip()
            if not name.startswith(("namespace", "struct", "class", "enum")):
                out.append((name, j + 1, k - i + 1))
            i = k
        i += 1
    return out


def main():
    breaches = []
    core = os.path.join(ROOT, "model", "core")
    core_headers = set(os.listdir(core)) if os.path.isdir(core) else set()
    for top in ("model", "helper"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                path = os.path.join(d, f)
                rel = os.path.relpath(path, ROOT)
                if not f.endswith((".cc", ".h")):
                    continue
                with open(path) as fh:
                    lines = fh.read().split("\n")
                if f.endswith(".cc") and len(lines) - 1 > MAX_FILE_LINES:
                    breaches.append(f"{rel}: {len(lines) - 1} lines (at most {MAX_FILE_LINES})")
                if not rel.startswith(os.path.join("model", "core")):
                    for n, line in enumerate(lines, 1):
                        m = re.match(r'\s*#include\s+"([^"]+)"', line)
                        if m and os.path.basename(m.group(1)) in core_headers:
                            breaches.append(f"{rel}:{n}: includes the simulator core "
                                            f"({m.group(1)})")
                if f.endswith(".cc"):
                    for name, first, length in functions(lines):
                        if length > MAX_FUNCTION_LINES and not name.endswith("GetTypeId"):
                            breaches.append(f"{rel}:{first}: {name} is {length} lines "
                                            f"(at most {MAX_FUNCTION_LINES})")
    for b in breaches:
        print("check-structure:", b)
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
