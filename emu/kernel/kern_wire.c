/* SPDX-License-Identifier: MIT */
/*
 * emu/kernel/kern_wire.c -- a device's ports join the wire when it comes
 * up, as a driver brings up its netdevs: each port's tunnel endpoint (the
 * socket emu/device bound as the port's claim) becomes a UDP link (with
 * the same-host fast path over it unless wire.fast_path is off), the
 * port a VXLAN endpoint with the fabric's settings, static peers, capture
 * file and the fault rules' frame filter, handed to the engine.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "emu/device/dev.h"
#include "emu/device/dev_identity.h"
#include "emu/engine/eng.h"
#include "emu/fault/fault.h"
#include "emu/firmware/fw.h"
#include "emu/kernel/kern.h"
#include "emu/wire/wire.h"

_Static_assert(EMU_NETDEV_MTU_MAX + 14 + 4 + 4 == EMU_WIRE_FRAME_MAX,
	       "device.mtu's limit is the wire's largest frame");

static bool kern_wire_link_up(void *arg)
{
	const struct kern_wire_port *w = arg;
	bool up = true;

	return emu_fw_port_get_link(w->fw, w->port, &up) || up;
}

static void kern_wire_ep(struct emu_wire_ep *ep, uint32_t ip, uint16_t port)
{
	memset(ep, 0, sizeof(*ep));
	ep->family = AF_INET;
	ep->port = port;
	ep->addr[0] = (uint8_t)(ip >> 24);
	ep->addr[1] = (uint8_t)(ip >> 16);
	ep->addr[2] = (uint8_t)(ip >> 8);
	ep->addr[3] = (uint8_t)ip;
}

static int kern_wire_port(struct kern_dev *kdev,
			  const struct emu_dev_identity *id,
			  const struct emu_config *cfg, int p)
{
	const struct emu_port_identity *pi = &id->ports[p];
	struct emu_wire_port_cfg pc = { 0 };
	struct emu_wire_link *link;
	struct emu_wire_port *wp;
	struct emu_wire_ep local;
	char name[EMU_NAME_MAX + 8], capture[EMU_CONFIG_PATH_MAX + 96];
	int fd;

	if (pi->udp_fd < 0)
		return -EBADF;
	/* The link's own descriptor: the device keeps its claim. */
	fd = fcntl(pi->udp_fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	kern_wire_ep(&local, pi->endpoint_ipv4, pi->udp_port);
	link = emu_wire_link_udp_create(fd, &local);
	if (!link)
		return -errno;
	if (cfg->wire_fast_path) {
		/* Without it (no memfd, a name taken) UDP still works. */
		struct emu_wire_link *fast = emu_wire_link_shm_create(link);

		if (fast)
			link = fast;
	}
	kdev->wire[p].fw = kdev->fw;
	kdev->wire[p].port = pi->port_num;
	snprintf(name, sizeof(name), "%s/%u", id->name, pi->port_num);
	pc.name = name;
	pc.dev = id->index;
	pc.port = pi->port_num;
	pc.vni = cfg->wire_vni;
	memcpy(pc.mac, pi->mac, 6);
	pc.peer_udp_port = (uint16_t)cfg->wire_udp_port;
	pc.strict_l2 = cfg->wire_strict_l2;
	pc.capture_outer = cfg->wire_capture_outer;
	pc.link_up = kern_wire_link_up;
	pc.link_arg = &kdev->wire[p];
	if (cfg->wire_capture_set) {
		snprintf(capture, sizeof(capture), "%s/mlx5emu-%d-%s-p%u.pcap",
			 cfg->wire_capture, (int)getpid(), id->name,
			 pi->port_num);
		pc.capture = capture;
	}
	wp = emu_wire_port_create(&pc, link);
	if (!wp) {
		int err = errno;

		fprintf(stderr, "mlx5emu: %s: cannot bring up the wire: %s%s%s\n",
			name, strerror(err), pc.capture ? ": " : "",
			pc.capture ? pc.capture : "");
		return -err;
	}
	for (unsigned int i = 0; i < cfg->num_peers; i++) {
		const struct emu_config_peer *e = &cfg->peers[i];
		struct emu_wire_ep ep;

		kern_wire_ep(&ep, e->ip, e->port ? e->port :
				  (uint16_t)cfg->wire_udp_port);
		emu_wire_port_add_peer(wp, e->has_mac ? e->mac : NULL, &ep);
	}
	emu_fault_wire_attach(wp);
	return emu_eng_port_attach(kdev->fw, pi->port_num, wp);
}

int kern_wire_attach(struct kern_dev *kdev)
{
	const struct emu_dev_identity *id = emu_device_identity(kdev->index);
	const struct emu_config *cfg = emu_devices_config();

	if (!id || !cfg)
		return -ENODEV;
	kern_stats_init();
	for (int p = 0; p < id->num_ports && p < 2; p++) {
		int ret = kern_wire_port(kdev, id, cfg, p);

		if (ret)
			return ret;
	}
	return 0;
}
