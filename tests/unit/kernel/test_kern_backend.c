/* SPDX-License-Identifier: MIT */
/*
 * The kernel layer through the backend interface: shared helpers and the
 * runner.  Each test runs in a child of its own (Check's fork mode), so
 * every test starts with a fresh device.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "test_kern_backend.h"

/* ---- the firmware hook ---- */

#define KBT_HISTORY 16

static atomic_ulong kbt_ncmds;
static _Atomic uint16_t kbt_last_uid, kbt_last_op;
static _Atomic uint16_t kbt_history[KBT_HISTORY];
static _Atomic(struct emu_fw *) kbt_hooked;
static _Atomic uint16_t kbt_fail_op;
static _Atomic uint8_t kbt_fail_status;
static _Atomic uint32_t kbt_fail_syndrome;

static bool kbt_pre_cmd(void *arg, const void *in, size_t inlen,
			uint16_t opcode, uint16_t op_mod, uint16_t uid,
			uint8_t *status, uint32_t *syndrome)
{
	unsigned long n = atomic_fetch_add(&kbt_ncmds, 1);

	atomic_store(&kbt_history[n % KBT_HISTORY], opcode);
	atomic_store(&kbt_last_uid, uid);
	atomic_store(&kbt_last_op, opcode);
	if (opcode && opcode == atomic_load(&kbt_fail_op)) {
		*status = atomic_load(&kbt_fail_status);
		*syndrome = atomic_load(&kbt_fail_syndrome);
		return true;
	}
	return false;
}

static const struct emu_fw_hooks kbt_hooks = { .pre_cmd = kbt_pre_cmd };

unsigned long kbt_fw_cmds(void)
{
	return atomic_load(&kbt_ncmds);
}

uint16_t kbt_fw_last_uid(void)
{
	return atomic_load(&kbt_last_uid);
}

uint16_t kbt_fw_last_opcode(void)
{
	return atomic_load(&kbt_last_op);
}

uint16_t kbt_fw_opcode(unsigned int back)
{
	unsigned long n = atomic_load(&kbt_ncmds);

	ck_assert_uint_lt(back, KBT_HISTORY);
	ck_assert_uint_gt(n, back);
	return atomic_load(&kbt_history[(n - 1 - back) % KBT_HISTORY]);
}

void kbt_fw_fail(uint16_t opcode, const char *syndrome_name)
{
	const struct fw_syndrome *e = syndrome_name ?
				      fw_syndrome_by_name(syndrome_name) : NULL;

	ck_assert(!syndrome_name || e);
	atomic_store(&kbt_fail_status, e ? e->status : 0);
	atomic_store(&kbt_fail_syndrome, e ? e->value : 0);
	atomic_store(&kbt_fail_op, opcode);
}

/* ---- contexts ---- */

struct mlx5be_ctx *kbt_open(int *cmd_fd)
{
	struct mlx5be_ctx *ctx = NULL;
	struct emu_fw *none = NULL;
	int fd = -1, ret;

	ret = BE->open(0, &ctx, &fd);
	ck_assert_msg(ret == 0, "open: %s", strerror(-ret));
	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_ge(fd, 0);
	/* The device is brought up by the first open: watch it from then. */
	if (atomic_compare_exchange_strong(&kbt_hooked, &none, kbt_fw(ctx)))
		emu_fw_set_hooks(kbt_fw(ctx), &kbt_hooks);
	if (cmd_fd)
		*cmd_fd = fd;
	return ctx;
}

struct emu_fw *kbt_fw(const struct mlx5be_ctx *ctx)
{
	return ctx->uctx->kdev->fw;
}

uint16_t kbt_uid(const struct mlx5be_ctx *ctx)
{
	return ctx->uctx->uid;
}

void kbt_counts(struct emu_fw *fw, struct kbt_counts *c)
{
	for (int t = 0; t < EMU_FW_OBJ_NTYPES; t++)
		c->n[t] = emu_fw_obj_count(fw, t);
}

bool kbt_fw_has(struct emu_fw *fw, enum emu_fw_obj_type type, uint32_t id,
		uint16_t *uid)
{
	struct emu_fw_obj *obj = emu_fw_obj_get(fw, type, id);

	if (!obj)
		return false;
	if (uid)
		*uid = obj->uid;
	emu_fw_obj_put(obj);
	return true;
}

void kbt_poison(void *out, size_t len)
{
	memset(out, KBT_POISON, len);
}

bool kbt_poisoned(const void *out, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (((const uint8_t *)out)[i] != KBT_POISON)
			return false;
	return true;
}

/* ---- objects ---- */

uint32_t kbt_cap_gen(struct mlx5be_ctx *ctx, size_t bit_off, size_t bits)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = {};
	size_t outlen = PRM_ST_SZ_BYTES(query_hca_cap_out);
	uint8_t *out = calloc(1, outlen);
	uint32_t v;

	ck_assert_ptr_nonnull(out);
	PRM_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, in, op_mod,
		MLX5_CAP_GENERAL << 1 | HCA_CAP_OPMOD_GET_CUR);
	ck_assert_int_eq(BE->general_cmd(ctx, in, sizeof(in), out, outlen), 0);
	v = prm_get32_(PRM_ADDR_OF(query_hca_cap_out, out, capability),
		       (uint32_t)bit_off, (uint32_t)bits);
	free(out);
	return v;
}

struct mlx5be_obj *kbt_pd(struct mlx5be_ctx *ctx, uint32_t *pdn)
{
	uint8_t in[PRM_ST_SZ_BYTES(alloc_pd_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)] = {};
	struct mlx5be_obj *obj;

	PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	obj = BE->obj_create(ctx, in, sizeof(in), out, sizeof(out));
	ck_assert_msg(obj, "ALLOC_PD: %s (status 0x%x syndrome 0x%x)",
		      strerror(errno), kern_mbox_status(out),
		      kern_mbox_syndrome(out));
	*pdn = PRM_GET(alloc_pd_out, out, pd);
	return obj;
}

void kbt_mem_reg(struct mlx5be_ctx *ctx, size_t size, struct kbt_mem *mem)
{
	size_t alloc = (size + 4095) & ~(size_t)4095;

	mem->size = size;
	mem->addr = aligned_alloc(4096, alloc);
	ck_assert_ptr_nonnull(mem->addr);
	memset(mem->addr, 0, alloc);
	mem->umem = BE->umem_reg(ctx, mem->addr, size, IBV_ACCESS_LOCAL_WRITE,
				 UINT64_MAX & ~(uint64_t)4095, &mem->id);
	ck_assert_msg(mem->umem, "umem_reg: %s", strerror(errno));
}

void kbt_mem_dereg(struct kbt_mem *mem)
{
	if (mem->umem)
		ck_assert_int_eq(BE->umem_dereg(mem->umem), 0);
	mem->umem = NULL;
	kbt_mem_free(mem);
}

void kbt_mem_free(struct kbt_mem *mem)
{
	free(mem->addr);
	mem->addr = NULL;
}

void kbt_cq_in(const struct kbt_cq *cq, uint8_t *in, unsigned int log_size)
{
	void *cqc = PRM_ADDR_OF(create_cq_in, in, cq_context);

	memset(in, 0, PRM_ST_SZ_BYTES(create_cq_in));
	PRM_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	PRM_SET(cqc, cqc, log_cq_size, log_size);
	PRM_SET(cqc, cqc, uar_page, cq->uar_info.page_id);
	PRM_SET(cqc, cqc, c_eqn, cq->eqn);
	PRM_SET(cqc, cqc, dbr_umem_id, cq->dbr.id);
	PRM_SET64(cqc, cqc, dbr_addr, 0);
	PRM_SET(create_cq_in, in, cq_umem_id, cq->buf.id);
	PRM_SET64(create_cq_in, in, cq_umem_offset, 0);
	/* cq_umem_valid and dbr_umem_valid: 0, the kernel's job. */
}

void kbt_cq_create(struct mlx5be_ctx *ctx, struct kbt_cq *cq)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)];
	uint8_t out[PRM_ST_SZ_BYTES(create_cq_out)] = {};

	memset(cq, 0, sizeof(*cq));
	kbt_mem_reg(ctx, 64 << KBT_CQ_LOG_SIZE, &cq->buf);
	kbt_mem_reg(ctx, 8, &cq->dbr);
	cq->uar = BE->uar_alloc(ctx, MLX5DV_UAR_ALLOC_TYPE_NC, &cq->uar_info);
	ck_assert_msg(cq->uar, "uar_alloc: %s", strerror(errno));
	ck_assert_int_eq(BE->query_eqn(ctx, 0, &cq->eqn), 0);
	kbt_cq_in(cq, in, KBT_CQ_LOG_SIZE);
	cq->obj = BE->obj_create(ctx, in, sizeof(in), out, sizeof(out));
	ck_assert_msg(cq->obj, "CREATE_CQ: %s (status 0x%x syndrome 0x%x)",
		      strerror(errno), kern_mbox_status(out),
		      kern_mbox_syndrome(out));
	cq->cqn = PRM_GET(create_cq_out, out, cqn);
}

void kbt_cq_destroy(struct kbt_cq *cq)
{
	if (cq->obj)
		ck_assert_int_eq(BE->obj_destroy(cq->obj), 0);
	cq->obj = NULL;
	kbt_mem_dereg(&cq->buf);
	kbt_mem_dereg(&cq->dbr);
	if (cq->uar)
		BE->uar_free(cq->uar);
	cq->uar = NULL;
}

void kbt_query_cq_in(uint8_t *in, uint32_t cqn)
{
	memset(in, 0, PRM_ST_SZ_BYTES(query_cq_in));
	PRM_SET(query_cq_in, in, opcode, MLX5_CMD_OP_QUERY_CQ);
	PRM_SET(query_cq_in, in, cqn, cqn);
}

void kbt_mkey_in(uint8_t *in, uint32_t pdn, const struct kbt_mem *mem)
{
	void *mkc = PRM_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);

	memset(in, 0, PRM_ST_SZ_BYTES(create_mkey_in));
	PRM_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	PRM_SET(create_mkey_in, in, mkey_umem_id, mem->id);
	PRM_SET64(create_mkey_in, in, mkey_umem_offset, 0);
	PRM_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_MTT);
	PRM_SET(mkc, mkc, lr, 1);
	PRM_SET(mkc, mkc, lw, 1);
	PRM_SET(mkc, mkc, qpn, 0xffffff);
	PRM_SET(mkc, mkc, mkey_7_0, 0x5a);
	PRM_SET(mkc, mkc, pd, pdn);
	PRM_SET64(mkc, mkc, start_addr, (uintptr_t)mem->addr);
	PRM_SET64(mkc, mkc, len, mem->size);
	PRM_SET(mkc, mkc, translations_octword_size, (mem->size + 4095) / 4096 / 2);
	PRM_SET(mkc, mkc, log_page_size, 12);
	/* mkey_umem_valid: 0, the kernel sets it for a direct mkey. */
}

struct mlx5be_obj *kbt_mkey(struct mlx5be_ctx *ctx, uint32_t pdn,
			    const struct kbt_mem *mem, uint32_t *index)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_mkey_in)];
	uint8_t out[PRM_ST_SZ_BYTES(create_mkey_out)] = {};
	struct mlx5be_obj *obj;

	kbt_mkey_in(in, pdn, mem);
	obj = BE->obj_create(ctx, in, sizeof(in), out, sizeof(out));
	ck_assert_msg(obj, "CREATE_MKEY: %s (status 0x%x syndrome 0x%x)",
		      strerror(errno), kern_mbox_status(out),
		      kern_mbox_syndrome(out));
	*index = PRM_GET(create_mkey_out, out, mkey_index);
	return obj;
}

int main(void)
{
	SRunner *sr = srunner_create(kbt_cmd_suite());
	int failed;

	srunner_add_suite(sr, kbt_mem_suite());
	srunner_add_suite(sr, kbt_async_suite());
	srunner_add_suite(sr, kbt_ctx_suite());
	srunner_add_suite(sr, kbt_import_suite());
	srunner_add_suite(sr, kbt_fork_suite());
	srunner_add_suite(sr, kbt_destroy_suite());
	srunner_add_suite(sr, kbt_port_suite());
	srunner_add_suite(sr, kbt_events_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
