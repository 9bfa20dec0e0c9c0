/* SPDX-License-Identifier: MIT */
/*
 * emu/trace/trace.c -- the command trace's sink: the firmware's tracer slot
 * per device, one line per command, one write() per line under one lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "emu/base/base.h"
#include "emu/base/clock.h"
#include "emu/device/dev.h"
#include "emu/device/dev_config.h"
#include "emu/fault/fault.h"
#include "emu/firmware/fw.h"
#include "emu/trace/trace.h"

struct trace_dev {
	struct emu_fw_tracer tracer;
	struct emu_fw *fw;
	char name[64];
	struct trace_dev *next;
};

static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t trace_atfork_once = PTHREAD_ONCE_INIT;
static struct {
	bool configured;		/* from a configuration or by a call */
	struct emu_trace_config cfg;
	int fd;				/* ours, or -1: stderr */
	uint64_t seq;
	bool observing;			/* emu/fault's observer is ours */
} trace = { .fd = -1 };
/* Every tracer ever handed to a firmware: they live until the process ends
 * (a command may still be running when a device is detached). */
static struct trace_dev *trace_devs;
/* trace.cfg.on && trace.cfg.datapath, for engines that ask per burst */
static atomic_bool trace_dp_on;

/*
 * The fault-injection rules that fired on this thread's current command:
 * emu/fault's observer runs on the command's thread before the firmware
 * answers, the tracer on the same thread after, and takes them.
 */
#define TRACE_MAX_FAULTS 4
#define TRACE_FAULT_TEXT 240

struct trace_fault_slot {
	uint16_t opcode, op_mod, uid;
	struct emu_trace_fault f;
	char text[TRACE_FAULT_TEXT];
};

/* Faults raised by the command in progress on this thread (heap: see
 * emu/base/base_tls.c). */
struct trace_pending {
	unsigned int n;
	struct trace_fault_slot slot[TRACE_MAX_FAULTS];
};
static struct emu_tls_buf trace_pending_buf =
	EMU_TLS_BUF_INIT(sizeof(struct trace_pending));

static void trace_write(int fd, const char *p, size_t len);

/* A deterministic run (virtual clock) traces the same bytes each time:
 * no pid (and durations on the virtual clock). */
static long trace_pid(void)
{
	return emu_clock_is_virtual() ? 0 : (long)getpid();
}

/*
 * One line in the sequence: @fmt numbers and formats the record @rec
 * (seq its number) when the trace is on (and, for @datapath records, the
 * data-path trace too).  errno is kept.
 */
typedef char *(*trace_fmt_fn)(void *rec, uint64_t seq,
			      const struct emu_trace_config *cfg, size_t *len);

static void trace_emit(bool datapath, trace_fmt_fn fmt, void *rec)
{
	int saved = errno;
	char *line = NULL;
	size_t len;

	pthread_mutex_lock(&trace_lock);
	if (trace.cfg.on && (!datapath || trace.cfg.datapath)) {
		line = fmt(rec, ++trace.seq, &trace.cfg, &len);
		if (line)
			trace_write(trace.fd >= 0 ? trace.fd : STDERR_FILENO,
				    line, len);
	}
	pthread_mutex_unlock(&trace_lock);
	free(line);
	errno = saved;
}

static char *trace_fmt_event(void *rec, uint64_t seq,
			     const struct emu_trace_config *cfg, size_t *len)
{
	struct emu_trace_event *e = rec;

	e->seq = seq;
	return emu_trace_format_event(e, cfg->fmt, len);
}

/* An event a rule raised: a line of its own, at once. */
static void trace_fault_event(const struct emu_fault_event *ev)
{
	static const char *const target_keys[] = {
		[MLX5EMU_FAULT_CQ_OVERRUN] = "cqn",
		[MLX5EMU_FAULT_QP_FATAL] = "qpn",
		[MLX5EMU_FAULT_SRQ_LIMIT] = "srqn",
		[MLX5EMU_FAULT_CQE_ERROR] = "qpn",
		[MLX5EMU_FAULT_CQE_DELAY] = "qpn",
		[MLX5EMU_FAULT_DOORBELL_DROP] = "qpn",
	};
	char dev[24];
	struct emu_trace_event e = {
		.dev = dev, .pid = trace_pid(),
		.action = emu_fault_action_name(ev->action),
		.port = ev->port, .rule = ev->rule_id, .text = ev->rule_text,
		.after = ev->opcode ? emu_trace_opcode_name(ev->opcode) : NULL,
	};

	if (ev->dev >= EMU_MAX_DEVICES)
		snprintf(dev, sizeof(dev), "mana_%d", ev->dev - EMU_MAX_DEVICES);
	else
		snprintf(dev, sizeof(dev), "mlx5_%d", ev->dev);
	if (ev->action < sizeof(target_keys) / sizeof(target_keys[0]) &&
	    target_keys[ev->action]) {
		e.target_key = ev->cq_arm ? "cqn" : target_keys[ev->action];
		e.target = ev->target;
		/* a MANA device's data-path target is a work queue */
		if (ev->dev >= EMU_MAX_DEVICES && !ev->cq_arm)
			e.target_key = "wq_id";
	}
	if ((ev->action == MLX5EMU_FAULT_PORT_DOWN ||
	     ev->action == MLX5EMU_FAULT_PORT_UP) && !e.port)
		e.port = 1;
	trace_emit(false, trace_fmt_event, &e);
}

static void trace_fault_observer(void *arg, const struct emu_fault_event *ev)
{
	struct trace_pending *tp = emu_tls_buf_get(&trace_pending_buf);
	struct trace_fault_slot *s;

	if (emu_fault_is_event(ev->action) || emu_fault_is_dp(ev->action)) {
		trace_fault_event(ev);
		return;
	}
	if (!tp || tp->n >= TRACE_MAX_FAULTS)
		return;
	s = &tp->slot[tp->n++];
	s->opcode = ev->opcode;
	s->op_mod = ev->op_mod;
	s->uid = ev->uid;
	s->f.rule = ev->rule_id;
	s->f.delay = ev->action == MLX5EMU_FAULT_DELAY;
	s->f.delay_ms = ev->delay_ms;
	snprintf(s->text, sizeof(s->text), "%s", ev->rule_text ? ev->rule_text : "");
	s->f.text = s->text;
}

/* The pending rules that fired on this command (header in in), in
 * faults[]; the rest are dropped (stale: a command nobody traced). */
static unsigned int trace_take_faults(const void *in, size_t inlen,
				      struct emu_trace_fault *faults)
{
	struct trace_pending *tp = emu_tls_buf_get(&trace_pending_buf);
	unsigned int n = 0;

	if (!tp)
		return 0;
	if (inlen >= 8) {
		uint16_t opcode = (uint16_t)prm_field_read(in, 0x0, 16);
		uint16_t uid = (uint16_t)prm_field_read(in, 0x10, 16);
		uint16_t op_mod = (uint16_t)prm_field_read(in, 0x30, 16);

		for (unsigned int i = 0; i < tp->n; i++) {
			struct trace_fault_slot *s = &tp->slot[i];

			if (s->opcode == opcode && s->uid == uid &&
			    s->op_mod == op_mod)
				faults[n++] = s->f;
		}
	}
	tp->n = 0;
	return n;
}

static bool trace_to_stderr(const char *file)
{
	return !file[0] || !strcmp(file, "-");
}

/* The file name with each "%p" replaced by the pid (and "%%" by "%"). */
static int trace_expand(const char *file, char *buf, size_t len)
{
	size_t o = 0;

	for (const char *s = file; *s; s++) {
		char tmp[24];
		const char *add = tmp;

		if (s[0] == '%' && s[1] == 'p') {
			snprintf(tmp, sizeof(tmp), "%ld", (long)getpid());
			s++;
		} else if (s[0] == '%' && s[1] == '%') {
			tmp[0] = '%';
			tmp[1] = '\0';
			s++;
		} else {
			tmp[0] = *s;
			tmp[1] = '\0';
		}
		if (o + strlen(add) >= len)
			return -ENAMETOOLONG;
		strcpy(buf + o, add);
		o += strlen(add);
	}
	buf[o] = '\0';
	return 0;
}

static int trace_open(const char *file)
{
	char path[EMU_TRACE_PATH_MAX + 64];
	int fd, ret;

	ret = trace_expand(file, path, sizeof(path));
	if (ret)
		return ret;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	return fd < 0 ? -errno : fd;
}

static void trace_atfork_prepare(void)
{
	pthread_mutex_lock(&trace_lock);
}

static void trace_atfork_parent(void)
{
	pthread_mutex_unlock(&trace_lock);
}

/* A child traces to its own file when the name has a %p. */
static void trace_atfork_child(void)
{
	if (trace.fd >= 0 && strstr(trace.cfg.file, "%p")) {
		int fd = trace_open(trace.cfg.file);

		close(trace.fd);
		trace.fd = fd >= 0 ? fd : -1;
		if (fd < 0)
			trace.cfg.on = false;
		atomic_store_explicit(&trace_dp_on, trace.cfg.on && trace.cfg.datapath,
				      memory_order_relaxed);
	}
	pthread_mutex_unlock(&trace_lock);
}

static void trace_atfork_register(void)
{
	pthread_atfork(trace_atfork_prepare, trace_atfork_parent,
		       trace_atfork_child);
}

/* Caller holds trace_lock. */
static int trace_set_locked(const struct emu_trace_config *cfg)
{
	int fd = -1;

	if (cfg && cfg->on && !trace_to_stderr(cfg->file)) {
		fd = trace_open(cfg->file);
		if (fd < 0)
			return fd;
	}
	if (trace.fd >= 0)
		close(trace.fd);
	trace.fd = fd;
	if (cfg)
		trace.cfg = *cfg;
	else
		memset(&trace.cfg, 0, sizeof(trace.cfg));
	trace.configured = true;
	atomic_store_explicit(&trace_dp_on, trace.cfg.on && trace.cfg.datapath,
			      memory_order_relaxed);
	return 0;
}

int emu_trace_configure(const struct emu_trace_config *cfg)
{
	int ret;

	pthread_once(&trace_atfork_once, trace_atfork_register);
	pthread_mutex_lock(&trace_lock);
	ret = trace_set_locked(cfg);
	pthread_mutex_unlock(&trace_lock);
	return ret;
}

static void trace_write(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;		/* a trace never fails a command */
		}
		p += n;
		len -= (size_t)n;
	}
}

static char *trace_fmt_cmd(void *rec, uint64_t seq,
			   const struct emu_trace_config *cfg, size_t *len)
{
	struct emu_trace_cmd *c = rec;

	c->seq = seq;
	return emu_trace_format_cmd(c, cfg->fmt, cfg->elide, len);
}

void emu_trace_command(const char *dev, const void *in, size_t inlen,
		       const void *out, size_t outlen, int err,
		       uint64_t duration_ns, bool injected)
{
	struct emu_trace_cmd c = {
		.dev = dev, .in = in, .pid = trace_pid(),
		.inlen = inlen, .out = out, .outlen = outlen, .err = err,
		.timed = true, .duration_ns = duration_ns, .injected = injected,
	};
	struct emu_trace_fault faults[TRACE_MAX_FAULTS];
	int saved = errno;

	c.nfaults = trace_take_faults(in, inlen, faults);
	c.faults = faults;
	errno = saved;
	trace_emit(false, trace_fmt_cmd, &c);
}

static char *trace_fmt_mana_msg(void *rec, uint64_t seq,
				const struct emu_trace_config *cfg, size_t *len)
{
	struct emu_trace_mana_msg *m = rec;

	m->seq = seq;
	return emu_trace_format_mana_msg(m, cfg->fmt, cfg->elide, len);
}

void emu_trace_mana_message(const char *dev, uint32_t type, const void *req,
			    size_t req_len, const void *resp, size_t resp_len)
{
	struct emu_trace_mana_msg m = {
		.dev = dev, .pid = trace_pid(), .type = type, .req = req,
		.req_len = req_len, .resp = resp, .resp_len = resp_len,
	};

	trace_emit(false, trace_fmt_mana_msg, &m);
}

bool emu_trace_datapath(void)
{
	bool on;

	pthread_mutex_lock(&trace_lock);
	on = trace.cfg.on && trace.cfg.datapath;
	pthread_mutex_unlock(&trace_lock);
	return on;
}

bool emu_trace_datapath_on(void)
{
	return atomic_load_explicit(&trace_dp_on, memory_order_relaxed);
}

/* The data path's records: numbered, with this process's pid. */
static char *trace_fmt_wqe(void *rec, uint64_t seq,
			   const struct emu_trace_config *cfg, size_t *len)
{
	struct emu_trace_wqe *w = rec;

	w->seq = seq;
	return emu_trace_format_wqe(w, cfg->fmt, len);
}

static char *trace_fmt_cqe(void *rec, uint64_t seq,
			   const struct emu_trace_config *cfg, size_t *len)
{
	struct emu_trace_cqe *c = rec;

	c->seq = seq;
	return emu_trace_format_cqe(c, cfg->fmt, len);
}

static char *trace_fmt_mana_wqe(void *rec, uint64_t seq,
				const struct emu_trace_config *cfg, size_t *len)
{
	struct emu_trace_mana_wqe *w = rec;

	w->seq = seq;
	return emu_trace_format_mana_wqe(w, cfg->fmt, len);
}

static char *trace_fmt_mana_cqe(void *rec, uint64_t seq,
				const struct emu_trace_config *cfg, size_t *len)
{
	struct emu_trace_mana_cqe *c = rec;

	c->seq = seq;
	return emu_trace_format_mana_cqe(c, cfg->fmt, len);
}

void emu_trace_wqe(struct emu_trace_wqe *w)
{
	w->pid = trace_pid();
	trace_emit(true, trace_fmt_wqe, w);
}

void emu_trace_cqe(struct emu_trace_cqe *c)
{
	c->pid = trace_pid();
	trace_emit(true, trace_fmt_cqe, c);
}

void emu_trace_mana_wqe(struct emu_trace_mana_wqe *w)
{
	w->pid = trace_pid();
	trace_emit(true, trace_fmt_mana_wqe, w);
}

void emu_trace_mana_cqe(struct emu_trace_mana_cqe *c)
{
	c->pid = trace_pid();
	trace_emit(true, trace_fmt_mana_cqe, c);
}

static void trace_cmd(void *arg, const void *in, size_t inlen,
		      const void *out, size_t outlen, uint64_t duration_ns,
		      bool injected)
{
	const struct trace_dev *td = arg;

	emu_trace_command(td->name, in, inlen, out, outlen, 0, duration_ns,
			  injected);
}

bool emu_trace_enabled(void)
{
	bool on;

	pthread_mutex_lock(&trace_lock);
	on = trace.cfg.on;
	pthread_mutex_unlock(&trace_lock);
	return on;
}

/*
 * The trace settings of the devices' configuration, or, before any device
 * exists (commands of the hw backend), of the configuration as loaded now.
 */
static void trace_config_current(struct emu_trace_config *cfg)
{
	const struct emu_config *cur = emu_devices_config();
	struct emu_config_error err;
	struct emu_config *tmp = NULL;

	if (!cur) {
		tmp = malloc(sizeof(*tmp));
		if (tmp && !emu_config_load(tmp, &err))
			cur = tmp;
	}
	emu_trace_config_from(cur, cfg);
	free(tmp);
}

/*
 * The configuration, the first time (unless emu_trace_configure() gave
 * one), and emu/fault's observer when the trace is on.  Called with
 * trace_lock held; releases it.  Whether the trace is on; *ret gets the
 * error of opening the file.
 */
static bool trace_start_unlock(int *ret)
{
	struct emu_trace_config cfg;
	bool observe, on;

	*ret = 0;
	if (!trace.configured) {
		trace_config_current(&cfg);
		*ret = trace_set_locked(&cfg);
		if (*ret) {
			fprintf(stderr,
				"mlx5emu: trace file \"%s\" (trace.mode/trace.file, MLX5EMU_TRACE/MLX5EMU_TRACE_FILE): cannot open: %s; no command trace\n",
				cfg.file, strerror(-*ret));
			trace_set_locked(NULL);
		}
	}
	on = trace.cfg.on;
	/* Which rule fired, for the lines; emu/fault's lock is taken after
	 * ours is released (never inside it: fork handlers take both). */
	observe = on && !trace.observing;
	if (observe)
		trace.observing = true;
	pthread_mutex_unlock(&trace_lock);
	if (observe)
		emu_fault_set_observer(trace_fault_observer, NULL);
	return on;
}

int emu_trace_start(void)
{
	int ret;

	pthread_once(&trace_atfork_once, trace_atfork_register);
	pthread_mutex_lock(&trace_lock);
	trace_start_unlock(&ret);
	return ret;
}

int emu_trace_attach(struct emu_fw *fw, const char *dev)
{
	struct trace_dev *td;
	int ret;

	if (!fw || !dev)
		return -EINVAL;
	pthread_once(&trace_atfork_once, trace_atfork_register);
	pthread_mutex_lock(&trace_lock);
	if (!trace_start_unlock(&ret))
		return ret;
	td = calloc(1, sizeof(*td));
	if (!td)
		return -ENOMEM;
	td->tracer.cmd = trace_cmd;
	td->tracer.arg = td;
	td->fw = fw;
	snprintf(td->name, sizeof(td->name), "%s", dev);
	pthread_mutex_lock(&trace_lock);
	td->next = trace_devs;
	trace_devs = td;
	pthread_mutex_unlock(&trace_lock);
	emu_fw_set_tracer(fw, &td->tracer);
	return 0;
}

void emu_trace_detach(struct emu_fw *fw)
{
	if (!fw)
		return;
	emu_fw_set_tracer(fw, NULL);
	pthread_mutex_lock(&trace_lock);
	for (struct trace_dev *td = trace_devs; td; td = td->next)
		if (td->fw == fw)
			td->fw = NULL;
	pthread_mutex_unlock(&trace_lock);
}
