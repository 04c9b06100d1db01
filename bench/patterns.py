#!/usr/bin/env python3
"""Print the bundled rules' patterns, one per line, in a form ripgrep accepts
(named groups made plain groups: PCRE2 refuses duplicate names in one alternation): the baseline for bench/scan.sh.

  bench/patterns.py [RULES_DIR] [--no-lookaround]

--no-lookaround leaves out the patterns with look-ahead or look-behind, which ripgrep's default
engine cannot run (with them it needs PCRE2: --auto-hybrid-regex)."""
import glob
import os
import re
import sys

import yaml  # python3-yaml

args = [a for a in sys.argv[1:] if not a.startswith("--")]
nolook = "--no-lookaround" in sys.argv[1:]
d = args[0] if args else "rules"
for f in sorted(glob.glob(os.path.join(d, "*.yaml"))):
    doc = yaml.safe_load(open(f)) or {}
    for r in doc.get("rules", []) or []:
        p = r.get("pattern")
        if not p or r.get("deprecated"):
            continue
        if nolook and re.search(r"\(\?<?[=!]", p):
            continue
        print(re.sub(r"\(\?<([a-z]+)>", "(", p))
