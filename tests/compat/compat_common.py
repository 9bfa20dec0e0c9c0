"""Helpers shared by the tests/compat scripts (stdlib only, Python >= 3.7).

Every script takes --dropin DIR (default: $MLX5EMU_DROPIN_DIR, else
<source>/build/lib) and refuses to run, with a clear message, when the
drop-in directory lacks one of our libraries.
"""
import os
import subprocess
import sys

SHELLS = ("libibverbs.so.1", "libmlx5.so.1", "libmana.so.1", "libefa.so.1")
CORE = "libmlx5emu_core.so.0"
DROPIN_LIBS = SHELLS + (CORE,)

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))


def default_dropin():
    return os.environ.get("MLX5EMU_DROPIN_DIR") or os.path.join(SOURCE_DIR, "build", "lib")


def add_dropin_arg(parser):
    parser.add_argument("--dropin", default=default_dropin(), metavar="DIR",
                        help="the drop-in library directory, <build>/lib "
                             "(default: $MLX5EMU_DROPIN_DIR or %(default)s)")


def check_dropin(dropin, tag):
    """Exit 1 unless every library of ours is in the drop-in directory."""
    missing = [lib for lib in DROPIN_LIBS if not os.path.isfile(os.path.join(dropin, lib))]
    if missing:
        die(tag, "drop-in directory %s lacks %s (build the targets mlx5emu_core "
                 "shell_ibverbs shell_mlx5 shell_mana shell_efa first)"
            % (dropin, ", ".join(missing)))
    return os.path.realpath(dropin)


def dropin_env(dropin, base=None):
    env = dict(os.environ if base is None else base)
    old = env.get("LD_LIBRARY_PATH")
    env["LD_LIBRARY_PATH"] = dropin + (":" + old if old else "")
    return env


def multiarch():
    for cmd in (["dpkg-architecture", "-qDEB_HOST_MULTIARCH"], ["gcc", "-print-multiarch"]):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
        except OSError:
            continue
        if out:
            return out
    return "x86_64-linux-gnu"


def system_libdir():
    return "/usr/lib/" + multiarch()


def die(tag, msg):
    print("%s: FAIL: %s" % (tag, msg), flush=True)
    sys.exit(1)
