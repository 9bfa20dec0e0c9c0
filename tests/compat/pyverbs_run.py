#!/usr/bin/python3
"""compat_pyverbs: rdma-core 44's pyverbs test suite over the drop-in libraries.

Copies the suite shipped by python3-pyverbs (dpkg -L python3-pyverbs:
.../rdma-core/tests, most modules gzipped) into a temporary directory named
'tests', runs `/usr/bin/python3 run_tests.py -v` from inside it with
LD_LIBRARY_PATH=<dropin>, parses unittest's per-test lines into
{test id: (pass|skip|fail|error, reason)} and compares them with
pyverbs.expected (one '<id> <result> [| <reason>]' line per test, sorted).

A test's reason is why it ended as it did: the skip message; the last line
of the traceback of a failure or error; and for a pass, every exception an
assertRaises of the test caught (recorded by running the suite with
unittest's assertRaises context patched), since a test that expects an
error passes whatever the error was.  Numbers that change from run to run
(addresses, object numbers of 4 or more digits) are masked as N.

  * a test doing WORSE than expected (pass -> skip/fail/error,
    skip -> fail/error, or missing from the run) fails, and is listed;
  * a test with the same result for another REASON fails, and is listed
    with both (rerun with --update once the new reason is right);
  * a test doing BETTER is listed under 'improved' and does not fail;
  * 'Ran N tests' must be the suite's full size (273 for rdma-core 44),
    otherwise the run aborted (typically an ImportError: one unresolved
    symbol in any pyverbs module kills the whole run) and the output is shown.

    pyverbs_run.py [--dropin <build>/lib] [--update] [--log FILE] [-- RUN_TESTS_ARGS...]

Extra run_tests.py arguments (e.g. --dev mlx5_0 --port 1) come from after
'--' and from $MLX5EMU_PYVERBS_ARGS (shell-quoted).  `--update` rewrites the
expectations file from the run, keeping its comment lines (the ones above a
test stay above it).  `--partial` allows a filtered run (e.g.
-- -k test_pd): only the tests that ran are compared.
"""
import argparse
import gzip
import json
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


# run_tests.py with two additions: each test method runs under a time limit
# (SIGALRM interrupts a test blocked in a verb, a completion that never
# comes, and fails it with a TimeoutError instead of stalling the run), and
# the exceptions its assertRaises contexts caught are recorded ([test id,
# "Type: message"] per JSON line in $MLX5EMU_PYVERBS_RAISED).
# argv: LIMIT run_tests.py-args.
RUN_BOOT = r"""
import json, os, runpy, signal, sys, unittest, unittest.case
limit = int(sys.argv.pop(1))
out = open(os.environ["MLX5EMU_PYVERBS_RAISED"], "a")
current = []
def expired(signum, frame):
    raise TimeoutError("mlx5emu: the test ran past %d s" % limit)
untimed_run = unittest.TestCase.run
def run_recording(self, result=None):
    current.append(self.id())
    old = signal.signal(signal.SIGALRM, expired) if limit > 0 else None
    if limit > 0:
        signal.alarm(limit)
    try:
        return untimed_run(self, result)
    finally:
        if limit > 0:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
        current.pop()
unittest.TestCase.run = run_recording
exit_ = unittest.case._AssertRaisesContext.__exit__
def exit_recording(self, exc_type, exc, tb):
    caught = exit_(self, exc_type, exc, tb)
    if caught and exc_type is not None and current:
        out.write(json.dumps([current[-1], "%s: %s" % (exc_type.__name__, exc)]) + "\n")
        out.flush()
    return caught
unittest.case._AssertRaisesContext.__exit__ = exit_recording
sys.argv[0] = os.path.abspath("run_tests.py")
runpy.run_path(sys.argv[0], run_name="__main__")
"""
VOLATILE = re.compile(r"0x[0-9a-fA-F]{4,}|(?<![\w.])\d{4,}(?![\w.])")


def normalize(reason):
    """One line, run-to-run noise masked, no '|' or '#' (the file's own)."""
    reason = " ".join(reason.split())
    reason = VOLATILE.sub("N", reason)
    return reason.replace("|", "/").replace("#", "No.")


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


def skip_reason(st):
    """The message of a "skipped '...'" status."""
    return st[len("skipped "):].strip()[1:-1] if st.startswith("skipped ") else None


def huge_pages_reserved():
    """The suite's own test (tests/utils.py huge_pages_supported)."""
    try:
        with open("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages") as f:
            return int(f.read()) > 0
    except (OSError, ValueError):
        return False


def parse(text, blocks=None, raised=None):
    """unittest -v output (stderr) -> ({test id: result}, {test id: reason}),
    the reasons from blocks (failure_blocks) and raised ({test id: [the
    exceptions its assertRaises caught]})."""
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
    out, reasons = {}, {}
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
        if out[tid] in ("fail", "error"):
            why = [b.rstrip().split("\n")[-1] for b in (blocks or {}).get(tid, [])]
        elif out[tid] == "skip":
            why = [skip_reason(st) for st in main.get(tid, []) + sub.get(tid, [])
                   if skip_reason(st) is not None]
        else:
            why = ["raised " + r for r in (raised or {}).get(tid, [])]
        reasons[tid] = " / ".join(sorted(set(normalize(w) for w in why if w.strip())))
    return out, reasons


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
    """{test id: (result, reason)}, and the comment lines: those above the
    first test (key "") and those above each later test (its id)."""
    exp, comments, pending = {}, {}, []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.lstrip().startswith("#") or not line.strip():
                pending.append(line.rstrip("\n"))
                continue
            entry, _, reason = line.rstrip("\n").partition("|")
            fields = entry.split()
            if len(fields) != 2 or fields[1] not in RESULTS:
                die(TAG, "%s:%d: expected '<test id> <%s> [| <reason>]', got %r"
                    % (path, n, "|".join(RESULTS), line.rstrip()))
            comments["" if not exp else fields[0]] = pending
            pending = []
            exp[fields[0]] = (fields[1], reason.strip())
    return exp, comments


def write_expected(path, results, reasons, comments):
    with open(path, "w") as f:
        for c in comments.get("", []):
            f.write(c + "\n")
        for tid in sorted(results):
            for c in comments.get(tid, []):
                f.write(c + "\n")
            f.write("%s %s%s\n" % (tid, results[tid],
                                   " | " + reasons[tid] if reasons.get(tid) else ""))


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
                    default=int(os.environ.get("MLX5EMU_PYVERBS_TEST_TIMEOUT", 30)),
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
    raised_path = os.path.join(workdir, "raised.jsonl")
    renv = dict(env, MLX5EMU_PYVERBS_RAISED=raised_path)
    rc, timed_out, stdout, stderr = run_group(
        [a.python, "-c", RUN_BOOT, str(a.test_timeout), "-v"] + run_args, tdir, renv,
        a.timeout, workdir, "run")
    elapsed = time.monotonic() - t0
    if a.log:
        with open(a.log, "w") as f:
            f.write("# stderr (unittest)\n%s\n# stdout\n%s" % (stderr, stdout))

    ran = RAN.findall(stderr)
    ran = int(ran[-1]) if ran else 0
    final = FINAL.findall(stderr)
    summary = ("%s (%s)" % final[-1] if final and final[-1][1] else final[-1][0]) if final else "no summary"
    raised = {}
    if os.path.exists(raised_path):
        with open(raised_path, errors="replace") as f:
            for line in f:
                try:
                    tid, text = json.loads(line)
                except ValueError:
                    continue
                raised.setdefault(tid, []).append(text)
    blocks = failure_blocks(stderr)
    results, reasons = parse(stderr, blocks, raised)
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
        comments = read_expected(a.expected)[1] if os.path.exists(a.expected) else {}
        write_expected(a.expected, {t: r for t, r in results.items() if t in listed},
                       reasons, comments)
        log("wrote %s (%d tests)" % (a.expected, len(listed)))
        log(count_line)
        return 0

    expected, _ = read_expected(a.expected)
    # Over the hw backend a few tests end otherwise, for reasons of the
    # backend (docs/hardware.md): PATH.hw lists those, overriding PATH.
    # With 2 MiB pages reserved (ci/test.sh reserves them where it may) the
    # suite's huge-page tests take their other branch: PATH.hugepages.
    # Both at once: PATH.hw.hugepages has the last word.
    hw = os.environ.get("MLX5EMU_BACKEND") == "hw"
    huge = huge_pages_reserved()
    for suffix, applies in ((".hw", hw), (".hugepages", huge),
                            (".hw.hugepages", hw and huge)):
        if applies and os.path.exists(a.expected + suffix):
            expected.update(read_expected(a.expected + suffix)[0])
    exp_reasons = {t: r for t, (_, r) in expected.items()}
    expected = {t: res for t, (res, _) in expected.items()}
    if not a.partial and len(expected) != SUITE_SIZE:
        problems.append("%s lists %d tests, expected %d" % (a.expected, len(expected), SUITE_SIZE))
    stale = sorted(set(expected) - listed)
    if stale:
        problems.append("%s names tests the suite does not have:\n    %s"
                        % (a.expected, "\n    ".join(stale)))

    worse, better, changed, unexpected, reasoned = [], [], [], [], []
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
        elif reasons.get(tid, "") != exp_reasons.get(tid, ""):
            reasoned.append((tid, got, exp_reasons.get(tid, ""), reasons.get(tid, "")))
    bad_unexpected = [(t, g) for t, g in unexpected if g in ("fail", "error")]

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
    if reasoned:
        log("\nThe same result for ANOTHER REASON (%d; review, then --update):" % len(reasoned))
        for tid, got, exp, now in reasoned:
            log("  %s: %s\n      expected: %s\n      now:      %s"
                % (tid, got, exp or "(none)", now or "(none)"))
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
    if reasoned:
        problems.append("%d tests ended as expected for another reason" % len(reasoned))
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
