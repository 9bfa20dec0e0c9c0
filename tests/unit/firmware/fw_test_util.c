/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "fw_test_util.h"

struct emu_fw *fwt_create(void (*tweak)(struct emu_fw_caps *caps))
{
	struct emu_fw_config cfg;
	struct emu_fw_caps *caps = emu_fw_caps_new();
	struct emu_fw *fw;

	ck_assert_ptr_nonnull(caps);
	if (tweak)
		tweak(caps);
	emu_fw_config_default(&cfg);
	cfg.caps = caps;
	fw = emu_fw_create(&cfg);
	ck_assert_msg(fw != NULL, "emu_fw_create: %s", strerror(errno));
	emu_fw_caps_free(caps);
	return fw;
}

void fwt_mbox_init(struct fwt_mbox *m, uint16_t opcode, uint16_t op_mod,
		   uint16_t uid, size_t inlen, size_t outlen)
{
	memset(m, 0, sizeof(*m));
	ck_assert_uint_le(inlen, sizeof(m->in));
	ck_assert_uint_le(outlen, sizeof(m->out));
	PRM_SET(mbox_in, m->in, opcode, opcode);
	PRM_SET(mbox_in, m->in, op_mod, op_mod);
	PRM_SET(mbox_in, m->in, uid, uid);
	m->inlen = inlen;
	m->outlen = outlen;
}

uint8_t fwt_exec(struct emu_fw *fw, struct fwt_mbox *m)
{
	ck_assert_int_eq(emu_fw_cmd_exec(fw, m->in, m->inlen, m->out,
					 m->outlen), 0);
	return emu_fw_out_status(m->out);
}

uint32_t fwt_alloc_(struct emu_fw *fw, uint16_t uid, uint16_t opcode,
		    size_t inlen, size_t outlen, uint32_t id_off,
		    uint32_t id_bits)
{
	struct fwt_mbox m;

	fwt_mbox_init(&m, opcode, 0, uid, inlen, outlen);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	return prm_get32_(m.out, id_off, id_bits);
}

uint16_t fwt_uctx(struct emu_fw *fw)
{
	return (uint16_t)fwt_alloc(fw, 0, CREATE_UCTX, create_uctx, uid);
}

uint32_t fwt_pd(struct emu_fw *fw, uint16_t uid)
{
	return fwt_alloc(fw, uid, ALLOC_PD, alloc_pd, pd);
}

uint32_t fwt_uar(struct emu_fw *fw, uint16_t uid)
{
	return fwt_alloc(fw, uid, ALLOC_UAR, alloc_uar, uar);
}

void fwt_mem_reg(struct emu_fw *fw, uint16_t uid, size_t size,
		 struct fwt_mem *mem)
{
	int id;

	mem->size = size;
	mem->addr = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
	ck_assert_ptr_nonnull(mem->addr);
	memset(mem->addr, 0, size);
	id = emu_fw_umem_register(fw, uid, mem->addr, size, 12, 1);
	ck_assert_int_gt(id, 0);
	mem->umem_id = (uint32_t)id;
}

void fwt_mem_free(struct fwt_mem *mem)
{
	free(mem->addr);
	mem->addr = NULL;
}

uint32_t fwt_eq(struct emu_fw *fw, uint16_t uid, uint32_t uar,
		unsigned int log_size, struct fwt_mem *mem)
{
	struct fwt_mbox m;
	size_t len = (size_t)64 << log_size;
	size_t npages = (len + 4095) / 4096;
	void *eqc;

	ck_assert_uint_ge(mem->size, len);
	fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_EQ, 0, uid,
		      PRM_ST_SZ_BYTES(create_eq_in) + npages * 8,
		      PRM_ST_SZ_BYTES(create_eq_out));
	eqc = PRM_ADDR_OF(create_eq_in, m.in, eq_context_entry);
	PRM_SET(eqc, eqc, log_eq_size, log_size);
	PRM_SET(eqc, eqc, uar_page, uar);
	for (size_t i = 0; i < npages; i++) {
		uint64_t pa = htobe64((uint64_t)(uintptr_t)mem->addr + i * 4096);

		memcpy(PRM_ARRAY_ADDR(create_eq_in, m.in, pas, i), &pa, 8);
	}
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	return PRM_GET(create_eq_out, m.out, eq_number);
}

void fwt_cq_mbox(struct fwt_mbox *m, uint16_t uid, uint32_t eqn,
		 uint32_t uar, unsigned int log_size, uint32_t buf_umem,
		 uint64_t buf_off, uint32_t dbr_umem, uint64_t dbr_off)
{
	void *cqc;

	fwt_mbox_init(m, MLX5_CMD_OP_CREATE_CQ, 0, uid,
		      PRM_ST_SZ_BYTES(create_cq_in),
		      PRM_ST_SZ_BYTES(create_cq_out));
	cqc = PRM_ADDR_OF(create_cq_in, m->in, cq_context);
	PRM_SET(cqc, cqc, dbr_umem_valid, 1);
	PRM_SET(cqc, cqc, dbr_umem_id, dbr_umem);
	PRM_SET64(cqc, cqc, dbr_addr, dbr_off);
	PRM_SET(cqc, cqc, log_cq_size, log_size);
	PRM_SET(cqc, cqc, uar_page, uar);
	PRM_SET(cqc, cqc, c_eqn, eqn);
	PRM_SET(create_cq_in, m->in, cq_umem_id, buf_umem);
	PRM_SET64(create_cq_in, m->in, cq_umem_offset, buf_off);
	PRM_SET(create_cq_in, m->in, cq_umem_valid, 1);
}

uint32_t fwt_cq(struct emu_fw *fw, uint16_t uid, uint32_t eqn, uint32_t uar,
		unsigned int log_size, uint32_t buf_umem, uint32_t dbr_umem)
{
	struct fwt_mbox m;

	fwt_cq_mbox(&m, uid, eqn, uar, log_size, buf_umem, 0, dbr_umem, 0);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	return PRM_GET(create_cq_out, m.out, cqn);
}

uint8_t fwt_destroy_mbox(struct emu_fw *fw, struct fwt_mbox *m,
			 uint16_t opcode, uint16_t uid, uint32_t id)
{
	/* Destroy inboxes are 16 bytes with the id at 0x48 (24 bits: pd,
	 * uar, transport_domain, cqn, mkey_index), 0x58 (8: eq_number,
	 * counter_set_id), 0x40 (32: flow_counter_id) or 0x50 (16: uid). */
	fwt_mbox_init(m, opcode, 0, uid, 16, 16);
	switch (opcode) {
	case MLX5_CMD_OP_DESTROY_EQ:
		PRM_SET(destroy_eq_in, m->in, eq_number, id);
		break;
	case MLX5_CMD_OP_DEALLOC_Q_COUNTER:
		PRM_SET(dealloc_q_counter_in, m->in, counter_set_id, id);
		break;
	case MLX5_CMD_OP_DEALLOC_FLOW_COUNTER:
		PRM_SET(dealloc_flow_counter_in, m->in, flow_counter_id, id);
		break;
	case MLX5_CMD_OP_DESTROY_UCTX:
		PRM_SET(destroy_uctx_in, m->in, uid, id);
		break;
	default:
		PRM_SET(destroy_cq_in, m->in, cqn, id);
		break;
	}
	return fwt_exec(fw, m);
}

uint8_t fwt_destroy(struct emu_fw *fw, uint16_t opcode, uint16_t uid,
		    uint32_t id)
{
	struct fwt_mbox m;

	return fwt_destroy_mbox(fw, &m, opcode, uid, id);
}

void *fwt_mkey_mbox(struct fwt_mbox *m, uint16_t uid, uint32_t pd,
		    uint32_t umem, uint64_t off, uint64_t len, uint64_t iova)
{
	void *mkc;

	fwt_mbox_init(m, MLX5_CMD_OP_CREATE_MKEY, 0, uid,
		      PRM_ST_SZ_BYTES(create_mkey_in),
		      PRM_ST_SZ_BYTES(create_mkey_out));
	mkc = PRM_ADDR_OF(create_mkey_in, m->in, memory_key_mkey_entry);
	PRM_SET(create_mkey_in, m->in, mkey_umem_valid, 1);
	PRM_SET(create_mkey_in, m->in, mkey_umem_id, umem);
	PRM_SET64(create_mkey_in, m->in, mkey_umem_offset, off);
	PRM_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_MTT);
	PRM_SET(mkc, mkc, lr, 1);
	PRM_SET(mkc, mkc, lw, 1);
	PRM_SET(mkc, mkc, rr, 1);
	PRM_SET(mkc, mkc, rw, 1);
	PRM_SET(mkc, mkc, qpn, 0xffffff);
	PRM_SET(mkc, mkc, mkey_7_0, 0x5a);
	PRM_SET(mkc, mkc, pd, pd);
	PRM_SET64(mkc, mkc, start_addr, iova);
	PRM_SET64(mkc, mkc, len, len);
	PRM_SET(mkc, mkc, translations_octword_size, (len + 4095) / 4096 / 2);
	PRM_SET(mkc, mkc, log_page_size, 12);
	return mkc;
}
