/* SPDX-License-Identifier: MIT */
/*
 * eth_probe: a DEVX-only program, as a DPDK-style packet application drives
 * a ConnectX: PD, mkey, CQ, transport domain, TIS, SQ, RQ, TIR and a NIC RX
 * flow table of its own are PRM commands (mlx5dv_devx_obj_create); its
 * table hangs below the kernel's root through mlx5dv_create_flow; frames go
 * out as WQEs it writes itself (Ethernet segment, inline headers, checksum
 * offload, TSO) and come back in CQEs it reads itself.
 *
 *   eth_probe udp  DST_IP DST_MAC DPORT COUNT [bad]
 *   eth_probe tso  DST_IP DST_MAC DPORT LEN MSS
 *   eth_probe recv COUNT
 *
 * udp: COUNT UDP datagrams "eth udp <n>" to DST_IP:DPORT from port 40000,
 * checksums left to the device (cs_flags L3|L4); "bad": no offload and a
 * wrong UDP checksum.  tso: one TSO WQE of LEN payload bytes at MSS to a
 * TCP port, then every TCP segment from DST_IP that comes back is counted
 * ("rst <n>" for RSTs).  recv: COUNT frames for this port's MAC, each
 * printed with the CQE's byte count, header types and checksum-ok bits.
 * Prints "mac <own MAC>" first, "ready" once its queues and rule exist.  Exit 0 when all went as asked, 1 else.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"

#include "probe_frames.h"


#define MEM (256 * 1024)
#define RX_OFF (128 * 1024)
#define RX_BUF 2048
#define LOG_SQ 6
#define LOG_RQ 5
#define LOG_CQ 7

struct probe {
	struct ibv_context *ctx;
	uint32_t pd, td, tis, sq, rq, tir, cqn, lkey, eqn, ci;
	struct mlx5dv_devx_uar *uar;
	uint8_t *mem, *sqb, *rqb, *cq;
	uint32_t *sq_dbr, *rq_dbr, *cq_dbr;
	uint16_t sq_pi, rq_pi;
	struct mlx5dv_devx_obj *sq_obj, *rq_obj, *tir_obj, *ft_obj;
	uint8_t mac[6];
};

static void die(const char *what)
{
	fprintf(stderr, "eth_probe: %s failed\n", what);
	exit(1);
}

static void *page(size_t n)
{
	void *p = aligned_alloc(4096, (n + 4095) & ~(size_t)4095);

	if (!p)
		die("alloc");
	memset(p, 0, n);
	return p;
}

static uint32_t umem(struct probe *p, void *addr, size_t len)
{
	struct mlx5dv_devx_umem *u =
		mlx5dv_devx_umem_reg(p->ctx, addr, len, IBV_ACCESS_LOCAL_WRITE);

	if (!u)
		die("umem_reg");
	return u->umem_id;
}

/* A DEVX object; the id at outbox dword 2, as every create answers. */
static struct mlx5dv_devx_obj *create(struct probe *p, const void *in,
				      size_t inlen, uint32_t *id)
{
	uint32_t out[16] = { 0 };
	struct mlx5dv_devx_obj *o =
		mlx5dv_devx_obj_create(p->ctx, in, inlen, out, sizeof(out));

	if (!o)
		die("obj_create");
	*id = be32toh(out[2]) & 0xffffff;
	return o;
}

static void wq(struct probe *p, void *w, void *ring, size_t len,
	       uint32_t *dbr, unsigned int log_stride, unsigned int log_sz)
{
	PRM_SET(wq, w, wq_type, MLX5_WQ_TYPE_CYCLIC);
	PRM_SET(wq, w, pd, p->pd);
	PRM_SET(wq, w, log_wq_stride, log_stride);
	PRM_SET(wq, w, log_wq_sz, log_sz);
	PRM_SET(wq, w, dbr_umem_valid, 1);
	PRM_SET(wq, w, dbr_umem_id, umem(p, dbr, 8));
	PRM_SET(wq, w, wq_umem_valid, 1);
	PRM_SET(wq, w, wq_umem_id, umem(p, ring, len));
}

static void to_rdy(struct mlx5dv_devx_obj *o, uint16_t opcode, uint32_t id)
{
	uint8_t in[PRM_ST_SZ_BYTES(modify_sq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(modify_sq_out)] = { 0 };

	/* MODIFY_SQ and MODIFY_RQ: state fields at the same offsets. */
	PRM_SET(modify_sq_in, in, opcode, opcode);
	PRM_SET(modify_sq_in, in, sq_state, MLX5_SQC_STATE_RST);
	PRM_SET(modify_sq_in, in, sqn, id);
	PRM_SET(sqc, PRM_ADDR_OF(modify_sq_in, in, ctx), state,
		MLX5_SQC_STATE_RDY);
	if (mlx5dv_devx_obj_modify(o, in, sizeof(in), out, sizeof(out)))
		die("modify to RDY");
}

static void own_mac(struct probe *p)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_nic_vport_context_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_nic_vport_context_out)] = { 0 };
	const uint8_t *a;

	PRM_SET(query_nic_vport_context_in, in, opcode,
		MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
	if (mlx5dv_devx_general_cmd(p->ctx, in, sizeof(in), out, sizeof(out)))
		die("QUERY_NIC_VPORT_CONTEXT");
	/* mac_address_layout: the MAC in its last 6 of 8 bytes. */
	a = PRM_ADDR_OF(query_nic_vport_context_out, out,
			nic_vport_context.permanent_address);
	memcpy(p->mac, a + 2, 6);
}

static void setup_objects(struct probe *p)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_sq_in)];
	void *c;

	memset(in, 0, sizeof(in));
	PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	create(p, in, PRM_ST_SZ_BYTES(alloc_pd_in), &p->pd);
	memset(in, 0, sizeof(in));
	PRM_SET(alloc_transport_domain_in, in, opcode,
		MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN);
	create(p, in, PRM_ST_SZ_BYTES(alloc_transport_domain_in), &p->td);
	p->mem = page(MEM);
	memset(in, 0, sizeof(in));
	PRM_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	c = PRM_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	PRM_SET(mkc, c, access_mode_1_0, MLX5_MKC_ACCESS_MODE_MTT);
	PRM_SET(mkc, c, lr, 1);
	PRM_SET(mkc, c, lw, 1);
	PRM_SET(mkc, c, qpn, 0xffffff);
	PRM_SET(mkc, c, pd, p->pd);
	PRM_SET(mkc, c, mkey_7_0, 0x33);
	PRM_SET64(mkc, c, start_addr, (uint64_t)(uintptr_t)p->mem);
	PRM_SET64(mkc, c, len, MEM);
	PRM_SET(create_mkey_in, in, mkey_umem_valid, 1);
	PRM_SET(create_mkey_in, in, mkey_umem_id, umem(p, p->mem, MEM));
	create(p, in, PRM_ST_SZ_BYTES(create_mkey_in), &p->lkey);
	p->lkey = p->lkey << 8 | 0x33;
	/* CQ */
	p->uar = mlx5dv_devx_alloc_uar(p->ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	if (!p->uar || mlx5dv_devx_query_eqn(p->ctx, 0, &p->eqn))
		die("uar/eqn");
	p->cq = page(64 << LOG_CQ);
	for (unsigned int i = 0; i < (1u << LOG_CQ); i++)
		p->cq[64 * i + 63] = MLX5_CQE_INVALID << 4 | 1;
	p->cq_dbr = page(8);
	memset(in, 0, sizeof(in));
	PRM_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	c = PRM_ADDR_OF(create_cq_in, in, cq_context);
	PRM_SET(cqc, c, dbr_umem_valid, 1);
	PRM_SET(cqc, c, dbr_umem_id, umem(p, p->cq_dbr, 8));
	PRM_SET(cqc, c, log_cq_size, LOG_CQ);
	PRM_SET(cqc, c, uar_page, p->uar->page_id);
	PRM_SET(cqc, c, c_eqn, p->eqn);
	PRM_SET(create_cq_in, in, cq_umem_id, umem(p, p->cq, 64 << LOG_CQ));
	PRM_SET(create_cq_in, in, cq_umem_valid, 1);
	create(p, in, PRM_ST_SZ_BYTES(create_cq_in), &p->cqn);
	/* TIS, SQ */
	memset(in, 0, sizeof(in));
	PRM_SET(create_tis_in, in, opcode, MLX5_CMD_OP_CREATE_TIS);
	PRM_SET(tisc, PRM_ADDR_OF(create_tis_in, in, ctx), transport_domain,
		p->td);
	create(p, in, PRM_ST_SZ_BYTES(create_tis_in), &p->tis);
	p->sqb = page(64 << LOG_SQ);
	p->sq_dbr = page(8);
	memset(in, 0, sizeof(in));
	PRM_SET(create_sq_in, in, opcode, MLX5_CMD_OP_CREATE_SQ);
	c = PRM_ADDR_OF(create_sq_in, in, ctx);
	PRM_SET(sqc, c, cqn, p->cqn);
	PRM_SET(sqc, c, tis_lst_sz, 1);
	PRM_SET(sqc, c, tis_num_0, p->tis);
	PRM_SET(sqc, c, flush_in_error_en, 1);
	wq(p, PRM_ADDR_OF(sqc, c, wq), p->sqb, 64 << LOG_SQ, p->sq_dbr, 6,
	   LOG_SQ);
	PRM_SET(wq, PRM_ADDR_OF(sqc, c, wq), uar_page, p->uar->page_id);
	p->sq_obj = create(p, in, PRM_ST_SZ_BYTES(create_sq_in), &p->sq);
	to_rdy(p->sq_obj, MLX5_CMD_OP_MODIFY_SQ, p->sq);
	/* RQ, TIR */
	p->rqb = page(16 << LOG_RQ);
	p->rq_dbr = page(8);
	memset(in, 0, sizeof(in));
	PRM_SET(create_rq_in, in, opcode, MLX5_CMD_OP_CREATE_RQ);
	c = PRM_ADDR_OF(create_rq_in, in, ctx);
	PRM_SET(rqc, c, vsd, 1);
	PRM_SET(rqc, c, cqn, p->cqn);
	PRM_SET(rqc, c, flush_in_error_en, 1);
	wq(p, PRM_ADDR_OF(rqc, c, wq), p->rqb, 16 << LOG_RQ, p->rq_dbr, 4,
	   LOG_RQ);
	p->rq_obj = create(p, in, PRM_ST_SZ_BYTES(create_rq_in), &p->rq);
	to_rdy(p->rq_obj, MLX5_CMD_OP_MODIFY_RQ, p->rq);
	memset(in, 0, sizeof(in));
	PRM_SET(create_tir_in, in, opcode, MLX5_CMD_OP_CREATE_TIR);
	c = PRM_ADDR_OF(create_tir_in, in, ctx);
	PRM_SET(tirc, c, disp_type, MLX5_TIRC_DISP_TYPE_DIRECT);
	PRM_SET(tirc, c, inline_rqn, p->rq);
	PRM_SET(tirc, c, transport_domain, p->td);
	p->tir_obj = create(p, in, PRM_ST_SZ_BYTES(create_tir_in), &p->tir);
}

/* Our own NIC RX table (level 1): every frame for our MAC to the TIR;
 * hooked below the kernel's root by mlx5dv_create_flow. */
static void setup_steering(struct probe *p)
{
	uint8_t *in = calloc(1, PRM_ST_SZ_BYTES(set_fte_in) + 16);
	struct mlx5dv_flow_match_parameters *mm, *mv;
	struct mlx5dv_flow_matcher_attr ma = { 0 };
	struct mlx5dv_flow_action_attr act = { 0 };
	struct mlx5dv_flow_matcher *matcher;
	size_t msz = PRM_ST_SZ_BYTES(fte_match_param);
	uint32_t ft, fg;
	void *c, *d;

	if (!in)
		die("alloc");
	PRM_SET(create_flow_table_in, in, opcode, MLX5_CMD_OP_CREATE_FLOW_TABLE);
	PRM_SET(create_flow_table_in, in, table_type, MLX5_FLOW_TABLE_TYPE_NIC_RX);
	c = PRM_ADDR_OF(create_flow_table_in, in, flow_table_context);
	PRM_SET(flow_table_context, c, level, 1);
	PRM_SET(flow_table_context, c, log_size, 4);
	p->ft_obj = create(p, in, PRM_ST_SZ_BYTES(create_flow_table_in), &ft);
	free(in);
	in = calloc(1, PRM_ST_SZ_BYTES(create_flow_group_in));
	if (!in)
		die("alloc");
	PRM_SET(create_flow_group_in, in, opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
	PRM_SET(create_flow_group_in, in, table_type, MLX5_FLOW_TABLE_TYPE_NIC_RX);
	PRM_SET(create_flow_group_in, in, table_id, ft);
	PRM_SET(create_flow_group_in, in, start_flow_index, 0);
	PRM_SET(create_flow_group_in, in, end_flow_index, 0);
	create(p, in, PRM_ST_SZ_BYTES(create_flow_group_in), &fg);
	free(in);
	in = calloc(1, PRM_ST_SZ_BYTES(set_fte_in) + 8);
	if (!in)
		die("alloc");
	PRM_SET(set_fte_in, in, opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
	PRM_SET(set_fte_in, in, table_type, MLX5_FLOW_TABLE_TYPE_NIC_RX);
	PRM_SET(set_fte_in, in, table_id, ft);
	c = PRM_ADDR_OF(set_fte_in, in, flow_context);
	PRM_SET(flow_context, c, group_id, fg);
	PRM_SET(flow_context, c, action, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST);
	PRM_SET(flow_context, c, destination_list_size, 1);
	d = PRM_ADDR_OF(flow_context, c, destination);
	PRM_SET(dest_format_struct, d, destination_type,
		MLX5_IFC_FLOW_DESTINATION_TYPE_TIR);
	PRM_SET(dest_format_struct, d, destination_id, p->tir);
	create(p, in, PRM_ST_SZ_BYTES(set_fte_in) + 8, &fg);
	free(in);
	/* The root's rule: dmac = ours, to our table. */
	mm = calloc(1, sizeof(*mm) + msz);
	mv = calloc(1, sizeof(*mv) + msz);
	if (!mm || !mv)
		die("alloc");
	mm->match_sz = mv->match_sz = msz;
	memset(PRM_ADDR_OF(fte_match_param, mm->match_buf,
			   outer_headers.dmac_47_16), 0xff, 6);
	memcpy(PRM_ADDR_OF(fte_match_param, mv->match_buf,
			   outer_headers.dmac_47_16), p->mac, 6);
	ma.type = IBV_FLOW_ATTR_NORMAL;
	ma.match_criteria_enable = MLX5_MATCH_OUTER_HEADERS;
	ma.match_mask = mm;
	matcher = mlx5dv_create_flow_matcher(p->ctx, &ma);
	if (!matcher)
		die("mlx5dv_create_flow_matcher");
	act.type = MLX5DV_FLOW_ACTION_DEST_DEVX;
	act.obj = p->ft_obj;
	if (!mlx5dv_create_flow(matcher, mv, 1, &act))
		die("mlx5dv_create_flow");
}

static void post_recv(struct probe *p)
{
	uint8_t *w = p->rqb + 16 * (p->rq_pi & ((1u << LOG_RQ) - 1));
	uint64_t a = htobe64((uint64_t)(uintptr_t)(p->mem + RX_OFF +
			     RX_BUF * (p->rq_pi & ((1u << LOG_RQ) - 1))));
	uint32_t v = htobe32(RX_BUF);

	memcpy(w, &v, 4);
	v = htobe32(p->lkey);
	memcpy(w + 4, &v, 4);
	memcpy(w + 8, &a, 8);
	p->rq_pi++;
	__atomic_store_n(&p->rq_dbr[0], htobe32(p->rq_pi), __ATOMIC_RELEASE);
}

/* Send the frame at p->mem: its 18 first bytes inline, the rest by a data
 * segment; cs_flags, TSO's mss (0: SEND). */
static void post_send(struct probe *p, uint32_t len, uint32_t inl,
		      uint8_t cs, uint16_t mss)
{
	uint8_t w[128] = { 0 };
	unsigned int eseg = 16 + ((inl - 2 + 15) & ~15u);
	unsigned int ds = (16 + eseg + 16) / 16, nbb = (ds * 16 + 63) / 64;
	uint32_t v;
	uint64_t a;

	v = htobe32((uint32_t)p->sq_pi << 8 |
		    (mss ? MLX5_OPCODE_TSO : MLX5_OPCODE_SEND));
	memcpy(w, &v, 4);
	v = htobe32(p->sq << 8 | ds);
	memcpy(w + 4, &v, 4);
	w[11] = MLX5_WQE_CTRL_CQ_UPDATE;
	w[20] = cs;
	w[22] = (uint8_t)(mss >> 8);
	w[23] = (uint8_t)mss;
	w[28] = (uint8_t)(inl >> 8);
	w[29] = (uint8_t)inl;
	memcpy(w + 30, p->mem, inl);
	v = htobe32(len - inl);
	memcpy(w + 16 + eseg, &v, 4);
	v = htobe32(p->lkey);
	memcpy(w + 16 + eseg + 4, &v, 4);
	a = htobe64((uint64_t)(uintptr_t)(p->mem + inl));
	memcpy(w + 16 + eseg + 8, &a, 8);
	for (unsigned int b = 0; b < nbb; b++)
		memcpy(p->sqb + 64 * ((p->sq_pi + b) & ((1u << LOG_SQ) - 1)),
		       w + 64 * b, 64);
	p->sq_pi = (uint16_t)(p->sq_pi + nbb);
	__atomic_store_n(&p->sq_dbr[1], htobe32(p->sq_pi), __ATOMIC_RELEASE);
	/* The doorbell: the control segment's first 8 bytes to the UAR. */
	memcpy(&a, w, 8);
	__atomic_store_n((uint64_t *)((uint8_t *)p->uar->reg_addr), a,
			 __ATOMIC_RELEASE);
}

/* The next CQE within secs, consumed; NULL if none. */
static const uint8_t *poll_cq(struct probe *p, double secs)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		uint8_t *c = p->cq + 64 * (p->ci & ((1u << LOG_CQ) - 1));
		uint8_t own = __atomic_load_n(&c[63], __ATOMIC_ACQUIRE);

		if ((own >> 4) != MLX5_CQE_INVALID &&
		    (own & 1) == ((p->ci >> LOG_CQ) & 1)) {
			p->ci++;
			__atomic_store_n(&p->cq_dbr[0], htobe32(p->ci & 0xffffff),
					 __ATOMIC_RELEASE);
			return c;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((double)(t.tv_sec - t0.tv_sec) +
		    (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 > secs)
			return NULL;
	}
}

/* Ethernet and IPv4 from this port's MAC; the IP header. */
static uint8_t *l2l3(struct probe *p, const uint8_t dmac[6], const char *dst,
		     uint8_t proto, uint16_t l4len)
{
	return probe_l2l3(p->mem, dmac, p->mac, dst, proto, l4len, 0x4242);
}

static int cmd_udp(struct probe *p, const char *dst, const uint8_t dmac[6],
		   uint16_t dport, int count, bool bad)
{
	for (int i = 0; i < count; i++) {
		char msg[32];
		int n = snprintf(msg, sizeof(msg), "eth udp %d", i);
		uint8_t *ip = l2l3(p, dmac, dst, 17, (uint16_t)(8 + n)), *u = ip + 20;
		const uint8_t *c;

		probe_wr16(u, 40000);
		probe_wr16(u + 2, dport);
		probe_wr16(u + 4, (uint16_t)(8 + n));
		memcpy(u + 8, msg, (size_t)n);
		if (bad) {
			/* The IP header right, the UDP checksum wrong. */
			probe_ip_csum(ip);
			probe_wr16(u + 6, 0x1234);
		}
		post_send(p, 14 + 20 + 8 + (uint32_t)n, 18,
			  bad ? 0 : MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM,
			  0);
		c = poll_cq(p, 5);
		if (!c || (c[63] >> 4) != MLX5_CQE_REQ) {
			printf("send %d did not complete\n", i);
			return 1;
		}
		printf("sent %d\n", i);
	}
	return 0;
}

/* Print one received frame and its CQE; whether it is a TCP RST. */
static bool show_rx(struct probe *p, const uint8_t *c, unsigned int idx)
{
	const uint8_t *f = p->mem + RX_OFF + RX_BUF * (idx & ((1u << LOG_RQ) - 1));
	uint32_t len = be32toh(*(const uint32_t *)(const void *)(c + 0x2c));
	uint8_t l4l3 = c[0x1d], ok = c[0x1c];
	bool rst = len >= 54 && f[23] == 6 && (f[47] & 0x04);

	printf("frame len %u proto %u l3_type %u l4_type %u l3_ok %u l4_ok %u%s\n",
	       len, len >= 34 ? f[23] : 0, (l4l3 >> 2) & 3, (l4l3 >> 4) & 7,
	       !!(ok & MLX5_CQE_L3_OK), !!(ok & MLX5_CQE_L4_OK),
	       rst ? " rst" : "");
	return rst;
}

static int cmd_recv(struct probe *p, int count)
{
	for (int i = 0; i < count; i++) {
		const uint8_t *c = poll_cq(p, 10);

		if (!c || (c[63] >> 4) != MLX5_CQE_RESP_SEND) {
			printf("no frame %d\n", i);
			return 1;
		}
		show_rx(p, c, be16toh(*(const uint16_t *)(const void *)(c + 0x3c)));
	}
	return 0;
}

static int cmd_tso(struct probe *p, const char *dst, const uint8_t dmac[6],
		   uint16_t dport, uint32_t len, uint16_t mss)
{
	uint8_t *ip = l2l3(p, dmac, dst, 6, (uint16_t)(20 + len)), *t = ip + 20;
	unsigned int segs = (len + mss - 1) / mss, rsts = 0;
	const uint8_t *c;

	probe_tcp_psh(t, dport, len);	/* a closed port answers RST */
	post_send(p, 54 + len, 54, 0, mss);
	c = poll_cq(p, 5);
	if (!c || (c[63] >> 4) != MLX5_CQE_REQ) {
		printf("the TSO WQE did not complete\n");
		return 1;
	}
	for (unsigned int i = 0; i < segs; i++) {
		c = poll_cq(p, 10);
		if (!c)
			break;
		if ((c[63] >> 4) == MLX5_CQE_RESP_SEND &&
		    show_rx(p, c, be16toh(*(const uint16_t *)(const void *)(c + 0x3c))))
			rsts++;
	}
	printf("rst %u of %u segments\n", rsts, segs);
	return rsts == segs ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list;
	struct probe p = { 0 };
	uint8_t dmac[6];

	if (argc < 3)
		die("usage");
	list = ibv_get_device_list(NULL);
	if (!list || !list[0])
		die("ibv_get_device_list");
	p.ctx = mlx5dv_open_device(list[0], &attr);
	if (!p.ctx)
		die("mlx5dv_open_device");
	own_mac(&p);
	printf("mac %02x:%02x:%02x:%02x:%02x:%02x\n", p.mac[0], p.mac[1],
	       p.mac[2], p.mac[3], p.mac[4], p.mac[5]);
	setup_objects(&p);
	setup_steering(&p);
	for (int i = 0; i < (1 << LOG_RQ); i++)
		post_recv(&p);
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
