/* SPDX-License-Identifier: MIT */
/*
 * emu/trace/trace.h -- the command trace: every PRM command a device's
 * firmware answers, decoded by field name (trace_fmt.h), one line per
 * command, to stderr or a file.
 *
 * Switched on by the settings trace.mode (MLX5EMU_TRACE=off|text|json, with
 * an optional ":FILE"), trace.file (MLX5EMU_TRACE_FILE) and
 * trace.elide_defaults (MLX5EMU_TRACE_ELIDE), read with the rest of the
 * configuration when the first device comes up (docs/trace.md).  Off, it
 * costs nothing: no tracer is installed in the firmware.
 *
 * Lines: each is formatted and written with one write() under a process
 * lock, so lines of concurrent commands never interleave; with a file, it is
 * opened O_APPEND, so processes sharing it append whole lines (a "%p" in the
 * name becomes the pid, for a file per process).  seq numbers the commands
 * of a process from 1 in the order their lines are written.
 */
#ifndef MLX5EMU_EMU_TRACE_TRACE_H
#define MLX5EMU_EMU_TRACE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/trace/trace_fmt.h"

struct emu_fw;
struct emu_config;

#define EMU_TRACE_PATH_MAX 4096

struct emu_trace_config {
	bool on;
	bool datapath;			/* WQE and CQE records too */
	enum emu_trace_format fmt;	/* EMU_TRACE_TEXT or EMU_TRACE_JSON */
	bool elide;			/* TEXT: leave out fields that are 0 */
	char file[EMU_TRACE_PATH_MAX];	/* "" or "-": stderr */
};

/*
 * Parses a trace.mode value, "off", "text" or "json", optionally followed by
 * ":FILE" (also "0"/"1": off/text), into cfg (on, fmt, and file when one is
 * given; elide untouched).  0, or -EINVAL with the reason in why.
 */
int emu_trace_parse(const char *spec, struct emu_trace_config *cfg,
		    char *why, size_t whylen);

/* The trace configuration a device configuration asks for. */
void emu_trace_config_from(const struct emu_config *ec,
			   struct emu_trace_config *cfg);

/*
 * Sets the process's trace (NULL: off), replacing what a configuration
 * gave; emu_trace_attach() then uses it.  Opens the file (-errno if it
 * cannot, with the previous trace kept).  For tests and tools.
 */
int emu_trace_configure(const struct emu_trace_config *cfg);

/*
 * Traces fw's commands as device dev ("mlx5_0") when the trace is on: the
 * first call in a process takes the configuration from emu_devices_config()
 * unless emu_trace_configure() set one.  0, or -errno when the trace file
 * cannot be opened (a message naming the setting is printed; no trace).
 * The device's tracer lives until the process ends.
 */
int emu_trace_attach(struct emu_fw *fw, const char *dev);

/* Stops tracing fw (before emu_fw_destroy in tests). */
void emu_trace_detach(struct emu_fw *fw);

/*
 * For commands that reach no emulated firmware (the hw backend's, through
 * backend/filter): the configuration, once, as emu_trace_attach() takes it
 * (0, or -errno when the trace file cannot be opened), whether the trace
 * is on, and one command's line as device @dev.  @out NULL: the call gave
 * no outbox but failed with errno @err.
 */
int emu_trace_start(void);
bool emu_trace_enabled(void);
void emu_trace_command(const char *dev, const void *in, size_t inlen,
		       const void *out, size_t outlen, int err,
		       uint64_t duration_ns, bool injected);

/* A MANA device's control message (emu/mana/fw), one line in the same
 * sequence, when the trace is on. */
void emu_trace_mana_message(const char *dev, uint32_t type, const void *req,
			    size_t req_len, const void *resp, size_t resp_len);

/*
 * The data path's records (trace.datapath, MLX5EMU_TRACE_DATAPATH): whether
 * they are wanted (the trace on and the setting), and one line each, in
 * the sequence of the command lines.
 */
bool emu_trace_datapath(void);
void emu_trace_wqe(struct emu_trace_wqe *w);
void emu_trace_cqe(struct emu_trace_cqe *c);
/* The same answer as emu_trace_datapath() once the configuration was read
 * (emu_trace_start), as one relaxed load: for an engine that asks per
 * burst.  And a MANA device's records. */
bool emu_trace_datapath_on(void);
void emu_trace_mana_wqe(struct emu_trace_mana_wqe *w);
void emu_trace_mana_cqe(struct emu_trace_mana_cqe *c);

#endif /* MLX5EMU_EMU_TRACE_TRACE_H */
