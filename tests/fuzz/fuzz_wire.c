/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target of the wire's receive side and the transport behind
 * it: frames of any content (fuzz_wire.h) enter port 1 of a device whose
 * RC and UD QPs wait in RTS with receives posted, through a link the
 * harness feeds (no socket), and run through the port's checks, the RoCE
 * parser, and the engine's responder and completer.  The engine runs
 * without a thread, so each progress call is one pass and a run replays.
 * Before each input both QPs are reset and connected again (expected PSN
 * FW_RQ_PSN): an input means the same whatever ran before it.
 *
 * Beyond the sanitizers, every input must leave alone what no frame may
 * reach: the bytes around the remotely writable MR, and a second MR that
 * grants no remote access.  Whatever a frame asks, the responder answers
 * with a NAK or drops it; it never writes there.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "fuzz_eng.h"
#include "fuzz_wire.h"
#include "emu/base/bytes.h"
#include "emu/wire/wire.h"

#define MR_LEN 8192u
#define QUIET_LEN 4096u
#define NRECV 4u
#define RECV_LEN (MR_LEN / NRECV)
#define PASSES 4

static struct ent_dev dev;
static struct ent_cq cq;
static struct ent_qp rc, ud;
static struct emu_wire_port *wport;
static struct ent_mr mr, quiet;
static uint8_t peer_gid[16] = { [10] = 0xff, [11] = 0xff, [12] = 127,
				[14] = 1, [15] = 2 };

/* ---- the link: the input's frames, as VXLAN datagrams ---- */

struct fuzz_link {
	struct emu_wire_link l;
	uint8_t *dg[FW_MAX_FRAMES];	/* VXLAN header and frame */
	uint32_t len[FW_MAX_FRAMES];	/* of the datagram */
	unsigned int n, at;
	bool trusted;
};

static struct fuzz_link flink;

static int fl_send(struct emu_wire_link *l, const struct emu_wire_dgram *d,
		   unsigned int n)
{
	(void)l;
	(void)d;
	return (int)n;	/* the ACKs, NAKs and READ responses: gone */
}

/* As the shared-memory link hands out a trusted peer's datagrams (lent,
 * exactly their length, ICRC left for later), or as the UDP link copies
 * them into the port's buffers. */
static int fl_recv(struct emu_wire_link *l, struct emu_wire_dgram *d,
		   unsigned int n, bool sockets)
{
	struct fuzz_link *k = (struct fuzz_link *)l;
	unsigned int got = 0;

	if (sockets)
		return 0;
	for (; got < n && k->at < k->n; got++, k->at++) {
		uint32_t len = k->len[k->at];

		d[got].ep = (struct emu_wire_ep){ .family = AF_INET,
			.addr = { 127, 0, 1, 2 }, .port = 4789 };
		d[got].icrc_later = k->trusted;
		d[got].lent = k->trusted;
		if (k->trusted) {
			d[got].buf = k->dg[k->at];
			d[got].len = len;
		} else if (len > d[got].len) {	/* longer than any frame */
			d[got].len = 0;
		} else {
			memcpy(d[got].buf, k->dg[k->at], len);
			d[got].len = len;
		}
	}
	return (int)got;
}

static bool fl_park(struct emu_wire_link *l)
{
	(void)l;
	return true;
}

static int fl_fd(struct emu_wire_link *l)
{
	(void)l;
	return -1;
}

static void fl_destroy(struct emu_wire_link *l)
{
	(void)l;	/* static */
}

static const struct emu_wire_link_ops fl_ops = {
	.send = fl_send, .recv = fl_recv, .park = fl_park, .fd = fl_fd,
	.destroy = fl_destroy,
};

/* ---- a frame filter, as the wire's fault rules install ---- */

static uint8_t verdicts;	/* two bits per received frame */
static unsigned int nrx;

static bool ff_active(void *arg)
{
	(void)arg;
	return true;
}

/* No delays or reorders: what they hold would reach the next input. */
static enum emu_wire_verdict ff_frame(void *arg,
				      const struct emu_wire_frame_info *fi,
				      uint32_t *delay_us)
{
	static const enum emu_wire_verdict v[4] = {
		EMU_WIRE_PASS, EMU_WIRE_FDROP, EMU_WIRE_FDUP, EMU_WIRE_FCORRUPT,
	};

	(void)arg;
	(void)delay_us;
	if (!fi->rx)
		return EMU_WIRE_PASS;
	return v[(verdicts >> (2 * (nrx++ % 4))) & 3];
}

static const struct emu_wire_filter ffilter = {
	.active = ff_active, .frame = ff_frame,
};

/* ---- the device ---- */

static void qp_restart(struct ent_qp *qp)
{
	struct ent_conn c;

	ent_conn_default(&c);
	c.remote_qpn = 0x4242;
	c.rgid = peer_gid;
	c.sgid_index = ENT_GID_V2_V4;
	c.rq_psn = FW_RQ_PSN;
	c.qkey = FW_QKEY;
	fuzz_qp_restart(qp, &c);
	for (unsigned int i = 0; i < NRECV; i++)
		ent_post_recv(qp, mr.key, (uintptr_t)mr.buf + i * RECV_LEN,
			      RECV_LEN);
}

static void setup(void)
{
	struct emu_wire_port_cfg pc = {
		.name = "fuzz", .dev = 0, .port = 1, .vni = FW_VNI,
		.mac = { 0x02, 0xc9, 0x7f, 0, 0, 1 },
	};
	struct ent_qp_cfg qc = {
		.type = ENT_RC, .log_sq = 4, .log_rq = 4, .log_rq_stride = 1,
	};
	struct emu_wire_port *wp;

	if (setenv("MLX5EMU_ENGINE_MODE", "inline", 1))
		abort();
	ent_dev_init(&dev, 0);
	flink.l.ops = &fl_ops;
	flink.l.window = 1u << 20;
	wp = emu_wire_port_create(&pc, &flink.l);
	if (!wp || emu_eng_port_attach(dev.fw, 1, wp))
		abort();
	wport = wp;
	fuzz_mr_guarded(&dev, &mr, MR_LEN);
	fuzz_mr_filled(&dev, &quiet, QUIET_LEN,
		       EMU_FW_MKEY_LR | EMU_FW_MKEY_LW, IBV_ACCESS_LOCAL_WRITE);
	ent_cq_init(&dev, &cq, 6, 64, false);
	qc.scq = qc.rcq = &cq;
	ent_qp_create(&dev, &rc, &qc);
	qc.type = ENT_UD;
	ent_qp_create(&dev, &ud, &qc);
}

/* ---- fixups ---- */

static void ipv4_csum(uint8_t *ip, unsigned int ihl)
{
	uint32_t sum = 0;

	ip[10] = ip[11] = 0;
	for (unsigned int i = 0; i < ihl; i += 2)
		sum += emu_get_be16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	emu_put_be16(ip + 10, (uint16_t)~sum);
}

static void fix_frame(uint8_t *f, uint32_t len, uint8_t fix)
{
	const struct emu_wire_opinfo *oi;
	uint32_t bth, ihl = 0;

	if (len < EMU_WIRE_ETH_HLEN)
		return;
	switch (emu_get_be16(f + 12)) {
	case 0x0800:	/* RoCE v2 over IPv4: IP, UDP, BTH */
		if (len < EMU_WIRE_ETH_HLEN + 20)
			return;
		ihl = (f[EMU_WIRE_ETH_HLEN] & 0xfu) * 4;
		if (ihl < 20 || len < EMU_WIRE_ETH_HLEN + ihl)
			return;
		bth = EMU_WIRE_ETH_HLEN + ihl + 8;
		break;
	case 0x86dd:	/* RoCE v2 over IPv6 */
		bth = EMU_WIRE_ETH_HLEN + 40 + 8;
		break;
	case 0x8915:	/* RoCE v1: the GRH */
		bth = EMU_WIRE_ETH_HLEN + 40;
		break;
	default:
		return;
	}
	if (len < bth + 12 + 4)
		return;
	if ((fix & (FW_FIX_QP_RC | FW_FIX_QP_UD)) == FW_FIX_QP_RC ||
	    (fix & (FW_FIX_QP_RC | FW_FIX_QP_UD)) == FW_FIX_QP_UD) {
		uint32_t qpn = fix & FW_FIX_QP_RC ? rc.qpn : ud.qpn;

		f[bth + 5] = (uint8_t)(qpn >> 16);
		f[bth + 6] = (uint8_t)(qpn >> 8);
		f[bth + 7] = (uint8_t)qpn;
	}
	oi = emu_wire_opinfo(f[bth]);
	if ((fix & FW_FIX_KEYS) && oi && (f[bth] & 0xe0) == EMU_WIRE_TR_RC &&
	    (oi->hdrs & (EMU_WIRE_H_RETH | EMU_WIRE_H_ATOMIC)) &&
	    len >= bth + 12 + 12 + 4) {
		uint64_t va = emu_get_be64(f + bth + 12) % MR_LEN;

		emu_put_be64(f + bth + 12, (uintptr_t)mr.buf + va);
		emu_put_be32(f + bth + 20, mr.key);
	}
	if (fix & FW_FIX_CSUM) {
		if (ihl)
			ipv4_csum(f + EMU_WIRE_ETH_HLEN, ihl);
		emu_wire_icrc_put(f, len);
	}
}

/* ---- one input ---- */

static void drain_cq(void)
{
	while (!ent_cq_quiet(&cq, 0))
		ent_cq_next(&cq);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	size_t at = 1;

	if (!size)
		return 0;
	if (!ready) {
		setup();
		ready = true;
	}
	qp_restart(&rc);
	qp_restart(&ud);
	flink.n = flink.at = 0;
	flink.trusted = data[0] & FW_TRUSTED;
	nrx = 0;
	if ((data[0] & FW_FILTER) && size > 1) {
		verdicts = data[at++];
		emu_wire_port_set_filter(wport, &ffilter);
	} else {
		emu_wire_port_set_filter(wport, NULL);
	}
	while (flink.n < FW_MAX_FRAMES && at + 2 <= size) {
		uint32_t len = (uint32_t)data[at] | (uint32_t)data[at + 1] << 8;
		uint8_t *dg;

		at += 2;
		if (len > size - at)
			len = (uint32_t)(size - at);
		/* A block of exactly the datagram's length: a lent one is
		 * read where it lies, and the sanitizers see a read past it. */
		dg = malloc(EMU_WIRE_VXLAN_HLEN + len);
		if (!dg)
			abort();
		memset(dg, 0, EMU_WIRE_VXLAN_HLEN);
		dg[0] = 0x08;			/* RFC 7348: the I flag */
		dg[4] = (uint8_t)(FW_VNI >> 16);
		dg[5] = (uint8_t)(FW_VNI >> 8);
		dg[6] = (uint8_t)FW_VNI;
		memcpy(dg + EMU_WIRE_VXLAN_HLEN, data + at, len);
		fix_frame(dg + EMU_WIRE_VXLAN_HLEN, len, data[0]);
		flink.dg[flink.n] = dg;
		flink.len[flink.n++] = EMU_WIRE_VXLAN_HLEN + len;
		at += len;
	}
	for (int i = 0; i < PASSES; i++)
		emu_eng_progress(EMU_ENG_WHY_API);
	drain_cq();
	fuzz_check_guarded(&mr, "fuzz_wire");
	fuzz_check_filled(&quiet, "fuzz_wire");
	for (unsigned int i = 0; i < flink.n; i++)
		free(flink.dg[i]);
	return 0;
}
