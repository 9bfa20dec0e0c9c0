/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_fabric.c -- where a packet goes.
 *
 * Every port of every device that joined the engine is reachable by its
 * GIDs (the RoCE address table the kernel layer programs): a packet is
 * delivered to the device and port owning its destination GID, then to
 * the destination QP by number.  Devices in one process, and contexts on
 * one device, reach each other directly: the responder runs on the
 * sender's thread, under the run lock, and its answer comes straight back.
 * A destination GID no device here owns is where the wire (a later part)
 * plugs in; until then such a packet is lost, as on a cable to nowhere.
 * MACs are not checked in process (DEVX users may leave rmac zero when the
 * port has no netdev).  A port whose link is down neither sends nor
 * receives, and a device stopped by a fatal error receives nothing: such
 * packets are lost, and reliable requesters find out by their retries.
 */
#include <string.h>

#include "emu/engine/eng_int.h"

/* A source GID entry of @dev's port (lookups take the port's lock; the
 * results are cached per QP generation). */
static void eng_fabric_gid(struct emu_fw *fw, struct eng_addr *a)
{
	struct emu_fw_gid_entry g;

	if (emu_fw_gid_get(fw, a->port, a->sgid_index, &g) || !g.valid) {
		memset(a->sgid, 0, 16);
		a->roce_v2 = true;
		return;
	}
	memcpy(a->sgid, g.gid, 16);
	memcpy(a->smac, g.mac, 6);
	a->roce_v2 = g.roce_version == 2;
}

/* The device and port that own @gid, or NULL. */
static struct eng_dev *eng_fabric_route(const uint8_t gid[16], uint8_t *port)
{
	for (int i = 0; i < ENG_MAX_DEVS; i++) {
		struct eng_dev *dev = eng_g.devs[i];
		const struct emu_fw_config *cfg;
		unsigned int n;

		if (!dev)
			continue;
		cfg = emu_fw_config_get(dev->fw);
		n = emu_fw_gid_table_size(dev->fw);
		for (unsigned int p = 1; p <= cfg->num_ports; p++) {
			for (unsigned int k = 0; k < n; k++) {
				struct emu_fw_gid_entry g;

				if (emu_fw_gid_get(dev->fw, p, k, &g) || !g.valid)
					continue;
				if (!memcmp(g.gid, gid, 16)) {
					*port = (uint8_t)p;
					return dev;
				}
			}
		}
	}
	return NULL;
}

void eng_fabric_src(struct eng_qp *qp, struct eng_addr *a)
{
	if (qp->route_gen != qp->gen) {
		struct eng_addr *r = &qp->route;
		const struct emu_fw_qp_path *pp = &qp->attr.pri;

		memset(r, 0, sizeof(*r));
		r->port = pp->port ? pp->port : 1;
		r->sgid_index = pp->sgid_index;
		r->hop_limit = pp->hop_limit;
		r->tclass = pp->tclass;
		r->flow_label = pp->flow_label;
		r->udp_sport = pp->udp_sport;
		r->loopback = pp->fl;
		memcpy(r->dgid, pp->rgid, 16);
		memcpy(r->dmac, pp->rmac, 6);
		eng_fabric_gid(qp->dev->fw, r);
		qp->route_dev = NULL;
		if (qp->fq->st != MLX5_QPC_ST_UD)
			qp->route_dev = r->loopback ? qp->dev :
					eng_fabric_route(r->dgid, &r->dport);
		qp->route_gen = qp->gen;
	}
	*a = qp->route;
}

void eng_fabric_src_gid(struct eng_qp *qp, struct eng_addr *a)
{
	eng_fabric_gid(qp->dev->fw, a);
}

static bool eng_fabric_link_up(const struct eng_dev *dev, unsigned int port)
{
	bool up = true;

	emu_fw_port_get_link(dev->fw, port ? port : 1, &up);
	return up;
}

bool eng_fabric_send(struct eng_qp *src, struct eng_pkt *pkt,
		     struct eng_pkt *ack)
{
	struct eng_dev *dev;
	struct emu_fw_obj *obj;
	struct eng_qp *dst;

	if (src->fq->st == MLX5_QPC_ST_UD)
		dev = eng_fabric_route(pkt->addr.dgid, &pkt->addr.dport);
	else
		dev = src->route_dev;
	if (!eng_fabric_link_up(src->dev, pkt->addr.port))
		return false;
	if (!dev)
		return false;	/* not in this process: the wire's */
	if (dev->fatal ||
	    !eng_fabric_link_up(dev, pkt->addr.loopback ? pkt->addr.port :
							  pkt->addr.dport))
		return false;
	obj = emu_fw_obj_lookup_rcu(dev->fw, EMU_FW_OBJ_QP, pkt->dqpn);
	if (!obj)
		return false;
	dst = eng_qp_of(emu_fw_to_qp(obj));
	if (!dst || dst->dev != dev)
		return false;
	return eng_resp_rcv(dst, pkt, ack);
}
