/* SPDX-License-Identifier: MIT */
/*
 * The double's setup and its call record.
 *
 * The emulator inside plays a NIC's firmware: the process's fault rules
 * and trace are the hw backend's business (it runs them above the
 * backend), so the emulator inside never installs them.  HWDOUBLE_TRACE
 * (a trace.mode value) traces its firmware separately, for a look at what
 * a device received; HWDOUBLE_FAULTS (rules of the event kinds) makes the
 * device inside raise what a NIC raises on its own: a link going down, a
 * fatal error.
 *
 * HWDOUBLE_LOG=FILE appends one JSON line per call (hwd.h says which
 * members), each written with one write() so processes may share a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu/device/dev_config.h"
#include "emu/fault/fault.h"
#include "emu/trace/trace.h"
#include "hwd.h"

static pthread_once_t hwd_once = PTHREAD_ONCE_INIT;
static int hwd_log_fd = -1;

static void hwd_setup(void)
{
	struct emu_trace_config tc = { .fmt = EMU_TRACE_TEXT, .elide = true };
	const char *trace = getenv("HWDOUBLE_TRACE");
	const char *log = getenv("HWDOUBLE_LOG");
	const char *faults = getenv("HWDOUBLE_FAULTS");
	struct emu_config *cfg = malloc(sizeof(*cfg));
	char why[EMU_FAULT_ERR_MAX];

	if (trace && emu_trace_parse(trace, &tc, why, sizeof(why)))
		fprintf(stderr, "hwdouble: HWDOUBLE_TRACE: %s\n", why);
	if (!trace)
		tc.on = false;
	emu_trace_configure(&tc);
	if (cfg) {
		emu_config_defaults(cfg);	/* no rule, ever */
		emu_fault_load_config(cfg, why, sizeof(why));
		free(cfg);
	}
	if (faults && emu_fault_add_text(faults, why, sizeof(why)) < 0)
		fprintf(stderr, "hwdouble: HWDOUBLE_FAULTS: %s\n", why);
	if (log && *log)
		hwd_log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
				  0644);
}

void hwd_init(void)
{
	pthread_once(&hwd_once, hwd_setup);
}

void hwd_log(const char *call, const struct hwd_ctx *ctx, int ret,
	     const void *in, size_t inlen, const void *out, size_t outlen,
	     const char *extra)
{
	struct emu_trace_cmd c = {
		.dev = ctx ? ctx->dev->ibdev.name : NULL,
		.in = in, .inlen = inlen, .out = out, .outlen = outlen,
	};
	char *cmd = NULL, *line = NULL;
	int saved = errno, n;

	if (hwd_log_fd < 0)
		return;
	if (in) {
		size_t len;

		cmd = emu_trace_format_cmd(&c, EMU_TRACE_JSON, false, &len);
		if (cmd && len && cmd[len - 1] == '\n')
			cmd[len - 1] = '\0';
	}
	n = asprintf(&line, "{\"call\":\"%s\",\"dev\":%s%s%s%s,\"ret\":%d%s%s}\n",
		     call, ctx ? "\"" : "", ctx ? ctx->dev->ibdev.name : "null",
		     ctx ? "\"" : "", extra, ret, cmd ? ",\"cmd\":" : "",
		     cmd ? cmd : "");
	if (n > 0 && write(hwd_log_fd, line, (size_t)n) != n)
		fprintf(stderr, "hwdouble: HWDOUBLE_LOG: short write\n");
	free(line);
	free(cmd);
	errno = saved;
}
