#!/usr/bin/env python3
"""Runs every example of a guide in docs/, so the docs cannot rot.

    doc_examples.py DOC --helper FAULT_DOC_HELPER --cc CC --cflags FLAGS
                    --include DIR --libdir DIR

Every fenced block of DOC must be one of these kinds (its info string); a
block of any other kind fails the test:

  abnf                 the grammar: not executed
  rules                one rule per line, optionally "# PATTERN": the rule
                       must parse, and its first len(PATTERN) matches must
                       fire as shown (F failed, D delayed, X dropped,
                       2 duplicated, R reordered, C corrupted, E error CQE,
                       L late CQE, . untouched)
  rules-errors         lines "RULE" then "=> error: MESSAGE": parsing RULE
                       fails with exactly MESSAGE
  c file=NAME.c        written and compiled into NAME (against the build's
                       libmlx5emu.so.1, libmlx5.so.1 and libibverbs.so.1)
  ini file=NAME        written as NAME
  settings [config=NAME] [env=VAR=VALUE ...]
                       the configuration (NAME as MLX5EMU_CONFIG, plus the
                       variables) gives exactly these settings away from
                       their defaults ("name = value"), or "error: MESSAGE"
  sh, text             not run here: tests/docs/doc_commands.py runs the
                       commands, against an installation
  console              a transcript: each "$ COMMAND" runs in bash in the
                       scratch directory (where the files above are), with
                       the drop-in libraries first in LD_LIBRARY_PATH and no
                       MLX5EMU_* variable but MLX5EMU_SYSFS_DIR; the lines
                       after it are its exact output (stdout and stderr)
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(.*)$")


def blocks(path):
    """(line, info, attrs, text) of every fenced block."""
    out = []
    lines = open(path).read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start = i + 1
        words = shlex.split(m.group(1))
        if not words:
            sys.exit("%s:%d: a fenced block without a kind" % (path, start))
        attrs = {}
        for w in words[1:]:
            k, _, v = w.partition("=")
            attrs.setdefault(k, []).append(v)
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        if i == len(lines):
            sys.exit("%s:%d: unterminated block" % (path, start))
        out.append((start, words[0], attrs, body))
        i += 1
    return out


class Checker:
    def __init__(self, args, scratch):
        self.a = args
        self.dir = scratch
        self.failures = 0
        self.counts = {}
        env = {k: v for k, v in os.environ.items() if not k.startswith("MLX5EMU_")}
        env["MLX5EMU_SYSFS_DIR"] = scratch
        env["LD_LIBRARY_PATH"] = args.libdir + (":" + env["LD_LIBRARY_PATH"]
                                                if env.get("LD_LIBRARY_PATH") else "")
        env["LC_ALL"] = "C"
        self.env = env

    def fail(self, line, msg):
        print("%s:%d: %s" % (self.a.doc, line, msg))
        self.failures += 1

    def run(self, argv, env=None, shell=False):
        p = subprocess.run(argv, cwd=self.dir, env=env or self.env, shell=shell,
                           executable="/bin/bash" if shell else None,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=120)
        return p.returncode, p.stdout

    def helper(self, *argv, env=None):
        return self.run([self.a.helper] + list(argv), env=env)[1]

    # ---- kinds ----

    def rules(self, line, attrs, body):
        for n, text in enumerate(body, line + 1):
            if not text.strip() or text.lstrip().startswith("#"):
                continue
            rule, _, pattern = text.partition("#")
            rule, pattern = rule.strip(), pattern.strip()
            if pattern and not re.fullmatch(r"[.FDX2RCEL]+", pattern):
                pattern = ""
            out = self.helper("rule", str(len(pattern)), rule).rstrip("\n")
            if out.startswith("error: "):
                self.fail(n, "%r: %s" % (rule, out))
            elif pattern and out.split("\t")[1] != pattern:
                self.fail(n, "%r fires %s, the doc says %s" % (rule, out.split("\t")[1], pattern))

    def rules_errors(self, line, attrs, body):
        rows = [(n, t) for n, t in enumerate(body, line + 1) if t.strip()]
        if len(rows) % 2:
            self.fail(line, "rules-errors: RULE / => error: MESSAGE pairs expected")
            return
        for (n, rule), (m, want) in zip(rows[0::2], rows[1::2]):
            if not want.startswith("=> "):
                self.fail(m, "expected '=> error: MESSAGE'")
                continue
            got = self.helper("rule", "0", rule.strip()).rstrip("\n")
            if got != want[3:]:
                self.fail(n, "%r gives %r, the doc says %r" % (rule.strip(), got, want[3:]))

    def c(self, line, attrs, body):
        name = attrs.get("file", [""])[0]
        if not name.endswith(".c"):
            self.fail(line, "a c block needs file=NAME.c")
            return
        src = os.path.join(self.dir, name)
        open(src, "w").write("\n".join(body) + "\n")
        cmd = ([self.a.cc] + shlex.split(self.a.cflags) +
               ["-I" + self.a.include, src, "-o", os.path.join(self.dir, name[:-2]),
                "-L" + self.a.libdir, "-l:libmlx5emu.so.1", "-lmlx5", "-libverbs",
                "-Wl,-rpath," + self.a.libdir])
        rc, out = self.run(cmd)
        if rc:
            self.fail(line, "%s does not compile:\n%s" % (name, out))

    def ini(self, line, attrs, body):
        name = attrs.get("file", [""])[0]
        if not name:
            self.fail(line, "an ini block needs file=NAME")
            return
        open(os.path.join(self.dir, name), "w").write("\n".join(body) + "\n")

    def settings(self, line, attrs, body):
        env = {k: v for k, v in self.env.items() if not k.startswith("MLX5EMU_")}
        if "config" in attrs:
            env["MLX5EMU_CONFIG"] = attrs["config"][0]
        for kv in attrs.get("env", []):
            k, _, v = kv.partition("=")
            env[k] = v
        got = self.helper("config", env=env).rstrip("\n").split("\n")
        want = [t for t in body if t.strip()]
        if got == [""]:
            got = []
        if got != want:
            self.fail(line, "the configuration gives:\n  %s\nthe doc says:\n  %s" %
                      ("\n  ".join(got), "\n  ".join(want)))

    def console(self, line, attrs, body):
        cmds = []
        for n, t in enumerate(body, line + 1):
            if t.startswith("$ "):
                cmds.append((n, t[2:], []))
            elif cmds:
                cmds[-1][2].append(t)
            elif t.strip():
                self.fail(n, "console output before any '$ COMMAND'")
        for n, cmd, want in cmds:
            while want and not want[-1].strip():
                want.pop()
            rc, out = self.run(cmd, shell=True)
            got = [l.rstrip() for l in out.rstrip("\n").split("\n")] if out else []
            want = [l.rstrip() for l in want]
            if got != want:
                self.fail(n, "$ %s\ngives:\n  %s\nthe doc says:\n  %s" %
                          (cmd, "\n  ".join(got), "\n  ".join(want)))

    def check(self):
        # sh and text blocks are tests/docs/doc_commands.py's: it runs the
        # commands against an installation.
        kinds = {"abnf": None, "rules": self.rules, "rules-errors": self.rules_errors,
                 "c": self.c, "ini": self.ini, "settings": self.settings,
                 "console": self.console, "sh": None, "text": None}
        for line, kind, attrs, body in blocks(self.a.doc):
            if kind not in kinds:
                self.fail(line, "block kind %r is not checked by any test" % kind)
                continue
            self.counts[kind] = self.counts.get(kind, 0) + 1
            if kinds[kind]:
                kinds[kind](line, attrs, body)
        return self.failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("doc")
    ap.add_argument("--helper", required=True)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--cflags", default="")
    ap.add_argument("--include", required=True)
    ap.add_argument("--libdir", required=True)
    a = ap.parse_args()
    scratch = tempfile.mkdtemp(prefix="mlx5emu-doc-")
    try:
        c = Checker(a, scratch)
        failures = c.check()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("%s: %s block(s) checked: %s; %d failure(s)" % (
        os.path.basename(a.doc), sum(c.counts.values()),
        ", ".join("%d %s" % (v, k) for k, v in sorted(c.counts.items())), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
