#!/usr/bin/env python3
"""PRM numbers live in prm/ only: both sides use prm's definitions.

    check_prm_numbers.py SRCDIR [--self-test]

Reads the numeric constants prm/ defines (prm/prm_cmd.h, prm/opcodes.def)
and scans every C source and header outside prm/ and tests/ for the two
shapes a copied PRM number takes:

  commented  a number on a line whose comment names a prm constant
             (`return 3;  /* MLX5_ZERO_LEN_RQ */`): the code should say the
             name instead;
  table      an enum block of our own where three or more enumerators are
             given prm constants' values, value for value, under the same
             name tail (`OPT_RRE = 1u << 1` beside MLX5_QP_OPTPAR_RRE): a
             copy of a prm table.  Enumerators without a value of their
             own are dense indexes of ours and never count.

An enumerator whose value is written with a prm name is no copy.  Exit 0
when nothing is found; 1 with one line per finding otherwise.  --self-test
requires each shape to be caught in a sample and a clean sample to pass.
"""
import os
import re
import sys

SCAN_ROOTS = ("emu", "provider", "backend", "shell", "cli", "include", "examples")
NAME = r"[A-Za-z_][A-Za-z0-9_]*"
ENUM_RE = re.compile(r"\benum\b[^{;]*\{(.*?)\}", re.S)
ENUMERATOR_RE = re.compile(r"^\s*(" + NAME + r")\s*(?:=\s*([^,]+?))?\s*,?\s*$")
DEFINE_RE = re.compile(r"^\s*#\s*define\s+(" + NAME + r")\s+(.+?)\s*$")
COMMENT_RE = re.compile(r"/\*(.*?)(?:\*/|$)|//(.*)$")
NUMBER_RE = re.compile(r"(?<![\w.])(0[xX][0-9a-fA-F]+|\d+)[uUlL]*(?![\w.])")
MIN_TABLE = 3


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: " " * len(m.group(0)), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def evaluate(expr, names):
    """The integer value of a constant expression of literals, shifts, ors
    and known names; None if it is anything else."""
    expr = re.sub(r"UINT\d+_C\(([^)]*)\)", r"(\1)", expr)
    expr = re.sub(r"(?<=[0-9a-fA-F])[uUlL]+\b", "", expr)
    tokens = re.findall(NAME + r"|0[xX][0-9a-fA-F]+|\d+|<<|>>|[()|+\-~&]", expr)
    if "".join(tokens) != re.sub(r"\s+", "", expr):
        return None
    out = []
    for t in tokens:
        if re.fullmatch(NAME, t):
            if t not in names:
                return None
            out.append(str(names[t]))
        else:
            out.append(t)
    try:
        return int(eval("".join(out), {"__builtins__": {}}))
    except Exception:
        return None


def prm_constants(srcdir):
    names = {}
    with open(os.path.join(srcdir, "prm", "opcodes.def")) as f:
        for m in re.finditer(r"PRM_OPCODE\((\w+),\s*(0x[0-9a-fA-F]+|\d+)\)", f.read()):
            names["MLX5_CMD_OP_" + m.group(1)] = int(m.group(2), 0)
    with open(os.path.join(srcdir, "prm", "prm_cmd.h")) as f:
        text = strip_comments(f.read())
    for block in ENUM_RE.finditer(text):
        prev = -1
        for item in block.group(1).split(","):
            m = ENUMERATOR_RE.match(item.strip() + ",") if item.strip() else None
            if not m:
                continue
            v = evaluate(m.group(2), names) if m.group(2) else prev + 1
            if v is not None:
                names[m.group(1)] = v
                prev = v
    for line in text.splitlines():
        m = DEFINE_RE.match(line)
        if m and "(" not in m.group(1):
            v = evaluate(m.group(2), names)
            if v is not None:
                names[m.group(1)] = v
    return names


def tails(name):
    parts = name.split("_")
    return ["_".join(parts[i:]) for i in range(1, len(parts)) if parts[i]]


def check_text(path, text, prm):
    found = []
    prm_by_value = {}
    for n, v in prm.items():
        prm_by_value.setdefault(v, []).append(n)
    for lineno, line in enumerate(text.splitlines(), 1):
        for m in COMMENT_RE.finditer(line):
            comment = m.group(1) or m.group(2) or ""
            code = line[:m.start()]
            named = [w for w in re.findall(r"MLX5E?_[A-Z0-9_]+", comment) if w in prm]
            for w in named:
                if any(int(num, 0) == prm[w] for num in NUMBER_RE.findall(code)):
                    found.append("%s:%d: the number %s is %s: use the name"
                                 % (path, lineno, prm[w], w))
    code = strip_comments(text)
    for block in ENUM_RE.finditer(code):
        copies = []
        for item in block.group(1).split(","):
            m = ENUMERATOR_RE.match(item.strip() + ",") if item.strip() else None
            if not m:
                continue
            expr = m.group(2)
            if expr and re.search(r"\bMLX5E?_", expr):
                continue	# written with prm's name: no copy
            if not expr:
                continue	# a dense index of our own, not a copied value
            v = evaluate(expr, {})
            if v is None:
                continue
            for p in prm_by_value.get(v, []):
                if any(p.endswith("_" + t) for t in tails(m.group(1))):
                    copies.append((m.group(1), p))
                    break
        if len(copies) >= MIN_TABLE:
            lineno = code.count("\n", 0, block.start()) + 1
            found.append("%s:%d: an enum repeating prm's %s: use prm/prm_cmd.h"
                         % (path, lineno, ", ".join("%s (%s)" % c for c in copies)))
    return found


def scan(srcdir, prm):
    found = []
    for root in SCAN_ROOTS:
        for d, _, files in os.walk(os.path.join(srcdir, root)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    p = os.path.join(d, f)
                    with open(p, errors="replace") as fh:
                        found += check_text(os.path.relpath(p, srcdir), fh.read(), prm)
    return found


def self_test(prm):
    bad_comment = "static int t(void)\n{\n\treturn 3;\t/* MLX5_ZERO_LEN_RQ */\n}\n"
    bad_table = ("enum {\n\tOPT_RRE = 1u << 1,\n\tOPT_RAE = 1u << 2,\n"
                 "\tOPT_RWE = 1u << 3,\n};\n")
    good = ("enum {\n\tX_RQ = MLX5_ZERO_LEN_RQ,\n\tY_RRE = MLX5_QP_OPTPAR_RRE,\n"
            "\tZ = MLX5_QP_OPTPAR_RAE | MLX5_QP_OPTPAR_RWE,\n};\n"
            "static int u(void) { return MLX5_ZERO_LEN_RQ; }\n")
    ok = True
    for name, text, want in (("comment", bad_comment, 1), ("table", bad_table, 1),
                             ("clean", good, 0)):
        got = check_text(name, text, prm)
        if len(got) != want:
            print("self-test %s: %d finding(s), expected %d: %s" % (name, len(got), want, got))
            ok = False
    return ok


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    srcdir = sys.argv[1]
    prm = prm_constants(srcdir)
    for need in ("MLX5_ZERO_LEN_RQ", "MLX5_QP_OPTPAR_RRE", "MLX5_CMD_OP_CREATE_CQ"):
        if need not in prm:
            print("prm constant %s not found: the reader of prm/prm_cmd.h is broken" % need)
            return 1
    if "--self-test" in sys.argv[2:]:
        if not self_test(prm):
            return 1
        print("check_prm_numbers self-test: each shape caught, a clean sample passes")
        return 0
    found = scan(srcdir, prm)
    for line in found:
        print(line)
    print("%d PRM number(s) outside prm/ (%d prm constants known)" % (len(found), len(prm)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
