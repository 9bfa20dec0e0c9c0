/* SPDX-License-Identifier: MIT */
/*
 * The fault rule syntax: every key and name, the canonical form (which
 * parses back to the same rule), rule lists, and every bad rule with its
 * exact message (docs/fault-injection.md lists the same messages).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "emu/fault/fault.h"
#include "emu/firmware/fw_syndrome.h"
#include "prm/prm_cmd.h"

static struct mlx5emu_fault_rule parse_ok(const char *text)
{
	struct mlx5emu_fault_rule r;
	char err[EMU_FAULT_ERR_MAX] = "";

	ck_assert_msg(emu_fault_parse(text, &r, err, sizeof(err)) == 0,
		      "\"%s\": %s", text, err);
	return r;
}

/* Good rules and their canonical text. */
static const struct {
	const char *text, *canon;
} good[] = {
	{ "fail", "fail" },
	/* wire rules */
	{ "drop", "drop" },
	{ "DROP prob=1% seed=7", "drop prob=0.01 seed=7" },
	{ "duplicate qp=257 bth=rc_send_only every=4",
	  "duplicate qp=0x101 bth=RC_SEND_ONLY every=4" },
	{ "reorder psn=100-199 port=1 nth=2",
	  "reorder port=1 psn=100-199 nth=2" },
	{ "corrupt bth=0x11 dir=rx limit=1",
	  "corrupt dir=rx bth=RC_ACKNOWLEDGE limit=1" },
	{ "delay us=250", "delay us=250" },
	{ "delay dir=tx ms=3", "delay dir=tx ms=3" },
	{ "drop dev=mlx5_1 psn=16777200-5 bth=UD_SEND_ONLY",
	  "drop dev=1 bth=UD_SEND_ONLY psn=16777200-5" },
	{ "delay ms=5", "delay ms=5" },
	/* data-path rules */
	{ "cqe_error syndrome=local_prot", "cqe_error syndrome=LOCAL_PROT" },
	{ "CQE_ERROR qp=256 wqe=rdma_write nth=3 "
	  "syndrome=MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR",
	  "cqe_error qp=0x100 wqe=RDMA_WRITE syndrome=REMOTE_ACCESS nth=3" },
	{ "cqe_error queue=rq syndrome=0x1 dev=mlx5_1",
	  "cqe_error dev=1 queue=rq syndrome=LOCAL_LENGTH" },
	{ "cqe_error syndrome=0x22 vendor_syndrome=0x93 prob=25% seed=4",
	  "cqe_error syndrome=0x22 vendor_syndrome=0x93 prob=0.25 seed=4" },
	{ "cqe_error syndrome=LOCAL_PROT_ERR vendor_syndrome=0",
	  "cqe_error syndrome=LOCAL_PROT vendor_syndrome=0x0" },
	{ "cqe_error wqe=0x30 syndrome=5", "cqe_error wqe=0x30 syndrome=WR_FLUSH" },
	{ "cqe_delay us=500 queue=sq every=10",
	  "cqe_delay us=500 queue=sq every=10" },
	{ "doorbell_drop qp=0x101 limit=2", "doorbell_drop qp=0x101 limit=2" },
	{ "doorbell_drop queue=sq", "doorbell_drop queue=sq" },
	{ "doorbell_drop queue=CQ_ARM cqn=5 nth=2",
	  "doorbell_drop cqn=0x5 queue=cq_arm nth=2" },
	{ "doorbell_drop dev=mlx5_1 queue=cq_arm prob=0.5 seed=3",
	  "doorbell_drop dev=1 queue=cq_arm prob=0.5 seed=3" },
	{ "fail opcode=CREATE_CQ", "fail opcode=CREATE_CQ" },
	{ "  FAIL\tOpcode=create_cq  ", "fail opcode=CREATE_CQ" },
	{ "fail opcode=MLX5_CMD_OP_ALLOC_PD", "fail opcode=ALLOC_PD" },
	{ "fail opcode=0x400", "fail opcode=CREATE_CQ" },
	{ "fail opcode=1024", "fail opcode=CREATE_CQ" },
	{ "fail opcode=0xfff0", "fail opcode=0xfff0" },
	{ "fail op_mod=1", "fail op_mod=1" },
	{ "fail op_mod=0x10", "fail op_mod=16" },
	{ "fail obj_type=FLOW_METER_ASO", "fail obj_type=FLOW_METER_ASO" },
	{ "fail obj_type=0x24", "fail obj_type=FLOW_METER_ASO" },
	{ "fail obj_type=0x1234", "fail obj_type=0x1234" },
	{ "fail class=destroy", "fail class=destroy" },
	{ "fail class=General", "fail class=general" },
	{ "fail uid=kernel", "fail uid=kernel" },
	{ "fail uid=0", "fail uid=kernel" },
	{ "fail uid=user", "fail uid=user" },
	{ "fail uid=7", "fail uid=7" },
	{ "fail dev=3", "fail dev=3" },
	{ "fail dev=mlx5_15", "fail dev=15" },
	{ "fail status=BAD_PARAM", "fail status=BAD_PARAM" },
	{ "fail status=bad_param_err", "fail status=BAD_PARAM" },
	{ "fail status=MLX5_CMD_STAT_RES_BUSY", "fail status=RES_BUSY" },
	{ "fail status=0x8", "fail status=LIM" },
	{ "fail status=200", "fail status=200" },
	{ "fail syndrome=CQ_IN_USE", "fail syndrome=CQ_IN_USE" },
	{ "fail status=BAD_PARAM syndrome=0x12345678",
	  "fail status=BAD_PARAM syndrome=0x12345678" },
	{ "fail syndrome=0x12345678 status=3",
	  "fail status=BAD_PARAM syndrome=0x12345678" },
	{ "fail nth=1", "fail nth=1" },
	{ "fail every=3", "fail every=3" },
	{ "fail prob=0.25", "fail prob=0.25" },
	{ "fail prob=.5", "fail prob=0.5" },
	{ "fail prob=1", "fail prob=1" },
	{ "fail prob=25%", "fail prob=0.25" },
	{ "fail prob=12.5%", "fail prob=0.125" },
	{ "fail prob=0.1", "fail prob=0.1" },
	{ "fail prob=0.333", "fail prob=0.333" },
	{ "fail prob=0.5 seed=42", "fail prob=0.5 seed=42" },
	{ "fail prob=0.5 seed=0", "fail prob=0.5 seed=0" },
	{ "fail prob=0.5 seed=0xffffffffffffffff",
	  "fail prob=0.5 seed=18446744073709551615" },
	{ "fail limit=2", "fail limit=2" },
	{ "delay ms=60000 opcode=QUERY_HCA_CAP every=2 limit=1",
	  "delay opcode=QUERY_HCA_CAP ms=60000 every=2 limit=1" },
	{ "fail limit=3 nth=2 dev=1 uid=user class=create op_mod=0 "
	  "opcode=ALLOC_PD syndrome=PD_LIMIT",
	  "fail opcode=ALLOC_PD op_mod=0 class=create uid=user dev=1 "
	  "syndrome=PD_LIMIT nth=2 limit=3" },
	/* Events: now (no command to match), or after matching commands. */
	{ "port_down", "port_down" },
	{ "PORT_DOWN dev=mlx5_1 port=2", "port_down dev=1 port=2" },
	{ "port_up port=1", "port_up port=1" },
	{ "device_fatal dev=0", "device_fatal dev=0" },
	{ "device_fatal opcode=CREATE_QP nth=2",
	  "device_fatal opcode=CREATE_QP nth=2" },
	{ "qp_fatal qpn=261", "qp_fatal qpn=0x105" },
	{ "qp_fatal opcode=RTR2RTS_QP", "qp_fatal opcode=RTR2RTS_QP" },
	{ "qp_fatal opcode=RTR2RTS_QP qpn=0x105 every=2 limit=1",
	  "qp_fatal opcode=RTR2RTS_QP qpn=0x105 every=2 limit=1" },
	{ "cq_overrun cqn=0 dev=2", "cq_overrun dev=2 cqn=0x0" },
	{ "cq_overrun class=create prob=0.5 seed=1",
	  "cq_overrun class=create prob=0.5 seed=1" },
	{ "srq_limit srqn=0xffffff", "srq_limit srqn=0xffffff" },
	{ "srq_limit opcode=ARM_RQ uid=user", "srq_limit opcode=ARM_RQ uid=user" },
	{ "port_down uid=kernel", "port_down uid=kernel" },
};

START_TEST(good_rules)
{
	struct mlx5emu_fault_rule r = parse_ok(good[_i].text), back;
	char buf[EMU_FAULT_TEXT_MAX];
	int n = emu_fault_rule_format(&r, buf, sizeof(buf));

	ck_assert_str_eq(buf, good[_i].canon);
	ck_assert_int_eq(n, (int)strlen(good[_i].canon));
	/* The canonical text is the same rule. */
	back = parse_ok(buf);
	ck_assert_int_eq(memcmp(&r, &back, sizeof(r)), 0);
}
END_TEST

/* Bad rules and their exact messages. */
static const struct {
	const char *text, *msg;
} bad[] = {
	{ "", "empty rule; expected fail, delay, drop, duplicate, reorder, "
	  "corrupt, port_down, port_up, device_fatal, cq_overrun, qp_fatal, "
	  "srq_limit, cqe_error, cqe_delay or doorbell_drop followed by "
	  "key=value terms" },
	{ "   ", "empty rule; expected fail, delay, drop, duplicate, reorder, "
	  "corrupt, port_down, port_up, device_fatal, cq_overrun, qp_fatal, "
	  "srq_limit, cqe_error, cqe_delay or doorbell_drop followed by "
	  "key=value terms" },
	{ "drop opcode=CREATE_CQ",
	  "a wire rule matches frames: opcode, op_mod, obj_type, class and "
	  "uid are command keys" },
	{ "opcode=CREATE_CQ fail",
	  "unknown action \"opcode=CREATE_CQ\"; a rule starts with fail, delay, "
	  "drop, duplicate, reorder, corrupt, port_down, port_up, device_fatal, "
	  "cq_overrun, qp_fatal, srq_limit, cqe_error, cqe_delay or doorbell_drop" },
	{ "fail CREATE_CQ", "\"CREATE_CQ\" is not a key=value term" },
	{ "drop port=3", "bad port \"3\": expected 1 to 2" },
	{ "drop qp=0x1000000",
	  "bad qp \"0x1000000\": expected a QP number from 0 to 0xffffff" },
	{ "drop bth=RC_SEND_NEVER", "bad bth \"RC_SEND_NEVER\": expected a BTH "
	  "opcode such as RC_SEND_ONLY, or a number from 0 to 255" },
	{ "drop psn=5-", "bad psn \"5-\": expected a PSN or a range A-B of "
	  "PSNs (0 to 0xffffff)" },
	{ "drop dir=up", "bad dir \"up\": expected tx or rx" },
	/* data-path rules */
	{ "cqe_error", "cqe_error needs syndrome=NAME (a CQE syndrome such as "
	  "LOCAL_PROT)" },
	{ "cqe_error syndrome=CQ_IN_USE", "bad syndrome \"CQ_IN_USE\": expected "
	  "a CQE syndrome such as LOCAL_PROT or REMOTE_ACCESS, or a number from "
	  "1 to 255" },
	{ "cqe_error syndrome=0x100", "bad syndrome \"0x100\": expected a CQE "
	  "syndrome such as LOCAL_PROT or REMOTE_ACCESS, or a number from 1 to "
	  "255" },
	{ "cqe_error syndrome=0x22", "syndrome 0x22 is not in the CQE syndrome "
	  "table; give its vendor_syndrome too" },
	{ "cqe_error syndrome=1 vendor_syndrome=256", "bad vendor_syndrome "
	  "\"256\": expected a number from 0 to 255" },
	{ "cqe_error syndrome=1 wqe=SENDX", "bad wqe \"SENDX\": expected a WQE "
	  "opcode such as SEND, RDMA_WRITE or RDMA_READ, or a number from 0 to "
	  "255" },
	{ "cqe_error syndrome=1 queue=cq", "bad queue \"cq\": expected sq, rq or cq_arm" },
	{ "cqe_error syndrome=1 us=5", "us applies only to cqe_delay and wire "
	  "rules" },
	{ "cqe_error syndrome=1 opcode=CREATE_CQ", "a data-path rule matches "
	  "work requests: opcode, op_mod, obj_type, class and uid are command "
	  "keys" },
	{ "cqe_error syndrome=1 port=1", "a data-path rule matches work "
	  "requests: port, bth, psn and dir are frame keys" },
	{ "cqe_error syndrome=1 status=BAD_PARAM",
	  "status applies only to fail rules" },
	{ "cqe_error syndrome=1 qpn=5", "qpn applies only to qp_fatal rules" },
	{ "cqe_delay", "a cqe_delay rule needs us=N (1 to 60000000)" },
	{ "cqe_delay us=5 ms=5", "ms applies only to delay rules; cqe_delay "
	  "takes us=N" },
	{ "cqe_delay us=5 syndrome=1", "syndrome and vendor_syndrome apply only "
	  "to fail and cqe_error rules" },
	{ "doorbell_drop wqe=SEND", "a doorbell names no WQE: wqe does not "
	  "apply to doorbell_drop" },
	{ "doorbell_drop queue=rq", "a receive queue has no doorbell: "
	  "doorbell_drop takes queue=sq or queue=cq_arm" },
	{ "doorbell_drop queue=cq_arm qp=0x100", "an arm names a CQ: qp does "
	  "not apply to queue=cq_arm (cqn=N does)" },
	{ "doorbell_drop cqn=5", "cqn applies to a data-path rule only as "
	  "doorbell_drop queue=cq_arm cqn=N" },
	{ "doorbell_drop queue=sq cqn=5", "cqn applies to a data-path rule only "
	  "as doorbell_drop queue=cq_arm cqn=N" },
	{ "doorbell_drop queue=cq_arm cqn=0x1000000", "bad cqn \"0x1000000\": "
	  "expected a number from 0 to 0xffffff" },
	{ "doorbell_drop queue=cq", "bad queue \"cq\": expected sq, rq or "
	  "cq_arm" },
	{ "cqe_error queue=cq_arm syndrome=1", "queue=cq_arm applies only to "
	  "doorbell_drop rules" },
	{ "cqe_delay us=5 cqn=5", "cqn applies only to cq_overrun and "
	  "doorbell_drop rules" },
	{ "doorbell_drop us=5", "us applies only to cqe_delay and wire rules" },
	{ "fail wqe=SEND", "wqe, queue and vendor_syndrome apply only to "
	  "cqe_error, cqe_delay and doorbell_drop rules" },
	{ "drop queue=rq", "wqe, queue and vendor_syndrome apply only to "
	  "cqe_error, cqe_delay and doorbell_drop rules" },
	{ "drop us=5", "ms and us apply only to delay rules" },
	{ "delay us=0", "bad us \"0\": expected microseconds from 1 to 60000000" },
	{ "delay us=5 ms=5", "give ms or us, not both" },
	{ "delay port=1", "a delay rule needs ms=N or us=N" },
	{ "fail port=1", "frame fields are set but the rule is not a wire rule" },
	{ "drop status=BAD_PARAM", "status and syndrome apply only to fail rules" },
	{ "delay opcode=CREATE_CQ us=5", "a wire rule matches frames: opcode, "
	  "op_mod, obj_type, class and uid are command keys" },
	{ "fail opcde=CREATE_CQ",
	  "unknown key \"opcde\"; expected opcode, op_mod, obj_type, class, uid, "
	  "dev, status, syndrome, ms, nth, every, prob, seed, limit, port, qp, "
	  "bth, psn, dir, us, wqe, queue, vendor_syndrome, qpn, cqn or srqn" },
	{ "fail =1",
	  "unknown key \"\"; expected opcode, op_mod, obj_type, class, uid, "
	  "dev, status, syndrome, ms, nth, every, prob, seed, limit, port, qp, "
	  "bth, psn, dir, us, wqe, queue, vendor_syndrome, qpn, cqn or srqn" },
	{ "fail opcode=CREATE_CQ opcode=ALLOC_PD", "key opcode given twice" },
	{ "fail opcode=", "key opcode has no value" },
	{ "fail opcode=CREATE_CQX",
	  "bad opcode \"CREATE_CQX\": expected a command name such as CREATE_CQ, "
	  "or a number from 0 to 0xffff" },
	{ "fail opcode=0x10000",
	  "bad opcode \"0x10000\": expected a command name such as CREATE_CQ, "
	  "or a number from 0 to 0xffff" },
	{ "fail opcode=-1",
	  "bad opcode \"-1\": expected a command name such as CREATE_CQ, "
	  "or a number from 0 to 0xffff" },
	{ "fail op_mod=x", "bad op_mod \"x\": expected a number from 0 to 0xffff" },
	{ "fail op_mod=65536",
	  "bad op_mod \"65536\": expected a number from 0 to 0xffff" },
	{ "fail obj_type=CQX",
	  "bad obj_type \"CQX\": expected a general object type such as "
	  "FLOW_METER_ASO, or a number from 0 to 0xffff" },
	{ "fail class=alloc",
	  "bad class \"alloc\": expected general, create, modify, query or destroy" },
	{ "fail uid=root",
	  "bad uid \"root\": expected kernel, user, or a number from 0 to 0xffff" },
	{ "fail uid=70000",
	  "bad uid \"70000\": expected kernel, user, or a number from 0 to 0xffff" },
	{ "fail dev=16",
	  "bad dev \"16\": expected a device index from 0 to 15, its name "
	  "mlx5_0 to mlx5_15, or a MANA device mana_0 to mana_3" },
	{ "fail dev=mlx5_x",
	  "bad dev \"mlx5_x\": expected a device index from 0 to 15, its name "
	  "mlx5_0 to mlx5_15, or a MANA device mana_0 to mana_3" },
	{ "fail dev=01",
	  "bad dev \"01\": expected a device index from 0 to 15, its name "
	  "mlx5_0 to mlx5_15, or a MANA device mana_0 to mana_3" },
	{ "fail dev=0x1",
	  "bad dev \"0x1\": expected a device index from 0 to 15, its name "
	  "mlx5_0 to mlx5_15, or a MANA device mana_0 to mana_3" },
	{ "fail status=OK", "bad status \"OK\": status 0 (OK) is not a failure" },
	{ "fail status=0", "bad status \"0\": status 0 (OK) is not a failure" },
	{ "fail status=BAD",
	  "bad status \"BAD\": expected a status name such as BAD_PARAM, or a "
	  "number from 1 to 255" },
	{ "fail status=256",
	  "bad status \"256\": expected a status name such as BAD_PARAM, or a "
	  "number from 1 to 255" },
	{ "fail syndrome=NOPE",
	  "bad syndrome \"NOPE\": expected a name from the syndrome table such as "
	  "CQ_IN_USE, or a number from 1 to 0xffffffff" },
	{ "fail syndrome=0",
	  "bad syndrome \"0\": expected a name from the syndrome table such as "
	  "CQ_IN_USE, or a number from 1 to 0xffffffff" },
	{ "fail syndrome=0x100000000",
	  "bad syndrome \"0x100000000\": expected a name from the syndrome table "
	  "such as CQ_IN_USE, or a number from 1 to 0xffffffff" },
	{ "fail syndrome=0x12345678",
	  "syndrome 0x12345678 is not in the syndrome table; give its status too "
	  "(status=NAME)" },
	{ "delay", "a delay rule needs ms=N (1 to 60000)" },
	{ "port_down port=3", "bad port \"3\": expected a port number from 1 to 2" },
	{ "port_down port=0", "bad port \"0\": expected a port number from 1 to 2" },
	{ "qp_fatal qpn=0x1000000",
	  "bad qpn \"0x1000000\": expected a number from 0 to 0xffffff" },
	{ "device_fatal port=1",
	  "port applies only to port_down and port_up rules" },
	{ "qp_fatal cqn=3", "cqn applies only to cq_overrun and doorbell_drop rules" },
	{ "cq_overrun qpn=3", "qpn applies only to qp_fatal rules" },
	{ "port_down srqn=3", "srqn applies only to srq_limit rules" },
	{ "delay ms=1 qpn=3", "qpn applies only to qp_fatal rules" },
	{ "qp_fatal", "qp_fatal needs qpn=N or a command to match" },
	{ "cq_overrun dev=1", "cq_overrun needs cqn=N or a command to match" },
	{ "srq_limit", "srq_limit needs srqn=N or a command to match" },
	{ "port_down nth=2",
	  "nth, every, prob and limit need a command to match (opcode, op_mod, "
	  "obj_type, class or uid)" },
	{ "qp_fatal qpn=1 limit=1",
	  "nth, every, prob and limit need a command to match (opcode, op_mod, "
	  "obj_type, class or uid)" },
	{ "port_down status=BAD_PARAM", "status applies only to fail rules" },
	{ "port_up syndrome=CQ_IN_USE", "syndrome applies only to fail rules" },
	{ "device_fatal ms=3", "ms applies only to delay rules" },
	{ "delay ms=0", "bad ms \"0\": expected milliseconds from 1 to 60000" },
	{ "delay ms=60001", "bad ms \"60001\": expected milliseconds from 1 to 60000" },
	{ "delay ms=5 status=BAD_PARAM", "status applies only to fail rules" },
	{ "delay ms=5 syndrome=CQ_IN_USE", "syndrome applies only to fail rules" },
	{ "fail ms=5", "ms applies only to delay rules" },
	{ "fail nth=0", "bad nth \"0\": expected a positive integer" },
	{ "fail every=x", "bad every \"x\": expected a positive integer" },
	{ "fail limit=0", "bad limit \"0\": expected a positive integer" },
	{ "fail nth=18446744073709551616",
	  "bad nth \"18446744073709551616\": expected a positive integer" },
	{ "fail nth=2 every=3", "nth, every and prob exclude each other" },
	{ "fail every=2 prob=0.5", "nth, every and prob exclude each other" },
	{ "fail prob=0",
	  "bad prob \"0\": expected a probability above 0 and at most 1, such as "
	  "0.25 or 25%" },
	{ "fail prob=1.5",
	  "bad prob \"1.5\": expected a probability above 0 and at most 1, such "
	  "as 0.25 or 25%" },
	{ "fail prob=101%",
	  "bad prob \"101%\": expected a probability above 0 and at most 1, such "
	  "as 0.25 or 25%" },
	{ "fail prob=0,5",
	  "bad prob \"0,5\": expected a probability above 0 and at most 1, such "
	  "as 0.25 or 25%" },
	{ "fail prob=1e-3",
	  "bad prob \"1e-3\": expected a probability above 0 and at most 1, such "
	  "as 0.25 or 25%" },
	{ "fail prob=nan",
	  "bad prob \"nan\": expected a probability above 0 and at most 1, such "
	  "as 0.25 or 25%" },
	{ "fail seed=1", "seed applies only with prob" },
	{ "fail nth=2 seed=1", "seed applies only with prob" },
	{ "fail prob=0.5 seed=-1",
	  "bad seed \"-1\": expected a number from 0 to 18446744073709551615" },
};

START_TEST(bad_rules)
{
	struct mlx5emu_fault_rule r;
	char err[EMU_FAULT_ERR_MAX] = "";

	memset(&r, 0x5a, sizeof(r));
	ck_assert_int_eq(emu_fault_parse(bad[_i].text, &r, err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, bad[_i].msg);
	/* A bad rule leaves *rule alone. */
	for (size_t i = 0; i < sizeof(r); i++)
		ck_assert_int_eq(((unsigned char *)&r)[i], 0x5a);
}
END_TEST

/* What a fail rule answers with. */
START_TEST(fail_results)
{
	const struct fw_syndrome *inj = fw_syndrome_by_name("INJECTED");
	const struct fw_syndrome *cq = fw_syndrome_by_name("CQ_IN_USE");
	struct mlx5emu_fault_rule r;
	uint8_t st;
	uint32_t sy;

	ck_assert_ptr_nonnull(inj);
	ck_assert_ptr_nonnull(cq);
	r = parse_ok("fail");
	emu_fault_rule_result(&r, &st, &sy);
	ck_assert_uint_eq(st, MLX5_CMD_STAT_INT_ERR);
	ck_assert_uint_eq(sy, 0xee0000ff);
	ck_assert_uint_eq(sy, inj->value);
	r = parse_ok("fail syndrome=CQ_IN_USE");
	emu_fault_rule_result(&r, &st, &sy);
	ck_assert_uint_eq(st, cq->status);
	ck_assert_uint_eq(sy, cq->value);
	r = parse_ok("fail status=RES_BUSY");
	emu_fault_rule_result(&r, &st, &sy);
	ck_assert_uint_eq(st, MLX5_CMD_STAT_RES_BUSY);
	ck_assert_uint_eq(sy, inj->value);
	/* Both given: as given, even when the table pairs them otherwise. */
	r = parse_ok("fail status=NO_RES syndrome=CQ_IN_USE");
	emu_fault_rule_result(&r, &st, &sy);
	ck_assert_uint_eq(st, MLX5_CMD_STAT_NO_RES_ERR);
	ck_assert_uint_eq(sy, cq->value);
	r = parse_ok("fail status=0x51 syndrome=0x1");
	emu_fault_rule_result(&r, &st, &sy);
	ck_assert_uint_eq(st, 0x51);
	ck_assert_uint_eq(sy, 1);
}
END_TEST

/* Every syndrome and status of the tables can be named. */
START_TEST(every_table_name)
{
	char text[128], err[EMU_FAULT_ERR_MAX];
	struct mlx5emu_fault_rule r;
	uint8_t st;
	uint32_t sy;

	for (int i = 1; i < FW_SYND_COUNT; i++) {
		const struct fw_syndrome *e = fw_syndrome_get((enum fw_synd)i);

		snprintf(text, sizeof(text), "fail syndrome=%s", e->name);
		ck_assert_msg(!emu_fault_parse(text, &r, err, sizeof(err)),
			      "%s: %s", text, err);
		emu_fault_rule_result(&r, &st, &sy);
		ck_assert_uint_eq(st, e->status);
		ck_assert_uint_eq(sy, e->value);
	}
	for (unsigned int s = 1; s < 256; s++) {
		const char *name = emu_fault_status_name((uint8_t)s);

		if (!name)
			continue;
		snprintf(text, sizeof(text), "fail status=%s", name);
		r = parse_ok(text);
		ck_assert_uint_eq(r.status, s);
	}
	ck_assert_str_eq(emu_fault_status_name(MLX5_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR),
			 "BAD_SIZE_OUTS_CQES");
	ck_assert_ptr_null(emu_fault_status_name(0x0b));
	ck_assert_str_eq(emu_fault_opcode_name(MLX5_CMD_OP_QUERY_HCA_CAP),
			 "QUERY_HCA_CAP");
	ck_assert_ptr_null(emu_fault_opcode_name(0xfff0));
	ck_assert_str_eq(emu_fault_class_name(MLX5EMU_FAULT_CLASS_QUERY), "query");
	ck_assert_ptr_null(emu_fault_class_name(0));
	ck_assert_ptr_null(emu_fault_class_name(6));
}
END_TEST

/* The struct form is checked with the same rules. */
START_TEST(struct_checks)
{
	struct mlx5emu_fault_rule r;
	char err[EMU_FAULT_ERR_MAX];

	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "action 0 is not an action (1 to 15)");
	r.action = MLX5EMU_FAULT_FAIL;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), 0);
	r.opcode = MLX5_CMD_OP_CREATE_CQ;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "opcode is set but its match bit "
			 "MLX5EMU_FAULT_MATCH_OPCODE is not");
	r.match = MLX5EMU_FAULT_MATCH_OPCODE;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), 0);
	r.match |= 1u << 20;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "unknown match bits 0x100000");
	r.match = MLX5EMU_FAULT_MATCH_OPCODE | MLX5EMU_FAULT_MATCH_UID |
		  MLX5EMU_FAULT_MATCH_USER;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "uid=N and uid=user exclude each other");
	r.match = MLX5EMU_FAULT_MATCH_DEV;
	r.opcode = 0;
	r.dev = 20;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "dev 20 is out of range; devices are 0 to 15, "
			 "MANA devices 16 to 19");
	r.dev = 16;		/* mana_0 */
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "a MANA device takes data-path rules "
			 "(cqe_error, doorbell_drop), wire rules, and port_down, "
			 "port_up and device_fatal without a command to match");
	r.dev = 0;
	r.match = MLX5EMU_FAULT_MATCH_CLASS;
	r.cmd_class = 9;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "class 9 is not a command class (1 to 5)");
	r.match = 0;
	r.cmd_class = 0;
	r.status = 256;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "status 256 is not a status (1 to 255)");
	r.status = 0;
	r.trigger = MLX5EMU_FAULT_NTH;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "nth needs a positive n");
	r.n = 2;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), 0);
	r.trigger = MLX5EMU_FAULT_PROB;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "prob needs a probability above 0 and at most 1");
	r.n = 0;
	r.probability = 0.5;
	r.seed = 3;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "seed is set but its flag MLX5EMU_FAULT_F_SEED is not");
	r.flags = MLX5EMU_FAULT_F_SEED;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), 0);
	r.trigger = 7;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "trigger 7 is not a trigger");
	r.trigger = MLX5EMU_FAULT_PROB;
	r.reserved[2] = 1;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "reserved fields must be 0");
	r.reserved[2] = 0;
	r.flags = 8;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "unknown flags 0x8");
	r.flags = MLX5EMU_FAULT_F_SEED | MLX5EMU_FAULT_F_TARGET;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "an object number (qpn, cqn, srqn) applies only to "
			 "cq_overrun, qp_fatal and srq_limit rules");
	/* Event rules. */
	memset(&r, 0, sizeof(r));
	r.action = MLX5EMU_FAULT_PORT_DOWN;
	r.port = 3;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "port 3 is out of range; ports are 1 to 2");
	r.port = 0;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), 0);
	r.action = MLX5EMU_FAULT_QP_FATAL;
	r.target = 5;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "target is set but its flag MLX5EMU_FAULT_F_TARGET "
			 "is not");
	r.flags = MLX5EMU_FAULT_F_TARGET;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), 0);
	r.target = 0x1000000;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "qpn 0x1000000 is out of range (0 to 0xffffff)");
	/* A lost arm's CQ, as a struct. */
	memset(&r, 0, sizeof(r));
	r.action = MLX5EMU_FAULT_DOORBELL_DROP;
	r.match = MLX5EMU_FAULT_MATCH_QUEUE;
	r.queue = MLX5EMU_FAULT_QUEUE_CQ_ARM;
	r.target = 5;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "target is set but its flag MLX5EMU_FAULT_F_TARGET "
			 "is not");
	r.flags = MLX5EMU_FAULT_F_TARGET;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), 0);
	r.target = 0x1000000;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "cqn 0x1000000 is out of range (0 to 0xffffff)");
	r.target = 5;
	r.queue = 3;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "queue 3 is not sq (0), rq (1) or cq_arm (2)");
	r.queue = MLX5EMU_FAULT_QUEUE_CQ_ARM;
	r.action = MLX5EMU_FAULT_CQE_DELAY;
	r.delay_us = 1;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "queue=cq_arm applies only to doorbell_drop rules");
	r.action = 16;
	ck_assert_int_eq(emu_fault_rule_check(&r, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "action 16 is not an action (1 to 15)");
	ck_assert_str_eq(emu_fault_action_name(MLX5EMU_FAULT_SRQ_LIMIT), "srq_limit");
	ck_assert_str_eq(emu_fault_action_name(MLX5EMU_FAULT_DOORBELL_DROP),
			 "doorbell_drop");
	ck_assert_ptr_null(emu_fault_action_name(16));
	ck_assert(!emu_fault_is_event(MLX5EMU_FAULT_CQE_ERROR));
	ck_assert(!emu_fault_is_event(MLX5EMU_FAULT_DELAY));
	ck_assert(emu_fault_is_event(MLX5EMU_FAULT_PORT_DOWN));
}
END_TEST

static int collect(void *arg, const struct mlx5emu_fault_rule *rule,
		   const char *text)
{
	char *out = arg;

	strcat(out, "[");
	strcat(out, text);
	strcat(out, "]");
	return rule->action == MLX5EMU_FAULT_DELAY && rule->delay_ms == 99 ?
		-E2BIG : 0;
}

START_TEST(rule_lists)
{
	char seen[512] = "", err[EMU_FAULT_ERR_MAX] = "";
	int n = -1;

	ck_assert_int_eq(emu_fault_parse_list(" fail nth=1 ;;delay ms=3;  ",
					      collect, seen, &n, err,
					      sizeof(err)), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(seen, "[fail nth=1][delay ms=3]");
	ck_assert_int_eq(emu_fault_parse_list("", NULL, NULL, &n, err,
					      sizeof(err)), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(emu_fault_parse_list(NULL, NULL, NULL, &n, err,
					      sizeof(err)), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(emu_fault_parse_list("fail; fail opcode=NOPE; bogus",
					      NULL, NULL, &n, err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "rule 2 (\"fail opcode=NOPE\"): bad opcode \"NOPE\": "
			 "expected a command name such as CREATE_CQ, or a "
			 "number from 0 to 0xffff");
	/* The callback's error stops the list. */
	seen[0] = '\0';
	ck_assert_int_eq(emu_fault_parse_list("fail; delay ms=99; fail nth=2",
					      collect, seen, &n, err,
					      sizeof(err)), -E2BIG);
	ck_assert_str_eq(seen, "[fail][delay ms=99]");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fault_rule");
	TCase *tc = tcase_create("syntax");

	tcase_add_loop_test(tc, good_rules, 0, sizeof(good) / sizeof(good[0]));
	tcase_add_loop_test(tc, bad_rules, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, fail_results);
	tcase_add_test(tc, every_table_name);
	tcase_add_test(tc, struct_checks);
	tcase_add_test(tc, rule_lists);
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
