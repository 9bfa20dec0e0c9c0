#!/usr/bin/env python3
"""Check the layering rules of cmake/layers.txt against the tree and the build.

    check_layers.py RULES MANIFEST SRCDIR [--cc CC] [--self-test]

RULES is cmake/layers.txt; MANIFEST is written by tests/layering/CMakeLists.txt
(one line per component: name, sources, object files, include roots, tab
separated, lists separated by ';').

The check, per component:
  includes  every #include of its sources and of the headers of its directory
            names its own directory, a directory of a component it uses, a
            header it uses, or include/mlx5emu when it uses mlx5emu; nothing
            climbs out with "..";
  symbols   every symbol its object files reference (nm -u) that another
            component defines is one of a component it uses (or @uses), and
            an implementation's ops table (mlx5be_<name>_ops) is referenced by
            mlx5emu_backend alone;
  rules     the uses form no cycle.
Exit status 0 when all hold; 1 with one line per violation otherwise.

--self-test feeds the same checks known violations (a forbidden include, a
relative one, an object that calls into the device model from the provider,
one that names an implementation, a cyclic table) and requires each to be
caught, and requires that a forbidden include fails to compile with a
component's own include roots while an allowed one compiles; so the check
cannot pass by checking nothing.
"""
import os
import re
import subprocess
import sys
import tempfile

PROJECT_ROOTS = ("prm", "emu", "provider", "backend", "shell", "cli",
                 "include", "tests", "examples", "mlx5emu")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
IMPL_OPS_RE = re.compile(r"^mlx5be_[a-z0-9]+_ops$")
RDMA_CORE_RE = re.compile(r"^_*(ibv|mlx5dv)_")
HW_COMPONENT = "mlx5emu_backend_hw"


class Rules:
    def __init__(self, rows):
        # name -> (dir, uses)
        self.rows = rows

    @classmethod
    def parse(cls, text):
        rows = {}
        for line in text.splitlines():
            if not line or not line[0].isalpha():
                continue
            f = line.split()
            rows[f[0]] = (f[1], [u for u in f[2:] if u != "-"])
        return cls(rows)

    def dir(self, comp):
        return self.rows[comp][0]

    def uses(self, comp):
        return self.rows[comp][1]

    def symbol_uses(self, comp):
        out = set()
        for u in self.uses(comp):
            name = u[1:] if u.startswith("@") else u
            if name in self.rows:
                out.add(name)
        return out

    def include_allowed(self, comp, path):
        """May a file of comp include path (spelled from an include root)?"""
        roots = [self.dir(comp)]
        for u in self.uses(comp):
            if u.startswith("@"):
                continue
            if u == "mlx5emu":
                roots.append("mlx5emu")
            elif "/" in u:
                if path == u:
                    return True
            elif u in self.rows:
                roots.append(self.dir(u))
        return any(path.startswith(r + "/") for r in roots)

    def problems(self):
        """Unknown uses and cycles in the table itself."""
        out = []
        for comp, (_, uses) in self.rows.items():
            for u in uses:
                name = u[1:] if u.startswith("@") else u
                if u == "mlx5emu" or "/" in u:
                    continue
                if name not in self.rows:
                    out.append("rules: %s uses unknown %s" % (comp, u))
        # Depth-first search for a cycle in the symbol-use graph.
        state = {}

        def visit(c, stack):
            state[c] = 1
            for d in sorted(self.symbol_uses(c)):
                if state.get(d) == 1:
                    cyc = stack[stack.index(d):] + [d]
                    out.append("rules: cycle " + " -> ".join(cyc))
                elif d not in state:
                    visit(d, stack + [d])
            state[c] = 2

        for c in sorted(self.rows):
            if c not in state:
                visit(c, [c])
        return out


def read_manifest(path):
    comps = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            name, srcs, objs, incs = line.split("\t")
            split = lambda s: [x for x in s.split(";") if x]
            comps[name] = {"sources": split(srcs), "objects": split(objs),
                           "includes": split(incs)}
    return comps


def includes_of(text):
    for n, line in enumerate(text.splitlines(), 1):
        m = INCLUDE_RE.match(line)
        if m:
            yield n, m.group(1), m.group(2)


def check_file_includes(rules, comps, relpath, text, srcdir):
    """Violations of one file (relpath below srcdir) for any of comps."""
    out = []
    here = os.path.dirname(relpath)
    for n, kind, inc in includes_of(text):
        where = "%s:%d: #include %s%s%s" % (relpath, n, kind, inc,
                                             '"' if kind == '"' else ">")
        if ".." in inc.split("/"):
            out.append(where + ": climbs out of the include roots")
            continue
        first = inc.split("/")[0]
        if "/" not in inc:
            # A neighbour in the same directory, else a system header.
            if kind == '"' and not os.path.exists(os.path.join(srcdir, here, inc)):
                out.append(where + ": no such header beside the file")
            continue
        if first not in PROJECT_ROOTS:
            continue	# <infiniband/verbs.h>, <urcu/list.h>, ...
        if not any(rules.include_allowed(c, inc) for c in comps):
            out.append(where + ": not allowed for " + "/".join(comps))
    return out


def check_includes(rules, manifest, srcdir):
    out = []
    files = {}	# relpath -> components it belongs to
    for comp in rules.rows:
        d = rules.dir(comp)
        for src in manifest.get(comp, {}).get("sources", []):
            rel = os.path.relpath(src, srcdir)
            if not rel.startswith(".."):
                files.setdefault(rel, set()).add(comp)
        absd = os.path.join(srcdir, d)
        for name in sorted(os.listdir(absd)) if os.path.isdir(absd) else []:
            if name.endswith((".h", ".def")):
                files.setdefault(os.path.join(d, name), set()).add(comp)
    for rel in sorted(files):
        with open(os.path.join(srcdir, rel), errors="replace") as f:
            text = f.read()
        out += check_file_includes(rules, sorted(files[rel]), rel, text, srcdir)
    return out


def nm(objects):
    """(defined, undefined) global symbols of the objects."""
    defined, undefined = set(), set()
    if not objects:
        return defined, undefined
    res = subprocess.run(["nm", "-P", "-g"] + objects, capture_output=True,
                         text=True, check=True)
    for line in res.stdout.splitlines():
        f = line.split()
        if len(f) < 2 or line.endswith(":"):
            continue
        (undefined if f[1] in ("U", "w", "v") else defined).add(f[0])
    return defined, undefined


def check_symbols(rules, manifest):
    out = []
    syms = {c: nm(manifest[c]["objects"]) for c in rules.rows if c in manifest}
    owner = {}
    for c, (defined, _) in syms.items():
        for s in defined:
            owner.setdefault(s, c)
    edges = set()
    for c, (_, undefined) in sorted(syms.items()):
        allowed = rules.symbol_uses(c)
        for s in sorted(undefined):
            o = owner.get(s)
            if IMPL_OPS_RE.match(s) and c != "mlx5emu_backend":
                out.append("%s references %s: only mlx5emu_backend names an "
                           "implementation" % (c, s))
                continue
            if c == HW_COMPONENT and RDMA_CORE_RE.match(s):
                out.append("%s references %s by name: the hw backend reaches "
                           "rdma-core through dlvsym() only" % (c, s))
                continue
            if o is None or o == c:
                continue
            edges.add((c, o))
            if o not in allowed:
                out.append("%s references %s, defined by %s, which it may "
                           "not use" % (c, s, o))
    return out, edges


def check_all(rules, manifest, srcdir):
    out = rules.problems()
    for c in rules.rows:
        if c not in manifest:
            out.append("rules: %s has a row but no target" % c)
        elif not manifest[c]["objects"]:
            out.append("%s: no object files in the manifest" % c)
    for c in manifest:
        if c not in rules.rows:
            out.append("%s: a component without a row in the rules" % c)
    out += check_includes(rules, manifest, srcdir)
    sym_out, edges = check_symbols(rules, manifest)
    return out + sym_out, edges


def compiles(cc, includes, text):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as f:
            f.write(text)
        cmd = [cc, "-fsyntax-only", "-D_GNU_SOURCE"] + \
              ["-I" + i for i in includes] + [src]
        return subprocess.run(cmd, capture_output=True).returncode == 0


def self_test(rules, manifest, srcdir, cc):
    """Each known violation must be caught; returns the failures."""
    fails = []
    core, verbs = "mlx5emu_provider_core", "mlx5emu_provider_verbs"

    def expect(what, problems, want):
        hit = [p for p in problems if want in p]
        if not hit:
            fails.append("self-test: %s not caught (got %r)" % (what, problems))

    good = check_file_includes(rules, [core], "provider/core/probe.c",
                               '#include "backend/backend.h"\n'
                               '#include "provider/core/context.h"\n'
                               '#include <infiniband/verbs.h>\n', srcdir)
    if good:
        fails.append("self-test: allowed includes flagged: %r" % good)
    expect("an emu/ include from the provider",
           check_file_includes(rules, [core], "provider/core/probe.c",
                               '#include "emu/kernel/kern.h"\n', srcdir),
           "not allowed")
    expect("a relative include",
           check_file_includes(rules, [core], "provider/core/probe.c",
                               '#include "../../emu/device/dev.h"\n', srcdir),
           "climbs out")
    expect("an upward provider include (core -> verbs)",
           check_file_includes(rules, [core], "provider/core/probe.c",
                               '#include "provider/verbs/qp.h"\n', srcdir),
           "not allowed")
    expect("a provider include from emu/",
           check_file_includes(rules, ["mlx5emu_device"], "emu/device/probe.c",
                               '#include "provider/core/context.h"\n', srcdir),
           "not allowed")
    expect("backend.h from an emu part other than the kernel",
           check_file_includes(rules, ["mlx5emu_firmware"],
                               "emu/firmware/probe.c",
                               '#include "backend/backend.h"\n', srcdir),
           "not allowed")

    # Include roots by construction: the compiler itself refuses.
    incs = manifest[core]["includes"]
    if not compiles(cc, incs, '#include "backend/backend.h"\n'):
        fails.append("self-test: an allowed include does not compile with "
                     "%s's include roots" % core)
    if compiles(cc, incs, '#include "emu/device/dev.h"\n'):
        fails.append("self-test: emu/device/dev.h compiles with %s's include "
                     "roots" % core)

    # Objects: a provider object calling the device model, one naming the
    # emu implementation, a hw backend object calling rdma-core by name.
    with tempfile.TemporaryDirectory() as tmp:
        probes = {
            "calls_emu.c": "extern int emu_devices_count(void);\n"
                           "int probe(void) { return emu_devices_count(); }\n",
            "names_impl.c": "extern const char mlx5be_emu_ops[];\n"
                            "const void *probe2(void) { return mlx5be_emu_ops; }\n",
            "calls_verbs.c": "extern int ibv_fork_init(void);\n"
                             "int probe3(void) { return ibv_fork_init(); }\n",
        }
        objs = {}
        for name, text in probes.items():
            src = os.path.join(tmp, name)
            with open(src, "w") as f:
                f.write(text)
            objs[name] = src[:-2] + ".o"
            subprocess.run([cc, "-c", src, "-o", objs[name]], check=True)
        for name, comp, want in (("calls_emu.c", core, "emu_devices_count"),
                                 ("names_impl.c", verbs, "only mlx5emu_backend"),
                                 ("calls_verbs.c", HW_COMPONENT,
                                  "through dlvsym() only")):
            bad = {c: dict(v) for c, v in manifest.items()}
            bad[comp]["objects"] = manifest[comp]["objects"] + [objs[name]]
            expect(name, check_symbols(rules, bad)[0], want)

    cyclic = Rules.parse("a x b\nb y @a\n")
    expect("a cycle in the rules", cyclic.problems(), "cycle")
    return fails


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    cc = "cc"
    if "--cc" in sys.argv:
        cc = sys.argv[sys.argv.index("--cc") + 1]
        args.remove(cc)
    rules_path, manifest_path, srcdir = args[:3]
    with open(rules_path) as f:
        rules = Rules.parse(f.read())
    manifest = read_manifest(manifest_path)
    if "--self-test" in sys.argv:
        fails = self_test(rules, manifest, srcdir, cc)
        for f in fails:
            print(f)
        print("self-test: %d failure(s)" % len(fails))
        return 1 if fails else 0
    problems, edges = check_all(rules, manifest, srcdir)
    for p in problems:
        print(p)
    print("%d component(s), %d dependency edge(s) from symbols, %d violation(s)"
          % (len(rules.rows), len(edges), len(problems)))
    for a, b in sorted(edges):
        print("  %s -> %s" % (a, b))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
