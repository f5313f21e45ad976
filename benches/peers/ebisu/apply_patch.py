#!/usr/bin/env python3
"""Fallback for build.sh where neither `patch` nor `git` is installed: applies one unified
diff (as `patch -p1` would) to the tree DIR. Usage: apply_patch.py DIR FILE.patch

Only what our patches use: text before the first `--- ` line is a comment; each file has
`--- a/PATH` / `+++ b/PATH` and `@@ -l,n +l,n @@` hunks of ' ', '-', '+' lines. A hunk's
old text must match exactly, at its stated line or anywhere else in the file (first
match after the previous hunk); otherwise the script fails and changes nothing."""
import re
import sys


def parse(text):
    files, cur, hunk = [], None, None
    for line in text.splitlines(keepends=True):
        if line.startswith("--- "):
            cur = None
            continue
        if line.startswith("+++ "):
            path = line[4:].split("\t")[0].strip()
            path = path.split("/", 1)[1] if "/" in path else path  # -p1
            cur = {"path": path, "hunks": []}
            files.append(cur)
            continue
        m = re.match(r"@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@", line)
        if m and cur is not None:
            hunk = {"line": int(m.group(1)), "old": [], "new": []}
            cur["hunks"].append(hunk)
            continue
        if cur is None or hunk is None or line.startswith("\\"):
            continue
        tag, body = line[:1], line[1:]
        if tag == "\n" or tag == "":
            tag, body = " ", "\n"
        if tag in " -":
            hunk["old"].append(body)
        if tag in " +":
            hunk["new"].append(body)
    return files


def apply(root, f):
    path = f"{root}/{f['path']}"
    lines = open(path).read().splitlines(keepends=True)
    pos = 0
    for h in f["hunks"]:
        old, n = h["old"], len(h["old"])
        want = max(h["line"] - 1, 0)
        cands = [want] + [i for i in range(pos, len(lines) - n + 1) if i != want]
        at = next((i for i in cands if i >= pos and lines[i:i + n] == old), None)
        if at is None:
            sys.exit(f"apply_patch.py: hunk at line {h['line']} of {f['path']} does not match")
        lines[at:at + n] = h["new"]
        pos = at + len(h["new"])
    return path, "".join(lines)


def main():
    root, patch = sys.argv[1], sys.argv[2]
    out = [apply(root, f) for f in parse(open(patch).read())]
    for path, text in out:  # write only once every hunk of the patch matched
        open(path, "w").write(text)
        print(f"patched {path}")


if __name__ == "__main__":
    main()
