/* SPDX-License-Identifier: MIT */
/*
 * Every exported verb, and every mlx5dv entry, that takes a context or an
 * object, called with MANA ones (mana_0, as a MANA PMD builds them): each
 * gives rdma-core 44's answer for a MANA device -- libibverbs' dummy op
 * where libmana sets none, libibverbs' own answer over mana_ib where it
 * needs no provider, libmlx5's answer for a device it does not own --
 * and the context still sends a frame afterwards.
 *
 * Objects libmana cannot make (an AH, an SRQ) are stand-ins naming the
 * MANA context: libibverbs dispatches on their context alone.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/manadv.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "mana_pmd.h"
#include "ut_run.h"

/* Exported by libibverbs (IBVERBS_PRIVATE_34); no installed header has it. */
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, int *type);

/* An int-returning dummy op or dv entry: @ret is the errno, errno untouched. */
#define CK_RET(call, want)                                                    \
	do {                                                                  \
		errno = 0;                                                    \
		ck_assert_int_eq((call), (want));                             \
		ck_assert_int_eq(errno, 0);                                   \
	} while (0)

/* An object-returning one: NULL, errno EOPNOTSUPP. */
#define CK_NULL(call)                                                         \
	do {                                                                  \
		errno = 0;                                                    \
		ck_assert_ptr_null((call));                                   \
		ck_assert_int_eq(errno, EOPNOTSUPP);                          \
	} while (0)

static struct mp_txq t;

static void setup(void)
{
	mp_txq_open(&t, false);
}

static void teardown(void)
{
	mp_txq_close(&t, true);
}

START_TEST(gid_and_pkey)
{
	struct ibv_port_attr pa;
	struct ibv_gid_entry e[4];
	union ibv_gid gid;
	__be16 pkey;
	int type = -1;

	/* the emulated mana_ib port: no GID table, one P_Key */
	ck_assert_int_eq(ibv_query_port(t.ctx, 1, &pa), 0);
	ck_assert_int_eq(pa.gid_tbl_len, 0);
	ck_assert_int_eq(pa.pkey_tbl_len, 1);
	/* rdma_get_gid_attr(): an index past the table, or a bad port */
	errno = 0;
	ck_assert_int_eq(ibv_query_gid(t.ctx, 1, 0, &gid), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_query_gid(t.ctx, 9, 0, &gid), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_query_gid_ex(t.ctx, 1, 0, e, 0), EINVAL);
	ck_assert_int_eq(ibv_query_gid_ex(t.ctx, 1, 0, e, 1), EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_query_gid_type(t.ctx, 1, 0, &type), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(type, -1);
	/* rdma_query_gid_table(): no entry anywhere; the arguments checked */
	ck_assert_int_eq(ibv_query_gid_table(t.ctx, e, 4, 0), 0);
	ck_assert_int_eq(ibv_query_gid_table(t.ctx, e, 0, 0), -EINVAL);
	ck_assert_int_eq(ibv_query_gid_table(t.ctx, e, 4, 1), -EINVAL);
	/* libibverbs reads the P_Key from sysfs, for any device */
	ck_assert_int_eq(ibv_query_pkey(t.ctx, 1, 0, &pkey), 0);
	ck_assert_uint_eq(be16toh(pkey), 0xffff);
	ck_assert_int_eq(ibv_get_pkey_index(t.ctx, 1, pkey), 0);
}
END_TEST

START_TEST(address_handles)
{
	struct ibv_ah_attr aa = { .port_num = 1, .is_global = 1 };
	struct ibv_ah fake = { .context = t.ctx, .pd = t.pd };
	struct ibv_wc wc = { .slid = 7, .sl = 1 };
	struct ibv_grh grh;

	CK_NULL(ibv_create_ah(t.pd, &aa));
	CK_NULL(ibv_create_ah(t.ppd, &aa));
	CK_RET(ibv_destroy_ah(&fake), EOPNOTSUPP);
	/* without a GRH libibverbs needs no GID: the attributes, then the
	 * dummy create_ah */
	memset(&grh, 0, sizeof(grh));
	ck_assert_int_eq(ibv_init_ah_from_wc(t.ctx, 1, &wc, &grh, &aa), 0);
	ck_assert_int_eq(aa.dlid, 7);
	ck_assert_int_eq(aa.sl, 1);
	ck_assert_int_eq(aa.port_num, 1);
	ck_assert_int_eq(aa.is_global, 0);
	CK_NULL(ibv_create_ah_from_wc(t.pd, &wc, &grh, 1));
	/* with a RoCE v2 (IPv6, UDP) one, the GID search fails first */
	wc.wc_flags = IBV_WC_GRH;
	grh.version_tclass_flow = htobe32(6u << 28);
	grh.next_hdr = 17;
	grh.dgid.raw[0] = 0xfe;
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(t.ctx, 1, &wc, &grh, &aa), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_create_ah_from_wc(t.pd, &wc, &grh, 1));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(srq_cq_qp_mr_pd)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq fake_srq = { .context = t.ctx, .pd = t.pd };
	struct ibv_srq_attr sattr = { .max_wr = 16 };
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_ece ece = { 0 };
	int fd;

	CK_NULL(ibv_create_srq(t.pd, &sa));
	CK_RET(ibv_modify_srq(&fake_srq, &sattr, IBV_SRQ_LIMIT), EOPNOTSUPP);
	CK_RET(ibv_query_srq(&fake_srq, &sattr), EOPNOTSUPP);
	CK_RET(ibv_destroy_srq(&fake_srq), EOPNOTSUPP);

	CK_RET(ibv_resize_cq(t.cq, 128), EOPNOTSUPP);

	ck_assert_ptr_null(ibv_qp_to_qp_ex(t.qp));
	CK_RET(ibv_query_qp(t.qp, &qa, IBV_QP_STATE, &qi), EOPNOTSUPP);
	CK_RET(ibv_query_qp_data_in_order(t.qp, IBV_WR_SEND, 0), 0);
	CK_RET(ibv_query_ece(t.qp, &ece), EOPNOTSUPP);
	/* libibverbs refuses a zero vendor itself, setting errno */
	errno = 0;
	ck_assert_int_eq(ibv_set_ece(t.qp, &ece), EOPNOTSUPP);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ece.vendor_id = 0x15b3;
	CK_RET(ibv_set_ece(t.qp, &ece), EOPNOTSUPP);

	/* rereg: libibverbs' input checks, then the dummy op's failure */
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(t.mr, 1 << 5, NULL, NULL, 0, 0),
			 IBV_REREG_MR_ERR_INPUT);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(t.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				      NULL, 0, IBV_ACCESS_LOCAL_WRITE),
			 IBV_REREG_MR_ERR_CMD);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(t.mr, IBV_REREG_MR_CHANGE_TRANSLATION,
				      NULL, t.mem, 4096, 0),
			 IBV_REREG_MR_ERR_CMD);
	ck_assert_int_eq(errno, EOPNOTSUPP);

	/* no import_pd, import_mr, import_context in libmana 44 */
	CK_NULL(ibv_import_pd(t.ctx, 1));
	CK_NULL(ibv_import_mr(t.pd, t.mr->handle));
	ibv_unimport_mr(t.mr);		/* dummy: the MR stays */
	ibv_unimport_pd(t.ppd);		/* dummy: the domain stays */
	CK_NULL(ibv_import_device(t.ctx->cmd_fd));
	fd = dup(t.ctx->cmd_fd);
	ck_assert_int_ge(fd, 0);
	CK_NULL(ibv_import_device(fd));
	close(fd);

	/* the inline verbs: op slots libmana leaves to the dummy ops */
	struct ibv_cq_init_attr_ex cx = { .cqe = 16 };
	struct ibv_td_init_attr ta = { 0 };
	struct ibv_xrcd_init_attr xa = { 0 };
	struct ibv_flow_attr fa = { .size = sizeof(fa), .port = 1 };
	struct ibv_values_ex vx = { 0 };

	CK_NULL(ibv_create_cq_ex(t.ctx, &cx));
	CK_NULL(ibv_alloc_td(t.ctx, &ta));
	CK_NULL(ibv_open_xrcd(t.ctx, &xa));
	CK_NULL(ibv_alloc_mw(t.pd, IBV_MW_TYPE_1));
	CK_NULL(ibv_create_flow(t.qp, &fa));
	CK_RET(ibv_query_rt_values_ex(t.ctx, &vx), EOPNOTSUPP);

	/* everything the PMD made still works */
	mp_txq_send(&t);
	mp_txq_send(&t);
}
END_TEST

START_TEST(mlx5dv_entries)
{
	struct ibv_device **list;
	struct mlx5dv_context dv = { 0 };
	struct mlx5dv_port port;
	struct mlx5dv_clock_info ci;
	struct mlx5dv_qp dqp;
	struct mlx5dv_cq dcq;
	struct mlx5dv_pd dpd;
	struct mlx5dv_obj o = { .qp = { t.qp, &dqp } };
	uint32_t in[4] = { 0 }, out[4], eqn;
	int n, found = 0;

	list = ibv_get_device_list(&n);
	ck_assert_ptr_nonnull(list);
	for (int i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]), "mana_0"))
			continue;
		found = 1;
		ck_assert(!mlx5dv_is_supported(list[i]));
		CK_NULL(mlx5dv_open_device(list[i], NULL));
		ck_assert(ibv_get_device_guid(list[i]) != 0);
		ck_assert_int_ge(ibv_get_device_index(list[i]), 0);
	}
	ibv_free_device_list(list);
	ck_assert(found);

	CK_RET(mlx5dv_query_device(t.ctx, &dv), EOPNOTSUPP);
	CK_RET(mlx5dv_query_port(t.ctx, 1, &port), EOPNOTSUPP);
	CK_RET(mlx5dv_get_clock_info(t.ctx, &ci), EOPNOTSUPP);
	CK_RET(mlx5dv_set_context_attr(t.ctx, MLX5DV_CTX_ATTR_BUF_ALLOCATORS,
				       NULL), EOPNOTSUPP);
	CK_RET(mlx5dv_init_obj(&o, MLX5DV_OBJ_QP), EOPNOTSUPP);
	o = (struct mlx5dv_obj){ .cq = { t.cq, &dcq } };
	CK_RET(mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ), EOPNOTSUPP);
	o = (struct mlx5dv_obj){ .pd = { t.pd, &dpd } };
	CK_RET(mlx5dv_init_obj(&o, MLX5DV_OBJ_PD), EOPNOTSUPP);
	CK_RET(mlx5dv_init_obj(&o, 0), EINVAL);	/* no object: no context */
	CK_RET(mlx5dv_modify_qp_udp_sport(t.qp, 4791), EOPNOTSUPP);

	struct ibv_cq_init_attr_ex cx = { .cqe = 16 };
	struct ibv_qp_init_attr_ex qx = {
		.qp_type = IBV_QPT_RAW_PACKET, .send_cq = t.cq, .recv_cq = t.cq,
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = t.pd,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
	};
	struct ibv_wq_init_attr wx = { .wq_type = IBV_WQT_RQ, .max_wr = 16,
				       .max_sge = 1, .pd = t.pd, .cq = t.cq };
	struct mlx5dv_mkey_init_attr mk = {
		.pd = t.pd, .create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT,
		.max_entries = 1,
	};
	struct mlx5dv_flow_match_parameters mask = { .match_sz = 0 };
	struct mlx5dv_flow_matcher_attr ma = {
		.type = IBV_FLOW_ATTR_NORMAL, .match_mask = &mask,
	};
	struct mlx5dv_devx_umem_in ui = {
		.addr = t.mem, .size = 4096, .access = IBV_ACCESS_LOCAL_WRITE,
		.pgsz_bitmap = 4096,
	};

	CK_NULL(mlx5dv_create_cq(t.ctx, &cx, NULL));
	CK_NULL(mlx5dv_create_qp(t.ctx, &qx, NULL));
	CK_NULL(mlx5dv_create_wq(t.ctx, &wx, NULL));
	CK_NULL(mlx5dv_create_mkey(&mk));
	CK_NULL(mlx5dv_create_flow_matcher(t.ctx, &ma));

	CK_RET(mlx5dv_devx_general_cmd(t.ctx, in, sizeof(in), out, sizeof(out)),
	       EOPNOTSUPP);
	CK_NULL(mlx5dv_devx_obj_create(t.ctx, in, sizeof(in), out, sizeof(out)));
	CK_RET(mlx5dv_devx_query_eqn(t.ctx, 0, &eqn), EOPNOTSUPP);
	CK_NULL(mlx5dv_devx_create_cmd_comp(t.ctx));
	CK_NULL(mlx5dv_devx_create_event_channel(t.ctx, 0));
	CK_NULL(mlx5dv_devx_alloc_uar(t.ctx, MLX5DV_UAR_ALLOC_TYPE_BF));
	CK_NULL(mlx5dv_devx_umem_reg(t.ctx, t.mem, 4096, IBV_ACCESS_LOCAL_WRITE));
	CK_NULL(mlx5dv_devx_umem_reg_ex(t.ctx, &ui));

	CK_RET(mlx5dv_devx_cq_query(t.cq, in, sizeof(in), out, sizeof(out)),
	       EOPNOTSUPP);
	CK_RET(mlx5dv_devx_cq_modify(t.cq, in, sizeof(in), out, sizeof(out)),
	       EOPNOTSUPP);
	CK_RET(mlx5dv_devx_qp_query(t.qp, in, sizeof(in), out, sizeof(out)),
	       EOPNOTSUPP);
	CK_RET(mlx5dv_devx_qp_modify(t.qp, in, sizeof(in), out, sizeof(out)),
	       EOPNOTSUPP);

	struct ibv_srq fake_srq = { .context = t.ctx, .pd = t.pd };

	CK_RET(mlx5dv_devx_srq_query(&fake_srq, in, sizeof(in), out, sizeof(out)),
	       EOPNOTSUPP);
	CK_RET(mlx5dv_devx_srq_modify(&fake_srq, in, sizeof(in), out,
				      sizeof(out)), EOPNOTSUPP);

	mp_txq_send(&t);
}
END_TEST

/* An RQ behind an indirection table, as the PMD's receive side has. */
START_TEST(wq_and_ind_table)
{
	struct ibv_cq *rcq = ibv_create_cq(t.ctx, 64, NULL, NULL, 0);
	struct ibv_wq_init_attr wa = { .wq_type = IBV_WQT_RQ, .max_wr = 64,
				       .max_sge = 1, .pd = t.ppd, .cq = rcq };
	struct ibv_wq *wq = ibv_create_wq(t.ctx, &wa);
	struct ibv_rwq_ind_table_init_attr ia = { .log_ind_tbl_size = 0,
						  .ind_tbl = &wq };
	struct ibv_rwq_ind_table *tbl;
	struct mlx5dv_rwq drwq;
	struct mlx5dv_obj o = { .rwq = { wq, &drwq } };
	uint32_t in[4] = { 0 }, out[4];

	ck_assert_ptr_nonnull(rcq);
	ck_assert_ptr_nonnull(wq);
	tbl = ibv_create_rwq_ind_table(t.ctx, &ia);
	ck_assert_ptr_nonnull(tbl);

	CK_RET(mlx5dv_init_obj(&o, MLX5DV_OBJ_RWQ), EOPNOTSUPP);
	CK_RET(mlx5dv_devx_wq_query(wq, in, sizeof(in), out, sizeof(out)),
	       EOPNOTSUPP);
	CK_RET(mlx5dv_devx_wq_modify(wq, in, sizeof(in), out, sizeof(out)),
	       EOPNOTSUPP);
	CK_RET(mlx5dv_devx_ind_tbl_query(tbl, in, sizeof(in), out, sizeof(out)),
	       EOPNOTSUPP);
	CK_RET(mlx5dv_devx_ind_tbl_modify(tbl, in, sizeof(in), out, sizeof(out)),
	       EOPNOTSUPP);

	ck_assert_int_eq(ibv_destroy_rwq_ind_table(tbl), 0);
	ck_assert_int_eq(ibv_destroy_wq(wq), 0);
	ck_assert_int_eq(ibv_destroy_cq(rcq), 0);
	mp_txq_send(&t);
}
END_TEST

/* The VmFlags of the mapping holding @addr carry "dc" (MADV_DONTFORK). */
static bool kept_from_children(const void *addr)
{
	char line[512];
	unsigned long lo, hi;
	uintptr_t a = (uintptr_t)addr;
	bool here = false, dc = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	ck_assert_ptr_nonnull(f);
	while (!dc && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			here = a >= lo && a < hi;
		else if (here && !strncmp(line, "VmFlags:", 8))
			dc = strstr(line, " dc") != NULL;
	}
	fclose(f);
	return dc;
}

/* libibverbs brackets every provider's reg_mr and dereg_mr, libmana's
 * too, in the fork ranges (ibv_reg_mr_iova2, ibv_dereg_mr). */
START_TEST(mr_fork_ranges)
{
	uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ibv_mr *mr;

	ck_assert_int_eq(ibv_fork_init(), 0);
	mp_txq_open(&t, false);
	ck_assert(kept_from_children(t.mem));
	ck_assert(page != MAP_FAILED);
	ck_assert(!kept_from_children(page));
	mr = ibv_reg_mr(t.pd, page, 4096, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	ck_assert(kept_from_children(page));
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert(!kept_from_children(page));
	mp_txq_send(&t);
	mp_txq_close(&t, true);
	munmap(page, 4096);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_guard");
	TCase *tc = tcase_create("mana_objects");

	setenv("MLX5EMU_MANA_DEVICES", "1", 1);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, gid_and_pkey);
	tcase_add_test(tc, address_handles);
	tcase_add_test(tc, srq_cq_qp_mr_pd);
	tcase_add_test(tc, mlx5dv_entries);
	tcase_add_test(tc, wq_and_ind_table);
	suite_add_tcase(s, tc);
	/* its own process state: fork tracking on before any registration */
	tc = tcase_create("fork");
	tcase_add_test(tc, mr_fork_ranges);
	suite_add_tcase(s, tc);
	return ut_run(s);
}
