/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_fabric.c -- where a packet goes.
 *
 * Every port of every device that joined the engine is reachable by its
 * GIDs (the RoCE address table the kernel layer programs): a packet for a
 * GID a device here owns is delivered to that device and port directly,
 * then to the destination QP by number; its responder or completer runs
 * at once, on the sender's thread, under the run lock.  Any other GID is
 * the wire's: the packet leaves through the port its QP uses, cut into
 * path-MTU frames (eng_wire.c), and its answer comes back later.  Both
 * paths feed the same state machines; only the timing differs.
 *
 * The GIDs of the process are cached by the firmware's GID generation,
 * so a UD send finds its destination without a lock.  MACs are not
 * checked in process (DEVX users may leave rmac zero).  A port whose link
 * is down neither sends nor receives, and a device stopped by a fatal
 * error receives nothing: such packets are lost, and reliable requesters
 * find out by their retries.
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

/* The sum of the GID generations of the devices: the cache's key. */
static unsigned int eng_fabric_gen(const struct eng *e)
{
	unsigned int sum = 0;

	for (int i = 0; i < ENG_MAX_DEVS; i++)
		if (e->devs[i])
			sum += emu_fw_gid_table_gen(e->devs[i]->fw) * 2654435761u +
			       (unsigned int)i;
	return sum;
}

static void eng_fabric_rebuild(struct eng *e, unsigned int gen)
{
	e->nroutes = 0;
	for (int i = 0; i < ENG_MAX_DEVS; i++) {
		struct eng_dev *dev = e->devs[i];
		const struct emu_fw_config *cfg;
		unsigned int n;

		if (!dev)
			continue;
		cfg = emu_fw_config_get(dev->fw);
		n = emu_fw_gid_table_size(dev->fw);
		for (unsigned int p = 1; p <= cfg->num_ports; p++) {
			for (unsigned int k = 0; k < n; k++) {
				struct emu_fw_gid_entry g;
				struct eng_route *r;

				if (emu_fw_gid_get(dev->fw, p, k, &g) || !g.valid)
					continue;
				if (e->nroutes >= ENG_ROUTES)
					break;
				r = &e->routes[e->nroutes++];
				memcpy(r->gid, g.gid, 16);
				r->dev = dev;
				r->port = (uint8_t)p;
			}
		}
	}
	e->route_sum = gen;
}

struct eng_dev *eng_fabric_route(const uint8_t gid[16], uint8_t *port)
{
	struct eng *e = &eng_g;
	unsigned int gen = eng_fabric_gen(e);

	if (gen != e->route_sum || !e->nroutes) {
		eng_fabric_rebuild(e, gen);
		e->route_epoch++;	/* every QP routes again */
	}
	for (unsigned int i = 0; i < e->nroutes; i++)
		if (!memcmp(e->routes[i].gid, gid, 16)) {
			*port = e->routes[i].port;
			return e->routes[i].dev;
		}
	return NULL;
}

void eng_fabric_src(struct eng_qp *qp, struct eng_addr *a)
{
	if (qp->route_gen != qp->gen || qp->route_epoch != eng_g.route_epoch) {
		struct eng_addr *r = &qp->route;
		const struct emu_fw_qp_path *pp = &qp->attr.pri;

		memset(r, 0, sizeof(*r));
		r->port = pp->port ? pp->port : 1;
		r->sgid_index = pp->sgid_index;
		r->hop_limit = pp->hop_limit;
		r->tclass = pp->tclass;
		r->flow_label = pp->flow_label;
		/* The QPC's source port, or the flow's (IBA A17.4.5.1). */
		r->udp_sport = pp->udp_sport ? pp->udp_sport :
			       emu_wire_udp_sport(pp->flow_label,
						  qp->fq->obj.id,
						  qp->attr.remote_qpn);
		r->loopback = pp->fl;
		memcpy(r->dgid, pp->rgid, 16);
		memcpy(r->dmac, pp->rmac, 6);
		/* A DCI goes where its connection goes (eng_dc.c). */
		if (qp->fq->st == MLX5_QPC_ST_DCI)
			memcpy(r->dgid, qp->dci.dgid, 16);
		eng_fabric_gid(qp->dev->fw, r);
		qp->route_dev = NULL;
		if (qp->fq->st != MLX5_QPC_ST_UD) {
			qp->route_dev = r->loopback ? qp->dev :
					eng_fabric_route(r->dgid, &r->dport);
			if (r->loopback)
				r->dport = r->port;
		}
		qp->route_gen = qp->gen;
		qp->route_epoch = eng_g.route_epoch;
	}
	*a = qp->route;
}

void eng_fabric_src_gid(struct eng_qp *qp, struct eng_addr *a)
{
	eng_fabric_gid(qp->dev->fw, a);
}

bool eng_fabric_local(struct eng_qp *qp)
{
	struct eng_addr a;

	if (qp->route_gen != qp->gen || qp->route_epoch != eng_g.route_epoch)
		eng_fabric_src(qp, &a);
	return qp->route_dev != NULL;
}

static bool eng_fabric_port_up(struct eng_dev *dev, unsigned int port)
{
	bool up = true;

	return emu_fw_port_get_link(dev->fw, port, &up) || up;
}

struct eng_qp *eng_fabric_qp(struct eng_dev *dev, uint32_t qpn)
{
	struct emu_fw_obj *obj = emu_fw_obj_lookup_rcu(dev->fw, EMU_FW_OBJ_QP,
						       qpn);
	struct eng_qp *qp = obj ? eng_qp_of(emu_fw_to_qp(obj)) : NULL;

	return qp && qp->dev == dev ? qp : NULL;
}

void eng_fabric_deliver(struct eng_qp *dst, struct eng_pkt *pkt)
{
	const struct emu_wire_opinfo *oi = emu_wire_opinfo(pkt->opcode);

	if (!oi)
		return;
	if (oi->flags & EMU_WIRE_F_REQ)
		eng_resp_rcv(dst, pkt);
	else
		eng_comp_rcv(dst, pkt);
}

int eng_fabric_send(struct eng_qp *src, struct eng_pkt *pkt, uint32_t from,
		    uint32_t max)
{
	struct eng_dev *dev;
	struct eng_qp *dst;
	uint8_t port = 0;

	if (!max)
		return 0;
	if (src->fq->st == MLX5_QPC_ST_UD) {
		dev = eng_fabric_route(pkt->addr.dgid, &port);
	} else {
		dev = eng_fabric_local(src) ? src->route_dev : NULL;
		port = src->route.dport;
	}
	if (!dev) {
		struct emu_wire_port *wp =
			pkt->addr.port >= 1 && pkt->addr.port <= EMU_FW_MAX_PORTS ?
			src->dev->wire[pkt->addr.port - 1] : NULL;
		int n;

		if (!wp)	/* no cable: the packets are lost */
			return (int)(pkt->npsn - from < max ? pkt->npsn - from : max);
		n = eng_wire_send(src, wp, pkt, from, max);
		if (n > 0)
			src->st.tx_pkts += (unsigned int)n;
		return n;
	}
	src->st.tx_pkts++;	/* in process: a whole message at once */
	/* In process: the whole packet, now, unless a port is down or the
	 * destination device stopped (the wire's ports check their links). */
	if (!eng_fabric_port_up(src->dev, pkt->addr.port) ||
	    !eng_fabric_port_up(dev, port) || dev->fatal)
		return (int)(pkt->npsn - from);
	pkt->src_fault = false;
	dst = pkt->dc ? NULL : eng_fabric_qp(dev, pkt->dqpn);
	if (pkt->dc)
		eng_dc_deliver(dev, pkt);
	else if (dst)	/* else nobody takes it: lost */
		eng_fabric_deliver(dst, pkt);
	if (pkt->src_fault)
		return -EFAULT;
	return (int)(pkt->npsn - from);
}
