/* SPDX-License-Identifier: MIT */
/*
 * The context's file descriptors as rdma-core programs use them:
 * ibv_import_device(dup(cmd_fd)) gives a context on the same device that
 * shares the original's objects (a PD allocated in one is a PD the other's
 * DEVX objects can name), mmap(cmd_fd, mmap_off) reaches a UAR page, and
 * async_fd is pollable and honours O_NONBLOCK; mlx5dv_open_device
 * accepts only what libmlx5 44 accepts.  The imported context imports the
 * original's PDs and MRs by handle (ibv_import_pd/mr: what the kernel's
 * QUERY_PD/QUERY_MR answer), and a QP of the importer moves data through
 * them.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <unistd.h>

#include "verbs_test.h"

START_TEST(test_import_shares_objects)
{
	struct ibv_context *ctx = vt_open(true), *imp;
	struct ibv_device_attr a, b;
	struct ibv_pd *pd;
	uint32_t synd;
	int fd = dup(ctx->cmd_fd);

	ck_assert_int_ge(fd, 0);
	imp = ibv_import_device(fd);
	ck_assert_msg(imp, "import: %s", strerror(errno));
	ck_assert_ptr_eq(imp->device, ctx->device);
	ck_assert_int_eq(imp->cmd_fd, fd);
	ck_assert_int_eq(ibv_query_device(imp, &a), 0);
	ck_assert_int_eq(ibv_query_device(ctx, &b), 0);
	ck_assert(a.node_guid == b.node_guid);
	/* A PD of the original is usable from the imported context. */
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	ck_assert_int_eq(vt_devx_mkey_in_pd(imp, vt_pdn(pd), &synd), 0);
	/* Closing the original first leaves the imported context working. */
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	ck_assert_int_eq(ibv_query_device(imp, &a), 0);
	pd = ibv_alloc_pd(imp);
	ck_assert_ptr_nonnull(pd);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(imp), 0);
}
END_TEST

START_TEST(test_import_bad_fd)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	/* rdma-core 44: a descriptor that is not a uverbs file is EINVAL. */
	errno = 0;
	ck_assert_ptr_null(ibv_import_device(p[0]));
	ck_assert_int_eq(errno, EINVAL);
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(test_cmd_fd_maps_uar)
{
	struct ibv_context *ctx = vt_open(true);
	struct mlx5dv_devx_uar *uar = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	volatile uint64_t *mine, *theirs;
	void *map;

	ck_assert_msg(uar, "alloc_uar: %s", strerror(errno));
	map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->cmd_fd,
		   uar->mmap_off);
	ck_assert_ptr_ne(map, MAP_FAILED);
	/* The application's own mapping and the library's are one page. */
	mine = (volatile uint64_t *)((char *)map + 0x800);
	theirs = (volatile uint64_t *)((char *)uar->base_addr + 0x800);
	*mine = 0x1122334455667788ull;
	ck_assert(*theirs == 0x1122334455667788ull);
	munmap(map, 4096);
	mlx5dv_devx_free_uar(uar);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(test_async_fd_nonblock)
{
	struct ibv_context *ctx = vt_open(false);
	struct ibv_async_event ev;
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	int flags = fcntl(ctx->async_fd, F_GETFL);

	ck_assert_int_eq(poll(&pfd, 1, 0), 0);	/* pollable, nothing yet */
	ck_assert_int_eq(fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK), 0);
	errno = 0;
	ck_assert_int_eq(ibv_get_async_event(ctx, &ev), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* mlx5dv_open_device: only the DEVX flag; no comp_mask bit but rdma-core
 * 57's FD_ARRAY (bit 0, whose struct is larger: test_verbs_ucaps). */
START_TEST(test_dv_open_flags)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX << 1 };
	struct ibv_context *c;

	ck_assert_ptr_nonnull(list);
	ck_assert(mlx5dv_is_supported(list[0]));
	errno = 0;
	ck_assert_ptr_null(mlx5dv_open_device(list[0], &attr));
	ck_assert_int_eq(errno, EINVAL);
	attr.flags = MLX5DV_CONTEXT_FLAGS_DEVX;
	attr.comp_mask = 1u << 1;
	errno = 0;
	ck_assert_ptr_null(mlx5dv_open_device(list[0], &attr));
	ck_assert_int_eq(errno, EINVAL);
	attr.comp_mask = 0;
	c = mlx5dv_open_device(list[0], &attr);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(ibv_close_device(c), 0);
	ibv_free_device_list(list);
}
END_TEST

/* ibv_import_pd / ibv_import_mr of @h fail with @err. */
static void ck_import_pd_err(struct ibv_context *ctx, uint32_t h, int err)
{
	errno = 0;
	ck_assert_ptr_null(ibv_import_pd(ctx, h));
	ck_assert_int_eq(errno, err);
}

static void ck_import_mr_err(struct ibv_pd *pd, uint32_t h, int err)
{
	errno = 0;
	ck_assert_ptr_null(ibv_import_mr(pd, h));
	ck_assert_int_eq(errno, err);
}

/*
 * On the hw backend our PDs and MRs are DEVX objects, with no uverbs
 * handle to import: both imports answer EOPNOTSUPP.  Whether it does.
 */
static bool import_unsupported(struct ibv_context *imp, struct ibv_pd *pd)
{
	if (!vt_backend_hw())
		return false;
	ck_import_pd_err(imp, pd->handle, EOPNOTSUPP);
	ck_import_mr_err(pd, 0, EOPNOTSUPP);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(imp), 0);
	return true;
}

/* An imported context over a dup() of @ctx's cmd_fd; asserts. */
static struct ibv_context *import_of(struct ibv_context *ctx)
{
	int fd = dup(ctx->cmd_fd);
	struct ibv_context *imp;

	ck_assert_int_ge(fd, 0);
	imp = ibv_import_device(fd);
	ck_assert_msg(imp, "import: %s", strerror(errno));
	return imp;
}

START_TEST(test_import_pd_mr_fields)
{
	struct ibv_context *ctx = vt_open(false), *imp = import_of(ctx);
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *ipd;
	char *buf = vt_alloc(3 * 4096);
	struct ibv_mr *mr, *imr;

	ck_assert_ptr_nonnull(pd);
	if (import_unsupported(imp, pd))
		goto out;
	mr = ibv_reg_mr(pd, buf + 100, 2 * 4096, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	ck_assert_ptr_nonnull(mr);
	ipd = ibv_import_pd(imp, pd->handle);
	ck_assert_msg(ipd, "import_pd: %s", strerror(errno));
	ck_assert_ptr_eq(ipd->context, imp);
	ck_assert_uint_eq(ipd->handle, pd->handle);
	/* The same firmware PD behind both. */
	ck_assert_uint_eq(vt_pdn(ipd), vt_pdn(pd));
	imr = ibv_import_mr(ipd, mr->handle);
	ck_assert_msg(imr, "import_mr: %s", strerror(errno));
	ck_assert_ptr_eq(imr->context, imp);
	ck_assert_ptr_eq(imr->pd, ipd);
	ck_assert_uint_eq(imr->handle, mr->handle);
	ck_assert_uint_eq(imr->lkey, mr->lkey);
	ck_assert_uint_eq(imr->rkey, mr->rkey);
	ck_assert_uint_eq(imr->length, 2 * 4096);
	/* ibv_cmd_query_mr leaves the address unknown. */
	ck_assert_ptr_null(imr->addr);
	ibv_unimport_mr(imr);
	/* A rereg with a new translation is what the next import sees. */
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL,
				      buf, 4096, 0), 0);
	imr = ibv_import_mr(ipd, mr->handle);
	ck_assert_ptr_nonnull(imr);
	ck_assert_uint_eq(imr->length, 4096);
	ck_assert_uint_eq(imr->lkey, mr->lkey);
	/* The imported objects own nothing of the originals. */
	errno = 0;
	ck_assert_int_eq(ibv_dereg_mr(imr), EOPNOTSUPP);
	ck_assert_int_eq(ibv_dealloc_pd(ipd), EOPNOTSUPP);
	ibv_unimport_mr(imr);
	ibv_unimport_pd(ipd);
	/* Unimporting left the originals working and deallocatable. */
	imr = ibv_import_mr(pd, mr->handle);
	ck_assert_ptr_nonnull(imr);
	ibv_unimport_mr(imr);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(imp), 0);
out:
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	free(buf);
}
END_TEST

/* The uverbs lookup: no object is ENOENT, one of another type EINVAL. */
START_TEST(test_import_bad_handles)
{
	struct ibv_context *ctx = vt_open(false), *imp = import_of(ctx);
	struct ibv_context *other = vt_open(false);
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *ipd, *opd[4];
	char *buf = vt_alloc(4096);
	struct ibv_mr *mr;
	uint32_t h;

	ck_assert_ptr_nonnull(pd);
	if (import_unsupported(imp, pd))
		goto out;
	mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	ck_assert_uint_ne(mr->handle, pd->handle);
	ck_import_pd_err(imp, mr->handle, EINVAL);
	ck_import_pd_err(imp, 0x7fff0000, ENOENT);
	ipd = ibv_import_pd(imp, pd->handle);
	ck_assert_ptr_nonnull(ipd);
	ck_import_mr_err(ipd, pd->handle, EINVAL);
	ck_import_mr_err(ipd, 0x7fff0000, ENOENT);
	/* Handles are the file's: another context's PD is not found here. */
	for (int i = 0; i < 4; i++) {
		opd[i] = ibv_alloc_pd(other);
		ck_assert_ptr_nonnull(opd[i]);
	}
	h = opd[3]->handle;
	ck_assert_uint_ne(h, pd->handle);
	ck_assert_uint_ne(h, mr->handle);
	ck_import_pd_err(imp, h, ENOENT);
	/* A deregistered MR's handle names nothing any more. */
	h = mr->handle;
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_import_mr_err(ipd, h, ENOENT);
	ibv_unimport_pd(ipd);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(ibv_dealloc_pd(opd[i]), 0);
	h = pd->handle;
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_import_pd_err(imp, h, ENOENT);
	ck_assert_int_eq(ibv_close_device(imp), 0);
out:
	ck_assert_int_eq(ibv_close_device(other), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	free(buf);
}
END_TEST

/*
 * An MR the importer registers on the imported PD uses the kernel's PD:
 * the original cannot deallocate it meanwhile (EBUSY), and once it has,
 * the imported PD names no PD (EINVAL, as uverbs for a missing PD).
 */
START_TEST(test_import_pd_use)
{
	struct ibv_context *ctx = vt_open(false), *imp = import_of(ctx);
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *ipd;
	char *buf = vt_alloc(4096);
	struct ibv_mr *mr;

	ck_assert_ptr_nonnull(pd);
	if (import_unsupported(imp, pd))
		goto out;
	ipd = ibv_import_pd(imp, pd->handle);
	ck_assert_ptr_nonnull(ipd);
	mr = ibv_reg_mr(ipd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_msg(mr, "reg_mr: %s", strerror(errno));
	ck_assert_int_eq(ibv_dealloc_pd(pd), EBUSY);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(ipd, buf, 4096, IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EINVAL);
	ibv_unimport_pd(ipd);
	ck_assert_int_eq(ibv_close_device(imp), 0);
out:
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	free(buf);
}
END_TEST

/*
 * An RDMA write by a QP of the importer, on the imported PD, from one
 * imported MR into another: both keys are the original's mkeys, in the
 * PD the QP's own is.
 */
START_TEST(test_import_traffic)
{
	struct ibv_context *ctx = vt_open(false), *imp = import_of(ctx);
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *ipd;
	char *src = vt_alloc(4096), *dst = vt_alloc(4096);
	struct ibv_mr *smr, *dmr, *ismr, *idmr;
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	union ibv_gid gid;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int n = 0;

	ck_assert_ptr_nonnull(pd);
	if (import_unsupported(imp, pd))
		goto out;
	smr = ibv_reg_mr(pd, src, 4096, IBV_ACCESS_LOCAL_WRITE);
	dmr = ibv_reg_mr(pd, dst, 4096, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE);
	ck_assert(smr && dmr);
	ipd = ibv_import_pd(imp, pd->handle);
	ck_assert_ptr_nonnull(ipd);
	ismr = ibv_import_mr(ipd, smr->handle);
	idmr = ibv_import_mr(ipd, dmr->handle);
	ck_assert(ismr && idmr);
	ck_assert_int_eq(ibv_query_gid(imp, 1, 3, &gid), 0);
	cq = ibv_create_cq(imp, 8, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qp = ibv_create_qp(ipd, &qa);
	ck_assert_msg(qp, "create_qp: %s", strerror(errno));
	ck_assert_int_eq(ut_rc_connect(qp, qp->qp_num, &gid, 12), 0);

	for (int i = 0; i < 4096; i++)
		src[i] = (char)(i * 7 + 3);
	memset(dst, 0, 4096);
	sge = (struct ibv_sge){ .addr = (uintptr_t)src, .length = 4096,
				.lkey = ismr->lkey };
	wr.wr_id = 0x77;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)dst;
	wr.wr.rdma.rkey = idmr->rkey;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	for (int spin = 0; !n && spin < 10000000; spin++)
		n = ibv_poll_cq(cq, 1, &wc);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert(wc.wr_id == 0x77);
	ck_assert_int_eq(memcmp(src, dst, 4096), 0);

	/* The PD's users in the importer outlive its unimport. */
	ibv_unimport_mr(ismr);
	ibv_unimport_mr(idmr);
	ibv_unimport_pd(ipd);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_dereg_mr(smr), 0);
	ck_assert_int_eq(ibv_dereg_mr(dmr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(imp), 0);
out:
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	free(src);
	free(dst);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("import");
	TCase *tc = tcase_create("fds");

	tcase_add_test(tc, test_import_shares_objects);
	tcase_add_test(tc, test_import_bad_fd);
	tcase_add_test(tc, test_cmd_fd_maps_uar);
	tcase_add_test(tc, test_async_fd_nonblock);
	tcase_add_test(tc, test_dv_open_flags);
	tcase_add_test(tc, test_import_pd_mr_fields);
	tcase_add_test(tc, test_import_bad_handles);
	tcase_add_test(tc, test_import_pd_use);
	tcase_add_test(tc, test_import_traffic);
	suite_add_tcase(s, tc);
	return vt_run(s) ? 1 : 0;
}
