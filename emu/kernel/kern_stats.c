/* SPDX-License-Identifier: MIT */
/*
 * emu/kernel/kern_stats.c -- the wire's counters as JSON lines in the file
 * wire.stats names ("-": stderr): each QP's when it leaves the engine,
 * every port's (and the QPs still open) at exit, as a driver's counters
 * outlive the objects they count in its logs.
 */
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/device/dev.h"
#include "emu/device/dev_identity.h"
#include "emu/engine/eng.h"
#include "emu/kernel/kern.h"
#include "emu/wire/wire.h"
#include "prm/prm_cmd.h"

static pthread_mutex_t kern_stats_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *kern_stats_file;

static void kern_stats_line(json_object *o)
{
	pthread_mutex_lock(&kern_stats_lock);
	if (kern_stats_file) {
		fprintf(kern_stats_file, "%s\n",
			json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		fflush(kern_stats_file);
	}
	pthread_mutex_unlock(&kern_stats_lock);
	json_object_put(o);
}

static json_object *kern_stats_head(const char *what, int dev)
{
	const struct emu_dev_identity *id = emu_device_identity(dev);
	json_object *o = json_object_new_object();

	json_object_object_add(o, "stats", json_object_new_string(what));
	json_object_object_add(o, "dev", id ? json_object_new_string(id->name) :
				 json_object_new_int(dev));
	return o;
}

static void kern_stats_u64(json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static void kern_stats_qp(void *arg, int dev, const struct emu_eng_qp_stats *s)
{
	static const char *const st[] = {
		[MLX5_QPC_ST_RC] = "RC", [MLX5_QPC_ST_UC] = "UC",
		[MLX5_QPC_ST_UD] = "UD", [MLX5_QPC_ST_XRC] = "XRC",
		[MLX5_QPC_ST_DCI] = "DCI", [MLX5_QPC_ST_QP0] = "QP0",
		[MLX5_QPC_ST_QP1] = "QP1",
	};
	json_object *o = kern_stats_head("qp", dev);

	(void)arg;
	kern_stats_u64(o, "qpn", s->qpn);
	json_object_object_add(o, "type", json_object_new_string(
		s->st < sizeof(st) / sizeof(st[0]) && st[s->st] ?
		st[s->st] : "other"));
	kern_stats_u64(o, "tx_pkts", s->tx_pkts);
	kern_stats_u64(o, "rx_pkts", s->rx_pkts);
	kern_stats_u64(o, "retransmits", s->retransmits);
	kern_stats_u64(o, "naks_sent", s->naks_sent);
	kern_stats_u64(o, "naks_rcvd", s->naks_rcvd);
	kern_stats_u64(o, "rnr_naks_rcvd", s->rnr_naks_rcvd);
	kern_stats_u64(o, "duplicates", s->duplicates);
	kern_stats_u64(o, "dropped", s->dropped);
	kern_stats_u64(o, "timeouts", s->timeouts);
	kern_stats_line(o);
}

static void kern_stats_port(void *arg, int dev, unsigned int port,
			    const struct emu_wire_port_stats *s)
{
	json_object *o = kern_stats_head("port", dev);
	json_object *d = json_object_new_object();

	(void)arg;
	kern_stats_u64(o, "port", port);
	kern_stats_u64(o, "tx_frames", s->tx_frames);
	kern_stats_u64(o, "tx_bytes", s->tx_bytes);
	kern_stats_u64(o, "rx_frames", s->rx_frames);
	kern_stats_u64(o, "rx_bytes", s->rx_bytes);
	kern_stats_u64(o, "faults", s->faults);
	kern_stats_u64(o, "learned", s->learned);
	kern_stats_u64(o, "fast_tx_frames", s->link.fast_tx);
	kern_stats_u64(o, "fast_rx_frames", s->link.fast_rx);
	for (int i = EMU_WIRE_DROP_NONE + 1; i < EMU_WIRE_DROP_NUM; i++)
		if (s->drops[i])
			kern_stats_u64(d, emu_wire_drop_name(i), s->drops[i]);
	json_object_object_add(o, "drops", d);
	kern_stats_line(o);
}

static const struct emu_eng_stats_sink kern_stats_sink = {
	.qp = kern_stats_qp,
	.port = kern_stats_port,
};

static void kern_stats_atexit(void)
{
	emu_eng_stats_flush();
	emu_eng_set_stats_sink(NULL);
	pthread_mutex_lock(&kern_stats_lock);
	if (kern_stats_file && kern_stats_file != stderr)
		fclose(kern_stats_file);
	kern_stats_file = NULL;
	pthread_mutex_unlock(&kern_stats_lock);
}

static void kern_stats_open(void)
{
	const struct emu_config *cfg = emu_devices_config();

	if (!cfg || !cfg->wire_stats[0])
		return;
	if (!strcmp(cfg->wire_stats, "-")) {
		kern_stats_file = stderr;
	} else {
		kern_stats_file = fopen(cfg->wire_stats, "ae");
		if (!kern_stats_file) {
			fprintf(stderr, "mlx5emu: wire.stats: cannot open %s: %m\n",
				cfg->wire_stats);
			return;
		}
	}
	emu_eng_set_stats_sink(&kern_stats_sink);
	atexit(kern_stats_atexit);
}

void kern_stats_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, kern_stats_open);
}
