/* SPDX-License-Identifier: MIT */
/* emu/device/dev_wire.c -- a device's port on the wire (dev_wire.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "emu/device/dev_wire.h"

_Static_assert(EMU_NETDEV_MTU_MAX + 14 + 4 + 4 == EMU_WIRE_FRAME_MAX,
	       "device.mtu's limit is the wire's largest frame");

static void dev_wire_ep(struct emu_wire_ep *ep, uint32_t ip, uint16_t port)
{
	memset(ep, 0, sizeof(*ep));
	ep->family = AF_INET;
	ep->port = port;
	ep->addr[0] = (uint8_t)(ip >> 24);
	ep->addr[1] = (uint8_t)(ip >> 16);
	ep->addr[2] = (uint8_t)(ip >> 8);
	ep->addr[3] = (uint8_t)ip;
}

struct emu_wire_port *emu_dev_wire_port(const struct emu_dev_identity *id,
					int p, const struct emu_config *cfg,
					bool fast, bool (*link_up)(void *arg),
					void *arg)
{
	const struct emu_port_identity *pi = &id->ports[p];
	struct emu_wire_port_cfg pc = { 0 };
	struct emu_wire_link *link;
	struct emu_wire_port *wp;
	struct emu_wire_ep local;
	char name[EMU_NAME_MAX + 8], capture[EMU_CONFIG_PATH_MAX + 96];
	int fd, err;

	if (pi->udp_fd < 0) {
		errno = EBADF;
		return NULL;
	}
	/* The link's own descriptor: the device keeps its claim. */
	fd = fcntl(pi->udp_fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return NULL;
	dev_wire_ep(&local, pi->endpoint_ipv4, pi->udp_port);
	link = emu_wire_link_udp_create(fd, &local);
	if (!link)
		return NULL;
	if (fast && cfg->wire_fast_path) {
		/* Without it (no memfd, a name taken) UDP still works. */
		struct emu_wire_link *shm = emu_wire_link_shm_create(link);

		if (shm)
			link = shm;
	}
	snprintf(name, sizeof(name), "%s/%u", id->name, pi->port_num);
	pc.name = name;
	/* the device as fault rules name it: mlx5_N is N, mana_N comes
	 * after every mlx5 index (MLX5EMU_FAULT_DEV_MANA + N) */
	pc.dev = id->pci_vendor == EMU_PCI_VENDOR_MICROSOFT ?
		 EMU_MAX_DEVICES + atoi(id->name + strlen("mana_")) : id->index;
	pc.port = pi->port_num;
	pc.vni = cfg->wire_vni;
	memcpy(pc.mac, pi->mac, 6);
	pc.peer_udp_port = (uint16_t)cfg->wire_udp_port;
	pc.strict_l2 = cfg->wire_strict_l2;
	pc.capture_outer = cfg->wire_capture_outer;
	pc.link_up = link_up;
	pc.link_arg = arg;
	if (cfg->wire_capture_set) {
		snprintf(capture, sizeof(capture), "%s/mlx5emu-%d-%s-p%u.pcap",
			 cfg->wire_capture, (int)getpid(), id->name,
			 pi->port_num);
		pc.capture = capture;
	}
	wp = emu_wire_port_create(&pc, link);
	if (!wp) {
		err = errno;
		fprintf(stderr, "mlx5emu: %s: cannot bring up the wire: %s%s%s\n",
			name, strerror(err), pc.capture ? ": " : "",
			pc.capture ? pc.capture : "");
		errno = err;
		return NULL;
	}
	for (unsigned int i = 0; i < cfg->num_peers; i++) {
		const struct emu_config_peer *e = &cfg->peers[i];
		struct emu_wire_ep ep;

		dev_wire_ep(&ep, e->ip, e->port ? e->port :
				 (uint16_t)cfg->wire_udp_port);
		emu_wire_port_add_peer(wp, e->has_mac ? e->mac : NULL, &ep);
	}
	return wp;
}
