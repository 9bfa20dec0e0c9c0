/* SPDX-License-Identifier: MIT */
/*
 * Events as the device raises them: CQ arming as libmlx5 writes it (the
 * arm word in the doorbell record, the 64-bit CQ doorbell at UAR 0x20),
 * next vs solicited, the 2-bit sequence, one event per arm, arming with
 * CQEs already there, moderation; EQEs in an EQ's memory (owner bit, the
 * consumer counter through the EQ doorbell at 0x40/0x48, a full EQ, the
 * interrupt); and every affiliated event the engine raises, checked byte
 * by byte at literal EQE offsets (type at 1, sub-type at 3, data from 32,
 * owner at 63).
 */
#include <endian.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "eng_test.h"

#include <infiniband/mlx5dv.h>

/* ---- a consumer of one EQ, as mlx5_core's (lib/eq.h) ---- */

struct ev_eq {
	struct ent_dev *d;
	uint32_t eqn, uar;
	uint8_t *page;		/* the EQ's own UAR page */
	struct fwt_mem mem;
	unsigned int log_size;
	uint32_t ci;
};

#define EV_ASYNC_MASK                                                         \
	((1ull << MLX5_EVENT_TYPE_PATH_MIG) | (1ull << MLX5_EVENT_TYPE_COMM_EST) | \
	 (1ull << MLX5_EVENT_TYPE_SQ_DRAINED) |                                \
	 (1ull << MLX5_EVENT_TYPE_CQ_ERROR) |                                  \
	 (1ull << MLX5_EVENT_TYPE_WQ_CATAS_ERROR) |                            \
	 (1ull << MLX5_EVENT_TYPE_PORT_CHANGE) |                               \
	 (1ull << MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR) |                        \
	 (1ull << MLX5_EVENT_TYPE_WQ_ACCESS_ERROR) |                           \
	 (1ull << MLX5_EVENT_TYPE_SRQ_CATAS_ERROR) |                           \
	 (1ull << MLX5_EVENT_TYPE_SRQ_LAST_WQE) |                              \
	 (1ull << MLX5_EVENT_TYPE_SRQ_RQ_LIMIT))

static void ev_db(struct ev_eq *q, bool arm)
{
	uint32_t v = htobe32(q->eqn << 24 | (q->ci & 0xffffff));

	__atomic_store_n((uint32_t *)(q->page + (arm ? 0x40 : 0x48)), v,
			 __ATOMIC_RELEASE);
}

static void ev_eq_init(struct ent_dev *d, struct ev_eq *q, unsigned int log_size,
		       uint64_t mask, unsigned int intr)
{
	size_t len = (size_t)64 << log_size;
	struct fwt_mbox m;
	void *eqc;

	memset(q, 0, sizeof(*q));
	q->d = d;
	q->log_size = log_size;
	q->uar = fwt_uar(d->fw, 0);
	q->page = aligned_alloc(4096, 4096);
	memset(q->page, 0, 4096);
	d->allocs[d->nallocs++] = q->page;
	ck_assert_int_eq(emu_fw_uar_set_page(d->fw, q->uar, q->page), 0);
	fwt_mem_reg(d->fw, 0, len < 4096 ? 4096 : len, &q->mem);
	d->allocs[d->nallocs++] = q->mem.addr;
	for (unsigned int i = 0; i < 1u << log_size; i++)
		((uint8_t *)q->mem.addr)[i * 64 + 63] = 1;	/* owner 1 */
	fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_EQ, 0, 0,
		      PRM_ST_SZ_BYTES(create_eq_in) + ((len + 4095) / 4096) * 8,
		      PRM_ST_SZ_BYTES(create_eq_out));
	eqc = PRM_ADDR_OF(create_eq_in, m.in, eq_context_entry);
	PRM_SET(eqc, eqc, log_eq_size, log_size);
	PRM_SET(eqc, eqc, uar_page, q->uar);
	PRM_SET(eqc, eqc, intr, intr);
	PRM_SET64(create_eq_in, m.in, event_bitmask[0], mask);
	for (size_t i = 0; i < (len + 4095) / 4096; i++) {
		uint64_t pa = htobe64((uint64_t)(uintptr_t)q->mem.addr + i * 4096);

		memcpy(PRM_ARRAY_ADDR(create_eq_in, m.in, pas, i), &pa, 8);
	}
	fwt_exec(d->fw, &m);
	ck_fw_ok(&m);
	q->eqn = PRM_GET(create_eq_out, m.out, eq_number);
	ev_db(q, true);
}

/* The EQE at ci once its owner bit says it is new, within ms; consumed
 * (the counter told through 0x48). */
static const uint8_t *ev_eqe(struct ev_eq *q, unsigned int ms)
{
	const uint8_t *e = (const uint8_t *)q->mem.addr +
			   (size_t)(q->ci & ((1u << q->log_size) - 1)) * 64;

	for (unsigned int i = 0; i <= ms * 10; i++) {
		uint8_t own = __atomic_load_n(&e[63], __ATOMIC_ACQUIRE);

		if ((own & 1) == ((q->ci >> q->log_size) & 1)) {
			q->ci++;
			ev_db(q, false);
			return e;
		}
		emu_eng_progress(EMU_ENG_WHY_POLL);
		usleep(100);
	}
	return NULL;
}

static uint32_t ev_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

/* ---- the setup: two devices, an RC pair, our EQs ---- */

static struct ent_dev da, db;
static struct ev_eq acomp, aasync, bcomp, basync;
static struct ent_cq acq, bcq;
static struct ent_mr amr, bmr;
static struct ent_qp aqp, bqp;

static void setup_devs(void)
{
	ent_dev_init(&da, 0);
	ent_dev_init(&db, 1);
	ev_eq_init(&da, &acomp, 4, 1ull << MLX5_EVENT_TYPE_COMP, 1);
	ev_eq_init(&da, &aasync, 4, EV_ASYNC_MASK, 0);
	ev_eq_init(&db, &bcomp, 4, 1ull << MLX5_EVENT_TYPE_COMP, 1);
	ev_eq_init(&db, &basync, 4, EV_ASYNC_MASK, 0);
	/* CQs complete into our completion EQs. */
	da.eqn = acomp.eqn;
	db.eqn = bcomp.eqn;
	ent_cq_init(&da, &acq, 6, 64, false);
	ent_cq_init(&db, &bcq, 6, 64, false);
	ent_mr_init(&da, &amr, da.pd, 16384, ENT_MR_ALL, IBV_ACCESS_LOCAL_WRITE);
	ent_mr_init(&db, &bmr, db.pd, 16384, ENT_MR_ALL, IBV_ACCESS_LOCAL_WRITE);
}

static void make_qps(uint32_t bsrqn)
{
	struct ent_qp_cfg cfg = {
		.type = ENT_RC, .log_sq = 4, .log_rq = 4, .log_rq_stride = 2,
	};

	cfg.scq = cfg.rcq = &acq;
	ent_qp_create(&da, &aqp, &cfg);
	cfg.scq = cfg.rcq = &bcq;
	cfg.srqn = bsrqn;
	ent_qp_create(&db, &bqp, &cfg);
}

static void setup(void)
{
	setup_devs();
	make_qps(0);
	ent_qp_pair(&aqp, &bqp);
}

static void teardown(void)
{
	ent_dev_fini(&da);
	ent_dev_fini(&db);
}

/* libmlx5's mlx5_arm_cq: the record, then (if uar) the CQ doorbell. */
static void arm(struct ent_cq *cq, unsigned int sn, bool sol, uint32_t ci,
		bool uar)
{
	uint32_t w = sn << 28 | (sol ? MLX5_CQ_DB_REQ_NOT_SOL : 0) | ci;
	uint64_t dbv = (uint64_t)w << 32 | cq->cqn;

	__atomic_store_n((uint32_t *)cq->dbr.addr + 1, htobe32(w),
			 __ATOMIC_RELEASE);
	if (uar)
		__atomic_store_n((uint64_t *)((uint8_t *)cq->d->uar_page + 0x20),
				 htobe64(dbv), __ATOMIC_RELEASE);
	emu_eng_progress(EMU_ENG_WHY_DOORBELL);
}

/* A completion EQE for cqn: type 0 at byte 1, cqn at 57..59. */
static void ck_comp(const uint8_t *e, uint32_t cqn)
{
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e[1], MLX5_EVENT_TYPE_COMP);
	ck_assert_uint_eq(e[3], 0);
	ck_assert_uint_eq(ev_be24(e + 57), cqn);
}

/* An affiliated QP/SRQ EQE: type, queue type 0 at 52, number at 57..59. */
static void ck_qp_event(const uint8_t *e, uint8_t type, uint32_t num)
{
	ck_assert_msg(e != NULL, "no event 0x%x", type);
	ck_assert_uint_eq(e[1], type);
	ck_assert_uint_eq(e[52], 0);
	ck_assert_uint_eq(ev_be24(e + 57), num);
}

/* One SEND a -> b with a receive posted: CQEs on both CQs. */
static void send_one(uint8_t fm_ce_se)
{
	ent_post_recv(&bqp, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 64);
	ent_post1(&aqp, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE | fm_ce_se, 0,
		  &amr, 0, 16, 0, 0);
	emu_eng_progress(EMU_ENG_WHY_DOORBELL);
}

static uint8_t cq_st(struct ent_cq *cq)
{
	struct fwt_mbox m;

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_CQ, 0, cq->d->uid,
		      PRM_ST_SZ_BYTES(query_cq_in), PRM_ST_SZ_BYTES(query_cq_out));
	PRM_SET(query_cq_in, m.in, cqn, cq->cqn);
	fwt_exec(cq->d->fw, &m);
	ck_fw_ok(&m);
	return (uint8_t)PRM_GET(cqc, PRM_ADDR_OF(query_cq_out, m.out, cq_context), st);
}

/*
 * The CQ reaches state @st within 2 s.  An arm is taken by the engine's
 * next pass: when the engine thread holds the run lock, the doorbell's
 * progress call only leaves it a note, so QUERY_CQ right after arm() may
 * still see the state before.
 */
static void ck_cq_st_soon(struct ent_cq *cq, uint8_t st)
{
	uint8_t now = cq_st(cq);

	for (int i = 0; i < 20000 && now != st; i++) {
		usleep(100);
		now = cq_st(cq);
	}
	ck_assert_uint_eq(now, st);
}

/* ---- arming ---- */

START_TEST(arm_next_one_event)
{
	arm(&acq, 0, false, 0, true);
	ck_cq_st_soon(&acq, MLX5_CQC_ST_NOTIFICATION_REQUEST_ARMED);
	send_one(0);
	ent_cq_next(&acq);
	ck_comp(ev_eqe(&acomp, 2000), acq.cqn);
	/* The EQE's owner bit is the first lap's: 0. */
	ck_assert_uint_eq(((uint8_t *)acomp.mem.addr)[63] & 1, 0);
	ck_assert_uint_eq(cq_st(&acq), MLX5_CQC_ST_FIRED);
	/* One event per arm: the next CQE raises none. */
	send_one(0);
	ent_cq_next(&acq);
	ck_assert_ptr_null(ev_eqe(&acomp, 50));
	/* Nothing on the async EQ either. */
	ck_assert_ptr_null(ev_eqe(&aasync, 1));
}
END_TEST

START_TEST(arm_solicited)
{
	arm(&bcq, 0, true, 0, true);
	ck_cq_st_soon(&bcq, MLX5_CQC_ST_SOLICITED_NOTIFICATION_REQUEST_ARMED);
	send_one(0);			/* not solicited: no event */
	ent_cq_next(&bcq);
	ck_assert_ptr_null(ev_eqe(&bcomp, 50));
	send_one(MLX5_WQE_CTRL_SOLICITED);
	ck_assert_uint_eq(ent_cq_next(&bcq)[63] & 2, 2);	/* SE */
	ck_comp(ev_eqe(&bcomp, 2000), bcq.cqn);
}
END_TEST

START_TEST(arm_solicited_error_cqe)
{
	/* An error CQE wakes a solicited-only waiter: a flush after 2ERR. */
	ent_post_recv(&bqp, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 64);
	arm(&bcq, 0, true, 0, true);
	ck_assert_uint_eq(ent_qp_modify(&bqp, MLX5_CMD_OP_2ERR_QP), 0);
	ck_assert_uint_eq(ent_cq_next(&bcq)[63] >> 4, MLX5_CQE_RESP_ERR);
	ck_comp(ev_eqe(&bcomp, 2000), bcq.cqn);
}
END_TEST

START_TEST(arm_sequence)
{
	arm(&acq, 0, false, 0, true);
	send_one(0);
	ent_cq_next(&acq);
	ck_comp(ev_eqe(&acomp, 2000), acq.cqn);
	/* Re-armed with the old sequence (the event not taken): stale. */
	arm(&acq, 0, false, acq.ci, true);
	ck_assert_uint_eq(cq_st(&acq), MLX5_CQC_ST_FIRED);
	send_one(0);
	ent_cq_next(&acq);
	ck_assert_ptr_null(ev_eqe(&acomp, 50));
	/* Then sn 1, 2, 3 and around to 0: one event each. */
	for (unsigned int sn = 1; sn <= 4; sn++) {
		arm(&acq, sn & 3, false, acq.ci, true);
		ck_cq_st_soon(&acq, MLX5_CQC_ST_NOTIFICATION_REQUEST_ARMED);
		send_one(0);
		ent_cq_next(&acq);
		ck_comp(ev_eqe(&acomp, 2000), acq.cqn);
	}
}
END_TEST

START_TEST(arm_with_cqes_there)
{
	send_one(0);
	ent_cq_next(&acq);	/* ci 1 */
	send_one(0);		/* a CQE at 1 not consumed yet */
	while (((volatile uint8_t *)acq.mem.addr)[64 + 63] >> 4 ==
	       MLX5_CQE_INVALID)
		usleep(100);
	/* Armed at ci 1 while CQE 1 is there: the event at once. */
	arm(&acq, 0, false, 1, true);
	ck_comp(ev_eqe(&acomp, 2000), acq.cqn);
	ent_cq_next(&acq);
	/* Armed at ci 2 (nothing newer): no event until the next CQE. */
	arm(&acq, 1, false, 2, true);
	ck_assert_ptr_null(ev_eqe(&acomp, 50));
	send_one(0);
	ent_cq_next(&acq);
	ck_comp(ev_eqe(&acomp, 2000), acq.cqn);
}
END_TEST

START_TEST(arm_record_only)
{
	/* No UAR write: the new word in the doorbell record is the request. */
	arm(&acq, 0, true, 0, false);
	send_one(MLX5_WQE_CTRL_SOLICITED);
	ent_cq_next(&acq);	/* the requester's CQE: not solicited */
	ck_assert_ptr_null(ev_eqe(&acomp, 20));
	arm(&acq, 0, false, 1, false);	/* a changed word: next */
	send_one(0);
	ent_cq_next(&acq);
	ck_comp(ev_eqe(&acomp, 2000), acq.cqn);
}
END_TEST

START_TEST(arm_first_word_zero_through_uar)
{
	/* sn 0, REQ_NOT, ci 0: the record holds that word from the start, so
	 * only the CQ doorbell says it was written. */
	arm(&acq, 0, false, 0, false);
	send_one(0);
	ent_cq_next(&acq);
	ck_assert_ptr_null(ev_eqe(&acomp, 20));
	ck_assert_uint_eq(cq_st(&acq), 0);
	arm(&acq, 0, false, 0, true);	/* CQE 0 is there: at once */
	ck_comp(ev_eqe(&acomp, 2000), acq.cqn);
}
END_TEST

static void modify_cq(struct ent_cq *cq, uint32_t sel, unsigned int period,
		      unsigned int count, unsigned int mode)
{
	struct fwt_mbox m;
	void *cqc;

	fwt_mbox_init(&m, MLX5_CMD_OP_MODIFY_CQ, 0, cq->d->uid,
		      PRM_ST_SZ_BYTES(modify_cq_in), PRM_ST_SZ_BYTES(modify_cq_out));
	PRM_SET(modify_cq_in, m.in, cqn, cq->cqn);
	PRM_SET(modify_cq_in, m.in,
		modify_field_select_resize_field_select.modify_field_select.modify_field_select,
		sel);
	cqc = PRM_ADDR_OF(modify_cq_in, m.in, cq_context);
	PRM_SET(cqc, cqc, cq_period, period);
	PRM_SET(cqc, cqc, cq_max_count, count);
	PRM_SET(cqc, cqc, cq_period_mode, mode);
	fwt_exec(cq->d->fw, &m);
	ck_fw_ok(&m);
}

START_TEST(moderation_count)
{
	/* MLX5_CQ_MODIFY_PERIOD | MLX5_CQ_MODIFY_COUNT */
	modify_cq(&acq, 3, 0, 3, 0);
	arm(&acq, 0, false, 0, true);
	for (int i = 0; i < 2; i++) {
		send_one(0);
		ent_cq_next(&acq);	/* the CQE is there at once */
		ck_assert_ptr_null(ev_eqe(&acomp, 20));
	}
	send_one(0);
	ent_cq_next(&acq);
	ck_comp(ev_eqe(&acomp, 2000), acq.cqn);
}
END_TEST

START_TEST(moderation_period)
{
	struct timespec t0, t1;
	const uint8_t *e;
	long us;

	/* 4 ms (cq_period is 12 bits of microseconds), the period starting
	 * at the first CQE (mode 1). */
	modify_cq(&acq, 1 | 16, 4000, 0, 1);
	arm(&acq, 0, false, 0, true);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	send_one(0);
	ent_cq_next(&acq);
	e = ev_eqe(&acomp, 3000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_comp(e, acq.cqn);
	us = (t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000;
	ck_assert_msg(us >= 3900, "event after %ld us, period 4 ms", us);
}
END_TEST

/* ---- EQs ---- */

/* The engine thread raises the vector after it publishes the EQE, as a
 * device writes the entry before its MSI-X message: a test that has seen
 * the EQE must still wait for the call.
 */
static _Atomic unsigned int irq_calls, irq_vector;

static void count_irq(void *arg, unsigned int vector)
{
	(void)arg;
	atomic_store(&irq_vector, vector);
	atomic_fetch_add(&irq_calls, 1);
}

static unsigned int irq_wait(unsigned int n, unsigned int ms)
{
	for (unsigned int i = 0; i < ms * 10 && atomic_load(&irq_calls) < n;
	     i++)
		usleep(100);
	return atomic_load(&irq_calls);
}

START_TEST(eq_interrupt_and_full)
{
	struct emu_fw_obj *o;
	const uint8_t *e;

	ck_assert_int_eq(emu_eng_set_irq(da.fw, count_irq, NULL), 0);
	/* 16 entries, armed: the first EQE fires vector 1, disarming. */
	arm(&acq, 0, false, 0, true);
	send_one(0);
	ent_cq_next(&acq);
	ck_comp(ev_eqe(&acomp, 2000), acq.cqn);
	ck_assert_uint_eq(irq_wait(1, 2000), 1);
	ck_assert_uint_eq(atomic_load(&irq_vector), 1);
	/* Not re-armed (only 0x48 written): events land, no interrupt. */
	for (unsigned int sn = 1; sn <= 17; sn++) {
		arm(&acq, sn & 3, false, acq.ci, true);
		send_one(0);
		ent_cq_next(&acq);
	}
	ck_assert_uint_eq(atomic_load(&irq_calls), 1);
	/* The consumer told 1 taken: 16 more fit, the 17th was lost. */
	for (unsigned int i = 0; i < 16; i++)
		ck_comp(ev_eqe(&acomp, 2000), acq.cqn);
	ck_assert_ptr_null(ev_eqe(&acomp, 20));
	o = emu_fw_obj_get(da.fw, EMU_FW_OBJ_EQ, acomp.eqn);
	ck_assert_uint_eq(atomic_load(&emu_fw_to_eq(o)->hw.lost), 1);
	emu_fw_obj_put(o);
	/* Second lap: owner bit 1. */
	ev_db(&acomp, true);
	arm(&acq, 18 & 3, false, acq.ci, true);
	send_one(0);
	ent_cq_next(&acq);
	e = ev_eqe(&acomp, 2000);
	ck_comp(e, acq.cqn);
	ck_assert_uint_eq(e[63] & 1, 1);
	ck_assert_uint_eq(irq_wait(2, 2000), 2);
	emu_eng_set_irq(da.fw, NULL, NULL);
}
END_TEST

/* ---- CQ errors ---- */

START_TEST(cq_overrun_event)
{
	struct ent_cq small;
	struct ent_qp_cfg cfg = {
		.type = ENT_RC, .log_sq = 4, .log_rq = 4, .log_rq_stride = 2,
	};
	struct fwt_mbox m;
	struct ent_qp q;
	const uint8_t *e;

	ent_cq_init(&da, &small, 1, 64, false);	/* 2 entries */
	cfg.scq = &small;
	cfg.rcq = &acq;
	ent_qp_create(&da, &q, &cfg);
	{
		struct ent_conn c;

		ent_conn_default(&c);
		c.remote_qpn = bqp.qpn;
		ent_qp_to_rts(&q, &db, &c);
	}
	for (int i = 0; i < 3; i++) {
		ent_post1(&q, MLX5_OPCODE_RDMA_WRITE, MLX5_WQE_CTRL_CQ_UPDATE, 0,
			  &amr, 0, 8, (uint64_t)(uintptr_t)bmr.buf, bmr.key);
		emu_eng_progress(EMU_ENG_WHY_DOORBELL);
	}
	e = ev_eqe(&aasync, 2000);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e[1], MLX5_EVENT_TYPE_CQ_ERROR);
	ck_assert_uint_eq(ev_be24(e + 33), small.cqn);
	ck_assert_uint_eq(e[43], 0x01);		/* overrun */
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_CQ, 0, da.uid,
		      PRM_ST_SZ_BYTES(query_cq_in), PRM_ST_SZ_BYTES(query_cq_out));
	PRM_SET(query_cq_in, m.in, cqn, small.cqn);
	fwt_exec(da.fw, &m);
	ck_assert_uint_eq(PRM_GET(cqc, PRM_ADDR_OF(query_cq_out, m.out, cq_context),
				  status), MLX5_CQC_STATUS_CQ_OVERFLOW);
	/* Once only. */
	ent_post1(&q, MLX5_OPCODE_RDMA_WRITE, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr, 0,
		  8, (uint64_t)(uintptr_t)bmr.buf, bmr.key);
	ck_assert_ptr_null(ev_eqe(&aasync, 30));
}
END_TEST

/* ---- affiliated events ---- */

START_TEST(remote_access_raises_wq_access)
{
	ent_post1(&aqp, MLX5_OPCODE_RDMA_WRITE, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr,
		  0, 16, (uint64_t)(uintptr_t)bmr.buf, bmr.key ^ 1);
	ck_assert_uint_eq(ent_cq_next(&acq)[63] >> 4, MLX5_CQE_REQ_ERR);
	ck_qp_event(ev_eqe(&basync, 2000), MLX5_EVENT_TYPE_WQ_ACCESS_ERROR,
		    bqp.qpn);
	/* The requester's error is its CQE alone. */
	ck_assert_ptr_null(ev_eqe(&aasync, 20));
	ck_assert_ptr_null(ev_eqe(&basync, 1));
}
END_TEST

START_TEST(invalid_request_raises_wq_inval_req)
{
	uint8_t w[64] = { 0 };

	/* An atomic at an address not 8-byte aligned: NAK invalid request. */
	ent_raddr(w + 16, (uint64_t)(uintptr_t)bmr.buf + 1, bmr.key);
	ent_dseg(w + 48, 8, amr.key, (uint64_t)(uintptr_t)amr.buf);
	ent_ctrl(w, aqp.sq_pi, MLX5_OPCODE_ATOMIC_FA, aqp.qpn, 4,
		 MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ent_sq_put(&aqp, w, 1);
	ent_sq_ring(&aqp);
	ck_assert_uint_eq(ent_cq_next(&acq)[63] >> 4, MLX5_CQE_REQ_ERR);
	ck_qp_event(ev_eqe(&basync, 2000), MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR,
		    bqp.qpn);
	ck_assert_ptr_null(ev_eqe(&aasync, 20));
}
END_TEST

START_TEST(length_error_has_cqe_no_event)
{
	ent_post_recv(&bqp, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 8);
	ent_post1(&aqp, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr, 0,
		  64, 0, 0);
	ck_assert_uint_eq(ent_cq_next(&bcq)[63] >> 4, MLX5_CQE_RESP_ERR);
	ck_assert_uint_eq(ent_cq_next(&acq)[63] >> 4, MLX5_CQE_REQ_ERR);
	ck_assert_ptr_null(ev_eqe(&basync, 30));
	ck_assert_ptr_null(ev_eqe(&aasync, 1));
}
END_TEST

START_TEST(comm_est_in_rtr)
{
	struct ent_conn c;
	struct fwt_mbox m;
	void *qpc;

	setup_devs();
	make_qps(0);
	ent_conn_default(&c);
	c.remote_qpn = bqp.qpn;
	ent_qp_to_rts(&aqp, &db, &c);
	/* b only to RTR: it receives, and its first packet is COMM_EST. */
	fwt_mbox_init(&m, MLX5_CMD_OP_RST2INIT_QP, 0, db.uid,
		      PRM_ST_SZ_BYTES(rst2init_qp_in),
		      PRM_ST_SZ_BYTES(rst2init_qp_out));
	PRM_SET(rst2init_qp_in, m.in, qpn, bqp.qpn);
	qpc = PRM_ADDR_OF(rst2init_qp_in, m.in, qpc);
	PRM_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
	PRM_SET(qpc, qpc, rwe, 1);
	fwt_exec(db.fw, &m);
	ck_fw_ok(&m);
	fwt_mbox_init(&m, MLX5_CMD_OP_INIT2RTR_QP, 0, db.uid,
		      PRM_ST_SZ_BYTES(init2rtr_qp_in),
		      PRM_ST_SZ_BYTES(init2rtr_qp_out));
	PRM_SET(init2rtr_qp_in, m.in, qpn, bqp.qpn);
	qpc = PRM_ADDR_OF(init2rtr_qp_in, m.in, qpc);
	PRM_SET(qpc, qpc, mtu, MLX5_QPC_MTU_1K_BYTES);
	PRM_SET(qpc, qpc, log_msg_max, 30);
	PRM_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
	PRM_SET(qpc, qpc, primary_address_path.src_addr_index, ENT_GID_V2);
	PRM_SET(qpc, qpc, primary_address_path.hop_limit, 64);
	memcpy(PRM_ADDR_OF(qpc, qpc, primary_address_path.rgid_rip),
	       da.gid[ENT_GID_V2], 16);
	PRM_SET(qpc, qpc, remote_qpn, aqp.qpn);
	PRM_SET(qpc, qpc, next_rcv_psn, c.sq_psn);
	PRM_SET(qpc, qpc, log_rra_max, 2);
	fwt_exec(db.fw, &m);
	ck_fw_ok(&m);
	for (int i = 0; i < 2; i++) {
		ent_post1(&aqp, MLX5_OPCODE_RDMA_WRITE, MLX5_WQE_CTRL_CQ_UPDATE,
			  0, &amr, 0, 8, (uint64_t)(uintptr_t)bmr.buf, bmr.key);
		ck_assert_uint_eq(ent_cq_next(&acq)[63] >> 4, MLX5_CQE_REQ);
	}
	ck_qp_event(ev_eqe(&basync, 2000), MLX5_EVENT_TYPE_COMM_EST, bqp.qpn);
	ck_assert_ptr_null(ev_eqe(&basync, 30));	/* once */
}
END_TEST

START_TEST(srq_last_wqe_and_limit)
{
	struct ent_srq srq;
	struct ent_conn c;
	struct fwt_mbox m;

	setup_devs();
	ent_srq_init(&db, &srq, 3, false, &bcq, 0);
	make_qps(srq.srqn);
	ent_conn_default(&c);
	c.remote_qpn = bqp.qpn;
	ent_qp_to_rts(&aqp, &db, &c);
	c.remote_qpn = aqp.qpn;
	ent_qp_to_rts(&bqp, &da, &c);
	/* Limit 3 with 4 posted: the event when fewer than 3 remain. */
	for (int i = 0; i < 4; i++)
		ent_srq_post(&srq, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 64);
	fwt_mbox_init(&m, MLX5_CMD_OP_ARM_RQ, 1, db.uid,
		      PRM_ST_SZ_BYTES(arm_rq_in), PRM_ST_SZ_BYTES(arm_rq_out));
	PRM_SET(arm_rq_in, m.in, srq_number, srq.srqn);
	PRM_SET(arm_rq_in, m.in, lwm, 3);
	fwt_exec(db.fw, &m);
	ck_fw_ok(&m);
	ent_post1(&aqp, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr, 0, 16,
		  0, 0);
	ent_cq_next(&bcq);
	ck_assert_ptr_null(ev_eqe(&basync, 20));	/* 3 left */
	ent_post1(&aqp, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr, 0, 16,
		  0, 0);
	ent_cq_next(&bcq);
	ck_qp_event(ev_eqe(&basync, 2000), MLX5_EVENT_TYPE_SRQ_RQ_LIMIT, srq.srqn);
	/* A QP on the SRQ moved to ERR by command: Last WQE Reached. */
	ck_assert_uint_eq(ent_qp_modify(&bqp, MLX5_CMD_OP_2ERR_QP), 0);
	ck_qp_event(ev_eqe(&basync, 2000), MLX5_EVENT_TYPE_SRQ_LAST_WQE, bqp.qpn);
	ck_assert_ptr_null(ev_eqe(&basync, 20));
	/* A QP without an SRQ raises none. */
	ck_assert_uint_eq(ent_qp_modify(&aqp, MLX5_CMD_OP_2ERR_QP), 0);
	ck_assert_ptr_null(ev_eqe(&aasync, 20));
}
END_TEST

START_TEST(sq_drained)
{
	struct emu_fw_obj *o = emu_fw_obj_get(da.fw, EMU_FW_OBJ_QP, aqp.qpn);

	ck_assert_int_eq(emu_fw_qp_set_state(emu_fw_to_qp(o), MLX5_QPC_STATE_SQD),
			 0);
	emu_fw_obj_put(o);
	ck_qp_event(ev_eqe(&aasync, 2000), MLX5_EVENT_TYPE_SQ_DRAINED, aqp.qpn);
	ck_assert_ptr_null(ev_eqe(&aasync, 20));
}
END_TEST

/* ---- on demand ---- */

START_TEST(inject_qp_fatal)
{
	struct fwt_mbox m;

	ent_post_recv(&bqp, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 64);
	ck_assert_int_eq(emu_eng_inject(db.fw, EMU_ENG_INJECT_QP_FATAL, bqp.qpn), 0);
	ck_qp_event(ev_eqe(&basync, 2000), MLX5_EVENT_TYPE_WQ_CATAS_ERROR, bqp.qpn);
	ent_qp_query(&bqp, &m);
	ck_assert_uint_eq(PRM_GET(qpc, PRM_ADDR_OF(query_qp_out, m.out, qpc), state),
			  MLX5_QPC_STATE_ERR);
	ck_assert_uint_eq(ent_cq_next(&bcq)[63] >> 4, MLX5_CQE_RESP_ERR);	/* flush */
	ck_assert_int_eq(emu_eng_inject(db.fw, EMU_ENG_INJECT_QP_FATAL, 0xfffff),
			 -ENOENT);
	ck_assert_int_eq(ent_qp_modify(&bqp, MLX5_CMD_OP_2RST_QP), 0);
	ck_assert_int_eq(emu_eng_inject(db.fw, EMU_ENG_INJECT_QP_FATAL, bqp.qpn),
			 -EINVAL);
}
END_TEST

START_TEST(inject_cq_overrun_and_srq_limit)
{
	struct ent_srq srq;
	const uint8_t *e;

	ck_assert_int_eq(emu_eng_inject(da.fw, EMU_ENG_INJECT_CQ_OVERRUN, acq.cqn), 0);
	e = ev_eqe(&aasync, 2000);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e[1], MLX5_EVENT_TYPE_CQ_ERROR);
	ck_assert_uint_eq(ev_be24(e + 33), acq.cqn);
	ck_assert_int_eq(emu_eng_inject(da.fw, EMU_ENG_INJECT_CQ_OVERRUN, acq.cqn),
			 -EINVAL);
	ent_srq_init(&db, &srq, 3, false, &bcq, 0);
	ck_assert_int_eq(emu_eng_inject(db.fw, EMU_ENG_INJECT_SRQ_LIMIT, srq.srqn), 0);
	ck_qp_event(ev_eqe(&basync, 2000), MLX5_EVENT_TYPE_SRQ_RQ_LIMIT, srq.srqn);
	ck_assert_int_eq(emu_eng_inject(db.fw, EMU_ENG_INJECT_SRQ_LIMIT, 0xffffff),
			 -ENOENT);
}
END_TEST

START_TEST(inject_device_fatal)
{
	ck_assert_int_eq(emu_eng_inject(da.fw, EMU_ENG_INJECT_DEVICE_FATAL, 0), 0);
	arm(&acq, 0, false, 0, true);
	ent_post1(&aqp, MLX5_OPCODE_RDMA_WRITE, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr,
		  0, 8, (uint64_t)(uintptr_t)bmr.buf, bmr.key);
	ck_assert(ent_cq_quiet(&acq, 50));	/* nothing completes */
	ck_assert_ptr_null(ev_eqe(&acomp, 1));
	ck_assert_int_eq(emu_eng_inject(da.fw, EMU_ENG_INJECT_QP_FATAL, aqp.qpn),
			 -ENODEV);
}
END_TEST

START_TEST(port_down_up)
{
	const uint8_t *e;
	struct fwt_mbox m;

	ck_assert_int_eq(emu_fw_port_set_link(db.fw, 1, false), 0);
	e = ev_eqe(&basync, 2000);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e[1], MLX5_EVENT_TYPE_PORT_CHANGE);
	ck_assert_uint_eq(e[3], MLX5_PORT_CHANGE_SUBTYPE_DOWN);
	ck_assert_uint_eq(e[40] >> 4, 1);	/* port 1 */
	/* No change, no event. */
	ck_assert_int_eq(emu_fw_port_set_link(db.fw, 1, false), 0);
	ck_assert_ptr_null(ev_eqe(&basync, 20));
	/* The port down errs no QP by itself; traffic fails by retries. */
	ent_qp_query(&bqp, &m);
	ck_assert_uint_eq(PRM_GET(qpc, PRM_ADDR_OF(query_qp_out, m.out, qpc), state),
			  MLX5_QPC_STATE_RTS);
	ent_post1(&aqp, MLX5_OPCODE_RDMA_WRITE, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr,
		  0, 8, (uint64_t)(uintptr_t)bmr.buf, bmr.key);
	e = ent_cq_next(&acq);
	ck_assert_uint_eq(e[63] >> 4, MLX5_CQE_REQ_ERR);
	ck_assert_uint_eq(e[55], MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
	ck_assert_int_eq(emu_fw_port_set_link(db.fw, 1, true), 0);
	e = ev_eqe(&basync, 2000);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e[1], MLX5_EVENT_TYPE_PORT_CHANGE);
	ck_assert_uint_eq(e[3], MLX5_PORT_CHANGE_SUBTYPE_ACTIVE);
	ck_assert_ptr_null(ev_eqe(&aasync, 1));	/* device a's port stayed */
}
END_TEST

static Suite *eng_events_suite(void)
{
	Suite *s = suite_create("eng_events");
	TCase *tc = tcase_create("arming");
	TCase *te = tcase_create("affiliated");
	TCase *tn = tcase_create("bare");
	TCase *tf = tcase_create("eq_full");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, arm_next_one_event);
	tcase_add_test(tc, arm_solicited);
	tcase_add_test(tc, arm_solicited_error_cqe);
	tcase_add_test(tc, arm_sequence);
	tcase_add_test(tc, arm_with_cqes_there);
	tcase_add_test(tc, arm_record_only);
	tcase_add_test(tc, arm_first_word_zero_through_uar);
	tcase_add_test(tc, moderation_count);
	tcase_add_test(tc, moderation_period);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(tf, setup, teardown);
	tcase_add_test(tf, eq_interrupt_and_full);
	suite_add_tcase(s, tf);

	tcase_add_checked_fixture(te, setup, teardown);
	tcase_add_test(te, cq_overrun_event);
	tcase_add_test(te, remote_access_raises_wq_access);
	tcase_add_test(te, invalid_request_raises_wq_inval_req);
	tcase_add_test(te, length_error_has_cqe_no_event);
	tcase_add_test(te, sq_drained);
	tcase_add_test(te, inject_qp_fatal);
	tcase_add_test(te, inject_cq_overrun_and_srq_limit);
	tcase_add_test(te, inject_device_fatal);
	tcase_add_test(te, port_down_up);
	suite_add_tcase(s, te);

	/* These build their own queues. */
	tcase_add_checked_fixture(tn, NULL, teardown);
	tcase_add_test(tn, comm_est_in_rtr);
	tcase_add_test(tn, srq_last_wqe_and_limit);
	suite_add_tcase(s, tn);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(eng_events_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
