/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev.c -- bringing up and tearing down this process's devices.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu/device/dev.h"
#include "emu/device/dev_addr.h"
#include "emu/device/dev_sysfs.h"

/* One generation of devices: a process's, or its parent's after fork(). */
struct emu_devices {
	pid_t owner;
	struct emu_config cfg;
	struct emu_sysfs_tree tree;
	struct emu_devices *retired_next;
	int count;			/* mlx5 devices: dev[0, count) */
	int mana_count;			/* MANA devices, after them */
	int built;			/* identities with sockets so far */
	struct emu_dev_identity dev[];
};

static pthread_mutex_t devices_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(struct emu_devices *) current;
/* Generations no longer current; kept so handed-out pointers stay valid. */
static struct emu_devices *retired;
static bool hooks_registered;
static char last_error[600];

static struct emu_devices *current_of_this_process(void)
{
	struct emu_devices *cur =
		atomic_load_explicit(&current, memory_order_acquire);

	return cur && cur->owner == getpid() ? cur : NULL;
}

static void close_sockets(struct emu_devices *g)
{
	for (int d = 0; d < g->built; d++)
		for (int p = 0; p < g->dev[d].num_ports; p++) {
			struct emu_port_identity *port = &g->dev[d].ports[p];

			if (port->udp_fd >= 0)
				close(port->udp_fd);
			port->udp_fd = -1;
		}
}

/* Caller holds devices_lock. */
static void retire(struct emu_devices *g)
{
	close_sockets(g);
	emu_sysfs_remove(&g->tree);	/* removes only in the owner */
	g->retired_next = retired;
	retired = g;
}

static void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void report(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	fprintf(stderr, "mlx5emu: %s\n", last_error);
}

static void warn_unknown_env(void)
{
	char names[256], known[256] = "";
	size_t n;
	const struct emu_setting *s = emu_config_settings(&n);

	if (!emu_config_unknown_env(names, sizeof(names)))
		return;
	for (size_t i = 0; i < n; i++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known),
			 "%s%s", i ? ", " : "", s[i].env);
	fprintf(stderr,
		"mlx5emu: warning: ignoring unknown setting(s) in the environment: %s (known: %s)\n",
		names, known);
}

static int bring_up(struct emu_devices **out)
{
	struct emu_config_error cerr;
	struct emu_config cfg;
	struct emu_devices *g;
	char why[512], dir[EMU_CONFIG_PATH_MAX];
	unsigned int total;
	uint32_t ip;
	int ret;

	ret = emu_config_load(&cfg, &cerr);
	if (ret) {
		report("configuration error: %s", cerr.msg);
		return ret;
	}
	warn_unknown_env();

	total = cfg.num_devices + cfg.num_mana_devices;
	g = calloc(1, sizeof(*g) + total * sizeof(g->dev[0]));
	if (!g) {
		report("out of memory for %u devices", total);
		return -ENOMEM;
	}
	g->owner = getpid();
	g->cfg = cfg;
	g->tree.lock_fd = -1;
	if (!total)
		goto done;	/* an empty device list: no sockets, no tree */

	/*
	 * Addresses first: one per port, consecutive free candidates.  The
	 * claim is the port's tunnel endpoint, a UDP socket on wire.udp_port:
	 * on its own address by default (inner and outer addresses coincide),
	 * or on wire.endpoint and the UDP ports after it when that is set (the
	 * inner addresses are then not bound: they may be another host's).
	 * A deterministic run takes its candidates from the seed, not the pid.
	 */
	if (cfg.ip_base_set)
		ip = cfg.ip_base;
	else if (cfg.engine_mode == EMU_ENGINE_DETERMINISTIC)
		ip = emu_addr_seed_candidate(cfg.engine_seed);
	else
		ip = emu_addr_pid_candidate(getpid());
	for (unsigned int d = 0; d < total; d++) {
		bool mana = d >= cfg.num_devices;
		uint32_t ips[EMU_MAX_PORTS], eps[EMU_MAX_PORTS];
		uint16_t eports[EMU_MAX_PORTS];
		int fds[EMU_MAX_PORTS];

		for (unsigned int p = 0; p < cfg.num_ports; p++) {
			unsigned int k = d * cfg.num_ports + p;

			if (cfg.wire_endpoint_set) {
				eps[p] = cfg.wire_endpoint;
				eports[p] = (uint16_t)((cfg.wire_endpoint_port ?
					cfg.wire_endpoint_port :
					cfg.wire_udp_port) + k);
				fds[p] = emu_addr_bind(&eps[p], eports[p], 1, why,
						       sizeof(why));
				ips[p] = ip;
			} else {
				eports[p] = (uint16_t)cfg.wire_udp_port;
				fds[p] = emu_addr_bind(&ip, eports[p],
						       EMU_ADDR_MAX_TRIES, why,
						       sizeof(why));
				ips[p] = eps[p] = ip;
			}
			if (fds[p] < 0) {
				ret = fds[p];
				report("cannot take an address for %s_%u port %u: %s",
				       mana ? "mana" : "mlx5",
				       mana ? d - cfg.num_devices : d, p + 1, why);
				while (p--)
					close(fds[p]);
				goto fail;
			}
			ip = emu_addr_next(ip);
		}
		if (mana)
			emu_identity_build_mana(&g->dev[d],
						(int)(d - cfg.num_devices), (int)d,
						(int)cfg.num_ports, ips);
		else
			emu_identity_build(&g->dev[d], (int)d,
					   (int)cfg.num_ports, ips);
		for (unsigned int p = 0; p < cfg.num_ports; p++) {
			g->dev[d].ports[p].udp_fd = fds[p];
			g->dev[d].ports[p].endpoint_ipv4 = eps[p];
			g->dev[d].ports[p].udp_port = eports[p];
			g->dev[d].ports[p].netdev_mtu = cfg.mtu;
		}
		g->built = (int)d + 1;
	}

	if (cfg.sysfs_dir_set)
		snprintf(dir, sizeof(dir), "%s", cfg.sysfs_dir);
	else
		emu_sysfs_default_dir(dir, sizeof(dir));
	emu_sysfs_clean_stale(dir);
	ret = emu_sysfs_create(&g->tree, dir, why, sizeof(why));
	if (ret) {
		report("%s", why);
		goto fail;
	}
	for (int d = 0; d < g->built; d++) {
		ret = emu_sysfs_add_device(&g->tree, &g->dev[d], why,
					   sizeof(why));
		if (ret) {
			report("%s", why);
			goto fail;
		}
	}
done:
	g->count = (int)cfg.num_devices;
	g->mana_count = (int)cfg.num_mana_devices;
	g->built = (int)total;
	*out = g;
	return 0;
fail:
	close_sockets(g);
	emu_sysfs_remove(&g->tree);
	free(g);
	return ret;
}

static void atfork_prepare(void)
{
	pthread_mutex_lock(&devices_lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&devices_lock);
}

/* In the child: the parent's sockets and tree lock are not ours. */
static void atfork_child(void)
{
	struct emu_devices *cur =
		atomic_load_explicit(&current, memory_order_relaxed);

	if (cur) {
		close_sockets(cur);
		if (cur->tree.lock_fd >= 0)
			close(cur->tree.lock_fd);
		cur->tree.lock_fd = -1;
	}
	pthread_mutex_unlock(&devices_lock);
}

static void at_exit(void)
{
	emu_devices_fini();
}

int emu_devices_init(void)
{
	struct emu_devices *cur, *g = NULL;
	int ret;

	if (current_of_this_process())
		return 0;
	pthread_mutex_lock(&devices_lock);
	cur = atomic_load_explicit(&current, memory_order_relaxed);
	if (cur && cur->owner == getpid()) {
		pthread_mutex_unlock(&devices_lock);
		return 0;
	}
	if (cur) {		/* inherited across fork(): stale */
		atomic_store_explicit(&current, NULL, memory_order_release);
		retire(cur);
	}
	if (!hooks_registered) {
		pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
		atexit(at_exit);
		hooks_registered = true;
	}
	ret = bring_up(&g);
	if (!ret) {
		last_error[0] = '\0';
		atomic_store_explicit(&current, g, memory_order_release);
	}
	pthread_mutex_unlock(&devices_lock);
	return ret;
}

int emu_devices_count(void)
{
	struct emu_devices *cur = current_of_this_process();

	return cur ? cur->count : 0;
}

const struct emu_dev_identity *emu_device_identity(int idx)
{
	struct emu_devices *cur = current_of_this_process();

	if (!cur || idx < 0 || idx >= cur->count)
		return NULL;
	return &cur->dev[idx];
}

int emu_mana_devices_count(void)
{
	struct emu_devices *cur = current_of_this_process();

	return cur ? cur->mana_count : 0;
}

const struct emu_dev_identity *emu_mana_device_identity(int idx)
{
	struct emu_devices *cur = current_of_this_process();

	if (!cur || idx < 0 || idx >= cur->mana_count)
		return NULL;
	return &cur->dev[cur->count + idx];
}

void emu_devices_fini(void)
{
	struct emu_devices *cur;

	pthread_mutex_lock(&devices_lock);
	cur = atomic_load_explicit(&current, memory_order_relaxed);
	if (cur) {
		atomic_store_explicit(&current, NULL, memory_order_release);
		retire(cur);
	}
	pthread_mutex_unlock(&devices_lock);
}

const char *emu_devices_sysfs_root(void)
{
	struct emu_devices *cur = current_of_this_process();

	return cur && cur->tree.root[0] ? cur->tree.root : NULL;
}

const struct emu_config *emu_devices_config(void)
{
	struct emu_devices *cur = current_of_this_process();

	return cur ? &cur->cfg : NULL;
}

const char *emu_devices_error(void)
{
	return last_error;
}
