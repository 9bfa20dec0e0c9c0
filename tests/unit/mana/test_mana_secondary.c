/* SPDX-License-Identifier: MIT */
/*
 * A doorbell rung through another process's mapping of cmd_fd, as a DPDK
 * secondary process rings it: the primary builds the queues and writes the
 * WQEs, a forked child maps offset 0 of the context's cmd_fd itself and
 * stores the doorbells there.  That mapping cannot be trapped; the device
 * samples the page, so each doorbell whose value changed the slot is seen,
 * later than a trapped one.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/manadv.h>
#include <infiniband/verbs.h>

#include "mana_pmd.h"
#include "ut_run.h"

enum { FLEN = 60, DEPTH = 64, WQES = 8 };

/* In a child process: map cmd_fd's doorbell page and ring the SQ for each
 * of @n WQEs, one store each, waiting between them as bursts do. */
static void secondary_ring(int cmd_fd, uint32_t sq_id, unsigned int n)
{
	pid_t pid = fork();
	int st;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		void *page = mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, cmd_fd, 0);

		if (page == MAP_FAILED)
			_exit(2);
		for (unsigned int i = 1; i <= n; i++) {
			mp_doorbell(page, 0, sq_id, 32 * i);
			usleep(20000);
		}
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

START_TEST(secondary_doorbells_are_sampled)
{
	struct ibv_context *ctx = mp_open("mana_0");
	struct manadv_ctx_allocators al = mp_allocators;
	uint8_t *mem = aligned_alloc(4096, 4096), oob[8];

	memset(mem, 0, 4096);
	memset(mem, 0xff, 12);
	mem[12] = 0x88;
	mem[13] = 0xb5;
	ck_assert_int_eq(manadv_set_context_attr(ctx,
				MANADV_CTX_ATTR_BUF_ALLOCATORS, &al), 0);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_parent_domain_init_attr pa = {
		.pd = pd, .comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.pd_context = (void *)1,
	};
	struct ibv_pd *ppd = ibv_alloc_parent_domain(ctx, &pa);
	struct ibv_cq *cq = ibv_create_cq(ctx, DEPTH, NULL, NULL, 0);
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RAW_PACKET, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = DEPTH, .max_send_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(ppd, &qa);
	struct ibv_mr *mr = ibv_reg_mr(pd, mem, 4096, IBV_ACCESS_LOCAL_WRITE);
	struct manadv_qp dq;
	struct manadv_cq dc;
	struct manadv_obj o = { .qp = { qp, &dq }, .cq = { cq, &dc } };

	ck_assert_ptr_nonnull(qp);
	ck_assert_ptr_nonnull(mr);
	ck_assert_int_eq(manadv_init_obj(&o, MANADV_OBJ_QP | MANADV_OBJ_CQ), 0);
	mp_tx_oob(oob, dc.cq_id, dq.sq_id, dq.tx_vp_offset);
	for (unsigned int i = 0; i < WQES; i++)
		mp_wqe((uint8_t *)dq.sq_buf + 32 * i, oob, (uintptr_t)mem,
		       mr->lkey, FLEN);
	__atomic_thread_fence(__ATOMIC_RELEASE);

	/* nothing rung yet: nothing sent */
	usleep(100000);
	ck_assert(mp_cqe_at(dc.buf, dc.count, 0) == NULL);
	secondary_ring(ctx->cmd_fd, dq.sq_id, WQES);
	/* the last doorbell's tail covers all: every WQE completes */
	for (unsigned int i = 0; i < WQES; i++) {
		const volatile uint8_t *c = mp_cqe_wait(dc.buf, dc.count, i);

		ck_assert_msg(c != NULL, "CQE %u", i);
		ck_assert_uint_eq(mp_get32(c) & 0x3f, 32);	/* TX_OKAY */
	}
	ck_assert(mp_cqe_at(dc.buf, dc.count, WQES) == NULL);

	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(ppd), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	free(mem);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_secondary");
	TCase *tc = tcase_create("sampled");

	setenv("MLX5EMU_MANA_DEVICES", "1", 1);
	tcase_add_test(tc, secondary_doorbells_are_sampled);
	suite_add_tcase(s, tc);
	return ut_run(s);
}
