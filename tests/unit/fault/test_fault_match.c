/* SPDX-License-Identifier: MIT */
/*
 * The matcher: which commands a rule matches, and which of its matches
 * fire -- nth, every nth, a seeded probability (the exact firing sequence
 * of a fixed seed), limits -- counted per rule, in rule order, through the
 * hook every device's firmware calls.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emu/firmware/fw_syndrome.h"
#include "prm/prm_cmd.h"

#include "fault_test_util.h"

static void setup(void)
{
	ft_reset();
}

static struct mlx5emu_fault_rule rule(const char *text)
{
	struct mlx5emu_fault_rule r;
	char err[EMU_FAULT_ERR_MAX] = "";

	ck_assert_msg(!emu_fault_parse(text, &r, err, sizeof(err)), "%s", err);
	return r;
}

/* ---- which commands match ---- */

#define GEN_OBJ MLX5_CMD_OP_CREATE_GENERAL_OBJECT
static const struct {
	const char *rule;
	struct emu_fault_cmd cmd;
	bool match;
} matches[] = {
	{ "fail", { 0, MLX5_CMD_OP_CREATE_CQ, 0, 5, 2 }, true },
	{ "fail opcode=CREATE_CQ", { 0, MLX5_CMD_OP_CREATE_CQ, 0, 5, 2 }, true },
	{ "fail opcode=CREATE_CQ", { 0, MLX5_CMD_OP_CREATE_EQ, 0, 5, 2 }, false },
	{ "fail op_mod=1", { 0, MLX5_CMD_OP_MODIFY_CQ, 1, 5, 3 }, true },
	{ "fail op_mod=1", { 0, MLX5_CMD_OP_MODIFY_CQ, 0, 5, 3 }, false },
	{ "fail obj_type=FLOW_METER_ASO", { 0, GEN_OBJ, 0x24, 5, 2 }, true },
	{ "fail obj_type=FLOW_METER_ASO", { 0, GEN_OBJ, 0x27, 5, 2 }, false },
	{ "fail obj_type=FLOW_METER_ASO",
	  { 0, MLX5_CMD_OP_DESTROY_GENERAL_OBJECT, 0x24, 5, 5 }, true },
	/* Elsewhere the same bits are an op_mod, not an object type. */
	{ "fail obj_type=FLOW_METER_ASO", { 0, MLX5_CMD_OP_QUERY_HCA_CAP, 0x24, 5, 1 },
	  false },
	{ "fail class=create", { 0, MLX5_CMD_OP_ALLOC_PD, 0, 5, 2 }, true },
	{ "fail class=create", { 0, MLX5_CMD_OP_DEALLOC_PD, 0, 5, 5 }, false },
	{ "fail class=destroy", { 0, MLX5_CMD_OP_DEALLOC_PD, 0, 5, 5 }, true },
	{ "fail uid=kernel", { 0, MLX5_CMD_OP_ALLOC_PD, 0, 0, 2 }, true },
	{ "fail uid=kernel", { 0, MLX5_CMD_OP_ALLOC_PD, 0, 5, 2 }, false },
	{ "fail uid=user", { 0, MLX5_CMD_OP_ALLOC_PD, 0, 5, 2 }, true },
	{ "fail uid=user", { 0, MLX5_CMD_OP_ALLOC_PD, 0, 0, 2 }, false },
	{ "fail uid=5", { 0, MLX5_CMD_OP_ALLOC_PD, 0, 5, 2 }, true },
	{ "fail uid=5", { 0, MLX5_CMD_OP_ALLOC_PD, 0, 6, 2 }, false },
	{ "fail dev=1", { 1, MLX5_CMD_OP_ALLOC_PD, 0, 5, 2 }, true },
	{ "fail dev=mlx5_1", { 0, MLX5_CMD_OP_ALLOC_PD, 0, 5, 2 }, false },
	{ "fail opcode=ALLOC_PD uid=user dev=0 class=create",
	  { 0, MLX5_CMD_OP_ALLOC_PD, 0, 5, 2 }, true },
	{ "fail opcode=ALLOC_PD uid=user dev=0 class=create",
	  { 0, MLX5_CMD_OP_ALLOC_PD, 0, 0, 2 }, false },
};

/* ---- which frames match ---- */

static const struct {
	const char *rule;
	struct emu_fault_frame f;	/* dev, port, rx, roce, opcode, qpn, psn */
	bool match;
} frames[] = {
	{ "drop", { 0, 1, false, true, 0x04, 0x101, 7 }, true },
	{ "drop", { 0, 1, true, true, 0x04, 0x101, 7 }, false },
	{ "drop dir=rx", { 0, 1, true, true, 0x04, 0x101, 7 }, true },
	{ "drop dir=tx", { 0, 1, true, true, 0x04, 0x101, 7 }, false },
	{ "drop", { 0, 1, false, false, 0, 0, 0 }, true },	/* not RoCE */
	{ "drop qp=0x101", { 0, 1, false, false, 0, 0, 0 }, false },
	{ "drop qp=0x101", { 0, 1, false, true, 0x04, 0x101, 7 }, true },
	{ "drop qp=0x101", { 0, 1, false, true, 0x04, 0x102, 7 }, false },
	{ "drop port=2", { 0, 1, false, true, 0x04, 0x101, 7 }, false },
	{ "drop port=2", { 0, 2, false, true, 0x04, 0x101, 7 }, true },
	{ "drop dev=1", { 0, 1, false, true, 0x04, 0x101, 7 }, false },
	{ "drop bth=RC_ACKNOWLEDGE", { 0, 1, false, true, 0x11, 1, 7 }, true },
	{ "drop bth=RC_ACKNOWLEDGE", { 0, 1, false, true, 0x04, 1, 7 }, false },
	{ "drop psn=5-9", { 0, 1, false, true, 0x04, 1, 5 }, true },
	{ "drop psn=5-9", { 0, 1, false, true, 0x04, 1, 9 }, true },
	{ "drop psn=5-9", { 0, 1, false, true, 0x04, 1, 10 }, false },
	{ "drop psn=5-9", { 0, 1, false, true, 0x04, 1, 4 }, false },
	{ "drop psn=7", { 0, 1, false, true, 0x04, 1, 7 }, true },
	/* A range through the wrap at 2^24. */
	{ "drop psn=16777214-1", { 0, 1, false, true, 0x04, 1, 16777215 }, true },
	{ "drop psn=16777214-1", { 0, 1, false, true, 0x04, 1, 0 }, true },
	{ "drop psn=16777214-1", { 0, 1, false, true, 0x04, 1, 2 }, false },
	{ "drop psn=16777214-1", { 0, 1, false, true, 0x04, 1, 16777213 }, false },
};

START_TEST(match_frames)
{
	struct mlx5emu_fault_rule r = rule(frames[_i].rule);

	ck_assert_msg(emu_fault_frame_matches(&r, &frames[_i].f) ==
		      frames[_i].match, "%s", frames[_i].rule);
}
END_TEST

/* Through the rule set: wire rules see frames only, command rules
 * commands only; delays add up; the first other action wins. */
START_TEST(frame_verdicts)
{
	struct emu_fault_frame f = { 0, 1, false, true, 0x04, 0x101, 0 };
	struct mlx5emu_fault_stats st;
	uint32_t us, got[8];
	int a, b, c;

	ck_assert(!emu_fault_wire_active());
	ck_assert_uint_eq(emu_fault_frame_verdict(&f, &us), 0);
	ft_add("fail opcode=ALLOC_PD");		/* commands only */
	ck_assert(!emu_fault_wire_active());
	a = ft_add("delay us=100");
	b = ft_add("delay ms=2 qp=0x101");
	c = ft_add("drop every=2");
	ck_assert(emu_fault_wire_active());
	for (int i = 0; i < 4; i++)
		got[i] = emu_fault_frame_verdict(&f, &us);
	ck_assert_uint_eq(got[0], MLX5EMU_FAULT_DELAY);
	ck_assert_uint_eq(got[1], MLX5EMU_FAULT_DROP);
	ck_assert_uint_eq(got[2], MLX5EMU_FAULT_DELAY);
	ck_assert_uint_eq(got[3], MLX5EMU_FAULT_DROP);
	emu_fault_frame_verdict(&f, &us);
	ck_assert_uint_eq(us, 2100);
	ck_assert_int_eq(emu_fault_stats(a, &st), 0);
	ck_assert_uint_eq(st.matches, 5);
	ck_assert_uint_eq(st.injections, 5);
	ck_assert_int_eq(emu_fault_stats(c, &st), 0);
	ck_assert_uint_eq(st.injections, 2);
	/* A frame for another QP: the delay without a QP, and the drop's
	 * sixth match. */
	f.qpn = 0x102;
	ck_assert_uint_eq(emu_fault_frame_verdict(&f, &us), MLX5EMU_FAULT_DROP);
	ck_assert_uint_eq(emu_fault_frame_verdict(&f, &us), MLX5EMU_FAULT_DELAY);
	ck_assert_uint_eq(us, 100);
	ck_assert_int_eq(emu_fault_stats(b, &st), 0);
	ck_assert_uint_eq(st.matches, 5);
	ck_assert_int_eq(emu_fault_stats(c, &st), 0);
	ck_assert_uint_eq(st.matches, 7);
	/* Commands never meet the wire rules. */
	{
		char s[8];

		ft_pattern(s, 3, 0, MLX5_CMD_OP_CREATE_CQ, 2);
		ck_assert_str_eq(s, "...");
	}
}
END_TEST

START_TEST(match_fields)
{
	struct mlx5emu_fault_rule r = rule(matches[_i].rule);

	ck_assert_msg(emu_fault_matches(&r, &matches[_i].cmd) == matches[_i].match,
		      "%s", matches[_i].rule);
}
END_TEST

/* ---- which matches fire ---- */

static void fires(const char *text, uint64_t seed, char *buf, int n)
{
	struct mlx5emu_fault_rule r = rule(text);

	if (r.flags & MLX5EMU_FAULT_F_SEED)
		seed = r.seed;
	for (int k = 1; k <= n; k++)
		buf[k - 1] = emu_fault_fires(&r, (uint64_t)k, seed) ? 'F' : '.';
	buf[n] = '\0';
}

START_TEST(triggers)
{
	char s[64];

	fires("fail", 0, s, 12);
	ck_assert_str_eq(s, "FFFFFFFFFFFF");
	fires("fail nth=1", 0, s, 12);
	ck_assert_str_eq(s, "F...........");
	fires("fail nth=3", 0, s, 12);
	ck_assert_str_eq(s, "..F.........");
	fires("fail every=1", 0, s, 12);
	ck_assert_str_eq(s, "FFFFFFFFFFFF");
	fires("fail every=3", 0, s, 12);
	ck_assert_str_eq(s, "..F..F..F..F");
	fires("fail every=5", 0, s, 12);
	ck_assert_str_eq(s, "....F....F..");
	fires("fail prob=1", 0, s, 12);
	ck_assert_str_eq(s, "FFFFFFFFFFFF");
}
END_TEST

/*
 * The exact sequences of fixed seeds: the k-th match fires when
 * splitmix64(seed ^ splitmix64(k)) >> 11, as a fraction of 2^53, is below
 * the probability.  These strings are the contract of a seed.
 */
START_TEST(probability_sequences)
{
	char s[64];

	fires("fail prob=0.5 seed=42", 0, s, 40);
	ck_assert_str_eq(s, "FFF..FF.FFFFFFF.FF..F..F.FFFFF.FFF.F.FFF");
	fires("fail prob=0.25 seed=7", 0, s, 40);
	ck_assert_str_eq(s, ".F...FF...F.................FF..F.F..F..");
	fires("fail prob=0.1 seed=2024", 0, s, 40);
	ck_assert_str_eq(s, ".F................FF..............F.....");
	/* No seed of its own: fault.seed (here 0) is used. */
	fires("fail prob=0.5", 0, s, 40);
	ck_assert_str_eq(s, "FF.....F.F....FFF.F..FFFFFF.F.FFF...F.FF");
	fires("fail prob=0.5 seed=0", 42, s, 40);	/* its own seed wins */
	ck_assert_str_eq(s, "FF.....F.F....FFF.F..FFFFFF.F.FFF...F.FF");
	/* Draws: fixed values, in [0, 1). */
	ck_assert(emu_fault_draw(42, 1) == 0.49492952708953541);
	ck_assert(emu_fault_draw(42, 2) == 0.11599941521466184);
}
END_TEST

/* Over many matches the rate is the probability (4 sigma). */
START_TEST(probability_rate)
{
	const double ps[] = { 0.01, 0.25, 0.5, 0.9 };

	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		struct mlx5emu_fault_rule r = rule("fail prob=0.5 seed=9");
		const int n = 200000;
		int hits = 0;
		double sigma = sqrt(n * ps[i] * (1 - ps[i]));

		r.probability = ps[i];
		for (int k = 1; k <= n; k++) {
			double d = emu_fault_draw(9, (uint64_t)k);

			ck_assert(d >= 0.0 && d < 1.0);
			hits += emu_fault_fires(&r, (uint64_t)k, 0);
		}
		ck_assert_msg(fabs(hits - n * ps[i]) < 4 * sigma,
			      "p=%g: %d of %d", ps[i], hits, n);
	}
}
END_TEST

/* ---- through the hook: counts, limits, order ---- */

START_TEST(hook_nth_every_counts)
{
	struct mlx5emu_fault_stats st;
	char s[32];
	int nth = ft_add("fail opcode=ALLOC_PD nth=2");
	int every = ft_add("fail opcode=CREATE_CQ every=3");

	ft_pattern(s, 7, 0, MLX5_CMD_OP_ALLOC_PD, 3);
	ck_assert_str_eq(s, ".F.....");
	ft_pattern(s, 7, 0, MLX5_CMD_OP_CREATE_CQ, 3);
	ck_assert_str_eq(s, "..F..F.");
	ft_pattern(s, 3, 0, MLX5_CMD_OP_QUERY_HCA_CAP, 3);
	ck_assert_str_eq(s, "...");
	ck_assert_int_eq(emu_fault_stats(nth, &st), 0);
	ck_assert_uint_eq(st.matches, 7);
	ck_assert_uint_eq(st.injections, 1);
	ck_assert_int_eq(emu_fault_stats(every, &st), 0);
	ck_assert_uint_eq(st.matches, 7);
	ck_assert_uint_eq(st.injections, 2);
	ck_assert_int_eq(emu_fault_stats(99, &st), -ENOENT);
}
END_TEST

START_TEST(hook_seeded_probability)
{
	char s[48];

	ft_add("fail opcode=ALLOC_PD prob=0.5 seed=42");
	ft_pattern(s, 40, 0, MLX5_CMD_OP_ALLOC_PD, 3);
	ck_assert_str_eq(s, "FFF..FF.FFFFFFF.FF..F..F.FFFFF.FFF.F.FFF");
}
END_TEST

/* fault.seed from the configuration seeds rules without seed=. */
START_TEST(hook_configured_seed)
{
	char s[48];

	setenv("MLX5EMU_FAULT_SEED", "42", 1);
	setenv("MLX5EMU_FAULTS", "fail opcode=ALLOC_PD prob=0.5", 1);
	ft_pattern(s, 40, 0, MLX5_CMD_OP_ALLOC_PD, 3);	/* engine not started */
	ck_assert_str_eq(s, "........................................");
	ck_assert_int_eq(emu_fault_list(NULL, 0), 1);	/* starts it */
	ck_assert_uint_eq(emu_fault_seed(), 42);
	ft_pattern(s, 40, 0, MLX5_CMD_OP_ALLOC_PD, 3);
	ck_assert_str_eq(s, "FFF..FF.FFFFFFF.FF..F..F.FFFFF.FFF.F.FFF");
}
END_TEST

START_TEST(hook_limit)
{
	struct mlx5emu_fault_stats st;
	char s[16];
	int id = ft_add("fail opcode=ALLOC_PD every=2 limit=2");

	ft_pattern(s, 8, 0, MLX5_CMD_OP_ALLOC_PD, 3);
	ck_assert_str_eq(s, ".F.F....");
	ck_assert_int_eq(emu_fault_stats(id, &st), 0);
	ck_assert_uint_eq(st.matches, 8);
	ck_assert_uint_eq(st.injections, 2);
}
END_TEST

/* A failed command is not seen by later rules; delays add up. */
START_TEST(hook_rule_order)
{
	struct mlx5emu_fault_stats st;
	const struct fw_syndrome *cq = fw_syndrome_by_name("CQ_IN_USE");
	uint8_t status;
	uint32_t syndrome;
	char s[16];
	int d = ft_add("delay opcode=ALLOC_PD ms=1");
	int a = ft_add("fail opcode=ALLOC_PD every=2 syndrome=CQ_IN_USE");
	int b = ft_add("fail opcode=ALLOC_PD status=RES_BUSY");
	double t0;

	t0 = ft_now_ms();
	ft_pattern(s, 6, 0, MLX5_CMD_OP_ALLOC_PD, 3);
	ck_assert_double_ge(ft_now_ms() - t0, 6.0);	/* six 1 ms delays */
	ck_assert_str_eq(s, "FFFFFF");
	ck_assert_int_eq(emu_fault_stats(d, &st), 0);
	ck_assert_uint_eq(st.matches, 6);
	ck_assert_uint_eq(st.injections, 6);
	ck_assert_int_eq(emu_fault_stats(a, &st), 0);
	ck_assert_uint_eq(st.matches, 6);
	ck_assert_uint_eq(st.injections, 3);
	ck_assert_int_eq(emu_fault_stats(b, &st), 0);
	ck_assert_uint_eq(st.matches, 3);	/* the odd ones only */
	ck_assert_uint_eq(st.injections, 3);
	/* The 7th: odd, answered by b; the 8th by a. */
	ck_assert_int_eq(ft_hook(0, MLX5_CMD_OP_ALLOC_PD, 0, 3, &status, &syndrome), 'F');
	ck_assert_uint_eq(status, MLX5_CMD_STAT_RES_BUSY);
	ck_assert_uint_eq(syndrome, 0xee0000ff);
	ck_assert_int_eq(ft_hook(0, MLX5_CMD_OP_ALLOC_PD, 0, 3, &status, &syndrome), 'F');
	ck_assert_uint_eq(status, cq->status);
	ck_assert_uint_eq(syndrome, cq->value);
}
END_TEST

START_TEST(hook_delay)
{
	struct mlx5emu_fault_stats st;
	double t0 = ft_now_ms();
	int id = ft_add("delay opcode=QUERY_HCA_CAP ms=40 nth=1");

	ck_assert_int_eq(ft_hook(0, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, NULL, NULL), '.');
	ck_assert_double_ge(ft_now_ms() - t0, 40.0);
	t0 = ft_now_ms();
	ck_assert_int_eq(ft_hook(0, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, NULL, NULL), '.');
	ck_assert_double_lt(ft_now_ms() - t0, 40.0);
	ck_assert_int_eq(emu_fault_stats(id, &st), 0);
	ck_assert_uint_eq(st.injections, 1);
}
END_TEST

/* dev= and class= through the hook (the class comes from the firmware's
 * command table). */
START_TEST(hook_dev_and_class)
{
	char s[8];

	ft_add("fail dev=1 class=destroy");
	ft_pattern(s, 2, 0, MLX5_CMD_OP_DEALLOC_PD, 3);
	ck_assert_str_eq(s, "..");
	ft_pattern(s, 2, 1, MLX5_CMD_OP_ALLOC_PD, 3);
	ck_assert_str_eq(s, "..");
	ft_pattern(s, 2, 1, MLX5_CMD_OP_DEALLOC_PD, 3);
	ck_assert_str_eq(s, "FF");
	ft_pattern(s, 2, 1, MLX5_CMD_OP_DESTROY_CQ, 3);
	ck_assert_str_eq(s, "FF");
}
END_TEST

/* ---- the observer (the trace's view of injections) ---- */

static struct emu_fault_event events[8];
static char texts[8][EMU_FAULT_TEXT_MAX];
static int nevents;

static void observe(void *arg, const struct emu_fault_event *ev)
{
	ck_assert_ptr_eq(arg, events);
	if (nevents < 8) {
		events[nevents] = *ev;
		strcpy(texts[nevents], ev->rule_text);
		nevents++;
	}
}

START_TEST(observer_events)
{
	int d = ft_add("delay ms=1 opcode=CREATE_CQ uid=user");
	int f = ft_add("fail opcode=CREATE_CQ status=LIM nth=2");

	nevents = 0;
	emu_fault_set_observer(observe, events);
	ft_pattern((char[4]){ 0 }, 3, 2, MLX5_CMD_OP_CREATE_CQ, 9);
	ck_assert_int_eq(nevents, 4);
	ck_assert_int_eq(events[0].rule_id, d);
	ck_assert_str_eq(texts[0], "delay opcode=CREATE_CQ uid=user ms=1");
	ck_assert_uint_eq(events[0].action, MLX5EMU_FAULT_DELAY);
	ck_assert_uint_eq(events[0].delay_ms, 1);
	ck_assert_int_eq(events[0].dev, 2);
	ck_assert_uint_eq(events[0].uid, 9);
	ck_assert_uint_eq(events[0].opcode, MLX5_CMD_OP_CREATE_CQ);
	ck_assert_uint_eq(events[0].match, 1);
	ck_assert_uint_eq(events[0].injection, 1);
	ck_assert_int_eq(events[1].rule_id, d);
	ck_assert_int_eq(events[2].rule_id, f);
	ck_assert_str_eq(texts[2], "fail opcode=CREATE_CQ status=LIM nth=2");
	ck_assert_uint_eq(events[2].action, MLX5EMU_FAULT_FAIL);
	ck_assert_uint_eq(events[2].status, MLX5_CMD_STAT_LIM_ERR);
	ck_assert_uint_eq(events[2].syndrome, 0xee0000ff);
	ck_assert_uint_eq(events[2].match, 2);
	ck_assert_uint_eq(events[2].injection, 1);
	ck_assert_int_eq(events[3].rule_id, d);
	ck_assert_uint_eq(events[3].match, 3);
	ck_assert_uint_eq(events[3].injection, 3);
	emu_fault_set_observer(NULL, NULL);
	ft_pattern((char[4]){ 0 }, 1, 2, MLX5_CMD_OP_CREATE_CQ, 9);
	ck_assert_int_eq(nevents, 4);
}
END_TEST

/* ---- the rule set: ids, list, format, remove, clear ---- */

START_TEST(rule_set_management)
{
	char buf[EMU_FAULT_TEXT_MAX], err[EMU_FAULT_ERR_MAX];
	struct mlx5emu_fault_rule r;
	int ids[4];
	int a = ft_add("fail opcode=ALLOC_PD");
	int b = ft_add("delay  ms=2   opcode=create_cq");
	int c;

	ck_assert_int_eq(a, 1);
	ck_assert_int_eq(b, 2);
	ck_assert_int_eq(emu_fault_list(ids, 4), 2);
	ck_assert_int_eq(ids[0], a);
	ck_assert_int_eq(ids[1], b);
	ck_assert_int_eq(emu_fault_format(b, buf, sizeof(buf)),
			 (int)strlen("delay opcode=CREATE_CQ ms=2"));
	ck_assert_str_eq(buf, "delay opcode=CREATE_CQ ms=2");
	ck_assert_int_eq(emu_fault_format(b, buf, 6), 27);	/* truncated */
	ck_assert_str_eq(buf, "delay");
	ck_assert_int_eq(emu_fault_remove(a), 0);
	ck_assert_int_eq(emu_fault_remove(a), -ENOENT);
	ck_assert_int_eq(emu_fault_format(a, buf, sizeof(buf)), -ENOENT);
	ck_assert_int_eq(emu_fault_list(ids, 4), 1);
	ck_assert_int_eq(ids[0], b);
	c = ft_add("fail nth=4");
	ck_assert_int_eq(c, 3);		/* ids are not reused */
	emu_fault_clear();
	ck_assert_int_eq(emu_fault_list(ids, 4), 0);
	ck_assert_int_eq(ft_hook(0, MLX5_CMD_OP_ALLOC_PD, 0, 0, NULL, NULL), '.');
	/* Bad rules are refused with the parser's message. */
	ck_assert_int_eq(emu_fault_add_text("fail nth=0", err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "bad nth \"0\": expected a positive integer");
	memset(&r, 0, sizeof(r));
	r.action = MLX5EMU_FAULT_DELAY;
	ck_assert_int_eq(emu_fault_add_rule(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "a delay rule needs ms=N (1 to 60000)");
	r.delay_ms = 1;
	ck_assert_int_eq(emu_fault_add_rule(&r, err, sizeof(err)), 4);
}
END_TEST

START_TEST(rule_set_limit)
{
	char err[EMU_FAULT_ERR_MAX];

	for (int i = 0; i < EMU_FAULT_MAX_RULES; i++)
		ck_assert_int_gt(emu_fault_add_text("fail opcode=0xfff0", err,
						    sizeof(err)), 0);
	ck_assert_int_eq(emu_fault_add_text("fail", err, sizeof(err)), -ENOSPC);
	ck_assert_str_eq(err, "too many rules (at most 1024)");
	emu_fault_clear();
	ck_assert_int_gt(emu_fault_add_text("fail", err, sizeof(err)), 0);
}
END_TEST

/* Rules of MLX5EMU_FAULTS come first, once per process. */
START_TEST(configured_rules)
{
	char buf[EMU_FAULT_TEXT_MAX];
	int ids[4];

	setenv("MLX5EMU_FAULTS", "fail opcode=ALLOC_PD nth=1; delay ms=1", 1);
	ck_assert_int_eq(ft_add("fail every=9"), 3);
	ck_assert_int_eq(emu_fault_list(ids, 4), 3);
	ck_assert_int_eq(emu_fault_format(ids[0], buf, sizeof(buf)), 26);
	ck_assert_str_eq(buf, "fail opcode=ALLOC_PD nth=1");
	ck_assert_int_eq(emu_fault_format(ids[1], buf, sizeof(buf)), 10);
	ck_assert_str_eq(buf, "delay ms=1");
	/* Cleared, they do not come back. */
	emu_fault_clear();
	ck_assert_int_eq(emu_fault_list(ids, 4), 0);
}
END_TEST

/* A bad configuration does not start the engine's configured rules; the
 * device's initialisation reports it.  Once fixed, the rules come. */
START_TEST(configured_rules_bad)
{
	setenv("MLX5EMU_FAULTS", "fail opcode=NOPE", 1);
	ck_assert_int_eq(emu_fault_list(NULL, 0), 0);
	setenv("MLX5EMU_FAULTS", "fail opcode=ALLOC_PD", 1);
	ck_assert_int_eq(emu_fault_list(NULL, 0), 1);
}
END_TEST

/* Work requests: which a data-path rule matches. */
static const struct {
	const char *rule;
	struct emu_fault_wqe w;
	bool match;
} wqes[] = {
	/* without queue=, send WQEs; never doorbells */
	{ "cqe_error syndrome=1", { 0, 0x100, false, false, 0x0a }, true },
	{ "cqe_error syndrome=1", { 0, 0x100, true, false, 0x0a }, false },
	{ "cqe_error syndrome=1", { 0, 0x100, false, true, 0 }, false },
	{ "cqe_error queue=rq syndrome=1", { 0, 0x100, true, false, 0x0a }, true },
	{ "cqe_error queue=rq syndrome=1", { 0, 0x100, false, false, 0x0a }, false },
	{ "cqe_delay queue=sq us=1", { 0, 0x100, false, false, 0x0a }, true },
	{ "cqe_error qp=0x100 syndrome=1", { 0, 0x100, false, false, 0x0a }, true },
	{ "cqe_error qp=0x100 syndrome=1", { 0, 0x101, false, false, 0x0a }, false },
	{ "cqe_error wqe=RDMA_WRITE syndrome=1", { 0, 0x100, false, false, 0x08 }, true },
	{ "cqe_error wqe=RDMA_WRITE syndrome=1", { 0, 0x100, false, false, 0x0a }, false },
	{ "cqe_error dev=1 syndrome=1", { 1, 0x100, false, false, 0x0a }, true },
	{ "cqe_error dev=1 syndrome=1", { 0, 0x100, false, false, 0x0a }, false },
	/* doorbells only */
	{ "doorbell_drop", { 0, 0x100, false, true, 0 }, true },
	{ "doorbell_drop", { 0, 0x100, false, false, 0x0a }, false },
	{ "doorbell_drop qp=0x101", { 0, 0x100, false, true, 0 }, false },
	/* arms only with queue=cq_arm, and only those */
	{ "doorbell_drop", { 0, 0, false, true, 0, true, 5 }, false },
	{ "doorbell_drop queue=sq", { 0, 0x100, false, true, 0 }, true },
	{ "doorbell_drop queue=cq_arm", { 0, 0, false, true, 0, true, 5 }, true },
	{ "doorbell_drop queue=cq_arm", { 0, 0x100, false, true, 0 }, false },
	{ "doorbell_drop queue=cq_arm", { 0, 0x100, false, false, 0x0a }, false },
	{ "doorbell_drop queue=cq_arm cqn=5", { 0, 0, false, true, 0, true, 5 },
	  true },
	{ "doorbell_drop queue=cq_arm cqn=5", { 0, 0, false, true, 0, true, 6 },
	  false },
	{ "doorbell_drop queue=cq_arm dev=1", { 0, 0, false, true, 0, true, 5 },
	  false },
	{ "cqe_error syndrome=1", { 0, 0, false, true, 0, true, 5 }, false },
};

START_TEST(match_wqes)
{
	struct mlx5emu_fault_rule r = rule(wqes[_i].rule);

	ck_assert_msg(emu_fault_wqe_matches(&r, &wqes[_i].w) == wqes[_i].match,
		      "%s", wqes[_i].rule);
}
END_TEST

/* Through the rule set: delays add up, the first error decides (with the
 * table's vendor syndrome or the rule's), every matching rule counts,
 * command and wire rules never see work requests. */
START_TEST(wqe_verdicts)
{
	struct emu_fault_wqe w = { 0, 0x100, false, false, 0x0a };
	struct emu_fault_dp_verdict v;
	struct mlx5emu_fault_stats st;
	int a, b, c, d;

	ck_assert(!emu_fault_dp_verdict(&w, &v));
	ft_add("fail opcode=ALLOC_PD");
	ft_add("drop");
	ck_assert(!emu_fault_dp_verdict(&w, &v));
	a = ft_add("cqe_delay us=30");
	b = ft_add("cqe_delay us=12 every=2");
	c = ft_add("cqe_error syndrome=REMOTE_OP nth=3");
	ck_assert(emu_fault_dp_verdict(&w, &v));
	ck_assert(!v.error && !v.drop);
	ck_assert_uint_eq(v.delay_us, 30);
	ck_assert(emu_fault_dp_verdict(&w, &v));
	ck_assert_uint_eq(v.delay_us, 42);
	ck_assert(emu_fault_dp_verdict(&w, &v));
	ck_assert(v.error);
	ck_assert_uint_eq(v.syndrome, 0x14);
	ck_assert_uint_eq(v.vendor, 0x89);
	ck_assert_uint_eq(v.delay_us, 30);
	w.rq = true;	/* only rules with queue=rq see receive WQEs */
	ck_assert(!emu_fault_dp_verdict(&w, &v));
	ft_add("cqe_error queue=rq syndrome=0x22 vendor_syndrome=0x93");
	ck_assert(emu_fault_dp_verdict(&w, &v));
	ck_assert(v.error);
	ck_assert_uint_eq(v.syndrome, 0x22);
	ck_assert_uint_eq(v.vendor, 0x93);
	ck_assert_int_eq(emu_fault_stats(a, &st), 0);
	ck_assert_uint_eq(st.matches, 3);
	ck_assert_int_eq(emu_fault_stats(b, &st), 0);
	ck_assert_uint_eq(st.injections, 1);
	ck_assert_int_eq(emu_fault_stats(c, &st), 0);
	ck_assert_uint_eq(st.matches, 3);
	ck_assert_uint_eq(st.injections, 1);
	/* A doorbell: only doorbell_drop. */
	w = (struct emu_fault_wqe){ .qpn = 0x100, .doorbell = true };
	ck_assert(!emu_fault_dp_verdict(&w, &v));
	ft_add("doorbell_drop nth=2");
	ck_assert(emu_fault_dp_verdict(&w, &v) == false);
	ck_assert(emu_fault_dp_verdict(&w, &v) && v.drop);
	/* An arm: only doorbell_drop queue=cq_arm, counted on its own, and
	 * the trace hears of the CQ. */
	w = (struct emu_fault_wqe){ .dev = 1, .doorbell = true, .cq_arm = true,
				    .cqn = 7 };
	ck_assert(!emu_fault_dp_verdict(&w, &v));
	d = ft_add("doorbell_drop queue=cq_arm cqn=7 nth=1");
	nevents = 0;
	emu_fault_set_observer(observe, events);
	ck_assert(emu_fault_dp_verdict(&w, &v) && v.drop);
	ck_assert(!emu_fault_dp_verdict(&w, &v));
	emu_fault_set_observer(NULL, NULL);
	ck_assert_int_eq(nevents, 1);
	ck_assert_int_eq(events[0].rule_id, d);
	ck_assert_str_eq(texts[0], "doorbell_drop cqn=0x7 queue=cq_arm nth=1");
	ck_assert_uint_eq(events[0].action, MLX5EMU_FAULT_DOORBELL_DROP);
	ck_assert(events[0].cq_arm);
	ck_assert_uint_eq(events[0].target, 7);
	ck_assert_int_eq(events[0].dev, 1);
	ck_assert_int_eq(emu_fault_stats(d, &st), 0);
	ck_assert_uint_eq(st.matches, 2);
	ck_assert_uint_eq(st.injections, 1);
}
END_TEST

static int dp_calls, dp_any = -1;

static void dp_notify(bool any)
{
	dp_calls++;
	dp_any = any;
}

/* The data path hears when the first data-path rule comes and the last
 * goes, and of nothing else. */
START_TEST(dp_notify_transitions)
{
	int a, b;

	emu_fault_set_dp_notify(dp_notify);
	ck_assert_int_eq(dp_calls, 1);
	ck_assert_int_eq(dp_any, 0);
	ft_add("fail opcode=ALLOC_PD");
	ft_add("drop");
	ck_assert_int_eq(dp_calls, 1);
	a = ft_add("cqe_error syndrome=1");
	ck_assert_int_eq(dp_calls, 2);
	ck_assert_int_eq(dp_any, 1);
	b = ft_add("doorbell_drop");
	ck_assert_int_eq(dp_calls, 2);
	ck_assert_int_eq(emu_fault_remove(a), 0);
	ck_assert_int_eq(dp_calls, 2);
	ck_assert_int_eq(emu_fault_remove(b), 0);
	ck_assert_int_eq(dp_calls, 3);
	ck_assert_int_eq(dp_any, 0);
	ft_add("cqe_delay us=1");
	ck_assert_int_eq(dp_any, 1);
	emu_fault_clear();
	ck_assert_int_eq(dp_calls, 5);
	ck_assert_int_eq(dp_any, 0);
	emu_fault_set_dp_notify(NULL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fault_match");
	TCase *tc = tcase_create("match");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_loop_test(tc, match_fields, 0, sizeof(matches) / sizeof(matches[0]));
	tcase_add_loop_test(tc, match_frames, 0, sizeof(frames) / sizeof(frames[0]));
	tcase_add_loop_test(tc, match_wqes, 0, sizeof(wqes) / sizeof(wqes[0]));
	tcase_add_test(tc, wqe_verdicts);
	tcase_add_test(tc, dp_notify_transitions);
	tcase_add_test(tc, frame_verdicts);
	tcase_add_test(tc, triggers);
	tcase_add_test(tc, probability_sequences);
	tcase_add_test(tc, probability_rate);
	tcase_add_test(tc, hook_nth_every_counts);
	tcase_add_test(tc, hook_seeded_probability);
	tcase_add_test(tc, hook_configured_seed);
	tcase_add_test(tc, hook_limit);
	tcase_add_test(tc, hook_rule_order);
	tcase_add_test(tc, hook_delay);
	tcase_add_test(tc, hook_dev_and_class);
	tcase_add_test(tc, observer_events);
	tcase_add_test(tc, rule_set_management);
	tcase_add_test(tc, rule_set_limit);
	tcase_add_test(tc, configured_rules);
	tcase_add_test(tc, configured_rules_bad);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
