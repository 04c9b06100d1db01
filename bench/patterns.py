#!/usr/bin/env python3
"""Print the bundled rules' patterns, one per line, in a form ripgrep accepts
(named groups made plain groups: PCRE2 refuses duplicate names in one alternation): the baseline for bench/scan.sh."""
import re
import sys
import yaml  # python3-yaml

d = sys.argv[1] if len(sys.argv) > 1 else "rules"
import glob, os
for f in sorted(glob.glob(os.path.join(d, "*.yaml"))):
    doc = yaml.safe_load(open(f)) or {}
    for r in doc.get("rules", []) or []:
        p = r.get("pattern")
        if p and not r.get("deprecated"):
            print(re.sub(r"\(\?<([a-z]+)>", "(", p))
