/* SPDX-License-Identifier: MIT */
/* A library with nothing in it, for tests/hwdouble's HWDOUBLE_DLOPEN. */
int hwd_probe_marker;
