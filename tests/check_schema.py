#!/usr/bin/env python3
"""Validate verdicts against schema/verdict.schema.json (JSON Schema draft 2020-12).

usage: check_schema.py SCHEMA [--taxonomy-c engine/names.c] [--names-c engine/names.c]
                        [full:FILE | partial:FILE]...

The taxonomy (names.c, taxonomy.h) and the source kinds, formats and coverage statuses (names.c) of the
engine must be the schema's.

full:FILE      a verdict the built CLI made: every required key, every type.
partial:FILE   a fixture's expected.json: only the keys present are checked (`required` is
               not asserted; "fired"/"not_fired" are checked as lists of rule ids).

Both are checked strictly: an object key that the schema does not declare is an error, so
the schema stays complete (the published schema itself lets consumers ignore unknown keys).

The validator is small and hand-written (only the keywords the schema uses; any other
keyword is an error, so nothing is skipped silently).  When python3-jsonschema is installed
the schema is also checked as a draft 2020-12 schema and every full verdict validated with it.
"""
import json
import re
import sys

SUPPORTED = {
    "$schema", "$id", "$defs", "$ref", "title", "description", "type", "enum", "const",
    "properties", "required", "additionalProperties", "items", "minItems", "pattern",
    "minimum", "minLength", "oneOf", "anyOf", "allOf", "if", "then", "else",
}


class Validator:
    def __init__(self, schema, strict=True):
        self.root = schema
        self.strict = strict

    def resolve(self, ref):
        if not ref.startswith("#/"):
            raise ValueError("only local $ref are supported: %s" % ref)
        node = self.root
        for part in ref[2:].split("/"):
            node = node[part]
        return node

    @staticmethod
    def is_type(x, t):
        if t == "null":
            return x is None
        if t == "boolean":
            return isinstance(x, bool)
        if t == "integer":
            return isinstance(x, int) and not isinstance(x, bool)
        if t == "number":
            return isinstance(x, (int, float)) and not isinstance(x, bool)
        if t == "string":
            return isinstance(x, str)
        if t == "array":
            return isinstance(x, list)
        if t == "object":
            return isinstance(x, dict)
        raise ValueError("unknown type %s" % t)

    def errors(self, x, s, path="$", partial=False, cond=False):
        """Every error of X against schema S, as 'path: message' strings."""
        if s is True:
            return []
        if s is False:
            return ["%s: nothing is allowed here" % path]
        out = []
        for k in s:
            if k not in SUPPORTED:
                raise ValueError("schema keyword %r is not supported by this validator" % k)
        if "$ref" in s:
            out += self.errors(x, self.resolve(s["$ref"]), path, partial, cond)
        if "type" in s:
            types = s["type"] if isinstance(s["type"], list) else [s["type"]]
            if not any(self.is_type(x, t) for t in types):
                return out + ["%s: %s is not of type %s" % (path, json.dumps(x)[:80], "/".join(types))]
        if "const" in s and not (x == s["const"] and type(x) is type(s["const"])):
            out.append("%s: %s is not %s" % (path, json.dumps(x)[:80], json.dumps(s["const"])))
        if "enum" in s and not any(x == e and type(x) is type(e) for e in s["enum"]):
            out.append("%s: %s is not one of %s" % (path, json.dumps(x)[:80], json.dumps(s["enum"])))
        if isinstance(x, str):
            if "pattern" in s and not re.search(s["pattern"], x):
                out.append("%s: %r does not match %s" % (path, x[:80], s["pattern"]))
            if "minLength" in s and len(x) < s["minLength"]:
                out.append("%s: shorter than %d" % (path, s["minLength"]))
        if self.is_type(x, "number") and "minimum" in s and x < s["minimum"]:
            out.append("%s: %s is below %s" % (path, x, s["minimum"]))
        if isinstance(x, list):
            if "minItems" in s and len(x) < s["minItems"]:
                out.append("%s: fewer than %d items" % (path, s["minItems"]))
            if "items" in s:
                for i, v in enumerate(x):
                    out += self.errors(v, s["items"], "%s[%d]" % (path, i), partial, cond)
        if isinstance(x, dict):
            props = s.get("properties", {})
            if "required" in s and (cond or not partial):
                for k in s["required"]:
                    if k not in x:
                        out.append("%s: %r is missing" % (path, k))
            for k, v in x.items():
                if k in props:
                    out += self.errors(v, props[k], "%s.%s" % (path, k), partial, cond)
                elif "additionalProperties" in s:
                    out += self.errors(v, s["additionalProperties"], "%s.%s" % (path, k), partial, cond)
                elif self.strict and s.get("type") == "object" and "properties" in s:
                    out.append("%s: key %r is not in the schema" % (path, k))
        for sub in s.get("allOf", []):
            out += self.errors(x, sub, path, partial, cond)
        if "anyOf" in s and not any(not self.errors(x, sub, path, partial, cond) for sub in s["anyOf"]):
            out.append("%s: matches none of anyOf (%s)" % (
                path, "; ".join(self.errors(x, s["anyOf"][-1], path, partial, cond))[:200]))
        if "oneOf" in s:
            ok = [sub for sub in s["oneOf"] if not self.errors(x, sub, path, partial, cond)]
            if len(ok) != 1:
                detail = "; ".join(e for sub in s["oneOf"] for e in self.errors(x, sub, path, partial, cond))
                out.append("%s: matches %d of oneOf, not 1 (%s)" % (path, len(ok), detail[:300]))
        if "if" in s:
            if not self.errors(x, s["if"], path, partial, True):
                if "then" in s:
                    out += self.errors(x, s["then"], path, partial, cond)
            elif "else" in s:
                out += self.errors(x, s["else"], path, partial, cond)
        return out


def taxonomy_from_c(path):
    """The class -> subclasses table of the engine (engine/names.c: taxonomy.h's one table)."""
    text = open(path, encoding="utf-8").read()
    m = re.search(r"taxonomy\[\]\s*=\s*\{(.*?)\n\};", text, re.S)
    if not m:
        raise ValueError("%s: no taxonomy[] table found" % path)
    table = {}
    for cls, subs in re.findall(r'\{"([a-z_]+)",\s*(?:true|false),\s*\{([^}]*)\}\}', m.group(1)):
        table[cls] = re.findall(r'"([a-z_]+)"', subs)
    table.pop("none", None)
    return table


def names_from_c(path):
    """The source kinds, formats and coverage statuses of engine/names.c."""
    text = open(path, encoding="utf-8").read()

    def table(name):
        m = re.search(r"\b%s\[[A-Z_]*\]\s*=\s*\{(.*?)\n\};" % name, text, re.S)
        if not m:
            raise ValueError("%s: no %s[] table found" % (path, name))
        return re.findall(r'\]\s*=\s*\{?\s*"([a-z0-9_]+)"', m.group(1))

    return {"sources": table("sources"), "formats": table("formats"), "statuses": table("statuses")}


def names_from_schema(schema):
    """Coverage (postmortem.verdict/2) lists the inputs not read whole: their statuses, and
    "ok", which is counted rather than listed."""
    cov = schema["properties"]["coverage"]["items"]["properties"]["problems"]["items"]["properties"]
    return {"sources": schema["$defs"]["source"]["enum"], "formats": cov["format"]["enum"],
            "statuses": ["ok"] + cov["status"]["enum"]}


def taxonomy_from_schema(schema):
    table = {}
    for rule in schema["$defs"]["taxonomy"]["allOf"]:
        table[rule["if"]["properties"]["class"]["const"]] = rule["then"]["properties"]["subclass"]["enum"]
    return table


def self_test(v, good):
    """The validator must reject broken verdicts, or it proves nothing."""
    def mutated(f):
        x = json.loads(json.dumps(good))
        f(x)
        return x

    bad = {
        "unknown status": mutated(lambda x: x.update(status="maybe")),
        "missing cause": mutated(lambda x: x.pop("cause")),
        "wrong subclass": mutated(lambda x: x.update(cause={"class": "gpu_hardware", "subclass": "gpu_oom", "summary": "s"}, status="attributed", confidence="supported")),
        "undeclared key": mutated(lambda x: x.update(verdict_time="2026-01-01")),
        "rank as string": mutated(lambda x: x["origin"].update(ranks=["3"])),
        "bystander ranks as a list": mutated(lambda x: x["bystanders"].update(ranks=[3])),
        "ungrouped coverage": mutated(lambda x: x.update(coverage=[{"node": None, "source": "app_log", "file": "a", "status": "ok", "reason": ""}])),
        "bad digest": mutated(lambda x: x.update(input_digest="md5:00")),
        "cause with status unknown": mutated(lambda x: x.update(status="unknown", confidence=None, cause={"class": "storage", "subclass": "nfs", "summary": "s"})),
        "ambiguous without ambiguity": mutated(lambda x: x.update(status="ambiguous", confidence="hypothesis", ambiguity=None, cause={"class": "storage", "subclass": "nfs", "summary": "s"})),
        "boolean as integer": mutated(lambda x: x["job"].update(ranks=True)),
    }
    failed = 0
    for name, x in bad.items():
        if not v.errors(x, v.root):
            print("self-test: the validator accepted a verdict with %s" % name)
            failed += 1
    return failed


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    schema = json.load(open(argv[1], encoding="utf-8"))
    taxonomy_c = names_c = None
    args = argv[2:]
    while len(args) >= 2 and args[0] in ("--taxonomy-c", "--names-c"):
        if args[0] == "--taxonomy-c":
            taxonomy_c = args[1]
        else:
            names_c = args[1]
        args = args[2:]
    v = Validator(schema)
    failed = checked_full = checked_partial = 0

    if taxonomy_c:
        c, s = taxonomy_from_c(taxonomy_c), taxonomy_from_schema(schema)
        if c != s:
            print("the schema's taxonomy differs from %s:" % taxonomy_c)
            for k in sorted(set(c) | set(s)):
                if c.get(k) != s.get(k):
                    print("  %s: engine %s, schema %s" % (k, c.get(k), s.get(k)))
            failed += 1

    if names_c:
        c, s = names_from_c(names_c), names_from_schema(schema)
        for k in c:
            if sorted(c[k]) != sorted(s[k]):
                print("the schema's %s differ from %s: engine %s, schema %s" % (k, names_c, sorted(c[k]), sorted(s[k])))
                failed += 1

    fulls = []
    for a in args:
        kind, _, path = a.partition(":")
        try:
            doc = json.load(open(path, encoding="utf-8"))
        except (OSError, ValueError) as e:
            print("%s: cannot read: %s" % (path, e))
            failed += 1
            continue
        if kind == "full":
            errs = v.errors(doc, schema)
            checked_full += 1
            fulls.append((path, doc))
        elif kind == "partial":
            doc = dict(doc)
            errs = []
            for key in ("fired", "not_fired"):
                ids = doc.pop(key, [])
                if not isinstance(ids, list) or not all(isinstance(i, str) and re.match(r"^[a-z0-9][a-z0-9-]*$", i) for i in ids):
                    errs.append("$.%s: not a list of rule ids" % key)
            errs += v.errors(doc, schema, partial=True)
            checked_partial += 1
        else:
            print("%s: say full:FILE or partial:FILE" % a)
            return 2
        for e in errs:
            print("%s: %s" % (path, e))
        failed += bool(errs)

    if fulls:
        failed += self_test(v, fulls[0][1])
    try:
        import jsonschema
    except ImportError:
        jsonschema = None
    if jsonschema is not None and hasattr(jsonschema, "Draft202012Validator"):
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as e:
            print("not a valid draft 2020-12 schema: %s" % e.message)
            failed += 1
        lib = jsonschema.Draft202012Validator(schema)
        for path, doc in fulls:
            for e in lib.iter_errors(doc):
                print("%s: jsonschema: %s at %s" % (path, e.message[:200], "/".join(map(str, e.path))))
                failed += 1
        try:
            from importlib.metadata import version
            ver = version("jsonschema")
        except Exception:
            ver = "?"
        print("python3-jsonschema %s: checked the schema (draft 2020-12) and every verdict too" % ver)
    print("%d verdict%s and %d expected.json checked against %s: %s" % (
        checked_full, "" if checked_full == 1 else "s", checked_partial, argv[1],
        "ok" if not failed else "%d failed" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
