#!/usr/bin/env python3
"""Every op of struct mlx5be_ops must be served by the hw backend (or be
explicitly NULL there, with a comment saying why hardware needs none).

The hw backend maps each backend entry to an rdma-core call, so
an op added to backend/backend.h without a hw mapping fails here.
"""
import re
import sys

src = sys.argv[1]
header = open(src + "/backend/backend.h").read()
stub = open(src + "/backend/hw/hw_ops.c").read()
body = re.search(r"struct mlx5be_ops \{(.*?)\n\};", header, re.S).group(1)
ops = re.findall(r"\(\*(\w+)\)\(", body)
table = re.search(r"const struct mlx5be_ops mlx5be_hw_ops = \{(.*?)\n\};", stub, re.S).group(1)
served = set(re.findall(r"\.(\w+) = hw_\w+", table))
# An op hardware does not need is set to NULL explicitly, with the reason.
served |= set(re.findall(r"\.(\w+) = NULL,\s*/\*", table))
missing = [op for op in ops if op not in served]
if len(ops) < 20 or missing:
    sys.exit("hw backend misses: %s (of %d ops)" % (missing, len(ops)))
print("hw backend serves all %d backend ops" % len(ops))
