#!/usr/bin/env python3
"""Opens mlx5_0 with mlx5dv_open_device and rdma-core 57's fd array of
the ucap nodes named on the command line (paths), as a program built
against newer headers does; prints "open ok" or "open failed: ERRNO"."""
import ctypes
import errno
import os
import sys


class FdArr(ctypes.Structure):
    _fields_ = [("arr", ctypes.POINTER(ctypes.c_int)), ("count", ctypes.c_uint32)]


class Attr57(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint32), ("comp_mask", ctypes.c_uint64),
                ("fds", ctypes.POINTER(FdArr))]


def main():
    ibv = ctypes.CDLL("libibverbs.so.1", use_errno=True)
    mlx5 = ctypes.CDLL("libmlx5.so.1", use_errno=True)
    ibv.ibv_get_device_list.restype = ctypes.POINTER(ctypes.c_void_p)
    mlx5.mlx5dv_open_device.restype = ctypes.c_void_p
    mlx5.mlx5dv_open_device.argtypes = [ctypes.c_void_p, ctypes.POINTER(Attr57)]
    n = ctypes.c_int()
    devs = ibv.ibv_get_device_list(ctypes.byref(n))
    if not devs or n.value < 1:
        print("no device")
        return 1
    fds = [os.open(p, os.O_RDONLY) for p in sys.argv[1:]]
    arr = (ctypes.c_int * max(len(fds), 1))(*fds)
    fa = FdArr(arr, len(fds))
    attr = Attr57(1, 1, ctypes.pointer(fa))  # DEVX, MASK_FD_ARRAY
    ctx = mlx5.mlx5dv_open_device(devs[0], ctypes.byref(attr))
    if not ctx:
        print("open failed: " + errno.errorcode.get(ctypes.get_errno(), "?"))
        return 1
    print("open ok")
    return 0


sys.exit(main())
