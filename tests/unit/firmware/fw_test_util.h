/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the emu/firmware Check suites: a device, mailboxes
 * built with the PRM accessors, and one-call creators for the objects a
 * test needs on the way (each fails the test if the firmware refuses).
 */
#ifndef MLX5EMU_TESTS_UNIT_FIRMWARE_FW_TEST_UTIL_H
#define MLX5EMU_TESTS_UNIT_FIRMWARE_FW_TEST_UTIL_H

#include <check.h>
#include <stdint.h>
#include <string.h>

#include "emu/firmware/fw_objs.h"	/* first: liburcu, bp flavour */
#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "emu/firmware/fw.h"
#include "emu/firmware/fw_caps.h"
#include "emu/firmware/fw_syndrome.h"

/* Mailboxes big enough for any command here (dword aligned). */
#define FWT_MBOX_DW 1100
struct fwt_mbox {
	uint32_t in[FWT_MBOX_DW];
	uint32_t out[FWT_MBOX_DW];
	size_t inlen, outlen;
};

/* A device with the defaults; tweak (may be NULL) edits its caps first. */
struct emu_fw *fwt_create(void (*tweak)(struct emu_fw_caps *caps));

/* Clears a mailbox pair and sets opcode/op_mod/uid and the lengths. */
void fwt_mbox_init(struct fwt_mbox *m, uint16_t opcode, uint16_t op_mod,
		   uint16_t uid, size_t inlen, size_t outlen);
/* Runs it (the exec itself must succeed); returns the outbox status. */
uint8_t fwt_exec(struct emu_fw *fw, struct fwt_mbox *m);

/* The outbox carries exactly this table entry's status and syndrome. */
#define ck_fw_synd(m, ID)						\
	do {								\
		const struct fw_syndrome *e_ = fw_syndrome_get(FW_SYND_##ID); \
		ck_assert_msg(emu_fw_out_status((m)->out) == e_->status && \
			      emu_fw_out_syndrome((m)->out) == e_->value, \
			      "expected %s (status 0x%x syndrome 0x%x), got " \
			      "status 0x%x syndrome 0x%x", #ID, e_->status, \
			      e_->value, emu_fw_out_status((m)->out),	\
			      emu_fw_out_syndrome((m)->out));		\
	} while (0)
#define ck_fw_ok(m) ck_fw_synd(m, OK)

/*
 * A good mailbox changed by one statement: fill builds the good mailbox in
 * m_, var points at ctx (its context, from m_) for stmt to change; runs it
 * on fw and checks the syndrome.  For the suites' ck_<object>_synd(stmt, ID).
 */
#define ck_fw_variant(fw, fill, var, ctx, stmt, ID)			\
	do {								\
		struct fwt_mbox m_;					\
		void *var = (ctx);					\
		(void)var;						\
		fill;							\
		stmt;							\
		fwt_exec((fw), &m_);					\
		ck_fw_synd(&m_, ID);					\
	} while (0)

/*
 * An object whose create carries nothing but the inbox header (ALLOC_PD,
 * CREATE_UCTX, ...): OP, the inbox/outbox typ_in/typ_out and the outbox
 * field fld holding the id.  Creates it (or fails the test); the id.
 */
#define fwt_alloc(fw, uid, OP, typ, fld)				\
	fwt_alloc_((fw), (uid), MLX5_CMD_OP_##OP,			\
		   PRM_ST_SZ_BYTES(typ##_in), PRM_ST_SZ_BYTES(typ##_out), \
		   PRM_BIT_OFF(typ##_out, fld) +			\
		   (uint32_t)PRM_CHECK_32(typ##_out, fld),		\
		   PRM_BIT_SZ(typ##_out, fld))
uint32_t fwt_alloc_(struct emu_fw *fw, uint16_t uid, uint16_t opcode,
		    size_t inlen, size_t outlen, uint32_t id_off,
		    uint32_t id_bits);

/* Object creators: id or fail the test. */
uint16_t fwt_uctx(struct emu_fw *fw);
uint32_t fwt_pd(struct emu_fw *fw, uint16_t uid);
uint32_t fwt_uar(struct emu_fw *fw, uint16_t uid);

/* Page-aligned zeroed memory registered as a umem of uid. */
struct fwt_mem {
	void *addr;
	size_t size;
	uint32_t umem_id;
};
void fwt_mem_reg(struct emu_fw *fw, uint16_t uid, size_t size,
		 struct fwt_mem *mem);
void fwt_mem_free(struct fwt_mem *mem);	/* memory only */

/* An EQ of 2^log_size EQEs in mem (registered under mem's uid), given by
 * a page list.  Returns the eq_number. */
uint32_t fwt_eq(struct emu_fw *fw, uint16_t uid, uint32_t uar,
		unsigned int log_size, struct fwt_mem *mem);

/* CREATE_CQ mailbox as pyverbs builds it: umem buffer + umem dbr. */
void fwt_cq_mbox(struct fwt_mbox *m, uint16_t uid, uint32_t eqn,
		 uint32_t uar, unsigned int log_size, uint32_t buf_umem,
		 uint64_t buf_off, uint32_t dbr_umem, uint64_t dbr_off);
uint32_t fwt_cq(struct emu_fw *fw, uint16_t uid, uint32_t eqn, uint32_t uar,
		unsigned int log_size, uint32_t buf_umem, uint32_t dbr_umem);

/* CREATE_MKEY of a read/write MTT mkey over [off, off + len) of umem at
 * iova; returns its mkc. */
void *fwt_mkey_mbox(struct fwt_mbox *m, uint16_t uid, uint32_t pd,
		    uint32_t umem, uint64_t off, uint64_t len, uint64_t iova);

/* Destroy/dealloc by opcode; the outbox status (the _mbox form keeps the
 * outbox in m). */
uint8_t fwt_destroy_mbox(struct emu_fw *fw, struct fwt_mbox *m,
			 uint16_t opcode, uint16_t uid, uint32_t id);
uint8_t fwt_destroy(struct emu_fw *fw, uint16_t opcode, uint16_t uid,
		    uint32_t id);

#endif /* MLX5EMU_TESTS_UNIT_FIRMWARE_FW_TEST_UTIL_H */
