#!/usr/bin/env python3
"""Every command README.md and docs/*.md show is run, as written.

    doc_commands.py SRC [--lint]

The documents write every block fenced, with a kind (an indented code
block, which would say nothing of what it holds, is an error):

  sh           commands, one per line, run in bash: README.md's in a copy of
               the checkout (an `sh setup` block first: the build and the
               install), the docs' in a scratch directory each, all with the
               environment README.md's `export` lines leave.  A command must
               exit 0, or N when its line ends with `# exits N`.
  sh ci        commands CI runs itself (.ci/run, ci/*.sh): each must appear
               in those scripts as written, and is not run again here
  sh hw        commands for a real ConnectX (the hw backend): run as `sh`
               on it where /sys/class/infiniband lists an mlx5 device, else
               over the test double of rdma-core the checkout's build has
               (tests/hwdouble: MLX5EMU_HW_LIBDIR), else listed as not run;
               so is a manual EXAMPLES line with `--backend hw`
  sh hw nic    as `sh hw`, but only on a ConnectX: commands between
               processes, which the test double cannot carry
  sh checkout  (with any of the above) run in the checkout's copy, as
               README.md's are, not in a scratch directory
  A line ending in a backslash goes on on the next.
  console      a transcript: each "$ COMMAND" runs, and prints exactly the
               lines after it
  text         output, layouts, diagrams: not run, except the EXAMPLES of a
               manual page (a `<!-- page: NAME -->` block), each of which
               runs; an `mlx5emu run` example may exit with its program's
               status, never with mlx5emu's own failures (125, 126, 127)
  c file=F, ini file=F
               written to F in the scratch directory, for the commands after
  abnf, rules, rules-errors, settings
               checked by tests/unit/fault/doc_examples.py (not here)

The run happens in a scratch HOME, so README's `cmake --install build
--prefix ~/.local` and what follows stay inside it; DOC_COMMANDS_NESTED is
set there, and this checker exits 77 (skipped) when it finds it set, so the
README's own `ctest` does not run it again.  --lint checks the blocks and
the `sh ci` lines without running anything.
"""
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(.*)$")
EXITS = re.compile(r"#\s*exits\s+(\d+)\b")
CHECKED_ELSEWHERE = ("abnf", "rules", "rules-errors", "settings")
KINDS = ("sh", "console", "text", "c", "ini") + CHECKED_ELSEWHERE
SKIPPED = 77


def docs(src):
    return [os.path.join(src, "README.md")] + sorted(
        os.path.join(src, "docs", f) for f in os.listdir(os.path.join(src, "docs"))
        if f.endswith(".md"))


def blocks(path):
    """(problems, [(line, kind, attrs, body, page)]): the fenced blocks,
    and every indented code block or kindless fence as a problem."""
    lines = open(path).read().split("\n")
    out, problems, i, page, prev_blank = [], [], 0, None, True
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            pm = re.match(r"^<!-- page: (\S+) -->", lines[i])
            page = pm.group(1) if pm else (page if not lines[i].strip() else None)
            if prev_blank and re.match(r"^( {4}|\t)\S", lines[i]):
                problems.append("%s:%d: an indented code block; fence it with its kind "
                                "(sh, text, ...)" % (path, i + 1))
            prev_blank = not lines[i].strip()
            i += 1
            continue
        start = i + 1
        words = shlex.split(m.group(1))
        body = []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        if i == len(lines):
            problems.append("%s:%d: unterminated block" % (path, start))
            break
        i += 1
        prev_blank = False
        if not words or words[0] not in KINDS:
            problems.append("%s:%d: a block of kind %r; kinds: %s"
                            % (path, start, words[0] if words else "", ", ".join(KINDS)))
            continue
        attrs = {}
        for w in words[1:]:
            k, _, v = w.partition("=")
            attrs.setdefault(k, []).append(v)
        out.append((start, words[0], attrs, body, page))
        page = None
    return problems, out


def manual_examples(body):
    """The command lines of a manual page's EXAMPLES section."""
    out, inside = [], False
    for n, line in enumerate(body):
        if re.match(r"^[A-Z][A-Z ]+$", line):
            inside = line == "EXAMPLES"
        elif inside and line.strip():
            out.append((n, line.strip()))
    return out


def ci_lines(src):
    text = []
    for p in [os.path.join(src, ".ci", "run")] + sorted(
            os.path.join(src, "ci", f) for f in os.listdir(os.path.join(src, "ci"))
            if f.endswith(".sh")):
        text += [l.split("#", 1)[0].strip() for l in open(p)]
    return [l for l in text if l]


def connectx():
    """The machine's mlx5 RDMA devices (the hw backend's)."""
    try:
        return sorted(d for d in os.listdir("/sys/class/infiniband") if d.startswith("mlx5"))
    except OSError:
        return []


def joined(body, start):
    """(line number, command line) of a block, backslash continuations joined."""
    out, cur = [], None
    for n, line in enumerate(body, start + 1):
        if cur is not None:
            cur[1] = cur[1][:-1] + " " + line.strip()
        else:
            cur = [n, line]
        if not cur[1].rstrip().endswith("\\"):
            out.append(tuple(cur))
            cur = None
        else:
            cur[1] = cur[1].rstrip()
    if cur is not None:
        out.append(tuple(cur))
    return out


def command_of(line):
    """The line without a trailing comment (a '#' after white space)."""
    return re.sub(r"\s+#.*$", "", line).strip()


class Runner:
    def __init__(self, src, scratch):
        self.src = src
        self.scratch = scratch
        self.failures = 0
        self.ran = 0
        home = os.path.join(scratch, "home")
        os.makedirs(home)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("MLX5EMU_") and k not in ("LD_LIBRARY_PATH",
                                                             "PKG_CONFIG_PATH")}
        env.update(HOME=home, DOC_COMMANDS_NESTED="1", LC_ALL="C")
        self.env = env
        self.checkout = os.path.join(home, "mlx5emu")
        self.hw = connectx()
        self.not_run = []
        self.over_double = []

    def fail(self, where, msg):
        print("FAIL %s: %s" % (where, msg))
        self.failures += 1

    def copy_checkout(self):
        """The source as a fresh clone has it: git's files (or, outside a
        git checkout, everything but build directories)."""
        try:
            files = subprocess.run(
                ["git", "-C", self.src, "ls-files", "-z", "--cached", "--others",
                 "--exclude-standard"], capture_output=True, check=True).stdout
            files = [f for f in files.decode().split("\0") if f]
        except (OSError, subprocess.CalledProcessError):
            files = []
            for d, dirs, fs in os.walk(self.src):
                dirs[:] = [x for x in dirs if not x.startswith(("build", ".git"))]
                files += [os.path.relpath(os.path.join(d, f), self.src) for f in fs]
        for f in files:
            s = os.path.join(self.src, f)
            if not os.path.isfile(s):
                continue	# deleted in the work tree
            d = os.path.join(self.checkout, f)
            os.makedirs(os.path.dirname(d), exist_ok=True)
            shutil.copy2(s, d)

    def hw_env(self, where, nic=False):
        """The environment a `sh hw` command adds: none on a ConnectX, the
        test double's libraries without one (not for `nic`); None: it
        cannot run here."""
        if self.hw:
            return {}
        if nic:
            self.not_run.append(where)
            return None
        double = os.path.join(self.checkout, "build", "tests", "hwdouble", "lib")
        if os.path.exists(os.path.join(double, "libibverbs.so.1")):
            self.over_double.append(where)
            return {"MLX5EMU_HW_LIBDIR": double}
        self.not_run.append(where)
        return None

    def run(self, where, line, cwd, want=0, any_but_mlx5emu=False, output=None,
            extra_env=None):
        """Runs one command line in bash with the current environment; the
        environment and directory it leaves are kept."""
        envfile = os.path.join(self.scratch, "env.out")
        script = '%s\n__rc=$?\nenv -0 >%s\nexit $__rc\n' % (line, shlex.quote(envfile))
        env = dict(self.env, **(extra_env or {}))
        p = run_group(script, cwd, env)
        self.ran += 1
        if os.path.exists(envfile):
            with open(envfile, errors="replace") as f:
                pairs = [e.split("=", 1) for e in f.read().split("\0") if "=" in e]
            os.unlink(envfile)
            self.env = {k: v for k, v in pairs
                        if k not in ("__rc", "SHLVL", "_", "OLDPWD") and
                        k not in (extra_env or {})}
        ok = (p.returncode not in (125, 126, 127)) if any_but_mlx5emu else p.returncode == want
        if not ok:
            self.fail(where, "`%s` exited %d, expected %s:\n%s" % (
                line, p.returncode, "its program's status" if any_but_mlx5emu else want,
                "\n".join("    | " + l for l in p.stdout.rstrip("\n").split("\n")[-40:])))
        elif output is not None:
            got = [l.rstrip() for l in p.stdout.rstrip("\n").split("\n")] if p.stdout else []
            want_lines = [l.rstrip() for l in output]
            while want_lines and not want_lines[-1]:
                want_lines.pop()
            if got != want_lines:
                self.fail(where, "$ %s\ngives:\n  %s\nthe doc says:\n  %s"
                          % (line, "\n  ".join(got), "\n  ".join(want_lines)))
        return self.env.get("PWD", cwd)

    def sh(self, path, start, body, cwd, hw=False, nic=False):
        for n, line in joined(body, start):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            extra = self.hw_env("%s:%d" % (path, n), nic) if hw else {}
            if extra is None:
                continue
            m = EXITS.search(line)
            cwd = self.run("%s:%d" % (path, n), command_of(line), cwd,
                           want=int(m.group(1)) if m else 0, extra_env=extra)
        return cwd

    def console(self, path, start, body, cwd):
        cmds = []
        for n, t in enumerate(body, start + 1):
            if t.startswith("$ "):
                cmds.append((n, t[2:], []))
            elif cmds:
                cmds[-1][2].append(t)
        for n, cmd, want in cmds:
            # A transcript shows what a command prints; its status is its own.
            self.run("%s:%d" % (path, n), cmd + "; true", cwd, output=want)
        return cwd

    def doc(self, path, bl, cwd, readme):
        order = ([b for b in bl if b[1] == "sh" and "setup" in b[2]] +
                 [b for b in bl if not (b[1] == "sh" and "setup" in b[2])]) if readme else bl
        for start, kind, attrs, body, page in order:
            rel = os.path.relpath(path, self.src)
            if kind == "sh" and "ci" not in attrs:
                if "checkout" in attrs and not readme:
                    self.sh(rel, start, body, self.checkout, hw="hw" in attrs,
                            nic="nic" in attrs)
                else:
                    cwd = self.sh(rel, start, body, cwd, hw="hw" in attrs,
                            nic="nic" in attrs)
            elif kind == "console":
                cwd = self.console(rel, start, body, cwd)
            elif kind in ("c", "ini") and attrs.get("file"):
                with open(os.path.join(cwd, attrs["file"][0]), "w") as f:
                    f.write("\n".join(body) + "\n")
            elif kind == "text" and page:
                for n, line in manual_examples(body):
                    where = "%s:%d" % (rel, start + n + 1)
                    extra = self.hw_env(where) if "--backend hw" in line else {}
                    if extra is None:
                        continue
                    cwd = self.run(where, line, cwd, extra_env=extra,
                                   any_but_mlx5emu=line.startswith("mlx5emu run "))


# A documented command that hangs fails instead of stalling the run; one
# that leaves a process behind (a server started with &) gets it killed
# when the command's shell exits, not a wait for its end of the output.
COMMAND_TIMEOUT = 900


def run_group(script, cwd, env):
    """Runs bash -c script in a process group of its own, output to a file;
    when bash exits (or the timeout passes) the whole group is killed."""
    with tempfile.TemporaryFile(mode="w+", errors="replace") as out:
        p = subprocess.Popen(["bash", "-c", script], cwd=cwd, env=env,
                             stdin=subprocess.DEVNULL, stdout=out,
                             stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = p.wait(timeout=COMMAND_TIMEOUT)
        except subprocess.TimeoutExpired:
            rc = 124
            out.write("\n(killed after %d s)\n" % COMMAND_TIMEOUT)
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
        out.seek(0)
        return subprocess.CompletedProcess(p.args, rc, out.read(), None)


def lint(src):
    problems, all_blocks = [], {}
    ci = ci_lines(src)
    for path in docs(src):
        p, bl = blocks(path)
        problems += p
        all_blocks[path] = bl
        for start, kind, attrs, body, page in bl:
            if kind != "sh" or "ci" not in attrs:
                continue
            for n, line in enumerate(body, start + 1):
                cmd = command_of(line)
                if cmd and not cmd.startswith("#") and not any(cmd in l for l in ci):
                    problems.append("%s:%d: `%s` is marked as run by CI, but no CI script "
                                    "runs it" % (path, n, cmd))
    return problems, all_blocks


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    src = os.path.abspath(sys.argv[1])
    problems, all_blocks = lint(src)
    for p in problems:
        print("FAIL " + p)
    if "--lint" in sys.argv[2:]:
        n = sum(len(b) for b in all_blocks.values())
        print("doc_commands: %d documents, %d blocks, %d problem(s)"
              % (len(all_blocks), n, len(problems)))
        return 1 if problems else 0
    if os.environ.get("DOC_COMMANDS_NESTED"):
        print("doc_commands: skipped inside the documents' own run")
        return SKIPPED
    scratch = tempfile.mkdtemp(prefix="mlx5emu-docs-")
    try:
        r = Runner(src, scratch)
        r.copy_checkout()
        for path in docs(src):
            readme = os.path.basename(path) == "README.md" and \
                os.path.dirname(path) == src
            if readme:
                cwd = r.checkout
            else:
                cwd = os.path.join(scratch, "work-" + os.path.basename(path)[:-3])
                os.makedirs(cwd)
            r.doc(path, all_blocks[path], cwd, readme)
        if r.over_double:
            print("doc_commands: over the test double of rdma-core, no ConnectX on this "
                  "machine: %s" % ", ".join(r.over_double))
        if r.not_run:
            print("doc_commands: not run, no ConnectX on this machine: %s"
                  % ", ".join(r.not_run))
        print("doc_commands: %d commands run from %d documents; %d failure(s)"
              % (r.ran, len(all_blocks), r.failures + len(problems)))
        return 1 if r.failures or problems else 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
