/* SPDX-License-Identifier: MIT */
/*
 * Each failure a DEVX caller can see, injected by a rule, through the
 * backend interface as the provider calls it (mlx5be_emu_ops): what the
 * kernel's DEVX layer gives for a firmware failure on each path.
 *
 *   general_cmd, obj_create, obj_modify, obj_query: -EREMOTEIO (NULL with
 *     errno EREMOTEIO), the whole outbox copied back: status, syndrome,
 *     and nothing else (mlx5_cmd_do)
 *   obj_query_async: the command is accepted; its completion carries the
 *     failed outbox
 *   obj_destroy, uar_alloc, open (CREATE_UCTX): the status mapped to an
 *     errno as the kernel's cmd_status_to_err() maps it; a destroy that
 *     failed leaves the object alive
 */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "emu/firmware/fw_syndrome.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "backend/backend.h"
#include "backend/backend_impl.h"

#include "fault_test_util.h"

#define BE (&mlx5be_emu_ops)

static struct mlx5be_ctx *ctx;
static int cmd_fd;

static void setup(void)
{
	ft_reset();
	ck_assert_int_eq(BE->open(0, &ctx, &cmd_fd), 0);
}

static void teardown(void)
{
	emu_fault_clear();
	BE->close(ctx);
}

#define OUT_STATUS(out) PRM_GET(mbox_out, (out), status)
#define OUT_SYNDROME(out) PRM_GET(mbox_out, (out), syndrome)

/* The outbox is exactly a failure: status, syndrome, zeros. */
static void ck_failed_outbox(const uint8_t *out, size_t len, uint8_t status,
			     uint32_t syndrome)
{
	ck_assert_uint_eq(OUT_STATUS(out), status);
	ck_assert_uint_eq(OUT_SYNDROME(out), syndrome);
	ck_assert_uint_eq(out[1] | out[2] | out[3], 0);
	for (size_t i = 8; i < len; i++)
		ck_assert_msg(out[i] == 0, "outbox byte %zu is 0x%x", i, out[i]);
}

static const struct fw_syndrome *synd(const char *name)
{
	const struct fw_syndrome *s = fw_syndrome_by_name(name);

	ck_assert_msg(s, "no syndrome %s", name);
	return s;
}

/* ---- objects the tests work on ---- */

static struct mlx5be_obj *pd_alloc(uint32_t *pdn, uint8_t *out, size_t outlen)
{
	uint8_t in[PRM_ST_SZ_BYTES(alloc_pd_in)] = { 0 };

	PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	memset(out, 0xa5, outlen);
	struct mlx5be_obj *obj = BE->obj_create(ctx, in, sizeof(in), out, outlen);

	if (obj && pdn)
		*pdn = PRM_GET(alloc_pd_out, out, pd);
	return obj;
}

struct cq {
	void *buf, *dbr;
	struct mlx5be_umem *ubuf, *udbr;
	uint32_t buf_id, dbr_id, eqn, cqn;
	struct mlx5be_uar *uar;
	struct mlx5be_uar_info uar_info;
	struct mlx5be_obj *obj;
};

static void *mem_reg(size_t size, struct mlx5be_umem **umem, uint32_t *id)
{
	void *p = aligned_alloc(4096, 4096 * ((size + 4095) / 4096));

	ck_assert_ptr_nonnull(p);
	memset(p, 0, size);
	*umem = BE->umem_reg(ctx, p, size, IBV_ACCESS_LOCAL_WRITE,
			     UINT64_MAX & ~(uint64_t)4095, id);
	ck_assert_msg(*umem, "umem_reg: %s", strerror(errno));
	return p;
}

static void cq_create(struct cq *cq)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_cq_out)] = { 0 };
	void *cqc = PRM_ADDR_OF(create_cq_in, in, cq_context);

	memset(cq, 0, sizeof(*cq));
	cq->buf = mem_reg(64 << 6, &cq->ubuf, &cq->buf_id);
	cq->dbr = mem_reg(8, &cq->udbr, &cq->dbr_id);
	cq->uar = BE->uar_alloc(ctx, MLX5DV_UAR_ALLOC_TYPE_NC, &cq->uar_info);
	ck_assert_msg(cq->uar, "uar_alloc: %s", strerror(errno));
	ck_assert_int_eq(BE->query_eqn(ctx, 0, &cq->eqn), 0);
	PRM_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	PRM_SET(cqc, cqc, log_cq_size, 6);
	PRM_SET(cqc, cqc, uar_page, cq->uar_info.page_id);
	PRM_SET(cqc, cqc, c_eqn, cq->eqn);
	PRM_SET(cqc, cqc, dbr_umem_id, cq->dbr_id);
	PRM_SET(create_cq_in, in, cq_umem_id, cq->buf_id);
	cq->obj = BE->obj_create(ctx, in, sizeof(in), out, sizeof(out));
	ck_assert_msg(cq->obj, "CREATE_CQ: %s (status 0x%x syndrome 0x%x)",
		      strerror(errno), OUT_STATUS(out), OUT_SYNDROME(out));
	cq->cqn = PRM_GET(create_cq_out, out, cqn);
}

static void cq_destroy(struct cq *cq)
{
	ck_assert_int_eq(BE->obj_destroy(cq->obj), 0);
	ck_assert_int_eq(BE->umem_dereg(cq->ubuf), 0);
	ck_assert_int_eq(BE->umem_dereg(cq->udbr), 0);
	BE->uar_free(cq->uar);
	free(cq->buf);
	free(cq->dbr);
}

/* ---- create, general, modify, query: EREMOTEIO and the outbox ---- */

START_TEST(general_cmd_fails_with_outbox)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_hca_cap_out)];

	ft_add("fail opcode=QUERY_HCA_CAP uid=user status=BAD_PARAM "
	       "syndrome=0x1234abcd");
	PRM_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, in, op_mod, 1);
	memset(out, 0xa5, sizeof(out));
	ck_assert_int_eq(BE->general_cmd(ctx, in, sizeof(in), out, sizeof(out)),
			 -EREMOTEIO);
	ck_failed_outbox(out, sizeof(out), MLX5_CMD_STAT_BAD_PARAM_ERR,
			 0x1234abcd);
	/* Removed, the same command succeeds. */
	emu_fault_clear();
	ck_assert_int_eq(BE->general_cmd(ctx, in, sizeof(in), out, sizeof(out)), 0);
	ck_assert_uint_eq(OUT_STATUS(out), 0);
}
END_TEST

START_TEST(create_fails_with_outbox)
{
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)];
	const struct fw_syndrome *lim = synd("PD_LIMIT");
	struct mlx5be_obj *pd;
	uint32_t pdn = 0;

	ft_add("fail opcode=ALLOC_PD syndrome=PD_LIMIT nth=2");
	pd = pd_alloc(&pdn, out, sizeof(out));
	ck_assert_ptr_nonnull(pd);
	errno = 0;
	ck_assert_ptr_null(pd_alloc(NULL, out, sizeof(out)));
	ck_assert_int_eq(errno, EREMOTEIO);
	ck_failed_outbox(out, sizeof(out), lim->status, lim->value);
	ck_assert_int_eq(BE->obj_destroy(pd), 0);
}
END_TEST

START_TEST(modify_and_query_fail_with_outbox)
{
	uint8_t min[PRM_ST_SZ_BYTES(modify_cq_in)] = { 0 };
	uint8_t mout[PRM_ST_SZ_BYTES(modify_cq_out)];
	uint8_t qin[PRM_ST_SZ_BYTES(query_cq_in)] = { 0 };
	uint8_t qout[PRM_ST_SZ_BYTES(query_cq_out)];
	const struct fw_syndrome *sel = synd("CQ_BAD_FIELD_SELECT");
	struct cq cq;

	cq_create(&cq);
	ft_add("fail opcode=MODIFY_CQ syndrome=CQ_BAD_FIELD_SELECT");
	ft_add("fail class=query status=BAD_RES_STATE syndrome=CQ_INVALID");
	PRM_SET(modify_cq_in, min, opcode, MLX5_CMD_OP_MODIFY_CQ);
	PRM_SET(modify_cq_in, min, cqn, cq.cqn);
	memset(mout, 0xa5, sizeof(mout));
	ck_assert_int_eq(BE->obj_modify(cq.obj, min, sizeof(min), mout,
					sizeof(mout)), -EREMOTEIO);
	ck_failed_outbox(mout, sizeof(mout), sel->status, sel->value);

	PRM_SET(query_cq_in, qin, opcode, MLX5_CMD_OP_QUERY_CQ);
	PRM_SET(query_cq_in, qin, cqn, cq.cqn);
	memset(qout, 0xa5, sizeof(qout));
	ck_assert_int_eq(BE->obj_query(cq.obj, qin, sizeof(qin), qout,
				       sizeof(qout)), -EREMOTEIO);
	ck_failed_outbox(qout, sizeof(qout), MLX5_CMD_STAT_BAD_RES_STATE_ERR,
			 synd("CQ_INVALID")->value);
	emu_fault_clear();
	ck_assert_int_eq(BE->obj_query(cq.obj, qin, sizeof(qin), qout,
				       sizeof(qout)), 0);
	cq_destroy(&cq);
}
END_TEST

START_TEST(async_query_completes_with_outbox)
{
	uint8_t qin[PRM_ST_SZ_BYTES(query_cq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_cq_out)];
	struct mlx5be_async_cmd_resp resp = { .out = out, .outlen = sizeof(out) };
	struct mlx5be_cmd_comp *comp;
	struct pollfd pfd;
	struct cq cq;

	cq_create(&cq);
	comp = BE->cmd_comp_create(ctx);
	ck_assert_ptr_nonnull(comp);
	ft_add("fail opcode=QUERY_CQ status=NO_RES");
	PRM_SET(query_cq_in, qin, opcode, MLX5_CMD_OP_QUERY_CQ);
	PRM_SET(query_cq_in, qin, cqn, cq.cqn);
	ck_assert_int_eq(BE->obj_query_async(cq.obj, qin, sizeof(qin),
					     sizeof(out), 77, comp), 0);
	pfd.fd = BE->cmd_comp_fd(comp);
	pfd.events = POLLIN;
	ck_assert_int_eq(poll(&pfd, 1, 5000), 1);
	memset(out, 0xa5, sizeof(out));
	ck_assert_int_eq(BE->cmd_comp_get(comp, &resp), 0);
	ck_assert_uint_eq(resp.wr_id, 77);
	ck_failed_outbox(out, sizeof(out), MLX5_CMD_STAT_NO_RES_ERR, 0xee0000ff);
	BE->cmd_comp_destroy(comp);
	emu_fault_clear();
	cq_destroy(&cq);
}
END_TEST

/* ---- destroy, UAR, open: the mapped errno ---- */

/* The kernel's cmd_status_to_err(), written out as the oracle. */
static const struct {
	const char *status;
	int err;
} mapped[] = {
	{ "INT_ERR", EIO }, { "BAD_OP", EINVAL }, { "BAD_PARAM", EINVAL },
	{ "BAD_SYS_STATE", EIO }, { "BAD_RES", EINVAL }, { "RES_BUSY", EBUSY },
	{ "NOT_READY", EAGAIN }, { "LIM", ENOMEM }, { "BAD_RES_STATE", EINVAL },
	{ "IX", EINVAL }, { "NO_RES", EAGAIN }, { "BAD_INP_LEN", EIO },
	{ "BAD_OUTP_LEN", EIO }, { "BAD_QP_STATE", EINVAL }, { "BAD_PKT", EINVAL },
	{ "BAD_SIZE_OUTS_CQES", EINVAL }, { "0x20", EIO }, { "200", EIO },
};

START_TEST(destroy_fails_with_mapped_errno)
{
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)];
	struct mlx5be_obj *pd = pd_alloc(NULL, out, sizeof(out));
	char text[96];
	int id;

	ck_assert_ptr_nonnull(pd);
	snprintf(text, sizeof(text), "fail opcode=DEALLOC_PD status=%s",
		 mapped[_i].status);
	id = ft_add(text);
	ck_assert_int_eq(BE->obj_destroy(pd), -mapped[_i].err);
	/* The object is still there: once the rule goes, it can go. */
	ck_assert_int_eq(emu_fault_remove(id), 0);
	ck_assert_int_eq(BE->obj_destroy(pd), 0);
}
END_TEST

START_TEST(uar_alloc_fails_with_mapped_errno)
{
	struct mlx5be_uar_info info;
	struct mlx5be_uar *uar;

	ft_add("fail opcode=ALLOC_UAR uid=user syndrome=UAR_LIMIT");
	errno = 0;
	ck_assert_ptr_null(BE->uar_alloc(ctx, MLX5DV_UAR_ALLOC_TYPE_NC, &info));
	ck_assert_int_eq(errno, ENOMEM);	/* LIM */
	emu_fault_clear();
	uar = BE->uar_alloc(ctx, MLX5DV_UAR_ALLOC_TYPE_NC, &info);
	ck_assert_ptr_nonnull(uar);
	BE->uar_free(uar);
}
END_TEST

/* Opening a context: the kernel's CREATE_UCTX (uid 0) fails. */
START_TEST(open_fails_with_mapped_errno)
{
	struct mlx5be_ctx *c2 = NULL;
	int fd = -1;

	ft_add("fail opcode=CREATE_UCTX uid=kernel status=RES_BUSY nth=1");
	ck_assert_int_eq(BE->open(0, &c2, &fd), -EBUSY);
	ck_assert_int_eq(BE->open(0, &c2, &fd), 0);
	BE->close(c2);
}
END_TEST

/*
 * The rules do not see the commands a device issues while it comes up (the
 * kernel's UAR, EQs and RoCE addresses, as a driver's probe): they start
 * with the first open's CREATE_UCTX.  No fixture: the device is new here.
 */
START_TEST(device_bring_up_not_subject)
{
	struct mlx5emu_fault_stats st;
	int uar, eq, gid, uctx;

	ft_reset();
	uar = ft_add("fail opcode=ALLOC_UAR uid=kernel");
	eq = ft_add("fail opcode=CREATE_EQ");
	gid = ft_add("fail opcode=SET_ROCE_ADDRESS");
	uctx = ft_add("delay opcode=CREATE_UCTX ms=1");
	ck_assert_int_eq(BE->open(0, &ctx, &cmd_fd), 0);
	ck_assert_int_eq(emu_fault_stats(uar, &st), 0);
	ck_assert_uint_eq(st.matches, 0);
	ck_assert_int_eq(emu_fault_stats(eq, &st), 0);
	ck_assert_uint_eq(st.matches, 0);
	ck_assert_int_eq(emu_fault_stats(gid, &st), 0);
	ck_assert_uint_eq(st.matches, 0);
	ck_assert_int_eq(emu_fault_stats(uctx, &st), 0);
	ck_assert_uint_eq(st.matches, 1);
	ck_assert_uint_eq(st.injections, 1);
	teardown();
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fault_devx");
	TCase *tc = tcase_create("devx");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, general_cmd_fails_with_outbox);
	tcase_add_test(tc, create_fails_with_outbox);
	tcase_add_test(tc, modify_and_query_fail_with_outbox);
	tcase_add_test(tc, async_query_completes_with_outbox);
	tcase_add_loop_test(tc, destroy_fails_with_mapped_errno, 0,
			    sizeof(mapped) / sizeof(mapped[0]));
	tcase_add_test(tc, uar_alloc_fails_with_mapped_errno);
	tcase_add_test(tc, open_fails_with_mapped_errno);
	suite_add_tcase(s, tc);
	tc = tcase_create("bring_up");
	tcase_add_test(tc, device_bring_up_not_subject);
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
