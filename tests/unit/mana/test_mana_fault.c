/* SPDX-License-Identifier: MIT */
/*
 * Data-path fault rules on a MANA device, driven as DPDK's mana PMD drives
 * it (mana_rig.h): a send WQE failed with a chosen TX error CQE type and
 * vendor_err, a received frame dropped with RX_TRUNCATED, lost SQ, RQ and
 * CQ-arm doorbells that the queue's next doorbell recovers, seeded rules
 * that fire alike run after run, and the grammar of dev=mana_N.
 *
 * The oracles are the CQE bytes at the offsets of Linux's gdma.h/mana.h
 * (struct mana_cqe_header in dword 0: cqe_type 5:0, client_type 7:6,
 * vendor_err 31:8; struct gdma_cqe's info dword at byte 60: wq_num 23:0,
 * is_sq 24, owner_bits 31:29) and the frames port 2 receives.
 */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mana_pmd.h"
#include "mana_rig.h"
#include "mlx5emu/mlx5emu.h"
#include "ut_run.h"

enum { TYPE_RX_OKAY = 1, TYPE_RX_TRUNCATED = 4, TYPE_TX_OKAY = 32,
       TYPE_TX_INVALID_OOB = 35, TYPE_TX_VPORT_DISABLED = 40 };

__attribute__((format(printf, 1, 2)))
static int add_rule(const char *fmt, ...)
{
	char text[256];
	va_list ap;
	int rid;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	rid = mlx5emu_fault_add(text);
	ck_assert_msg(rid > 0, "%s: %s", text, mlx5emu_fault_last_error());
	return rid;
}

/* The rule's counters. */
static void counted(int rid, uint64_t matches, uint64_t injections)
{
	struct mlx5emu_fault_stats st;

	ck_assert_int_eq(mlx5emu_fault_stats(rid, &st), 0);
	ck_assert_uint_eq(st.matches, matches);
	ck_assert_uint_eq(st.injections, injections);
}

/* The send CQE number h, waited for. */
static const volatile uint8_t *tx_cqe(struct rig *r, uint32_t h)
{
	const volatile uint8_t *c = mp_cqe_wait(r->dtc.buf, r->dtc.count, h);

	ck_assert_msg(c != NULL, "no send CQE %u", h);
	return c;
}

/* Frames that arrive within ms, as a bit set of their numbers. */
static uint64_t rx_frames(struct rig *r, unsigned int n, unsigned int ms)
{
	uint64_t seen = 0;

	for (unsigned int i = 0; i < n; i++) {
		const volatile uint8_t *c = rig_rx_cqe(r, ms);

		ck_assert_msg(c != NULL, "frame %u of %u missing", i + 1, n);
		ck_assert_uint_eq(mp_get32(c) & 0x3f, TYPE_RX_OKAY);
		seen |= 1ull << rig_frame_no(rig_rx_buf(r, r->rx_head - 1));
	}
	return seen;
}

START_TEST(sq_error_cqe_and_the_queue_goes_on)
{
	struct rig r;
	int rid;

	rig_open(&r, true);
	rid = add_rule("cqe_error dev=mana_0 queue=sq qp=%u nth=3 "
		       "syndrome=CQE_TX_VPORT_DISABLED vendor_syndrome=0xabcdef",
		       r.dq.sq_id);
	rig_post(&r, 0, 8);
	rig_ring_sq(&r);
	for (uint32_t h = 0; h < 8; h++) {
		const volatile uint8_t *c = tx_cqe(&r, h);
		uint32_t info = mp_get32(c + 60);

		ck_assert_uint_eq(info & 0xffffff, r.dq.sq_id);
		ck_assert_uint_eq(info >> 24 & 1, 1);
		ck_assert_uint_eq(info >> 29, 1);	/* first lap */
		if (h != 2) {
			ck_assert_uint_eq(mp_get32(c), TYPE_TX_OKAY | 1u << 6);
			continue;
		}
		/* mana_cqe_header: the type, MANA_CQE_COMPLETION, vendor_err */
		ck_assert_uint_eq(mp_get32(c), TYPE_TX_VPORT_DISABLED | 1u << 6 |
				  0xabcdefu << 8);
		ck_assert_uint_eq(c[0], 0x68);
		ck_assert_uint_eq(c[1], 0xef);
		ck_assert_uint_eq(c[2], 0xcd);
		ck_assert_uint_eq(c[3], 0xab);
		/* tx_data_offset 0; tx_wqe_offset (bits 31:5 of dword 2) is
		 * the WQE's offset in basic units */
		ck_assert_uint_eq(mp_get32(c + 4), 0);
		ck_assert_uint_eq(mp_get32(c + 8) >> 5, 2);
		for (int b = 12; b < 60; b++)
			ck_assert_uint_eq(c[b], 0);
	}
	/* seven frames on the wire, the third one absent */
	ck_assert_uint_eq(rx_frames(&r, 7, 5000), 0xffull & ~(1ull << 2));
	ck_assert(rig_rx_cqe(&r, 200) == NULL);
	counted(rid, 8, 1);

	/* the queue goes on: the next WQEs are sent, the rule is spent */
	rig_post(&r, 8, 2);
	rig_ring_sq(&r);
	ck_assert_uint_eq(mp_get32(tx_cqe(&r, 8)) & 0x3f, TYPE_TX_OKAY);
	ck_assert_uint_eq(mp_get32(tx_cqe(&r, 9)) & 0x3f, TYPE_TX_OKAY);
	ck_assert_uint_eq(rx_frames(&r, 2, 5000), 3ull << 8);
	mlx5emu_fault_clear();
	rig_close(&r);
}
END_TEST

START_TEST(sq_default_type_and_other_queues_untouched)
{
	struct rig r;

	rig_open(&r, true);
	/* no type given: TX_INVALID_OOB, vendor_err 0; another queue id
	 * matches nothing */
	add_rule("cqe_error dev=mana_0 qp=%u", r.dq.sq_id);
	add_rule("cqe_error dev=mana_0 qp=%u", r.dq.sq_id + 1000);
	rig_post(&r, 0, 1);
	rig_ring_sq(&r);
	ck_assert_uint_eq(mp_get32(tx_cqe(&r, 0)), TYPE_TX_INVALID_OOB | 1u << 6);
	ck_assert(rig_rx_cqe(&r, 200) == NULL);
	mlx5emu_fault_clear();
	/* a rule naming no device leaves MANA queues alone */
	ck_assert_int_gt(mlx5emu_fault_add("cqe_error syndrome=LOCAL_PROT"), 0);
	rig_post(&r, 1, 1);
	rig_ring_sq(&r);
	ck_assert_uint_eq(mp_get32(tx_cqe(&r, 1)) & 0x3f, TYPE_TX_OKAY);
	ck_assert_uint_eq(rx_frames(&r, 1, 5000), 1ull << 1);
	mlx5emu_fault_clear();
	rig_close(&r);
}
END_TEST

/* Wire rules naming mana_0 act on its ports' frames: the sender's WQEs
 * complete, the frame the rule picks never arrives. */
START_TEST(wire_rule_drops_a_frame)
{
	struct rig r;

	rig_open(&r, true);
	add_rule("drop dev=mana_0 port=1 nth=2");
	rig_post(&r, 0, 4);
	rig_ring_sq(&r);
	for (uint32_t h = 0; h < 4; h++)
		ck_assert_uint_eq(mp_get32(tx_cqe(&r, h)) & 0x3f, TYPE_TX_OKAY);
	ck_assert_uint_eq(rx_frames(&r, 3, 5000), 0xdull);	/* not 1 */
	ck_assert(rig_rx_cqe(&r, 200) == NULL);
	mlx5emu_fault_clear();
	rig_close(&r);
}
END_TEST

/* Port 1's carrier lost by a rule: what it sends completes and reaches
 * nobody; back up, frames flow again. */
START_TEST(carrier_down_sends_nothing)
{
	struct rig r;

	rig_open(&r, true);
	add_rule("port_down dev=mana_0 port=1");
	rig_post(&r, 0, 2);
	rig_ring_sq(&r);
	ck_assert_uint_eq(mp_get32(tx_cqe(&r, 1)) & 0x3f, TYPE_TX_OKAY);
	ck_assert(rig_rx_cqe(&r, 300) == NULL);
	add_rule("port_up dev=mana_0 port=1");
	rig_post(&r, 2, 1);
	rig_ring_sq(&r);
	ck_assert_uint_eq(rx_frames(&r, 1, 5000), 1ull << 2);
	mlx5emu_fault_clear();
	rig_close(&r);
}
END_TEST

START_TEST(rq_frame_dropped_with_rx_truncated)
{
	struct rig r;
	int rid;

	rig_open(&r, true);
	rid = add_rule("cqe_error dev=mana_0 queue=rq qp=%u nth=2 "
		       "vendor_syndrome=0x42", r.drw.wq_id);
	rig_post(&r, 0, 3);
	rig_ring_sq(&r);
	for (uint32_t i = 0; i < 3; i++) {
		const volatile uint8_t *c = rig_rx_cqe(&r, 5000);

		ck_assert(c != NULL);
		ck_assert_uint_eq(mp_get32(c + 60), r.drw.wq_id | 1u << 29);
		/* rx_wqe_offset: one WQE each, the dropped one's consumed */
		ck_assert_uint_eq(mp_get32(c + 56), 32 * i);
		if (i != 1) {
			ck_assert_uint_eq(mp_get32(c), TYPE_RX_OKAY | 1u << 6);
			ck_assert_uint_eq(rig_frame_no(rig_rx_buf(&r, i)),
					  i == 0 ? 0 : 2);
			continue;
		}
		ck_assert_uint_eq(mp_get32(c), TYPE_RX_TRUNCATED | 1u << 6 |
				  0x42u << 8);
		/* ppi[0].pkt_len: the frame's length; nothing written */
		ck_assert_uint_eq(mp_get32(c + 8) & 0xffff, RIG_FRAME_LEN);
		for (int b = 0; b < RIG_FRAME_LEN; b++)
			ck_assert_uint_eq(rig_rx_buf(&r, 1)[b], 0);
	}
	counted(rid, 3, 1);
	mlx5emu_fault_clear();
	rig_close(&r);
}
END_TEST

START_TEST(sq_doorbell_lost_until_the_next)
{
	struct rig r;
	int rid;

	rig_open(&r, true);
	rid = add_rule("doorbell_drop dev=mana_0 queue=sq qp=%u nth=1",
		       r.dq.sq_id);
	rig_post(&r, 0, 4);
	rig_ring_sq(&r);
	/* lost: nothing is sent */
	ck_assert(rig_rx_cqe(&r, 300) == NULL);
	ck_assert(mp_cqe_at(r.dtc.buf, r.dtc.count, 0) == NULL);
	/* the next doorbell's absolute tail covers what the lost one rang */
	rig_post(&r, 4, 2);
	rig_ring_sq(&r);
	for (uint32_t h = 0; h < 6; h++)
		ck_assert_uint_eq(mp_get32(tx_cqe(&r, h)) & 0x3f, TYPE_TX_OKAY);
	ck_assert_uint_eq(rx_frames(&r, 6, 5000), 0x3full);
	counted(rid, 2, 1);
	mlx5emu_fault_clear();
	rig_close(&r);
}
END_TEST

START_TEST(rq_doorbell_lost_until_the_next)
{
	struct rig r;

	ck_assert_int_gt(mlx5emu_fault_add("doorbell_drop dev=mana_0 queue=rq "
					   "nth=1"), 0);
	rig_open(&r, true);		/* its first doorbell is lost */
	rig_post(&r, 0, 2);
	rig_ring_sq(&r);
	ck_assert_uint_eq(mp_get32(tx_cqe(&r, 1)) & 0x3f, TYPE_TX_OKAY);
	/* sent, but no receive buffer was handed over: dropped */
	ck_assert(rig_rx_cqe(&r, 300) == NULL);
	rig_ring_rq(&r, RIG_RQ_DEPTH);
	rig_post(&r, 2, 1);
	rig_ring_sq(&r);
	ck_assert_uint_eq(rx_frames(&r, 1, 5000), 1ull << 2);
	mlx5emu_fault_clear();
	rig_close(&r);
}
END_TEST

static bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

START_TEST(cq_arm_lost)
{
	struct mp_txq t;
	struct ibv_cq *cq;
	void *cctx;
	int rid;

	mp_txq_open(&t, true);
	rid = add_rule("doorbell_drop dev=mana_0 queue=cq_arm cqn=%u nth=1",
		       t.dc.cq_id);
	/* the arm (the CQ doorbell's bit 63, gdma.h) is lost: the CQE that
	 * follows raises no event */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*(volatile uint64_t *)((char *)t.dq.db_page + 0x800) =
		1ull << 63 | t.dc.cq_id;
	mp_txq_send(&t);
	ck_assert(!readable(t.ch->fd, 200));
	/* the next arm is a request of its own and arms the CQ */
	*(volatile uint64_t *)((char *)t.dq.db_page + 0x800) =
		1ull << 63 | 1ull << 32 | t.dc.cq_id;
	mp_txq_send(&t);
	ck_assert(readable(t.ch->fd, 5000));
	ck_assert_int_eq(ibv_get_cq_event(t.ch, &cq, &cctx), 0);
	ck_assert_ptr_eq(cq, t.cq);
	ibv_ack_cq_events(cq, 1);
	counted(rid, 2, 1);
	mlx5emu_fault_clear();
	mp_txq_close(&t, true);
}
END_TEST

/* Which of 48 send WQEs a seeded rule failed, as a bit set. */
static uint64_t seeded_run(unsigned int seed)
{
	struct rig r;
	uint64_t failed = 0;

	rig_open(&r, true);
	add_rule("cqe_error dev=mana_0 qp=%u prob=0.25 seed=%u "
		 "syndrome=CQE_TX_MTU_DROP", r.dq.sq_id, seed);
	rig_post(&r, 0, 48);
	rig_ring_sq(&r);
	for (uint32_t h = 0; h < 48; h++)
		if ((mp_get32(tx_cqe(&r, h)) & 0x3f) != TYPE_TX_OKAY)
			failed |= 1ull << h;
	mlx5emu_fault_clear();
	rig_close(&r);
	return failed;
}

START_TEST(seeded_prob_reproduces)
{
	uint64_t a = seeded_run(11), b = seeded_run(11);

	ck_assert_uint_eq(a, b);
	ck_assert_uint_ne(a, 0);
	ck_assert_uint_ne(a, (1ull << 48) - 1);
	/* another seed, another sequence */
	ck_assert_uint_ne(seeded_run(12), a);
}
END_TEST

/* ---- the grammar ---- */

static void parses_as(const char *text, const char *canon)
{
	char buf[256];
	int id = mlx5emu_fault_add(text);

	ck_assert_msg(id > 0, "%s: %s", text, mlx5emu_fault_last_error());
	ck_assert_int_gt(mlx5emu_fault_format(id, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, canon);
	ck_assert_int_eq(mlx5emu_fault_remove(id), 0);
}

static void refused(const char *text, const char *why)
{
	struct mlx5emu_fault_rule r;

	ck_assert_int_eq(mlx5emu_fault_parse(text, &r), -EINVAL);
	ck_assert_msg(strstr(mlx5emu_fault_last_error(), why) != NULL,
		      "%s: \"%s\" lacks \"%s\"", text,
		      mlx5emu_fault_last_error(), why);
}

START_TEST(grammar_names_mana_devices)
{
	struct mlx5emu_fault_rule r;

	ck_assert_int_eq(mlx5emu_fault_parse("cqe_error dev=mana_2", &r), 0);
	ck_assert_uint_eq(r.dev, MLX5EMU_FAULT_DEV_MANA + 2);
	ck_assert_uint_ne(r.match & MLX5EMU_FAULT_MATCH_DEV, 0);
	/* mlx5_N and bare numbers keep their meaning */
	ck_assert_int_eq(mlx5emu_fault_parse("fail dev=mlx5_3", &r), 0);
	ck_assert_uint_eq(r.dev, 3);
	ck_assert_int_eq(mlx5emu_fault_parse("fail dev=15", &r), 0);
	ck_assert_uint_eq(r.dev, 15);
	/* a 24-bit vendor syndrome, the type named as the kernel does */
	ck_assert_int_eq(mlx5emu_fault_parse("cqe_error vendor_syndrome=0x123456 "
					     "syndrome=CQE_TX_SA_DROP dev=mana_0",
					     &r), 0);
	ck_assert_uint_eq(r.syndrome, 33);
	ck_assert_uint_eq(r.vendor_syndrome, 0x56);
	ck_assert_uint_eq(r.vendor_syndrome_hi, 0x1234);

	parses_as("cqe_error dev=mana_0 qp=7 syndrome=tx_vlan_tagging_violation",
		  "cqe_error dev=mana_0 qp=0x7 syndrome=CQE_TX_VLAN_TAGGING_VIOLATION");
	parses_as("cqe_error dev=mana_1 syndrome=34 vendor_syndrome=0xfffff",
		  "cqe_error dev=mana_1 syndrome=CQE_TX_MTU_DROP "
		  "vendor_syndrome=0xfffff");
	parses_as("cqe_error dev=mana_3 queue=rq",
		  "cqe_error dev=mana_3 queue=rq");
	parses_as("doorbell_drop dev=mana_0 queue=rq every=2",
		  "doorbell_drop dev=mana_0 queue=rq every=2");
}
END_TEST

START_TEST(grammar_refuses)
{
	refused("cqe_error dev=mana_4", "mana_0 to mana_3");
	refused("cqe_error dev=mana_x", "bad dev");
	refused("fail dev=mana_0", "data-path rules");
	refused("qp_fatal dev=mana_1", "data-path rules");
	refused("port_down dev=mana_0 opcode=CREATE_CQ", "without a command");
	refused("cqe_delay dev=mana_0 us=10", "cqe_delay does not apply");
	refused("cqe_error dev=mana_0 wqe=SEND", "no opcode");
	refused("cqe_error dev=mana_0 syndrome=CQE_RX_TRUNCATED",
		"not a MANA send error");
	refused("cqe_error dev=mana_0 syndrome=CQE_TX_OKAY",
		"not a MANA send error");
	refused("cqe_error dev=mana_0 queue=rq syndrome=CQE_TX_MTU_DROP",
		"not a MANA receive error");
	refused("cqe_error dev=mana_0 syndrome=LOCAL_PROT", "MANA CQE type");
	refused("cqe_error dev=mana_0 syndrome=64", "MANA CQE type");
	refused("cqe_error dev=mana_0 vendor_syndrome=0x1000000", "0xffffff");
	refused("cqe_error syndrome=LOCAL_PROT vendor_syndrome=0x100", "0 to 255");
	refused("cqe_error syndrome=CQE_TX_MTU_DROP", "CQE syndrome");
	refused("doorbell_drop queue=rq", "no doorbell");
	refused("doorbell_drop dev=mana_0 queue=cq_arm qp=3", "names a CQ");

	/* the struct form: the high vendor bits belong to MANA devices */
	struct mlx5emu_fault_rule r = {
		.action = MLX5EMU_FAULT_CQE_ERROR, .syndrome = 4,
		.flags = MLX5EMU_FAULT_F_VENDOR, .vendor_syndrome_hi = 1,
	};

	ck_assert_int_eq(mlx5emu_fault_add_rule(&r), -EINVAL);
	ck_assert_ptr_nonnull(strstr(mlx5emu_fault_last_error(), "MANA"));
	r.match = MLX5EMU_FAULT_MATCH_DEV;
	r.dev = MLX5EMU_FAULT_DEV_MANA;
	r.syndrome = 35;
	ck_assert_int_gt(mlx5emu_fault_add_rule(&r), 0);
	mlx5emu_fault_clear();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_fault");
	TCase *tc = tcase_create("datapath");
	TCase *tg = tcase_create("grammar");

	setenv("MLX5EMU_MANA_DEVICES", "1", 1);
	setenv("MLX5EMU_NUM_PORTS", "2", 1);
	/* one receive CQE per frame, so each frame's CQE is checked on its
	 * own (coalesced CQEs are test_mana_traffic's) */
	setenv("MLX5EMU_MANA_RX_COALESCING", "0", 1);
	tcase_add_test(tc, sq_error_cqe_and_the_queue_goes_on);
	tcase_add_test(tc, sq_default_type_and_other_queues_untouched);
	tcase_add_test(tc, rq_frame_dropped_with_rx_truncated);
	tcase_add_test(tc, sq_doorbell_lost_until_the_next);
	tcase_add_test(tc, rq_doorbell_lost_until_the_next);
	tcase_add_test(tc, cq_arm_lost);
	tcase_add_test(tc, seeded_prob_reproduces);
	tcase_add_test(tc, wire_rule_drops_a_frame);
	tcase_add_test(tc, carrier_down_sends_nothing);
	tcase_add_test(tg, grammar_names_mana_devices);
	tcase_add_test(tg, grammar_refuses);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tg);
	return ut_run(s);
}
