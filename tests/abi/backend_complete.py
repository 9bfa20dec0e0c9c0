#!/usr/bin/env python3
"""Every op of struct mlx5be_ops must be served by both backends.

The emu table (emu/kernel/kern_backend.c) must fill every slot, with an
implementation or an explicit EOPNOTSUPP; the hw backend maps each
entry to an rdma-core call, so an op added to backend/backend.h
without a mapping on either side fails here.  An op whose comment in
backend.h says it is "optional by contract" may be left NULL by a backend
(the hw table says so explicitly, with the reason).
"""
import re
import sys

src = sys.argv[1]
header = open(src + "/backend/backend.h").read()
body = re.search(r"struct mlx5be_ops \{(.*?)\n\};", header, re.S).group(1)
# Each op with the text since the previous declaration (its comment).
ops, optional = [], set()
for m in re.finditer(r"([^;{]*?)\(\*(\w+)\)\(", body):
    ops.append(m.group(2))
    if "optional by contract" in m.group(1).lower():
        optional.add(m.group(2))

tables = {
    "hw": ("/backend/hw/hw_ops.c", "mlx5be_hw_ops", r"hw_\w+"),
    "emu": ("/emu/kernel/kern_backend.c", "mlx5be_emu_ops", r"kern_\w+"),
}
failed = False
for name, (path, table, impl) in tables.items():
    text = open(src + path).read()
    init = re.search(r"const struct mlx5be_ops %s = \{(.*?)\n\};" % table,
                     text, re.S).group(1)
    served = set(re.findall(r"\.(\w+) = %s" % impl, init))
    unknown = served - set(ops)
    missing = [op for op in ops if op not in served and op not in optional]
    if len(ops) < 20 or missing or unknown:
        print("%s backend misses %s, fills unknown %s (of %d ops)" %
              (name, missing, sorted(unknown), len(ops)))
        failed = True
    else:
        print("%s backend serves all %d backend ops (%d optional)" %
              (name, len(ops), len(optional)))
sys.exit(1 if failed else 0)
