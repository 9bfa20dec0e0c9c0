/* SPDX-License-Identifier: MIT */
/* Helpers shared by the backend suites (tests/unit/backend). */
#ifndef MLX5EMU_TESTS_UNIT_BACKEND_BT_UTIL_H
#define MLX5EMU_TESTS_UNIT_BACKEND_BT_UTIL_H

/* stderr goes to a file from here (one per test process) ... */
void bt_capture_stderr(void);
/* ... what was written there so far (malloc'ed) ... */
char *bt_captured(void);
/* ... and back to where it was. */
void bt_release_stderr(void);

/* A file's content, NUL-terminated (malloc'ed; at most 1 MiB). */
char *bt_slurp(const char *path);

#endif
