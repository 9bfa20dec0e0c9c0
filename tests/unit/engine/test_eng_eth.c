/* SPDX-License-Identifier: MIT */
/*
 * Ethernet queues, DEVX only, as a DPDK-style program drives a ConnectX:
 * TIS, SQ, RQs, TIRs (direct and RSS) built from PRM commands, rules at
 * the kernel's NIC receive root, frames sent by WQEs written at literal
 * offsets and looped back to the same vport, CQEs read at the offsets of
 * rdma-core's struct mlx5_cqe64 and DPDK's struct mlx5_cqe.  The oracles
 * are independent of the device model: frames and checksums are computed
 * here (RFC 1071), Toeplitz bit by bit from its definition.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <stdlib.h>
#include <unistd.h>

#include "emu/firmware/fw_objs.h"	/* first: liburcu, bp flavour */

#include <check.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "prm/prm_cmd.h"
#include "eth_player.h"
#include "ut_run.h"

/* CQE offsets: mlx5dv.h struct mlx5_cqe64, DPDK mlx5_prm.h struct mlx5_cqe */
#define CQE_RSS_RES 0x0c
#define CQE_RSS_TYPE 0x10
#define CQE_HDS_IP_EXT 0x1c
#define CQE_L4_L3 0x1d
#define CQE_VLAN_INFO 0x1e
#define CQE_UIDX 0x20
#define CQE_BYTE_CNT 0x2c
#define CQE_SOP_DROP_QPN 0x38
#define CQE_WQE_COUNTER 0x3c
#define CQE_OP_OWN 0x3f

static const uint8_t mcast[6] = { 0x01, 0x50, 0x56, 0x19, 0x20, 0xa7 };
static const uint8_t smac[6] = { 0x24, 0x8a, 0x07, 0xa5, 0x28, 0xc8 };

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* RFC 1071 over a byte string, plus an initial sum. */
static uint16_t csum(const uint8_t *p, size_t n, uint32_t sum)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += rd16(p + i);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The L4 checksum over IPv4's pseudo header: 0 when it verifies. */
static uint16_t l4_verify(const uint8_t *ip, uint8_t proto)
{
	uint32_t ihl = (ip[0] & 0xf) * 4u, tot = rd16(ip + 2);
	uint32_t sum = rd16(ip + 12) + rd16(ip + 14) + rd16(ip + 16) +
		       rd16(ip + 18) + proto + (tot - ihl);

	return csum(ip + ihl, tot - ihl, sum);
}

/*
 * Ethernet (dmac, smac[, 802.1Q vid]) IPv4 UDP frame with @paylen bytes of
 * payload at e->mem, checksums right when @good; its length.
 */
static uint32_t udp_frame(uint8_t *f, const uint8_t dmac[6], int vid,
			  uint16_t sport, uint16_t dport, uint32_t paylen,
			  bool good)
{
	uint32_t l2 = vid >= 0 ? 18 : 14;
	uint8_t *ip = f + l2, *udp = ip + 20;

	memset(f, 0, l2 + 28 + paylen);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	if (vid >= 0) {
		wr16(f + 12, 0x8100);
		wr16(f + 14, (uint16_t)(0x2000 | vid));	/* PCP 1 */
	}
	wr16(f + l2 - 2, 0x0800);
	ip[0] = 0x45;
	wr16(ip + 2, (uint16_t)(28 + paylen));
	wr16(ip + 4, 0x1234);
	ip[8] = 64;
	ip[9] = 17;
	ip[12] = 192, ip[13] = 0, ip[14] = 2, ip[15] = 1;
	ip[16] = 192, ip[17] = 0, ip[18] = 2, ip[19] = 2;
	wr16(udp, sport);
	wr16(udp + 2, dport);
	wr16(udp + 4, (uint16_t)(8 + paylen));
	for (uint32_t i = 0; i < paylen; i++)
		udp[8 + i] = (uint8_t)(i * 7 + 3);
	if (good) {
		wr16(ip + 10, csum(ip, 20, 0));
		wr16(udp + 6, l4_verify(ip, 17));
		if (!rd16(udp + 6))
			wr16(udp + 6, 0xffff);
	} else {
		wr16(udp + 6, 0xbeef);
		wr16(ip + 10, csum(ip, 20, 0));
	}
	return l2 + 28 + paylen;
}

static const uint8_t *poll_one(struct eth_player *e)
{
	return dp_poll_cq(&e->dp, NULL);
}

/*
 * A frame's two CQEs on the one CQ: its send's and its receive's, in
 * either order (a ConnectX does not order an SQ's and an RQ's completions
 * on a shared CQ); the send's is checked to be @idx's, the receive's
 * copied to @rx.
 */
static void poll_pair(struct eth_player *e, uint16_t idx, uint8_t rx[64]);

/* A receive CQE of @rq; the frame's bytes checked by the caller. */
static void ck_rx_cqe(const uint8_t *c, const struct ep_rq *rq, uint32_t len,
		      uint16_t idx)
{
	ck_assert_uint_eq(c[CQE_OP_OWN] >> 4, MLX5_CQE_RESP_SEND);
	ck_assert_uint_eq(rd32(c + CQE_BYTE_CNT), len);
	ck_assert_uint_eq(rd16(c + CQE_WQE_COUNTER), idx);
	ck_assert_uint_eq(rd32(c + CQE_UIDX) & 0xffffff, 0x100 + rq->slot);
}

static void ck_tx_cqe(const uint8_t *c, const struct eth_player *e,
		      uint16_t idx)
{
	ck_assert_uint_eq(c[CQE_OP_OWN] >> 4, MLX5_CQE_REQ);
	ck_assert_uint_eq(rd16(c + CQE_WQE_COUNTER), idx);
	ck_assert_uint_eq(rd32(c + CQE_SOP_DROP_QPN) & 0xffffff, e->sqn);
	ck_assert_uint_eq(c[CQE_SOP_DROP_QPN], MLX5_OPCODE_SEND);
}

static void poll_pair(struct eth_player *e, uint16_t idx, uint8_t rx[64])
{
	bool tx = false, got = false;

	for (int i = 0; i < 2; i++) {
		const uint8_t *c = poll_one(e);

		if (c[CQE_OP_OWN] >> 4 == MLX5_CQE_REQ) {
			ck_assert(!tx);
			ck_tx_cqe(c, e, idx);
			tx = true;
		} else {
			ck_assert(!got);
			memcpy(rx, c, 64);
			got = true;
		}
	}
}

/* A frame looped back through a rule on its multicast destination: the
 * bytes as sent, the CQE's header types and checksum-ok bits. */
START_TEST(eth_loopback_udp)
{
	struct eth_player e;
	struct ep_rq rq;
	struct mlx5be_obj *tir;
	uint8_t c[64];
	uint32_t tirn, len;
	uint16_t idx;

	ep_init(&e);
	ep_rq_create(&e, &rq, true, 0);
	tir = ep_tir_direct(&e, &rq, EP_SELF_LB_ALLOW, &tirn);
	ep_rule_dmac(&e, mcast, tir, 0x123, 0);
	ep_post_recv(&e, &rq);
	len = udp_frame(e.mem, mcast, -1, 1000, 2000, 100, true);
	idx = ep_post_send(&e, MLX5_OPCODE_SEND, len, 18, 0, 0, 0);
	poll_pair(&e, idx, c);
	ck_rx_cqe(c, &rq, len, 0);
	ck_assert_mem_eq(ep_rx_buf(&e, &rq, 0), e.mem, len);
	/* IPv4 (2) at bits 3:2, UDP (2) at bits 6:4; L3 and L4 OK. */
	ck_assert_uint_eq((c[CQE_L4_L3] >> 2) & 3, MLX5_CQE_L3_HDR_TYPE_IPV4);
	ck_assert_uint_eq((c[CQE_L4_L3] >> 4) & 7, 2);
	ck_assert_uint_eq(c[CQE_HDS_IP_EXT] & (MLX5_CQE_L3_OK | MLX5_CQE_L4_OK),
			  MLX5_CQE_L3_OK | MLX5_CQE_L4_OK);
	/* The rule's flow tag. */
	ck_assert_uint_eq(rd32(c + CQE_SOP_DROP_QPN) & 0xffffff, 0x123);
	ep_fini(&e);
}
END_TEST

/* A wrong UDP checksum without offload arrives, its L4 bit clear; with
 * cs_flags the device writes both checksums. */
START_TEST(eth_checksums)
{
	struct eth_player e;
	struct ep_rq rq;
	const uint8_t *ip;
	uint32_t tirn, len;
	uint8_t c[64];

	ep_init(&e);
	ep_rq_create(&e, &rq, true, 0);
	ep_rule_dmac(&e, mcast,
		     ep_tir_direct(&e, &rq, EP_SELF_LB_ALLOW, &tirn), 0, 0);
	ep_post_recv(&e, &rq);
	ep_post_recv(&e, &rq);
	len = udp_frame(e.mem, mcast, -1, 7, 9, 33, false);
	poll_pair(&e, ep_post_send(&e, MLX5_OPCODE_SEND, len, 18, 0, 0, 0), c);
	ck_assert_uint_eq(c[CQE_HDS_IP_EXT] & MLX5_CQE_L3_OK, MLX5_CQE_L3_OK);
	ck_assert_uint_eq(c[CQE_HDS_IP_EXT] & MLX5_CQE_L4_OK, 0);
	/* Offload: both checksums zeroed by the sender, written on the way. */
	len = udp_frame(e.mem, mcast, -1, 7, 9, 33, true);
	wr16(e.mem + 14 + 10, 0);
	wr16(e.mem + 14 + 20 + 6, 0x5555);
	poll_pair(&e, ep_post_send(&e, MLX5_OPCODE_SEND, len, 18,
				   MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM,
				   0, 0), c);
	ck_assert_uint_eq(c[CQE_HDS_IP_EXT] & (MLX5_CQE_L3_OK | MLX5_CQE_L4_OK),
			  MLX5_CQE_L3_OK | MLX5_CQE_L4_OK);
	ip = ep_rx_buf(&e, &rq, 1) + 14;
	ck_assert_uint_eq(csum(ip, 20, 0), 0);
	ck_assert_uint_eq(l4_verify(ip, 17), 0);
	ep_fini(&e);
}
END_TEST

/* VLAN: inserted by the WQE, stripped by an RQ that strips (vsd 0), its
 * TCI in the CQE with the cv bit. */
START_TEST(eth_vlan_insert_strip)
{
	struct eth_player e;
	struct ep_rq strip;
	uint32_t tirn, len;
	uint8_t c[64];

	ep_init(&e);
	ep_rq_create(&e, &strip, false, 0);
	ep_rule_dmac(&e, mcast,
		     ep_tir_direct(&e, &strip, EP_SELF_LB_ALLOW, &tirn), 0, 0);
	ep_post_recv(&e, &strip);
	len = udp_frame(e.mem, mcast, -1, 1, 2, 40, true);
	poll_pair(&e, ep_post_send(&e, MLX5_OPCODE_SEND, len, 0, 0, 0, 0x2005),
		  c);
	ck_rx_cqe(c, &strip, len, 0);
	ck_assert_uint_eq(c[CQE_L4_L3] & 1, 1);
	ck_assert_uint_eq(rd16(c + CQE_VLAN_INFO), 0x2005);
	ck_assert_mem_eq(ep_rx_buf(&e, &strip, 0), e.mem, len);
	ep_fini(&e);
}
END_TEST

/* TSO: a 3000-byte TCP payload at MSS 1000 leaves as three segments, each
 * a valid TCP/IPv4 packet: lengths, IP ids, sequence numbers, flags. */
START_TEST(eth_tso_segments)
{
	struct eth_player e;
	struct ep_rq rq;
	uint32_t tirn, hdr = 14 + 20 + 20, pay = 3000, seq = 0x01020304;
	uint8_t *f, *ip, *tcp;

	ep_init(&e);
	ep_rq_create(&e, &rq, true, 0);
	ep_rule_dmac(&e, mcast,
		     ep_tir_direct(&e, &rq, EP_SELF_LB_ALLOW, &tirn), 0, 0);
	for (int i = 0; i < 3; i++)
		ep_post_recv(&e, &rq);
	f = e.mem;
	memset(f, 0, hdr + pay);
	memcpy(f, mcast, 6);
	memcpy(f + 6, smac, 6);
	wr16(f + 12, 0x0800);
	ip = f + 14;
	ip[0] = 0x45;
	wr16(ip + 4, 0x100);
	ip[8] = 64;
	ip[9] = 6;
	ip[12] = 10, ip[15] = 1, ip[16] = 10, ip[19] = 2;
	tcp = ip + 20;
	wr16(tcp, 4000);
	wr16(tcp + 2, 80);
	tcp[4] = 1, tcp[5] = 2, tcp[6] = 3, tcp[7] = 4;
	tcp[12] = 5 << 4;
	tcp[13] = 0x18 | 0x01;		/* PSH ACK FIN */
	for (uint32_t i = 0; i < pay; i++)
		f[hdr + i] = (uint8_t)(i % 251);
	ep_post_send(&e, MLX5_OPCODE_TSO, hdr + pay, hdr, 0, 1000, 0);
	/* The send's CQE and the three receives', the receives in order. */
	for (uint32_t k = 0, n = 0; n < 4; n++) {
		const uint8_t *c = poll_one(&e), *s = ep_rx_buf(&e, &rq, k);

		if (c[CQE_OP_OWN] >> 4 == MLX5_CQE_REQ) {
			ck_assert_uint_eq(rd16(c + CQE_WQE_COUNTER), 0);
			continue;
		}
		ck_rx_cqe(c, &rq, hdr + 1000, (uint16_t)k);
		ck_assert_uint_eq(rd16(s + 14 + 2), 20 + 20 + 1000);
		ck_assert_uint_eq(rd16(s + 14 + 4), 0x100 + k);
		ck_assert_uint_eq(rd32(s + 34 + 4), seq + 1000 * k);
		/* FIN and PSH only on the last. */
		ck_assert_uint_eq(s[34 + 13], k == 2 ? 0x19 : 0x10);
		ck_assert_uint_eq(csum(s + 14, 20, 0), 0);
		ck_assert_uint_eq(l4_verify(s + 14, 6), 0);
		ck_assert_mem_eq(s + hdr, f + hdr + 1000 * k, 1000);
		k++;
	}
	ep_fini(&e);
}
END_TEST

/* Toeplitz (Microsoft's RSS definition), bit by bit. */
static uint32_t toeplitz_ref(const uint8_t key[40], const uint8_t *in,
			     size_t n)
{
	uint32_t h = 0;

	for (size_t i = 0; i < n * 8; i++) {
		uint32_t window = 0;

		if (!(in[i / 8] & (0x80 >> (i % 8))))
			continue;
		/* bits i .. i + 31 of the key */
		for (unsigned int b = 0; b < 32; b++) {
			size_t k = i + b;

			window = window << 1 |
				 ((key[k / 8] >> (7 - k % 8)) & 1);
		}
		h ^= window;
	}
	return h;
}

/* RSS: the hash of (src ip, dst ip, sport, dport) picks the RQ at hash mod
 * 2 and comes back in the CQE with its type. */
START_TEST(eth_rss_toeplitz)
{
	static const uint8_t key[40] = {
		0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
		0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
		0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
		0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
	};
	struct eth_player e;
	struct ep_rq rqs[2];
	unsigned int got[2] = { 0 };
	uint32_t tirn;

	ep_init(&e);
	ep_rq_create(&e, &rqs[0], true, 0);
	ep_rq_create(&e, &rqs[1], true, 1);
	ep_rule_dmac(&e, mcast, ep_tir_rss(&e, rqs, 2, key, &tirn), 0, 0);
	for (int i = 0; i < 16; i++) {
		ep_post_recv(&e, &rqs[0]);
		ep_post_recv(&e, &rqs[1]);
	}
	for (uint16_t sport = 1000; sport < 1016; sport++) {
		uint8_t in[12] = { 192, 0, 2, 1, 192, 0, 2, 2 };
		uint32_t len = udp_frame(e.mem, mcast, -1, sport, 53, 20, true);
		uint32_t h, uidx;
		uint8_t c[64];

		wr16(in + 8, sport);
		wr16(in + 10, 53);
		h = toeplitz_ref(key, in, sizeof(in));
		poll_pair(&e, ep_post_send(&e, MLX5_OPCODE_SEND, len, 18, 0, 0, 0),
			  c);
		ck_assert_uint_eq(rd32(c + CQE_RSS_RES), h);
		ck_assert_uint_ne(c[CQE_RSS_TYPE], 0);
		uidx = rd32(c + CQE_UIDX) & 0xffffff;
		ck_assert_uint_eq(uidx, 0x100 + (h % 2));
		got[h % 2]++;
	}
	/* Sixteen flows spread over both queues. */
	ck_assert_uint_gt(got[0], 0);
	ck_assert_uint_gt(got[1], 0);
	ep_fini(&e);
}
END_TEST

/* A frame to @dmac that no receive completes: its send's CQE. */
static void send_unseen(struct eth_player *e, const uint8_t dmac[6])
{
	uint32_t len = udp_frame(e->mem, dmac, -1, 1, 2, 10, true);

	ep_post_send(e, MLX5_OPCODE_SEND, len, 18, 0, 0, 0);
	ck_assert_uint_eq(poll_one(e)[CQE_OP_OWN] >> 4, MLX5_CQE_REQ);
}

/* Steering: a frame no rule matches reaches no RQ; a drop rule drops; a
 * TIR of the sender's own transport domain takes nothing from it unless
 * its self_lb_block has the bit of the frame's kind (multicast 0x2; a TIR
 * with only the unicast bit 0x1 takes no multicast frame). */
START_TEST(eth_steering_and_self_lb)
{
	static const uint8_t other[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x09 };
	static const uint8_t third[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x0a };
	struct eth_player e;
	struct ep_rq rq;
	uint32_t tirn, tirn_lb, len;
	uint8_t c[64];

	ep_init(&e);
	ep_rq_create(&e, &rq, true, 0);
	ep_rule_dmac(&e, mcast,
		     ep_tir_direct(&e, &rq, EP_SELF_LB_ALLOW, &tirn), 0, 0);
	ep_rule_dmac(&e, other, NULL, 0, 0);
	ep_rule_dmac(&e, third,
		     ep_tir_direct(&e, &rq, 0x1, &tirn_lb), 0, 0);
	ep_post_recv(&e, &rq);
	send_unseen(&e, other);
	send_unseen(&e, third);
	send_unseen(&e, (const uint8_t[6]){ 0x01, 1, 2, 3, 4, 5 });
	usleep(20000);
	ck_assert(!dp_cq_ready(&e.dp));
	/* The one WQE posted is still there for the next frame. */
	len = udp_frame(e.mem, mcast, -1, 1, 2, 10, true);
	poll_pair(&e, ep_post_send(&e, MLX5_OPCODE_SEND, len, 18, 0, 0, 0), c);
	ck_rx_cqe(c, &rq, len, 0);
	ep_fini(&e);
}
END_TEST

/* The vport's own MAC: permanent_address of QUERY_NIC_VPORT_CONTEXT
 * (0x754), bytes 0x106..0x10b of the outbox (nic_vport_context at 0x10,
 * the address's low 48 bits at its byte 0xf6; mlx5_ifc.h). */
static void vport_mac(struct eth_player *e, uint8_t mac[6])
{
	uint8_t in[0x10] = { 0 }, out[0x110] = { 0 };

	wr16(in, 0x754);
	ck_assert_int_eq(DP_BE->general_cmd(e->dp.ctx, in, sizeof(in), out,
					    sizeof(out)), 0);
	ck_assert_uint_eq(out[0], 0);
	memcpy(mac, out + 0x106, 6);
}

/* A unicast frame to the vport's own MAC from the TIR's own transport
 * domain: kept out while self_lb_block has only the multicast bit (0x2),
 * let in once MODIFY_TIR (0x901: tirn at bytes 0x09..0x0b, bitmask
 * self_lb_en at byte 0x17 0x10, tirc at 0x20 with self_lb_block the low
 * two bits of its byte 0x24; mlx5_ifc.h) gives it the unicast bit
 * (0x1). */
START_TEST(eth_self_lb_unicast)
{
	uint8_t in[0x110] = { 0 }, out[0x10] = { 0 };
	struct mlx5be_obj *tir;
	struct eth_player e;
	uint8_t mac[6], c[64];
	struct ep_rq rq;
	uint32_t tirn, len;

	ep_init(&e);
	vport_mac(&e, mac);
	ck_assert_uint_eq(mac[0] & 1, 0);
	ep_rq_create(&e, &rq, true, 0);
	tir = ep_tir_direct(&e, &rq, 0x2, &tirn);
	ep_rule_dmac(&e, mac, tir, 0, 0);
	ep_post_recv(&e, &rq);
	send_unseen(&e, mac);
	usleep(20000);
	ck_assert(!dp_cq_ready(&e.dp));

	wr16(in, 0x901);
	in[0x09] = tirn >> 16;
	in[0x0a] = tirn >> 8;
	in[0x0b] = tirn;
	in[0x17] = 0x10;
	in[0x20 + 0x24] = 0x1;
	ck_assert_int_eq(DP_BE->obj_modify(tir, in, sizeof(in), out,
					   sizeof(out)), 0);
	len = udp_frame(e.mem, mac, -1, 1, 2, 10, true);
	poll_pair(&e, ep_post_send(&e, MLX5_OPCODE_SEND, len, 18, 0, 0, 0), c);
	ck_rx_cqe(c, &rq, len, 0);
	ep_fini(&e);
}
END_TEST

/* QUERY_VNIC_ENV as an application issues it through DEVX: the 64-bit
 * nic_receive_steering_discard at byte 0x20 of the outbox (vport_env at
 * 0x10, the counter at its byte 0x10; mlx5_ifc.h). */
static uint64_t vnic_steering_discard(struct eth_player *e)
{
	uint8_t in[0x10] = { 0 }, out[0x210] = { 0 };
	uint64_t v;

	wr16(in, MLX5_CMD_OP_QUERY_VNIC_ENV);
	ck_assert_int_eq(DP_BE->general_cmd(e->dp.ctx, in, sizeof(in), out,
					    sizeof(out)), 0);
	ck_assert_uint_eq(out[0], 0);
	memcpy(&v, out + 0x20, 8);
	return be64toh(v);
}

/* Frames that miss every rule are counted as the vport's steering
 * discards (advertised by cmd_hca_cap.nic_receive_steering_discard, bit
 * 0x340); a drop rule's and a self-loopback-blocking TIR's are not. */
START_TEST(eth_steering_discard_vnic_env)
{
	static const uint8_t nowhere[6] = { 0x01, 0x00, 0x5e, 0x7f, 0x00, 0x01 };
	static const uint8_t dropped[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x09 };
	uint8_t in[0x10] = { 0 }, out[0x1010] = { 0 };
	struct eth_player e;
	struct ep_rq rq;
	uint64_t before;
	uint32_t tirn;

	ep_init(&e);
	/* QUERY_HCA_CAP, general, current: the bit in the capability at 0x10. */
	wr16(in, MLX5_CMD_OP_QUERY_HCA_CAP);
	wr16(in + 6, 1);
	ck_assert_int_eq(DP_BE->general_cmd(e.dp.ctx, in, sizeof(in), out,
					    sizeof(out)), 0);
	ck_assert_uint_eq(out[0x10 + 0x68] & 0x80, 0x80);
	ep_rq_create(&e, &rq, true, 0);
	ep_rule_dmac(&e, mcast,
		     ep_tir_direct(&e, &rq, EP_SELF_LB_ALLOW, &tirn), 0, 0);
	ep_rule_dmac(&e, dropped, NULL, 0, 0);
	before = vnic_steering_discard(&e);
	for (int i = 0; i < 3; i++)
		send_unseen(&e, nowhere);
	send_unseen(&e, dropped);
	for (int i = 0; i < 200 && vnic_steering_discard(&e) - before < 3; i++)
		usleep(10000);
	ck_assert_uint_eq(vnic_steering_discard(&e) - before, 3);
	/* other_vport: this function manages no other vport. */
	memset(in, 0, sizeof(in));
	wr16(in, MLX5_CMD_OP_QUERY_VNIC_ENV);
	in[8] = 0x80;
	wr16(in + 10, 1);
	ck_assert_int_ne(DP_BE->general_cmd(e.dp.ctx, in, sizeof(in), out,
					    0x210), 0);
	ep_fini(&e);
}
END_TEST

/* Ethernet (dmac, smac) IPv4 TCP (ACK, PSH) frame with @paylen bytes of
 * payload, both checksums right; its length. */
static uint32_t tcp_frame(uint8_t *f, const uint8_t dmac[6], uint32_t paylen)
{
	uint8_t *ip = f + 14, *tcp = ip + 20;

	memset(f, 0, 54 + paylen);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	wr16(f + 12, 0x0800);
	ip[0] = 0x45;
	wr16(ip + 2, (uint16_t)(40 + paylen));
	ip[8] = 64;
	ip[9] = 6;
	ip[12] = 10, ip[15] = 1, ip[16] = 10, ip[19] = 2;
	wr16(tcp, 4000);
	wr16(tcp + 2, 80);
	tcp[7] = 1;
	tcp[12] = 5 << 4;
	tcp[13] = 0x18;
	wr16(tcp + 14, 1024);
	for (uint32_t i = 0; i < paylen; i++)
		tcp[20 + i] = (uint8_t)(i * 13 + 1);
	wr16(ip + 10, csum(ip, 20, 0));
	wr16(tcp + 16, l4_verify(ip, 6));
	return 54 + paylen;
}

/* The hds_ip_ext L3_OK/L4_OK bits of the receive CQE of a frame at
 * e->mem of @len bytes, sent without checksum offload. */
static uint8_t rx_ok_bits(struct eth_player *e, uint32_t len)
{
	uint8_t c[64];

	poll_pair(e, ep_post_send(e, MLX5_OPCODE_SEND, len, 18, 0, 0, 0), c);
	ck_assert_uint_eq(c[CQE_OP_OWN] >> 4, MLX5_CQE_RESP_SEND);
	return c[CQE_HDS_IP_EXT] & (MLX5_CQE_L3_OK | MLX5_CQE_L4_OK);
}

/* Receive checksum verdicts of frames damaged on the way (the sender
 * offloads nothing): a bad IPv4 header checksum clears L3_OK, a bad TCP
 * or UDP checksum L4_OK; the same frames intact have both. */
START_TEST(eth_rx_checksum_verdicts)
{
	struct eth_player e;
	struct ep_rq rq;
	uint32_t tirn, len;

	ep_init(&e);
	ep_rq_create(&e, &rq, true, 0);
	ep_rule_dmac(&e, mcast,
		     ep_tir_direct(&e, &rq, EP_SELF_LB_ALLOW, &tirn), 0, 0);
	for (int i = 0; i < 6; i++)
		ep_post_recv(&e, &rq);
	len = tcp_frame(e.mem, mcast, 200);
	ck_assert_uint_eq(rx_ok_bits(&e, len), MLX5_CQE_L3_OK | MLX5_CQE_L4_OK);
	/* One payload bit flipped: the TCP checksum no longer holds. */
	e.mem[54 + 77] ^= 0x10;
	ck_assert_uint_eq(rx_ok_bits(&e, len), MLX5_CQE_L3_OK);
	/* A bit of the IPv4 header's TTL flipped: its checksum fails. */
	len = tcp_frame(e.mem, mcast, 200);
	e.mem[14 + 8] ^= 0x01;
	ck_assert_uint_eq(rx_ok_bits(&e, len) & MLX5_CQE_L3_OK, 0);
	len = udp_frame(e.mem, mcast, -1, 5, 6, 64, true);
	ck_assert_uint_eq(rx_ok_bits(&e, len), MLX5_CQE_L3_OK | MLX5_CQE_L4_OK);
	e.mem[len - 1] ^= 0x80;
	ck_assert_uint_eq(rx_ok_bits(&e, len), MLX5_CQE_L3_OK);
	/* A bit of the UDP header (source port) flipped: the same. */
	len = udp_frame(e.mem, mcast, -1, 5, 6, 64, true);
	e.mem[14 + 20 + 1] ^= 0x02;	/* source port */
	ck_assert_uint_eq(rx_ok_bits(&e, len), MLX5_CQE_L3_OK);
	ep_fini(&e);
}
END_TEST

/* out_of_buffer of queue counter set @id, read as mlx5e reads it
 * (QUERY_Q_COUNTER; the counter at byte 0x30 of the outbox). */
static uint32_t q_out_of_buffer(struct mlx5be_obj *qc, uint32_t id)
{
	uint8_t in[0x20] = { 0 }, out[0x100] = { 0 };

	wr16(in, MLX5_CMD_OP_QUERY_Q_COUNTER);
	in[0x1f] = (uint8_t)id;
	ck_assert_int_eq(DP_BE->obj_query(qc, in, sizeof(in), out,
					  sizeof(out)), 0);
	return rd32(out + 0x30);
}

/* A frame for an RQ without a posted receive WQE is dropped and counted
 * in the RQ's queue counter set as out_of_buffer; the WQE posted after
 * it takes the next frame. */
START_TEST(eth_rq_out_of_buffer)
{
	uint8_t in[0x10] = { 0 };
	struct mlx5be_obj *qc;
	struct eth_player e;
	struct ep_rq rq;
	uint32_t tirn, len, id;
	uint8_t c[64];

	ep_init(&e);
	wr16(in, MLX5_CMD_OP_ALLOC_Q_COUNTER);
	id = dp_create(&e.dp, in, sizeof(in), 0x10, 2) & 0xff;
	qc = dp_last_obj;
	ck_assert_uint_ne(id, 0);
	ep_rq_create_counted(&e, &rq, true, 0, id);
	ep_rule_dmac(&e, mcast,
		     ep_tir_direct(&e, &rq, EP_SELF_LB_ALLOW, &tirn), 0, 0);
	ck_assert_uint_eq(q_out_of_buffer(qc, id), 0);
	for (int i = 0; i < 3; i++)
		send_unseen(&e, mcast);
	len = udp_frame(e.mem, mcast, -1, 1, 2, 10, true);
	for (int i = 0; i < 200 && q_out_of_buffer(qc, id) < 3; i++)
		usleep(10000);
	ck_assert_uint_eq(q_out_of_buffer(qc, id), 3);
	ck_assert(!dp_cq_ready(&e.dp));
	ep_post_recv(&e, &rq);
	poll_pair(&e, ep_post_send(&e, MLX5_OPCODE_SEND, len, 18, 0, 0, 0), c);
	ck_rx_cqe(c, &rq, len, 0);
	ck_assert_uint_eq(q_out_of_buffer(qc, id), 3);
	ep_fini(&e);
}
END_TEST

/* A WQE of an opcode an Ethernet SQ does not run: an error CQE (local QP
 * operation error) and the SQ in ERR; the WQEs after it flush. */
START_TEST(eth_bad_wqe_errors_sq)
{
	struct eth_player e;
	const uint8_t *c;
	uint32_t len;

	ep_init(&e);
	len = udp_frame(e.mem, mcast, -1, 1, 2, 10, true);
	ep_post_send(&e, MLX5_OPCODE_RDMA_WRITE, len, 18, 0, 0, 0);
	ep_post_send(&e, MLX5_OPCODE_SEND, len, 18, 0, 0, 0);
	c = poll_one(&e);
	ck_assert_uint_eq(c[CQE_OP_OWN] >> 4, MLX5_CQE_REQ_ERR);
	ck_assert_uint_eq(c[0x37], MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	c = poll_one(&e);
	ck_assert_uint_eq(c[CQE_OP_OWN] >> 4, MLX5_CQE_REQ_ERR);
	ck_assert_uint_eq(c[0x37], MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
	ck_assert_uint_eq(ep_sq_state(&e), MLX5_SQC_STATE_ERR);
	ep_fini(&e);
}
END_TEST

/*
 * Random WQEs (any opcode, DS count, Ethernet segment and data segments,
 * inline lengths past the WQE, lkeys and addresses that lead nowhere):
 * each completes, with success or an error CQE that stops the SQ, which
 * is then reset; nothing else happens (ASan and UBSan watch the engine),
 * and a good frame still goes through at the end.
 */
START_TEST(eth_random_wqes)
{
	static const uint8_t ops[] = { MLX5_OPCODE_SEND, MLX5_OPCODE_TSO,
				       MLX5_OPCODE_NOP, 0x29, 0x08, 0xff };
	struct eth_player e;
	struct ep_rq rq;
	unsigned int seed = 12345, errors = 0;
	uint32_t tirn, len;
	uint8_t c[64];

	ep_init(&e);
	ep_rq_create(&e, &rq, true, 0);
	ep_rule_dmac(&e, mcast,
		     ep_tir_direct(&e, &rq, EP_SELF_LB_ALLOW, &tirn), 0, 0);
	udp_frame(e.mem, mcast, -1, 1, 2, 1000, true);
	for (int i = 0; i < 300; i++) {
		uint8_t w[256];
		unsigned int ds = 1 + rand_r(&seed) % 16, nbb = (ds * 16 + 63) / 64;
		const uint8_t *q;
		uint32_t v;

		for (size_t k = 0; k < sizeof(w); k++)
			w[k] = (uint8_t)rand_r(&seed);
		v = htobe32((uint32_t)e.sq_pi << 8 | ops[rand_r(&seed) % sizeof(ops)]);
		memcpy(w, &v, 4);
		v = htobe32(e.sqn << 8 | ds);
		memcpy(w + 4, &v, 4);
		w[11] = MLX5_WQE_CTRL_CQ_UPDATE;
		if (i % 3 == 0) {
			/* a data segment into the registered memory */
			uint64_t a = htobe64((uint64_t)(uintptr_t)e.mem +
					     rand_r(&seed) % 2048);

			v = htobe32(e.lkey);
			memcpy(w + 36, &v, 4);
			memcpy(w + 40, &a, 8);
			w[32] = w[33] = 0;
		}
		ep_post_raw(&e, w, nbb);
		q = poll_one(&e);
		if (q[CQE_OP_OWN] >> 4 == MLX5_CQE_REQ_ERR) {
			errors++;
			ck_assert_uint_eq(ep_sq_state(&e), MLX5_SQC_STATE_ERR);
			ep_sq_reset(&e);
		} else {
			ck_assert_uint_eq(q[CQE_OP_OWN] >> 4, MLX5_CQE_REQ);
		}
		/* Frames that reached the RQ took no WQE: none was posted. */
	}
	ck_assert_uint_gt(errors, 0);
	ep_post_recv(&e, &rq);
	len = udp_frame(e.mem, mcast, -1, 1, 2, 10, true);
	poll_pair(&e, ep_post_send(&e, MLX5_OPCODE_SEND, len, 18, 0, 0, 0), c);
	ck_rx_cqe(c, &rq, len, 0);
	ep_fini(&e);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("eng_eth");
	TCase *tc = tcase_create("eth");

	tcase_add_test(tc, eth_loopback_udp);
	tcase_add_test(tc, eth_checksums);
	tcase_add_test(tc, eth_vlan_insert_strip);
	tcase_add_test(tc, eth_tso_segments);
	tcase_add_test(tc, eth_rss_toeplitz);
	tcase_add_test(tc, eth_steering_and_self_lb);
	tcase_add_test(tc, eth_self_lb_unicast);
	tcase_add_test(tc, eth_steering_discard_vnic_env);
	tcase_add_test(tc, eth_rx_checksum_verdicts);
	tcase_add_test(tc, eth_rq_out_of_buffer);
	tcase_add_test(tc, eth_bad_wqe_errors_sq);
	tcase_add_test(tc, eth_random_wqes);
	suite_add_tcase(s, tc);
	return ut_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
