#!/usr/bin/python3
"""compat_pyverbs: rdma-core 44's pyverbs test suite over the drop-in libraries.

Copies the suite shipped by python3-pyverbs (dpkg -L python3-pyverbs:
.../rdma-core/tests, most modules gzipped) into a temporary directory named
'tests', runs `/usr/bin/python3 run_tests.py -v` from inside it with
LD_LIBRARY_PATH=<dropin>, parses unittest's per-test lines into
{test id: pass|skip|fail|error} and compares them with pyverbs.expected
(one '<id> <result>' line per test, sorted).

  * a test doing WORSE than expected (pass -> skip/fail/error,
    skip -> fail/error, or missing from the run) fails, and is listed;
  * a test doing BETTER is listed under 'improved' and does not fail;
  * 'Ran N tests' must be the suite's full size (273 for rdma-core 44),
    otherwise the run aborted (typically an ImportError: one unresolved
    symbol in any pyverbs module kills the whole run) and the output is shown.

    pyverbs_run.py [--dropin <build>/lib] [--update] [--log FILE] [-- RUN_TESTS_ARGS...]

Extra run_tests.py arguments (e.g. --dev mlx5_0 --port 1) come from after
'--' and from $MLX5EMU_PYVERBS_ARGS (shell-quoted).  `--update` rewrites the
expectations file from the run.  `--partial` allows a filtered run (e.g.
-- -k test_pd): only the tests that ran are compared.
"""
import argparse
import gzip
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True     # keep the source tree clean of __pycache__
from compat_common import HERE, add_dropin_arg, check_dropin, dropin_env, die

TAG = "compat_pyverbs"
SUITE_SIZE = 273                      # test methods in rdma-core 44.0's suite
RESULTS = ("pass", "skip", "fail", "error")
RANK = {"pass": 0, "skip": 1, "fail": 2, "error": 2}
DEFAULT_TESTS_SRC = "/usr/share/doc/rdma-core/tests"

# 'test_x (tests.test_mod.Class.test_x)' (3.11+) or 'test_x (tests.test_mod.Class)';
# a subtest line is indented by two spaces and followed by ' [msg] (params)'.
HEAD = re.compile(r"^(?P<sub>  )?(?P<meth>\w+) \((?P<cls>[\w.]+)\)(?P<rest>.*)$")
STATUS = re.compile(r"(?:^|\.\.\. )(?P<st>ok|FAIL|ERROR|skipped (?:'.*'|\".*\")|"
                    r"expected failure|unexpected success)$")
STATUS_MAP = {"ok": "pass", "expected failure": "pass", "FAIL": "fail",
              "unexpected success": "fail", "ERROR": "error"}
RAN = re.compile(r"^Ran (\d+) tests? in ", re.M)
FINAL = re.compile(r"^(OK|FAILED)(?: \((.*)\))?\s*$", re.M)
PREFLIGHT = r"""
import sys
for m in ("pyverbs.device", "pyverbs.providers.mlx5.mlx5dv", "pyverbs.providers.efa.efadv"):
    __import__(m)
maps = open("/proc/self/maps").read().split("\n")
for lib in sys.argv[1:]:
    paths = sorted({l.split()[-1] for l in maps if "/" + lib in l
                    and (l.endswith("/" + lib) or "/" + lib + "." in l)})
    print(lib, " ".join(paths) or "-")
"""


# run_tests.py under a time limit per test method: SIGALRM interrupts a test
# blocked in a verb (a completion that never comes) and fails that test with
# a TimeoutError instead of stalling the run.  argv: LIMIT run_tests.py-args.
RUN_BOOT = r"""
import os, runpy, signal, sys, unittest
limit = int(sys.argv.pop(1))
if limit > 0:
    def expired(signum, frame):
        raise TimeoutError("mlx5emu: the test ran past %d s" % limit)
    untimed_run = unittest.TestCase.run
    def timed_run(self, result=None):
        old = signal.signal(signal.SIGALRM, expired)
        signal.alarm(limit)
        try:
            return untimed_run(self, result)
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
    unittest.TestCase.run = timed_run
sys.argv[0] = os.path.abspath("run_tests.py")
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def log(msg=""):
    print(msg, flush=True)


def find_tests_src():
    try:
        out = subprocess.run(["dpkg", "-L", "python3-pyverbs"], capture_output=True,
                             text=True).stdout
    except OSError:
        out = ""
    for line in out.splitlines():
        if line.endswith("/tests/run_tests.py"):
            return os.path.dirname(line)
    if os.path.isfile(os.path.join(DEFAULT_TESTS_SRC, "run_tests.py")):
        return DEFAULT_TESTS_SRC
    die(TAG, "pyverbs' test suite not found (install python3-pyverbs)")


def stage(src, workdir):
    dst = os.path.join(workdir, "tests")
    shutil.copytree(src, dst)
    for name in os.listdir(dst):
        if name.endswith(".gz"):
            path = os.path.join(dst, name)
            with gzip.open(path, "rb") as fin, open(path[:-3], "wb") as fout:
                shutil.copyfileobj(fin, fout)
            os.unlink(path)
    return dst


def test_id(m):
    meth, cls = m.group("meth"), m.group("cls")
    return cls if cls.endswith("." + meth) else cls + "." + meth


def parse(text):
    """unittest -v output (stderr) -> {test id: result}."""
    main, sub = {}, {}
    current, pending_sub = None, False
    for line in text.splitlines():
        m = HEAD.match(line)
        rest = None
        if m:
            current, pending_sub = test_id(m), bool(m.group("sub"))
            rest = m.group("rest")
            if " ... " not in rest:
                continue        # the status follows on a later line (docstring, noise)
        elif current is None:
            continue
        s = STATUS.search(rest if rest is not None else line)
        if not s or (rest is None and line != s.group("st") and " ... " not in line):
            continue
        (sub if pending_sub else main).setdefault(current, []).append(s.group("st"))
        # after a subtest's status the parent's own status may still follow
        current = current if pending_sub else None
        pending_sub = False
    out = {}
    for tid in set(main) | set(sub):
        res = [STATUS_MAP.get(st, "skip") for st in main.get(tid, [])]
        sres = [STATUS_MAP.get(st, "skip") for st in sub.get(tid, [])]
        bad = [r for r in res + sres if r in ("fail", "error")]
        if bad:
            out[tid] = "error" if "error" in bad else "fail"
        elif res:
            out[tid] = res[-1]
        else:
            out[tid] = "skip"
    return out


def failure_blocks(text):
    """The '====\\nERROR: test (id)\\n----\\ntraceback' blocks by test id."""
    blocks = {}
    for chunk in text.split("=" * 70 + "\n")[1:]:
        first = chunk.split("\n", 1)[0]
        m = re.match(r"^(?:ERROR|FAIL|UNEXPECTED SUCCESS): (\w+) \(([\w.]+)\)", first)
        if m:
            body = chunk.split("\n" + "-" * 70 + "\n")
            tid = m.group(2) if m.group(2).endswith("." + m.group(1)) else m.group(2) + "." + m.group(1)
            blocks.setdefault(tid, []).append(body[0] + "\n" + "\n".join(body[1:2]).rstrip())
    return blocks


def read_expected(path):
    exp = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            fields = line.split("#", 1)[0].split()
            if not fields:
                continue
            if len(fields) != 2 or fields[1] not in RESULTS:
                die(TAG, "%s:%d: expected '<test id> <%s>', got %r"
                    % (path, n, "|".join(RESULTS), line.rstrip()))
            exp[fields[0]] = fields[1]
    return exp


def kill_group(proc):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.5 if sig == signal.SIGTERM else 0)


def run_group(argv, cwd, env, timeout, workdir, name):
    """Run argv in a session of its own, output to files (a stray child holding
    a pipe open cannot hang us); kill whatever is left of the session after."""
    out_path = os.path.join(workdir, name + ".stdout")
    err_path = os.path.join(workdir, name + ".stderr")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err, start_new_session=True)
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_group(proc)
            proc.wait()
        kill_group(proc)                # stray children (multiprocessing, forks)
    with open(out_path, errors="replace") as f:
        stdout = f.read()
    with open(err_path, errors="replace") as f:
        stderr = f.read()
    return proc.returncode, timed_out, stdout, stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_dropin_arg(ap)
    ap.add_argument("--expected", default=os.path.join(HERE, "pyverbs.expected"))
    ap.add_argument("--update", action="store_true",
                    help="rewrite the expectations file from this run")
    ap.add_argument("--partial", action="store_true",
                    help="a filtered run: compare only the tests that ran")
    ap.add_argument("--python", default="/usr/bin/python3",
                    help="the interpreter that sees python3-pyverbs (default %(default)s)")
    ap.add_argument("--tests-src", help="the suite's directory (default: from dpkg -L python3-pyverbs)")
    ap.add_argument("--timeout", type=float,
                    default=float(os.environ.get("MLX5EMU_PYVERBS_TIMEOUT", 1800)),
                    help="limit for the whole run in seconds (default %(default)s)")
    ap.add_argument("--test-timeout", type=int,
                    default=int(os.environ.get("MLX5EMU_PYVERBS_TEST_TIMEOUT", 120)),
                    help="limit for each test in seconds, 0 for none (default %(default)s)")
    ap.add_argument("--log", help="also write the run's full output to this file")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("run_args", nargs="*", help="extra run_tests.py arguments (after --)")
    a = ap.parse_args()
    if a.update and a.partial:
        die(TAG, "--update needs a full run, not --partial")
    dropin = check_dropin(a.dropin, TAG)
    if not os.access(a.python, os.X_OK):
        die(TAG, "%s not found (pyverbs needs Debian's python3)" % a.python)
    run_args = shlex.split(os.environ.get("MLX5EMU_PYVERBS_ARGS", "")) + a.run_args
    env = dropin_env(dropin)
    src = a.tests_src or find_tests_src()

    workdir = tempfile.mkdtemp(prefix="mlx5emu-pyverbs.")
    try:
        return compare_run(a, dropin, env, src, workdir, run_args)
    finally:
        if a.keep:
            log("kept %s" % workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def compare_run(a, dropin, env, src, workdir, run_args):
    tdir = stage(src, workdir)
    log("pyverbs suite: %s (staged in %s)" % (src, tdir))
    log("LD_LIBRARY_PATH=%s %s run_tests.py -v %s"
        % (env["LD_LIBRARY_PATH"], a.python, " ".join(shlex.quote(x) for x in run_args)))

    # Preflight: pyverbs imports and its rdma-core libraries come from the drop-in dir.
    libs = ["libibverbs.so.1", "libmlx5.so.1", "libefa.so.1", "libmlx5emu_core.so.0",
            "librdmacm.so.1"]
    rc, timed_out, out, err = run_group([a.python, "-c", PREFLIGHT] + libs, tdir, env, 120,
                                        workdir, "preflight")
    if rc or timed_out:
        log(out + err)
        die(TAG, "pyverbs does not import over %s (%s)"
            % (dropin, "timed out" if timed_out else "traceback above"))
    wrong = []
    for line in out.splitlines():
        lib, paths = line.split(" ", 1)
        log("  %-22s %s" % (lib, paths))
        if lib != "librdmacm.so.1" and any(os.path.dirname(os.path.realpath(x)) != dropin
                                            for x in paths.split() if x != "-"):
            wrong.append(lib)
        if lib != "librdmacm.so.1" and paths == "-":
            wrong.append(lib + " (not loaded)")
    if wrong:
        die(TAG, "pyverbs loaded %s from outside the drop-in directory %s"
            % (", ".join(wrong), dropin))

    _, _, out, err = run_group([a.python, "run_tests.py", "--list-tests"], tdir, env, 300,
                               workdir, "list")
    listed = set(l.strip() for l in out.splitlines() if l.strip().startswith("tests."))
    if len(listed) != SUITE_SIZE:
        log(out + err)
        die(TAG, "run_tests.py --list-tests lists %d tests, expected %d (rdma-core 44)%s"
            % (len(listed), SUITE_SIZE,
               ": the suite does not import (traceback above)" if not listed else ""))

    t0 = time.monotonic()
    rc, timed_out, stdout, stderr = run_group(
        [a.python, "-c", RUN_BOOT, str(a.test_timeout), "-v"] + run_args, tdir, env,
        a.timeout, workdir, "run")
    elapsed = time.monotonic() - t0
    if a.log:
        with open(a.log, "w") as f:
            f.write("# stderr (unittest)\n%s\n# stdout\n%s" % (stderr, stdout))

    ran = RAN.findall(stderr)
    ran = int(ran[-1]) if ran else 0
    final = FINAL.findall(stderr)
    summary = ("%s (%s)" % final[-1] if final and final[-1][1] else final[-1][0]) if final else "no summary"
    results = parse(stderr)
    log("run_tests.py exited %s after %.1f s: Ran %d tests, %s"
        % ("by timeout" if timed_out else rc, elapsed, ran, summary))

    problems = []
    if timed_out:
        problems.append("the run exceeded %g s and was killed" % a.timeout)
    if not a.partial and ran != SUITE_SIZE:
        log("---- run_tests.py stderr ----\n%s\n---- stdout ----\n%s" % (stderr[-20000:], stdout[-5000:]))
        problems.append("'Ran %d tests', expected %d: the suite did not run fully "
                        "(output above)" % (ran, SUITE_SIZE))

    counts = {r: sum(1 for v in results.values() if v == r) for r in RESULTS}
    count_line = ("pyverbs: ran %d, passed %d, failed %d, errors %d, skipped %d"
                  % (ran, counts["pass"], counts["fail"], counts["error"], counts["skip"]))

    if a.update:
        missing = sorted(listed - set(results))
        if problems or missing:
            log("\n".join(problems + ["not in the run: " + t for t in missing]))
            log(count_line)
            die(TAG, "not updating %s from an incomplete run" % a.expected)
        with open(a.expected, "w") as f:
            for tid in sorted(t for t in results if t in listed):
                f.write("%s %s\n" % (tid, results[tid]))
        log("wrote %s (%d tests)" % (a.expected, len(listed)))
        log(count_line)
        return 0

    expected = read_expected(a.expected)
    if not a.partial and len(expected) != SUITE_SIZE:
        problems.append("%s lists %d tests, expected %d" % (a.expected, len(expected), SUITE_SIZE))
    stale = sorted(set(expected) - listed)
    if stale:
        problems.append("%s names tests the suite does not have:\n    %s"
                        % (a.expected, "\n    ".join(stale)))

    worse, better, changed, unexpected = [], [], [], []
    for tid in sorted(set(expected) | set(results)):
        exp, got = expected.get(tid), results.get(tid)
        if exp is None:
            unexpected.append((tid, got))
        elif got is None:
            if not a.partial:
                worse.append((tid, exp, "missing from the run"))
        elif RANK[got] > RANK[exp]:
            worse.append((tid, exp, got))
        elif RANK[got] < RANK[exp]:
            better.append((tid, exp, got))
        elif got != exp:
            changed.append((tid, exp, got))
    bad_unexpected = [(t, g) for t, g in unexpected if g in ("fail", "error")]

    blocks = failure_blocks(stderr)
    if worse:
        log("\nWORSE than %s (%d):" % (os.path.basename(a.expected), len(worse)))
        for tid, exp, got in worse:
            log("  %s: expected %s, got %s" % (tid, exp, got))
        shown = 0
        for tid, _, _ in worse:
            for b in blocks.get(tid, []):
                if shown < 20:
                    log("\n" + "=" * 70 + "\n" + b)
                shown += 1
        if shown > 20:
            log("\n(%d more tracebacks in the full output%s)"
                % (shown - 20, ": " + a.log if a.log else ""))
    if unexpected:
        log("\nNot in %s (%d):" % (os.path.basename(a.expected), len(unexpected)))
        for tid, got in unexpected:
            log("  %s: %s" % (tid, got))
            for b in blocks.get(tid, [])[:3]:
                log(b)
    if changed:
        log("\nChanged between fail and error (%d; not a failure):" % len(changed))
        for tid, exp, got in changed:
            log("  %s: expected %s, got %s" % (tid, exp, got))
    if better:
        log("\nimproved — update pyverbs.expected (%d; run with --update):" % len(better))
        for tid, exp, got in better:
            log("  %s: expected %s, got %s" % (tid, exp, got))
    if worse:
        problems.append("%d tests did worse than expected" % len(worse))
    if bad_unexpected:
        problems.append("%d unexpected failing entries (class/module fixtures, "
                        "import errors)" % len(bad_unexpected))

    log("")
    log(count_line)
    if problems:
        log("%s: FAIL: %s" % (TAG, "; ".join(problems)))
        return 1
    log("%s: PASS (%d tests as expected%s)" % (TAG, len(results) - len(better) - len(unexpected),
                                              ", %d improved" % len(better) if better else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
