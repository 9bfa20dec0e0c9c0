/* SPDX-License-Identifier: MIT */
/*
 * emu/kernel/kern_devx_rules_int.h -- inside the kernel DEVX rules only:
 * mailbox fields as (bit offset, width), and the per-opcode tables
 * (kern_devx_class.c) that classification, object ids, spans and the
 * destroy derivation all read.
 */
#ifndef MLX5EMU_EMU_KERNEL_KERN_DEVX_RULES_INT_H
#define MLX5EMU_EMU_KERNEL_KERN_DEVX_RULES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/kernel/kern_devx_rules.h"
#include "prm/prm.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The command header every inbox starts with. */
#define CMD_HDR_BYTES ((size_t)PRM_ST_SZ_BYTES(mbox_in))

/* A field: absolute bit offset from the start of the mailbox, width. */
struct kfld {
	uint16_t off;
	uint8_t bits;
};

#define F(typ, fld) { .off = PRM_BIT_OFF(typ, fld), .bits = PRM_BIT_SZ(typ, fld) }
/* A field prm/ has no layout for; every use cites mlx5_ifc.h. */
#define FX(off_, bits_) { .off = (off_), .bits = (bits_) }
#define BYTES(typ) ((uint8_t)PRM_ST_SZ_BYTES(typ))

static inline uint32_t kfld_get(const void *p, struct kfld f)
{
	return prm_get32_(p, f.off, f.bits);
}

static inline void kfld_set(void *p, struct kfld f, uint32_t v)
{
	prm_set32_(p, f.off, f.bits, v);
}

/* End of the field, in bytes from the start of the mailbox. */
static inline size_t kfld_end(struct kfld f)
{
	return ((size_t)f.off + f.bits + 7) / 8;
}

/*
 * End of the 32-bit words holding the field: what kfld_get/kfld_set read
 * and write (the PRM accessors work on whole big-endian dwords), so the
 * bytes a buffer must have for them.
 */
static inline size_t kfld_word_end(struct kfld f)
{
	return ((size_t)f.off + f.bits + 31) / 32 * 4;
}

/* Mailbox conditions devx.c puts on a command's class. */
enum kcond {
	KC_NONE,
	KC_OPMOD0,	/* set_fte_in.op_mod == 0 */
	KC_OPMOD1,	/* set_fte_in.op_mod == 1 */
	KC_NUM_PSV1,	/* create_psv_in.num_psv == 1 */
};

/* Whether c holds for inbox in; how far into the inbox c reads. */
bool kern_kcond_holds(enum kcond c, const void *in);
size_t kern_kcond_in_end(enum kcond c);

/* A field copied from the create inbox into the destroy inbox. */
struct kcopy {
	struct kfld src;
	struct kfld dst;
};

/*
 * One creatable object (devx_is_obj_create_cmd, devx_get_created_obj_id,
 * devx_obj_build_destroy_cmd).  The destroy inbox gets opcode, the create's
 * uid, the id at destroy_id and the copies; its length is destroy_inlen
 * (MLX5_ST_SZ_BYTES(general_obj_in_cmd_hdr) unless devx.c says otherwise).
 */
struct kcreate {
	uint16_t op;
	uint16_t destroy_op;
	bool devx;		/* accepted by devx_is_obj_create_cmd */
	enum kcond cond;
	bool id_in_inbox;	/* the id is read from the create inbox */
	bool general_obj;	/* obj_type folded into the encoded opcode */
	struct kfld id;
	struct kfld destroy_id;
	uint8_t destroy_inlen;
	struct kcopy copy[4];	/* .dst.bits == 0 ends the list */
};

/*
 * One modify or query command (devx_is_obj_modify_cmd /
 * devx_is_obj_query_cmd) and where devx_get_obj_id finds its target:
 * the id field and the creating opcode it is encoded with.
 */
struct ktarget {
	uint16_t op;
	enum kern_cmd_class cls;	/* KERN_CMD_MODIFY or KERN_CMD_QUERY */
	enum kcond cond;
	bool general_obj;	/* obj_type folded into the encoded opcode */
	uint16_t create_op;
	struct kfld id;
};

/* The row of a create opcode, of its destroy opcode, of a modify or
 * query opcode; NULL when there is none. */
const struct kcreate *kern_kcreate_find(uint16_t op);
const struct kcreate *kern_kcreate_find_destroy(uint16_t destroy_op);
const struct ktarget *kern_ktarget_find(uint16_t op);

#endif /* MLX5EMU_EMU_KERNEL_KERN_DEVX_RULES_INT_H */
