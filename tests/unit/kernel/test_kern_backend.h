/* SPDX-License-Identifier: MIT */
/*
 * Tests of the emulated kernel layer through the backend interface: the
 * ops table mlx5be_emu_ops, called as the provider calls it.  Firmware is
 * watched from the side (object counts, object owners, a hook that sees
 * every command reaching it), never driven around the kernel layer except
 * where a test shows what firmware itself would allow.
 */
#ifndef MLX5EMU_TESTS_UNIT_KERNEL_TEST_KERN_BACKEND_H
#define MLX5EMU_TESTS_UNIT_KERNEL_TEST_KERN_BACKEND_H

#include "emu/firmware/fw_objs.h"	/* first: liburcu, bp flavour */

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "emu/firmware/fw.h"
#include "emu/firmware/fw_syndrome.h"
#include "emu/kernel/kern.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "backend/backend.h"

#define BE (&mlx5be_emu_ops)

/* Suites, one per area (test_kern_backend_<area>.c). */
Suite *kbt_cmd_suite(void);
Suite *kbt_mem_suite(void);
Suite *kbt_async_suite(void);
Suite *kbt_ctx_suite(void);
Suite *kbt_import_suite(void);
Suite *kbt_fork_suite(void);
Suite *kbt_destroy_suite(void);
Suite *kbt_port_suite(void);
Suite *kbt_events_suite(void);

/* ---- contexts and the firmware behind them ---- */

/* Opens mlx5_0 through the ops; fails the test if it cannot. */
struct mlx5be_ctx *kbt_open(int *cmd_fd);
struct emu_fw *kbt_fw(const struct mlx5be_ctx *ctx);
uint16_t kbt_uid(const struct mlx5be_ctx *ctx);

/* Commands that reached firmware (a hook counts them), and the uid and
 * opcode of the last one. */
unsigned long kbt_fw_cmds(void);
uint16_t kbt_fw_last_uid(void);
uint16_t kbt_fw_last_opcode(void);
/* The opcode of the command @back commands before the last (0: the last). */
uint16_t kbt_fw_opcode(unsigned int back);
/* From now on firmware answers @opcode with the named syndrome (its status)
 * without running it; kbt_fw_fail(0, NULL) stops that. */
void kbt_fw_fail(uint16_t opcode, const char *syndrome_name);

/* Live firmware objects of every type. */
struct kbt_counts {
	unsigned int n[EMU_FW_OBJ_NTYPES];
};
void kbt_counts(struct emu_fw *fw, struct kbt_counts *c);
#define ck_counts_eq(a, b)						\
	do {								\
		for (int t_ = 0; t_ < EMU_FW_OBJ_NTYPES; t_++)		\
			ck_assert_msg((a)->n[t_] == (b)->n[t_],		\
				      "%s objects: %u, expected %u",	\
				      emu_fw_obj_type_name(t_),		\
				      (a)->n[t_], (b)->n[t_]);		\
	} while (0)
/* Whether firmware holds this object; its owner uid if so. */
bool kbt_fw_has(struct emu_fw *fw, enum emu_fw_obj_type type, uint32_t id,
		uint16_t *uid);

/* The outbox carries exactly the named table entry (fw_syndrome.h). */
#define ck_synd(out, NAME)						\
	do {								\
		const struct fw_syndrome *e_ = fw_syndrome_by_name(NAME); \
		ck_assert_msg(e_, "no syndrome named %s", NAME);	\
		ck_assert_msg(kern_mbox_status(out) == e_->status &&	\
			      kern_mbox_syndrome(out) == e_->value,	\
			      "expected %s (status 0x%x syndrome 0x%x), got " \
			      "status 0x%x syndrome 0x%x", NAME, e_->status, \
			      e_->value, kern_mbox_status(out),		\
			      kern_mbox_syndrome(out));			\
	} while (0)

/* An outbox the kernel layer must not touch when it refuses a call. */
#define KBT_POISON 0xa5
void kbt_poison(void *out, size_t len);
bool kbt_poisoned(const void *out, size_t len);

/* ---- objects, each created through the ops (fails the test if not) ---- */

/* A field of the current general capability page (QUERY_HCA_CAP). */
uint32_t kbt_cap_gen(struct mlx5be_ctx *ctx, size_t bit_off, size_t bits);
#define KBT_CAP(ctx, fld)						\
	kbt_cap_gen((ctx), PRM_BIT_OFF(cmd_hca_cap, fld),		\
		    PRM_BIT_SZ(cmd_hca_cap, fld))

struct mlx5be_obj *kbt_pd(struct mlx5be_ctx *ctx, uint32_t *pdn);

/* Page-aligned memory registered as a umem. */
struct kbt_mem {
	void *addr;
	size_t size;
	struct mlx5be_umem *umem;
	uint32_t id;
};
void kbt_mem_reg(struct mlx5be_ctx *ctx, size_t size, struct kbt_mem *mem);
void kbt_mem_dereg(struct kbt_mem *mem);	/* umem, then memory */
void kbt_mem_free(struct kbt_mem *mem);		/* memory only */

/* A CQ as a DEVX user builds one: umem buffer and doorbell, a UAR, the
 * EQ query_eqn(0) names.  The *_umem_valid bits are left 0 (the kernel
 * sets them). */
struct kbt_cq {
	struct kbt_mem buf, dbr;
	struct mlx5be_uar *uar;
	struct mlx5be_uar_info uar_info;
	uint32_t eqn, cqn;
	struct mlx5be_obj *obj;
};
#define KBT_CQ_LOG_SIZE 6
void kbt_cq_in(const struct kbt_cq *cq, uint8_t *in, unsigned int log_size);
void kbt_cq_create(struct mlx5be_ctx *ctx, struct kbt_cq *cq);
/* Destroys what kbt_cq_create made that is still there. */
void kbt_cq_destroy(struct kbt_cq *cq);
void kbt_query_cq_in(uint8_t *in, uint32_t cqn);

/* A direct MTT mkey over mem (umem_valid left 0 as well). */
void kbt_mkey_in(uint8_t *in, uint32_t pdn, const struct kbt_mem *mem);
struct mlx5be_obj *kbt_mkey(struct mlx5be_ctx *ctx, uint32_t pdn,
			    const struct kbt_mem *mem, uint32_t *index);

#endif /* MLX5EMU_TESTS_UNIT_KERNEL_TEST_KERN_BACKEND_H */
