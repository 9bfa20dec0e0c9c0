/* SPDX-License-Identifier: MIT */
/*
 * mana_probe: a program written for manadv(7), as DPDK's mana PMD drives a
 * MANA port: queues made with libmana (a raw send QP, one receive WQ behind
 * an RSS QP), then only GDMA WQEs it writes, 64-bit stores to the doorbell
 * page and CQEs it reads by their owner bits.
 *
 *   mana_probe udp  DST_IP DST_MAC DPORT COUNT [bad]
 *   mana_probe tso  DST_IP DST_MAC DPORT LEN MSS
 *   mana_probe recv COUNT
 *
 * The same commands and output as eth_probe: udp sends COUNT datagrams
 * "mana udp <n>" from port 40000 with the IPv4 and UDP checksums left to
 * the device (the short OOB's comp_iphdr_csum and comp_udp_csum, the UDP
 * field seeded with the pseudo header's sum as DPDK does); "bad": no
 * offload and a wrong UDP checksum.  tso: one LSO WQE (MSS in
 * client_data_unit, comp_tcp_csum at trans_off 34), then the RSTs that
 * come back are counted.  recv: COUNT frames printed with the RX CQE's
 * length and checksum bits.  Prints "mac <own MAC>", then "ready".
 * Byte offsets are those of the kernel's gdma.h and mana.h.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/manadv.h>
#include <infiniband/verbs.h>

#include "probe_frames.h"


#define MEM (256 * 1024)
#define RX_OFF (128 * 1024)
#define RX_BUF 2048
#define DEPTH 64

struct probe {
	struct ibv_context *ctx;
	struct ibv_pd *pd, *ppd;
	struct ibv_cq *tcq, *rcq;
	struct ibv_qp *sq, *rss;
	struct ibv_wq *wq;
	struct ibv_rwq_ind_table *tbl;
	struct ibv_mr *mr;
	struct manadv_qp dq;
	struct manadv_cq dtc, drc;
	struct manadv_rwq drw;
	uint8_t *mem;
	uint8_t mac[6];
	uint32_t sq_pi, rq_pi, rq_ci, tcq_ci, rcq_ci;
};

static void die(const char *what)
{
	fprintf(stderr, "mana_probe: %s failed\n", what);
	exit(1);
}

static void *alloc_buf(size_t size, void *priv)
{
	void *p = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);

	(void)priv;
	if (p)
		memset(p, 0, size);
	return p;
}

static void free_buf(void *p, void *priv)
{
	(void)priv;
	free(p);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const volatile uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The port's MAC where the PMD reads it: <ibdev_path>/device/net/ * /address
 * with dev_port 0; the probe's emulated port follows its IPv4 address. */
static void own_mac(struct probe *p)
{
	char path[512], line[64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/device/net/mana0p0/address",
		 p->ctx->device->ibdev_path);
	f = fopen(path, "r");
	if (!f || !fgets(line, sizeof(line), f))
		die("reading the port's address");
	fclose(f);
	unsigned int m[6];

	if (sscanf(line, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3],
		   &m[4], &m[5]) != 6)
		die("parsing the port's address");
	for (int i = 0; i < 6; i++)
		p->mac[i] = (uint8_t)m[i];
}

static void setup(struct probe *p)
{
	struct manadv_ctx_allocators al = { alloc_buf, free_buf, NULL };
	struct ibv_device **list = ibv_get_device_list(NULL);

	for (int i = 0; list && list[i] && !p->ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), "mana_0"))
			p->ctx = ibv_open_device(list[i]);
	if (!p->ctx)
		die("opening mana_0");
	if (manadv_set_context_attr(p->ctx, MANADV_CTX_ATTR_BUF_ALLOCATORS, &al))
		die("manadv_set_context_attr");
	own_mac(p);
	p->mem = alloc_buf(MEM, NULL);
	p->pd = ibv_alloc_pd(p->ctx);
	struct ibv_parent_domain_init_attr pa = {
		.pd = p->pd, .comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.pd_context = (void *)1,	/* port 1 */
	};
	p->ppd = ibv_alloc_parent_domain(p->ctx, &pa);
	p->tcq = ibv_create_cq(p->ctx, DEPTH, NULL, NULL, 0);
	p->rcq = ibv_create_cq(p->ctx, DEPTH, NULL, NULL, 0);
	if (!p->mem || !p->ppd || !p->tcq || !p->rcq)
		die("PD and CQs");
	struct ibv_qp_init_attr ta = {
		.qp_type = IBV_QPT_RAW_PACKET, .send_cq = p->tcq, .recv_cq = p->tcq,
		.cap = { .max_send_wr = DEPTH, .max_send_sge = 2 },
	};
	p->sq = ibv_create_qp(p->ppd, &ta);
	struct ibv_wq_init_attr wa = { .wq_type = IBV_WQT_RQ, .max_wr = DEPTH,
				       .max_sge = 1, .pd = p->ppd, .cq = p->rcq };
	p->wq = ibv_create_wq(p->ctx, &wa);
	if (!p->sq || !p->wq)
		die("the send QP and the WQ");
	struct ibv_rwq_ind_table_init_attr ia = { .log_ind_tbl_size = 0,
						  .ind_tbl = &p->wq };
	p->tbl = ibv_create_rwq_ind_table(p->ctx, &ia);
	uint8_t key[40] = { 0x6d, 0x5a };
	struct ibv_qp_init_attr_ex ra = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_RX_HASH |
			     IBV_QP_INIT_ATTR_IND_TABLE,
		.pd = p->ppd, .rwq_ind_tbl = p->tbl,
		.rx_hash_conf = { .rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ,
				  .rx_hash_key_len = 40, .rx_hash_key = key,
				  .rx_hash_fields_mask = IBV_RX_HASH_SRC_IPV4 |
							 IBV_RX_HASH_DST_IPV4 },
	};
	p->rss = p->tbl ? ibv_create_qp_ex(p->ctx, &ra) : NULL;
	p->mr = ibv_reg_mr(p->pd, p->mem, MEM, IBV_ACCESS_LOCAL_WRITE);
	if (!p->rss || !p->mr)
		die("the RSS QP and the MR");
	struct manadv_obj o = { .qp = { p->sq, &p->dq }, .cq = { p->tcq, &p->dtc },
				.rwq = { p->wq, &p->drw } };

	if (manadv_init_obj(&o, MANADV_OBJ_QP | MANADV_OBJ_CQ | MANADV_OBJ_RWQ))
		die("manadv_init_obj");
	o.cq.in = p->rcq;
	o.cq.out = &p->drc;
	if (manadv_init_obj(&o, MANADV_OBJ_CQ))
		die("manadv_init_obj (RX CQ)");
}

/* A 32-byte GDMA WQE at @w: the 8-byte inline OOB @oob, one SGE. */
static void wqe(uint8_t *w, const uint8_t *oob, uint64_t addr, uint32_t key,
		uint32_t len, uint16_t client_data_unit)
{
	memset(w, 0, 32);
	/* num_sge 1, inline_oob_size_div4 2, client_data_unit */
	put32(w + 4, 1u | 2u << 8 | (uint32_t)client_data_unit << 16);
	if (oob)
		memcpy(w + 8, oob, 8);
	put32(w + 16, (uint32_t)addr);
	put32(w + 20, (uint32_t)(addr >> 32));
	put32(w + 24, key);
	put32(w + 28, len);
}

static void doorbell(struct probe *p, unsigned int off, uint32_t qid,
		     uint32_t tail)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*(volatile uint64_t *)((char *)p->dq.db_page + off) =
		(uint64_t)tail << 32 | qid;
}

/* The next receive WQE: ring slot by the ring's size, buffer by DEPTH
 * (WQE k always gets buffer k % DEPTH). */
static void post_recv(struct probe *p)
{
	uint32_t slot = p->rq_pi % (p->drw.size / 32), buf = p->rq_pi % DEPTH;

	wqe((uint8_t *)p->drw.buf + 32 * slot, NULL,
	    (uintptr_t)(p->mem + RX_OFF + RX_BUF * buf), p->mr->lkey, RX_BUF, 0);
	p->rq_pi++;
}

/* The CQE at the consumer's head of a ring of @n within @secs (its
 * owner bits those of the head's lap), consumed; NULL if none. */
static const volatile uint8_t *poll_cq(void *ring, uint32_t n, uint32_t *ci,
				       double secs)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		const volatile uint8_t *c = (uint8_t *)ring + 64 * (*ci % n);

		if (get32(c + 60) >> 29 == ((*ci / n + 1) & 7)) {
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			(*ci)++;
			return c;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((double)(t.tv_sec - t0.tv_sec) +
		    (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 > secs)
			return NULL;
	}
}

/* One frame of @len bytes at p->mem, the short OOB's @flags (dword 0 bits
 * 0..7), @mss for LSO; true when its TX CQE says TX_OKAY. */
static bool send_frame(struct probe *p, uint32_t len, uint32_t flags,
		       uint16_t trans_off, uint16_t mss)
{
	uint8_t oob[8];
	const volatile uint8_t *c;

	put32(oob, flags | p->dtc.cq_id << 8);		/* vcq_num */
	put32(oob + 4, trans_off | (p->dq.sq_id >> 10) << 10 |
		       p->dq.tx_vp_offset << 24);
	wqe((uint8_t *)p->dq.sq_buf + 32 * (p->sq_pi % (p->dq.sq_size / 32)),
	    oob, (uintptr_t)p->mem, p->mr->lkey, len, mss);
	p->sq_pi++;
	doorbell(p, 0, p->dq.sq_id, 32 * p->sq_pi);
	c = poll_cq(p->dtc.buf, p->dtc.count, &p->tcq_ci, 5);
	return c && (get32(c) & 0x3f) == 32;		/* CQE_TX_OKAY */
}

enum {
	OOB_IPV4 = 1u << 2, OOB_IP_CSUM = 1u << 4, OOB_TCP_CSUM = 1u << 5,
	OOB_UDP_CSUM = 1u << 6,
};

/* Ethernet and IPv4 from this port's MAC; the IP header. */
static uint8_t *l2l3(struct probe *p, const uint8_t dmac[6], const char *dst,
		     uint8_t proto, uint16_t l4len)
{
	return probe_l2l3(p->mem, dmac, p->mac, dst, proto, l4len, 0x4243);
}

static uint32_t sum16(const uint8_t *b, size_t n, uint32_t s)
{
	for (size_t k = 0; k + 1 < n; k += 2)
		s += (uint32_t)b[k] << 8 | b[k + 1];
	if (n & 1)
		s += (uint32_t)b[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* The pseudo header's sum, not complemented: what CHECKSUM_PARTIAL leaves
 * in the L4 field (rte_ipv4_phdr_cksum); @len 0 for LSO. */
static uint16_t phdr(const uint8_t *ip, uint8_t proto, uint16_t len)
{
	return fold(sum16(ip + 12, 8, (uint32_t)proto + len));
}

static int cmd_udp(struct probe *p, const char *dst, const uint8_t dmac[6],
		   uint16_t dport, int count, bool bad)
{
	for (int i = 0; i < count; i++) {
		char msg[32];
		int n = snprintf(msg, sizeof(msg), "mana udp %d", i);
		uint16_t ulen = (uint16_t)(8 + n);
		uint8_t *ip = l2l3(p, dmac, dst, 17, ulen), *u = ip + 20;

		probe_wr16(u, 40000);
		probe_wr16(u + 2, dport);
		probe_wr16(u + 4, ulen);
		memcpy(u + 8, msg, (size_t)n);
		if (bad) {
			probe_ip_csum(ip);
			probe_wr16(u + 6, 0x1234);
		} else {
			probe_wr16(u + 6, phdr(ip, 17, ulen));
		}
		if (!send_frame(p, 34 + ulen, bad ? 0 : OOB_IPV4 | OOB_IP_CSUM |
				OOB_UDP_CSUM, 0, 0)) {
			printf("send %d did not complete with TX_OKAY\n", i);
			return 1;
		}
		printf("sent %d\n", i);
	}
	return 0;
}

/* Print one received frame (the WQE at rq_ci) and its CQE's bits;
 * whether it is a TCP RST.  The buffer goes back to the queue. */
static bool show_pkt(struct probe *p, uint32_t d1, uint32_t len)
{
	uint32_t slot = p->rq_ci % DEPTH;
	const uint8_t *f = p->mem + RX_OFF + RX_BUF * slot;
	bool rst = len >= 54 && f[23] == 6 && (f[47] & 0x04);

	printf("frame len %u proto %u ip_ok %u ip_fail %u tcp_ok %u udp_ok %u "
	       "hashtype 0x%x%s\n", len, len >= 34 ? f[23] : 0,
	       (d1 >> 25) & 1, (d1 >> 26) & 1, (d1 >> 27) & 1, (d1 >> 29) & 1,
	       (d1 >> 16) & 0x1ff, rst ? " rst" : "");
	p->rq_ci++;
	post_recv(p);
	return rst;
}

/*
 * The frames of the next RX CQE within secs, as the PMD walks them: one
 * for RX_OKAY, the per-packet infos (12 bytes each from byte 8) until a
 * zero length for RX_COALESCED_4 (mana_ib asks coalescing of RSS QPs).
 * The number of frames (0: none came), *rsts of them TCP RSTs.
 */
static unsigned int next_rx(struct probe *p, double secs, unsigned int *rsts)
{
	const volatile uint8_t *c = poll_cq(p->drc.buf, p->drc.count,
					    &p->rcq_ci, secs);
	uint32_t type = c ? get32(c) & 0x3f : 0, d1, n = 0;

	if (type != 1 && type != 2)		/* CQE_RX_OKAY, _COALESCED_4 */
		return 0;
	d1 = get32(c + 4);
	for (int k = 0; k < 4; k++) {
		uint32_t len = get32(c + 8 + 12 * k) & 0xffff;

		if (!len)
			break;
		if (show_pkt(p, d1, len))
			(*rsts)++;
		n++;
		if (type == 1)
			break;
	}
	doorbell(p, 0x400, p->drw.wq_id, 32 * p->rq_pi);
	return n;
}

static int cmd_recv(struct probe *p, int count)
{
	unsigned int got = 0, rsts = 0;

	while (got < (unsigned int)count) {
		unsigned int n = next_rx(p, 10, &rsts);

		if (!n) {
			printf("no frame %u\n", got);
			return 1;
		}
		got += n;
	}
	return 0;
}

static int cmd_tso(struct probe *p, const char *dst, const uint8_t dmac[6],
		   uint16_t dport, uint32_t len, uint16_t mss)
{
	uint8_t *ip = l2l3(p, dmac, dst, 6, (uint16_t)(20 + len)), *t = ip + 20;
	unsigned int segs = (len + mss - 1) / mss, rsts = 0;

	probe_tcp_psh(t, dport, len);	/* a closed port answers RST */
	/* mana_en's GSO seed: the pseudo header without the length */
	probe_wr16(t + 16, phdr(ip, 6, 0));
	if (!send_frame(p, 54 + len, OOB_IPV4 | OOB_IP_CSUM | OOB_TCP_CSUM, 34,
			mss)) {
		printf("the LSO WQE did not complete with TX_OKAY\n");
		return 1;
	}
	for (unsigned int got = 0; got < segs;) {
		unsigned int n = next_rx(p, 10, &rsts);

		if (!n)
			break;
		got += n;
	}
	printf("rst %u of %u segments\n", rsts, segs);
	return rsts == segs ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct probe p = { 0 };
	uint8_t dmac[6];

	if (argc < 3)
		die("usage");
	setup(&p);
	printf("mac %02x:%02x:%02x:%02x:%02x:%02x\n", p.mac[0], p.mac[1],
	       p.mac[2], p.mac[3], p.mac[4], p.mac[5]);
	for (int i = 0; i < DEPTH; i++)
		post_recv(&p);
	doorbell(&p, 0x400, p.drw.wq_id, 32 * p.rq_pi);
	printf("ready\n");
	fflush(stdout);
	if (!strcmp(argv[1], "recv"))
		return cmd_recv(&p, atoi(argv[2]));
	if (argc < 6)
		die("usage");
	if (probe_parse_mac(argv[3], dmac))
		die("MAC");
	if (!strcmp(argv[1], "udp"))
		return cmd_udp(&p, argv[2], dmac, (uint16_t)atoi(argv[4]),
			       atoi(argv[5]), argc > 6 && !strcmp(argv[6], "bad"));
	if (!strcmp(argv[1], "tso") && argc > 6)
		return cmd_tso(&p, argv[2], dmac, (uint16_t)atoi(argv[4]),
			       (uint32_t)atoi(argv[5]), (uint16_t)atoi(argv[6]));
	die("usage");
}
