/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_eth_sq.c -- Ethernet send queues: which SQs run, their
 * WQEs' completions and errors, and RQs entering ERR.
 *
 * The firmware tells the engine when an SQ changes state or starts dying
 * (sq_changed, no firmware lock held); under the run lock the engine looks
 * at the current state, as for QPs (eng_qp.c): an SQ out of RST and alive
 * is attached (a reference, emu_fw_sq.engine), otherwise detached, which
 * is also what makes a DESTROY_SQ wait for a pass using it.
 *
 * A pass reads the doorbell record's send counter (dbr[1], 16 bits, as
 * for a QP's send queue) and runs the WQEs posted since: each becomes
 * frames (eng_eth_tx.c) and completes with a CQE when its control segment
 * asks (CQ update) or when it fails.  A WQE that cannot run completes with
 * an error CQE and moves the SQ to ERR (PRM: a send queue error stops the
 * queue until software moves it ERR -> RST -> RDY, as DPDK's mlx5 PMD
 * does); in ERR the posted WQEs complete flushed when the SQ was created
 * with flush_in_error_en, and wait otherwise.
 */
#include <endian.h>
#include <stdlib.h>

#include "emu/engine/eng_int.h"
#include "emu/mem/mem.h"

static struct eng_sq *eng_sq_of(struct emu_fw_sq *fs)
{
	return fs->engine;
}

static bool eng_sq_wants(struct emu_fw_sq *fs)
{
	return atomic_load(&fs->obj.users) >= 0 &&
	       emu_fw_sq_state(fs) != MLX5_SQC_STATE_RST;
}

static void eng_sq_attach(struct eng *e, struct eng_dev *dev,
			  struct emu_fw_sq *fs)
{
	struct eng_sq *sq = calloc(1, sizeof(*sq));
	struct emu_fw_obj *ref;

	if (!sq)
		return;		/* the SQ does no work; nothing else breaks */
	ref = emu_fw_obj_get(dev->fw, EMU_FW_OBJ_SQ, fs->obj.id);
	if (ref != &fs->obj) {
		if (ref)
			emu_fw_obj_put(ref);
		free(sq);
		return;
	}
	sq->dev = dev;
	sq->fs = fs;
	sq->ci = (uint16_t)atomic_load(&fs->hw.wqebb_counter);
	sq->hinted = true;
	fs->engine = sq;
	cds_list_add_tail(&sq->node, &e->sqs);
}

static void eng_sq_detach(struct eng_sq *sq)
{
	cds_list_del(&sq->node);
	sq->fs->engine = NULL;
	emu_fw_obj_put(&sq->fs->obj);
	free(sq);
}

void eng_sq_changed(void *arg, struct emu_fw_sq *fs)
{
	struct eng_dev *dev = arg;
	struct eng *e = &eng_g;
	struct eng_sq *sq;

	pthread_mutex_lock(&e->run);
	sq = eng_sq_of(fs);
	if (eng_sq_wants(fs)) {
		if (!sq)
			eng_sq_attach(e, dev, fs);
		else if (emu_fw_sq_state(fs) == MLX5_SQC_STATE_RDY &&
			 (uint16_t)atomic_load(&fs->hw.wqebb_counter) == 0)
			/* RST -> RDY again cleared the counter: the ring
			 * starts over. */
			sq->ci = 0;
		if ((sq = eng_sq_of(fs)))
			sq->hinted = true;
	} else if (sq) {
		eng_sq_detach(sq);
	}
	pthread_mutex_unlock(&e->run);
	emu_eng_progress(EMU_ENG_WHY_DOORBELL);
}

void eng_rq_changed(void *arg, struct emu_fw_rq *fr)
{
	struct eng *e = &eng_g;

	/* A command moved the RQ to ERR: what it holds is flushed now (the
	 * engine visits RQs only when frames arrive). */
	if (atomic_load(&fr->obj.users) < 0 ||
	    emu_fw_rq_state(fr) != MLX5_RQC_STATE_ERR)
		return;
	pthread_mutex_lock(&e->run);
	emu_fw_rcu_lock();
	eng_eth_rq_flush(fr);
	emu_fw_rcu_unlock();
	pthread_mutex_unlock(&e->run);
}

void eng_sq_detach_all(struct eng *e, struct eng_dev *dev)
{
	struct eng_sq *sq, *tmp;

	cds_list_for_each_entry_safe(sq, tmp, &e->sqs, node)
		if (sq->dev == dev)
			eng_sq_detach(sq);
}

/* A CQE of the SQ: a requester CQE (success, error or flush). */
static void eng_sq_cqe(struct eng_sq *sq, const struct eng_wqe *w,
		       enum eng_synd_id err)
{
	struct emu_fw_sq *fs = sq->fs;
	struct eng_cqe c = {
		.opcode = MLX5_CQE_REQ,
		.wqe_opcode = w->opcode,
		.qpn = fs->obj.id,
		.wqe_counter = w->idx,
		.srqn_uidx = fs->user_index,
		.ts_format = fs->ts_format,
	};

	if (err != ENG_SYND_NUM) {
		const struct eng_synd *sy = eng_synd(err);

		c.opcode = MLX5_CQE_REQ_ERR;
		c.syndrome = sy->syndrome;
		c.vendor = sy->vendor;
	}
	(void)eng_cqe_write(fs->cq, &c);
}

/* The WQE failed: the SQ to ERR, then its error CQE, so that a query
 * made after the CQE is polled sees ERR. */
static void eng_sq_fail(struct eng_sq *sq, const struct eng_wqe *w,
			enum eng_synd_id err)
{
	(void)emu_fw_sq_set_error(sq->fs);
	eng_sq_cqe(sq, w, err);
}

/* ERR with flush_in_error_en: every posted WQE completes flushed. */
static unsigned int eng_sq_flush(struct eng_sq *sq, uint16_t pi,
				 unsigned int budget)
{
	static struct eng_wqe w;	/* run lock */
	unsigned int n = 0;

	while (sq->ci != pi && n < budget) {
		if (eng_wqe_fetch(&sq->fs->ring, sq->ci, &w) == ENG_WQE_FAULT)
			w.nbb = 1;
		w.idx = sq->ci;
		eng_sq_cqe(sq, &w, ENG_SYND_WR_FLUSH);
		sq->ci = (uint16_t)(sq->ci + w.nbb);
		n++;
	}
	atomic_store(&sq->fs->hw.wqebb_counter, sq->ci);
	return n;
}

static enum eng_synd_id eng_sq_synd(enum eng_eth_tx_res r)
{
	switch (r) {
	case ENG_ETH_TX_PROT:
	case ENG_ETH_TX_FAULT:
		return ENG_SYND_LOCAL_PROT;
	case ENG_ETH_TX_LEN:
		return ENG_SYND_LOCAL_LENGTH;
	default:
		return ENG_SYND_LOCAL_QP_OP;
	}
}

unsigned int eng_sq_run(struct eng_sq *sq, unsigned int budget)
{
	static struct eng_wqe w;	/* run lock */
	struct emu_fw_sq *fs = sq->fs;
	unsigned int st = emu_fw_sq_state(fs), done = 0;
	uint32_t raw;
	uint16_t pi;

	if (st == MLX5_SQC_STATE_RST || !fs->dbr.addr ||
	    emu_mem_load32((const uint32_t *)(const void *)fs->dbr.addr +
			   EMU_FW_DBR_SND, &raw))
		return 0;
	pi = (uint16_t)be32toh(raw);
	if (st == MLX5_SQC_STATE_ERR)
		return fs->flush_in_error_en ? eng_sq_flush(sq, pi, budget) : 0;
	while (sq->ci != pi && done < budget) {
		enum eng_wqe_res wr = eng_wqe_fetch(&fs->ring, sq->ci, &w);
		enum eng_eth_tx_res tr;

		if (wr == ENG_WQE_FAULT) {
			w.idx = sq->ci;
			w.nbb = 1;
			eng_sq_fail(sq, &w, ENG_SYND_LOCAL_PROT);
			break;
		}
		tr = wr == ENG_WQE_OK ? eng_eth_tx_wqe(sq, &w) : ENG_ETH_TX_BAD;
		sq->ci = (uint16_t)(sq->ci + w.nbb);
		done++;
		if (tr != ENG_ETH_TX_OK) {
			eng_sq_fail(sq, &w, eng_sq_synd(tr));
			break;
		}
		if (w.fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE)
			eng_sq_cqe(sq, &w, ENG_SYND_NUM);
	}
	atomic_store(&fs->hw.wqebb_counter, sq->ci);
	return done;
}

unsigned int eng_sq_pass(struct eng *e, unsigned int budget)
{
	unsigned int done = 0;
	struct eng_sq *sq, *tmp;

	for (int hinted = 1; hinted >= 0; hinted--) {
		cds_list_for_each_entry_safe(sq, tmp, &e->sqs, node) {
			if (sq->hinted != (bool)hinted)
				continue;
			sq->hinted = false;
			if (done >= budget)
				break;
			if (sq->dev->fatal)
				continue;
			done += eng_sq_run(sq, ENG_PASS_WQES_PER_QP);
		}
	}
	return done;
}
