/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_eth_rx.c -- a frame enters a vport: NIC receive steering,
 * the TIR, RSS, the RQ's WQE, the CQE.
 *
 * The frame is parsed once (emu/eth) into the fte_match_param the
 * firmware's steering compares (emu_fw_steer_lookup, from the vport's NIC
 * RX root down the tables); a frame no entry forwards is dropped and
 * counted by the vport.  Each destination TIR takes it unless it comes
 * from an SQ of the TIR's own transport domain and the TIR does not allow
 * self loopback of its kind: tirc.self_lb_block's unicast and multicast
 * bits, whatever their PRM names say, are what let such frames in (mlx5e
 * sets them to receive its own frames in its loopback self test and
 * clears them to filter its own traffic; mlx5_ib sets them for
 * MLX5_QP_FLAG_TIR_ALLOW_SELF_LB_UC/MC).  A direct TIR
 * has one RQ; an indirect one hashes the headers its selector names
 * (Toeplitz or XOR, emu/eth) and takes the RQ the RQT holds at
 * hash mod size.
 *
 * In the RQ: the next WQE of its cyclic ring (none: the frame is dropped
 * and the RQ's queue counter counts out_of_buffer), VLAN stripping unless
 * the RQ disables it (rqc.vsd), the frame scattered through the RQ's PD's
 * mkeys, and a responder CQE with the fields a ConnectX fills for
 * Ethernet: byte count, header types and checksum-ok bits, the stripped
 * TCI, the RSS hash and its type, the flow tag, the timestamp.  A frame
 * longer than the WQE's buffers, or a buffer the WQE may not write, is an
 * error CQE and moves the RQ to ERR, as DPDK's mlx5 PMD expects (it resets
 * the RQ after such a CQE); an RQ in ERR flushes what it holds when it
 * was created with flush_in_error_en.
 */
#include <string.h>

#include "emu/engine/eng_int.h"
#include "emu/eth/eth.h"

/* Toeplitz tables of the keys in use (most devices use one key). */
#define ENG_TZ_CACHE 4

struct eng_tz_slot {
	bool valid;
	uint8_t key[EMU_ETH_RSS_KEY_LEN];
	struct emu_eth_toeplitz tz;
};

/* Run lock: the frame being received and its parse. */
static struct {
	struct emu_eth_pkt pkt;
	uint8_t match[EMU_FW_MATCH_BYTES];
	uint8_t stripped[ENG_ETH_FRAME_MAX];
	struct eng_tz_slot tz[ENG_TZ_CACHE];
	unsigned int tz_next;
} eng_rx;

static const struct emu_eth_toeplitz *eng_eth_tz(const uint8_t *key)
{
	struct eng_tz_slot *s;

	for (unsigned int i = 0; i < ENG_TZ_CACHE; i++)
		if (eng_rx.tz[i].valid &&
		    !memcmp(eng_rx.tz[i].key, key, EMU_ETH_RSS_KEY_LEN))
			return &eng_rx.tz[i].tz;
	s = &eng_rx.tz[eng_rx.tz_next++ % ENG_TZ_CACHE];
	memcpy(s->key, key, EMU_ETH_RSS_KEY_LEN);
	emu_eth_toeplitz_init(&s->tz, key);
	s->valid = true;
	return &s->tz;
}

/* The RQ an indirect TIR's hash picks, with the hash for the CQE. */
static struct emu_fw_rq *eng_eth_rss(const struct emu_fw_tir *tir,
				     const uint8_t *f,
				     struct emu_eth_rss_res *rss)
{
	const struct emu_fw_tir_hash *h = atomic_load(&tir->hash);
	const struct emu_fw_rqt_list *l = atomic_load(&tir->rqt->list);
	bool inner = eng_rx.pkt.tunneled && tir->tunneled_offload_en;
	const struct emu_fw_hash_sel *sel;
	struct emu_eth_rss_cfg cfg;

	memset(rss, 0, sizeof(*rss));
	if (!l || !l->size)
		return NULL;
	if (!h)
		return l->rq[0];
	sel = inner ? &h->inner : &h->outer;
	cfg = (struct emu_eth_rss_cfg){
		.fn = h->fn,
		.symmetric = h->symmetric,
		.inner = inner,
		.l3_prot_type = sel->l3_prot_type,
		.l4_prot_type = sel->l4_prot_type,
		.fields = sel->selected_fields,
		.tz = h->fn == MLX5_RX_HASH_FN_TOEPLITZ ? eng_eth_tz(h->key) : NULL,
	};
	emu_eth_rss_hash(f, &eng_rx.pkt, &cfg, rss);
	return l->rq[rss->hash % l->size];
}

/* A responder error CQE of the RQ for its WQE @idx. */
static void eng_eth_rq_err_cqe(struct emu_fw_rq *rq, uint16_t idx,
			       enum eng_synd_id id)
{
	const struct eng_synd *sy = eng_synd(id);
	struct eng_cqe c = {
		.opcode = MLX5_CQE_RESP_ERR,
		.syndrome = sy->syndrome,
		.vendor = sy->vendor,
		.qpn = rq->obj.id,
		.wqe_counter = idx,
		.srqn_uidx = rq->user_index,
	};

	(void)eng_cqe_write(rq->cq, &c);
}

/* A receive error: the RQ to ERR, then its CQE (an application that
 * polls the error CQE and queries the RQ sees ERR), flushed if it
 * flushes. */
static void eng_eth_rq_fail(struct emu_fw_rq *rq, uint16_t idx,
			    enum eng_synd_id id)
{
	bool moved = !emu_fw_rq_set_error(rq);

	eng_eth_rq_err_cqe(rq, idx, id);
	if (moved)
		eng_eth_rq_flush(rq);
}

static void eng_eth_rq_count(struct emu_fw_rq *rq, enum emu_fw_q_cnt which)
{
	struct emu_fw_q_counter *qc = atomic_load(&rq->counter);

	if (qc)
		emu_fw_q_counter_add(qc, which, 1);
}

/* One frame into one RQ. */
static void eng_eth_rq_rx(struct eng_dev *dev, struct emu_fw_rq *rq,
			  const uint8_t *f, uint32_t len,
			  const struct emu_eth_rss_res *rss, uint32_t flow_tag)
{
	struct eng_cqe_eth eth = { .rss = rss, .flow_tag = flow_tag };
	struct eng_cqe c = {
		.opcode = MLX5_CQE_RESP_SEND,
		.qpn = rq->obj.id,
		.srqn_uidx = rq->user_index,
		.ts_format = rq->ts_format,
		.eth = &eth,
	};
	bool src_fault = false;
	enum eng_mr_res mr;
	struct eng_rwqe r;
	struct eng_pkt pkt;

	if (emu_fw_rq_state(rq) != MLX5_RQC_STATE_RDY)
		return;
	if (eng_recv_cyclic(&rq->ring, &rq->dbr, &rq->hw.head, &r) !=
	    ENG_RECV_OK) {
		eng_eth_rq_count(rq, EMU_FW_QCNT_OUT_OF_BUFFER);
		return;
	}
	atomic_fetch_add(&rq->hw.consumed, 1);
	emu_eth_cqe_classify(f, &eng_rx.pkt, &eth.info);
	if (!atomic_load(&rq->vsd) && eng_rx.pkt.outer.nvlan &&
	    eng_rx.pkt.outer.vlan_tpid[0] == EMU_ETH_TPID_CVLAN &&
	    len <= sizeof(eng_rx.stripped)) {
		size_t n = len;

		memcpy(eng_rx.stripped, f, len);
		eth.stripped = emu_eth_vlan_strip(eng_rx.stripped, &n,
						  &eth.tci);
		f = eng_rx.stripped;
		len = (uint32_t)n;
	}
	ENG_PKT_CLEAR(&pkt);
	pkt.pay = ENG_PAY_BUF;
	pkt.buf = f;
	pkt.len = len;
	mr = eng_mr_scatter(dev->fw, rq->obj.id, rq->pd, r.sge, r.nsge, 0,
			    &pkt, &src_fault);
	if (mr != ENG_MR_OK) {
		eng_eth_rq_fail(rq, r.idx, mr == ENG_MR_LEN ?
				ENG_SYND_LOCAL_LENGTH : ENG_SYND_LOCAL_PROT);
		return;
	}
	c.wqe_counter = r.idx;
	c.byte_cnt = len;
	(void)eng_cqe_write(rq->cq, &c);
}

/* A TIR's share of a frame. */
static void eng_eth_tir_rx(struct eng_dev *dev, const struct emu_fw_tir *tir,
			   const uint8_t *f, uint32_t len, uint32_t flow_tag,
			   const struct eng_eth_src *src)
{
	struct emu_eth_rss_res rss, *rp = NULL;
	struct emu_fw_rq *rq;

	/* The sender's own transport domain (0 is none): in only where the
	 * TIR allows self loopback of the frame's kind. */
	if (src && tir->td && src->td == tir->td &&
	    !(atomic_load(&tir->self_lb_block) &
	      (f[0] & 1 ? MLX5_TIRC_SELF_LB_BLOCK_BLOCK_MULTICAST :
			  MLX5_TIRC_SELF_LB_BLOCK_BLOCK_UNICAST)))
		return;
	if (tir->disp_type == MLX5_TIRC_DISP_TYPE_INDIRECT) {
		rq = eng_eth_rss(tir, f, &rss);
		rp = &rss;
	} else {
		rq = tir->rq;
	}
	if (rq)
		eng_eth_rq_rx(dev, rq, f, len, rp, flow_tag);
}

bool eng_eth_rx(struct eng_dev *dev, unsigned int port, const uint8_t *f,
		uint32_t len, const struct eng_eth_src *src)
{
	struct emu_fw_steer_res res;

	if (emu_eth_parse(f, len, &eng_rx.pkt))
		return false;
	emu_eth_fill_match(f, &eng_rx.pkt, eng_rx.match);
	if (emu_fw_steer_lookup(dev->fw, 0, MLX5_FLOW_TABLE_TYPE_NIC_RX,
				eng_rx.match, len, &res))
		return false;
	if (res.action != EMU_FW_STEER_FWD) {
		if (res.action == EMU_FW_STEER_NONE)
			emu_fw_vport_rx_discard(dev->fw, port);
		return res.action != EMU_FW_STEER_NONE;
	}
	for (unsigned int i = 0; i < res.n_dest; i++) {
		struct emu_fw_obj *o;

		if (res.dest[i].type != MLX5_IFC_FLOW_DESTINATION_TYPE_TIR)
			continue;
		o = emu_fw_obj_lookup_rcu(dev->fw, EMU_FW_OBJ_TIR,
					  res.dest[i].id);
		if (o)
			eng_eth_tir_rx(dev, emu_fw_to_tir(o), f, len,
				       res.flow_tag, src);
	}
	return true;
}

unsigned int eng_eth_rq_flush(struct emu_fw_rq *rq)
{
	unsigned int n = 0;
	struct eng_rwqe r;

	if (!rq->flush_in_error_en)
		return 0;
	while (n < ENG_PASS_WQES &&
	       eng_recv_cyclic(&rq->ring, &rq->dbr, &rq->hw.head, &r) ==
	       ENG_RECV_OK) {
		atomic_fetch_add(&rq->hw.consumed, 1);
		eng_eth_rq_err_cqe(rq, r.idx, ENG_SYND_WR_FLUSH);
		n++;
	}
	return n;
}
