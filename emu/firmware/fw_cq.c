/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_cq.c -- CREATE_CQ / QUERY_CQ / MODIFY_CQ / DESTROY_CQ.
 *
 * A CQ is (1 << log_cq_size) CQEs of 64 or 128 bytes in a umem
 * (cq_umem_id + cq_umem_offset, page_offset in 1/64 pages) or in a page
 * list of registered memory; its doorbell record is 8 bytes at dbr_addr of
 * dbr_umem (or registered memory).  It reports to an EQ (c_eqn) of its own
 * uid or of the kernel, and rings through a UAR page (uar_page).  The EQ,
 * the UAR and both umems are in use while the CQ exists.
 *
 * MODIFY_CQ changes moderation (cq_period, cq_max_count, the period mode)
 * and overrun-ignore, each only when advertised; op_mod 1 resizes (when
 * cq_resize is advertised, as it is unless configured off), see
 * fw_cq_resize_apply.  A CQ used by a queue cannot be destroyed
 * (CQ_IN_USE, the status real firmware gives).
 */
#include <errno.h>
#include <string.h>

#include "emu/firmware/fw_int.h"
#include "emu/mem/mem.h"

#include <infiniband/mlx5dv.h>

/* The pointers stay: readers that found the CQ use them until they unlock. */
void fw_cq_release(struct emu_fw_obj *obj)
{
	struct emu_fw_cq *cq = emu_fw_to_cq(obj);
	struct emu_fw_eq *eq = atomic_load(&cq->eq);

	if (eq)
		fw_obj_unuse(&eq->obj);
	if (cq->uar)
		fw_obj_unuse(&cq->uar->obj);
	fw_buf_release(&cq->buf);
	fw_buf_release(&cq->dbr);
}

void fw_cq_fini(struct emu_fw_obj *obj)
{
	pthread_mutex_destroy(&emu_fw_to_cq(obj)->lock);
}

/* Context fields the device does not implement, or that are invalid. */
static enum fw_synd fw_cqc_check(struct fw_cmd *cmd, const void *cqc)
{
	const struct emu_fw *fw = cmd->fw;
	uint32_t st = PRM_GET(cqc, cqc, st);
	uint32_t mode = PRM_GET(cqc, cqc, cq_period_mode);
	uint32_t sz = PRM_GET(cqc, cqc, cqe_sz);

	if (PRM_GET(cqc, cqc, log_cq_size) > FW_CAP_GEN(fw, log_max_cq_sz))
		return FW_SYND_CQ_BAD_SIZE;
	if (sz > MLX5_CQC_CQE_SZ_128_PAD ||
	    (sz == MLX5_CQC_CQE_SZ_128_PAD && !FW_CAP_GEN(fw, cqe_128_always)))
		return FW_SYND_CQ_BAD_CQE_SIZE;
	if (PRM_GET(cqc, cqc, cqe_comp_en) ||
	    PRM_GET(cqc, cqc, mini_cqe_res_format) ||
	    PRM_GET(cqc, cqc, cqe_compression_layout) ||
	    PRM_GET(cqc, cqc, as_notify) ||
	    PRM_GET(cqc, cqc, initiator_src_dct) ||
	    PRM_GET(cqc, cqc, apu_cq) ||
	    (PRM_GET(cqc, cqc, scqe_break_moderation_en) &&
	     !FW_CAP_GEN(fw, scqe_break_moderation)) ||
	    (PRM_GET(cqc, cqc, oi) && !FW_CAP_GEN(fw, cq_oi)) ||
	    ((PRM_GET(cqc, cqc, cq_period) ||
	      PRM_GET(cqc, cqc, cq_max_count)) &&
	     !FW_CAP_GEN(fw, cq_moderation)))
		return FW_SYND_CQ_FEATURE_NOT_SUPPORTED;
	if (mode > 1 || (mode == 1 && !FW_CAP_GEN(fw, cq_period_start_from_cqe)))
		return FW_SYND_CQ_BAD_PERIOD_MODE;
	if (st != 0 && st != MLX5_CQC_ST_SOLICITED_NOTIFICATION_REQUEST_ARMED &&
	    st != MLX5_CQC_ST_NOTIFICATION_REQUEST_ARMED &&
	    st != MLX5_CQC_ST_FIRED)
		return FW_SYND_CQ_BAD_ST;
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_create_cq(struct fw_cmd *cmd)
{
	const void *cqc = PRM_ADDR_OF(create_cq_in, cmd->in, cq_context);
	struct emu_fw_obj *obj, *eq, *uar;
	struct fw_buf_desc d = { 0 };
	struct emu_fw_cq *cq;
	enum fw_synd s;

	s = fw_cqc_check(cmd, cqc);
	if (s)
		return s;
	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_CQ, &obj);
	if (s)
		return s;
	cq = emu_fw_to_cq(obj);
	pthread_mutex_init(&cq->lock, NULL);
	atomic_init(&cq->eq, NULL);
	atomic_init(&cq->hw.pi, 0);
	atomic_init(&cq->hw.error, false);
	atomic_init(&cq->hw.arm_cmd, 0);
	atomic_init(&cq->hw.armed, false);
	atomic_init(&cq->hw.fired, false);

	s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_EQ, PRM_GET(cqc, cqc, c_eqn),
			   FW_SYND_CQ_BAD_EQN, &eq);
	if (s)
		goto err;
	atomic_store(&cq->eq, emu_fw_to_eq(eq));
	s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_UAR, PRM_GET(cqc, cqc, uar_page),
			   FW_SYND_BAD_UAR, &uar);
	if (s)
		goto err;
	cq->uar = emu_fw_to_uar(uar);

	cq->log_size = (uint8_t)PRM_GET(cqc, cqc, log_cq_size);
	cq->cqe_size = PRM_GET(cqc, cqc, cqe_sz) ? 128 : 64;
	d.umem_valid = PRM_GET(create_cq_in, cmd->in, cq_umem_valid);
	d.umem_id = PRM_GET(create_cq_in, cmd->in, cq_umem_id);
	d.umem_offset = PRM_GET64(create_cq_in, cmd->in, cq_umem_offset);
	d.page_offset = PRM_GET(cqc, cqc, page_offset);
	d.log_page_size = PRM_GET(cqc, cqc, log_page_size);
	d.len = (size_t)cq->cqe_size << cq->log_size;
	d.device_writes = true;	/* CQEs */
	d.pas = PRM_ARRAY_ADDR(create_cq_in, cmd->in, pas, 0);
	d.npas = (cmd->inlen - PRM_BYTE_OFF(create_cq_in, pas)) / 8;
	s = fw_buf_resolve(cmd, &d, &cq->buf);
	if (s)
		goto err;
	s = fw_dbr_resolve(cmd, PRM_GET(cqc, cqc, dbr_umem_valid),
			   PRM_GET(cqc, cqc, dbr_umem_id),
			   PRM_GET64(cqc, cqc, dbr_addr), &cq->dbr);
	if (s)
		goto err;

	/* What the arm word holds now is no arm request: one is a write. */
	if (emu_mem_load32((uint8_t *)cq->dbr.addr + 4, &cq->hw.arm_seen))
		cq->hw.arm_seen = 0;
	cq->hw.arm_seen = be32toh(cq->hw.arm_seen);
	atomic_init(&cq->cq_period, PRM_GET(cqc, cqc, cq_period));
	atomic_init(&cq->cq_max_count, PRM_GET(cqc, cqc, cq_max_count));
	atomic_init(&cq->cq_period_mode, PRM_GET(cqc, cqc, cq_period_mode));
	atomic_init(&cq->oi, PRM_GET(cqc, cqc, oi));
	cq->cc = PRM_GET(cqc, cqc, cc);
	_Static_assert(sizeof(cq->cqc) == PRM_ST_SZ_BYTES(cqc), "cqc size");
	memcpy(cq->cqc, cqc, sizeof(cq->cqc));

	s = fw_cmd_obj_publish(obj, FW_SYND_CQ_LIMIT);
	if (s)
		return s;
	PRM_SET(create_cq_out, cmd->out, cqn, obj->id);
	fw_engine_cq_created(cq);
	return FW_SYND_OK;

err:
	fw_cq_release(obj);
	fw_cmd_obj_abort(obj);
	return s;
}

/* The engine-owned fields: producer counter (24 bits), the state
 * (armed, fired since the last arm, or the error an overrun left), the
 * consumer counter as the doorbell record last said. */
static void fw_cq_query_hw(struct emu_fw_cq *cq, void *cqc)
{
	uint32_t st = 0;

	PRM_SET(cqc, cqc, producer_counter, atomic_load(&cq->hw.pi) & 0xffffff);
	if (cq->dbr.addr) {
		uint32_t ci;

		if (!emu_mem_load32(cq->dbr.addr, &ci))
			PRM_SET(cqc, cqc, consumer_counter, be32toh(ci) & 0xffffff);
	}
	if (atomic_load(&cq->hw.error))
		PRM_SET(cqc, cqc, status, MLX5_CQC_STATUS_CQ_OVERFLOW);
	if (atomic_load(&cq->hw.armed))
		st = (atomic_load(&cq->hw.arm_cmd) & MLX5_CQ_DB_REQ_NOT_SOL) ?
		     MLX5_CQC_ST_SOLICITED_NOTIFICATION_REQUEST_ARMED :
		     MLX5_CQC_ST_NOTIFICATION_REQUEST_ARMED;
	else if (atomic_load(&cq->hw.fired))
		st = MLX5_CQC_ST_FIRED;
	if (st)
		PRM_SET(cqc, cqc, st, st);
}

enum fw_synd fw_cmd_query_cq(struct fw_cmd *cmd)
{
	struct emu_fw_obj *obj;
	struct emu_fw_cq *cq;
	enum fw_synd s;

	s = fw_cmd_obj_own(cmd, EMU_FW_OBJ_CQ,
			   PRM_GET(query_cq_in, cmd->in, cqn),
			   FW_SYND_CQ_INVALID, &obj);
	if (s)
		return s;
	cq = emu_fw_to_cq(obj);
	pthread_mutex_lock(&cq->lock);
	memcpy(PRM_ADDR_OF(query_cq_out, cmd->out, cq_context), cq->cqc,
	       sizeof(cq->cqc));
	pthread_mutex_unlock(&cq->lock);
	fw_cq_query_hw(cq, PRM_ADDR_OF(query_cq_out, cmd->out, cq_context));
	emu_fw_obj_put(obj);
	return FW_SYND_OK;
}

/* The swap a resize makes, with no engine pass running. */
struct fw_cq_resize_job {
	struct emu_fw_cq *cq;
	struct emu_fw_buf buf;	/* new ring in; the old one out */
	uint8_t log_size;
	int ret;
};

/*
 * What a ConnectX does on a resize, as libmlx5's mlx5_cq_resize_copy_cqes
 * expects when the command returns: a RESIZE_CQ CQE in the old ring at the
 * producer index p (owner bit of the old size); production goes on at p + 1
 * in the new ring (libmlx5 copies the CQEs not consumed, [ci, p), to
 * [ci + 1, p] of the new ring).  They must fit: p - ci < the new size.
 */
static void fw_cq_resize_apply(void *arg)
{
	struct fw_cq_resize_job *j = arg;
	struct emu_fw_cq *cq = j->cq;
	uint32_t pi = atomic_load(&cq->hw.pi), ci, size = 1u << cq->log_size;
	uint8_t cqe[64] = { 0 };
	struct emu_fw_buf old;

	if (emu_mem_load32(cq->dbr.addr, &ci)) {
		j->ret = -EFAULT;
		return;
	}
	ci = be32toh(ci) & 0xffffff;
	if (((pi - ci) & 0xffffff) >= (1u << j->log_size) ||
	    ((pi - ci) & 0xffffff) >= size) {
		j->ret = -ENOSPC;
		return;
	}
	cqe[63] = (uint8_t)(MLX5_CQE_RESIZE_CQ << 4 | ((pi >> cq->log_size) & 1));
	if (emu_mem_publish(cq->buf.addr + (size_t)(pi & (size - 1)) *
			    cq->cqe_size + (cq->cqe_size - 64u), cqe, 64)) {
		j->ret = -EFAULT;
		return;
	}
	atomic_store(&cq->hw.pi, pi + 1);
	old = cq->buf;
	cq->buf = j->buf;
	cq->log_size = j->log_size;
	j->buf = old;
	j->ret = 0;
}

/* MODIFY_CQ op_mod 1: a new ring (umem or page list) and size. */
static enum fw_synd fw_cq_resize(struct fw_cmd *cmd, struct emu_fw_cq *cq)
{
	const void *cqc = PRM_ADDR_OF(modify_cq_in, cmd->in, cq_context);
	uint32_t sel = PRM_GET(modify_cq_in, cmd->in,
			       modify_field_select_resize_field_select.resize_field_select.resize_field_select);
	struct fw_cq_resize_job j = { .cq = cq };
	struct fw_buf_desc d = { 0 };
	enum fw_synd s;

	if (!(sel & MLX5_MODIFY_CQ_MASK_LOG_SIZE) ||
	    (sel & ~(MLX5_MODIFY_CQ_MASK_LOG_SIZE | MLX5_MODIFY_CQ_MASK_PG_OFFSET |
		     MLX5_MODIFY_CQ_MASK_PG_SIZE)))
		return FW_SYND_CQ_BAD_FIELD_SELECT;
	j.log_size = (uint8_t)PRM_GET(cqc, cqc, log_cq_size);
	if (j.log_size > FW_CAP_GEN(cmd->fw, log_max_cq_sz))
		return FW_SYND_CQ_BAD_SIZE;
	d.umem_valid = PRM_GET(modify_cq_in, cmd->in, cq_umem_valid);
	d.umem_id = PRM_GET(modify_cq_in, cmd->in, cq_umem_id);
	d.umem_offset = PRM_GET64(modify_cq_in, cmd->in, cq_umem_offset);
	if (sel & MLX5_MODIFY_CQ_MASK_PG_OFFSET)
		d.page_offset = PRM_GET(cqc, cqc, page_offset);
	if (sel & MLX5_MODIFY_CQ_MASK_PG_SIZE)
		d.log_page_size = PRM_GET(cqc, cqc, log_page_size);
	d.len = (size_t)cq->cqe_size << j.log_size;
	d.pas = PRM_ARRAY_ADDR(modify_cq_in, cmd->in, pas, 0);
	d.npas = cmd->inlen > PRM_BYTE_OFF(modify_cq_in, pas) ?
		 (cmd->inlen - PRM_BYTE_OFF(modify_cq_in, pas)) / 8 : 0;
	s = fw_buf_resolve(cmd, &d, &j.buf);
	if (s)
		return s;
	pthread_mutex_lock(&cq->lock);
	fw_engine_run_locked(cmd->fw, fw_cq_resize_apply, &j);
	if (!j.ret) {
		PRM_SET(cqc, cq->cqc, log_cq_size, j.log_size);
		PRM_SET(cqc, cq->cqc, page_offset, d.page_offset);
		PRM_SET(cqc, cq->cqc, log_page_size, d.log_page_size);
	}
	pthread_mutex_unlock(&cq->lock);
	/* The ring no longer used (the old one, or the new one refused). */
	fw_buf_release(&j.buf);
	return j.ret == -ENOSPC ? FW_SYND_CQ_RESIZE_OUTSTANDING :
	       j.ret ? FW_SYND_CQ_BAD_SIZE : FW_SYND_OK;
}

enum fw_synd fw_cmd_modify_cq(struct fw_cmd *cmd)
{
	const void *cqc = PRM_ADDR_OF(modify_cq_in, cmd->in, cq_context);
	const struct emu_fw *fw = cmd->fw;
	uint32_t sel, allowed = 0, mode;
	struct emu_fw_obj *obj;
	struct emu_fw_cq *cq;
	enum fw_synd s;

	if (cmd->op_mod == MLX5_CQ_OPMOD_RESIZE && !FW_CAP_GEN(fw, cq_resize))
		return FW_SYND_CQ_RESIZE_NOT_SUPPORTED;
	s = fw_cmd_obj_own(cmd, EMU_FW_OBJ_CQ,
			   PRM_GET(modify_cq_in, cmd->in, cqn),
			   FW_SYND_CQ_INVALID, &obj);
	if (s)
		return s;
	cq = emu_fw_to_cq(obj);
	if (cmd->op_mod == MLX5_CQ_OPMOD_RESIZE) {
		s = fw_cq_resize(cmd, cq);
		goto out;
	}

	sel = PRM_GET(modify_cq_in, cmd->in,
		      modify_field_select_resize_field_select.modify_field_select.modify_field_select);
	if (FW_CAP_GEN(fw, cq_moderation))
		allowed |= MLX5_CQ_MODIFY_PERIOD | MLX5_CQ_MODIFY_COUNT;
	if (FW_CAP_GEN(fw, cq_oi))
		allowed |= MLX5_CQ_MODIFY_OVERRUN;
	if (FW_CAP_GEN(fw, cq_period_mode_modify))
		allowed |= MLX5_CQ_MODIFY_PERIOD_MODE;
	mode = PRM_GET(cqc, cqc, cq_period_mode);
	if (sel & ~allowed) {
		s = FW_SYND_CQ_BAD_FIELD_SELECT;
		goto out;
	}
	if ((sel & MLX5_CQ_MODIFY_PERIOD_MODE) &&
	    (mode > 1 ||
	     (mode == 1 && !FW_CAP_GEN(fw, cq_period_start_from_cqe)))) {
		s = FW_SYND_CQ_BAD_PERIOD_MODE;
		goto out;
	}

	pthread_mutex_lock(&cq->lock);
	if (sel & MLX5_CQ_MODIFY_PERIOD) {
		PRM_SET(cqc, cq->cqc, cq_period, PRM_GET(cqc, cqc, cq_period));
		atomic_store(&cq->cq_period, PRM_GET(cqc, cqc, cq_period));
	}
	if (sel & MLX5_CQ_MODIFY_COUNT) {
		PRM_SET(cqc, cq->cqc, cq_max_count,
			PRM_GET(cqc, cqc, cq_max_count));
		atomic_store(&cq->cq_max_count,
			     PRM_GET(cqc, cqc, cq_max_count));
	}
	if (sel & MLX5_CQ_MODIFY_OVERRUN) {
		PRM_SET(cqc, cq->cqc, oi, PRM_GET(cqc, cqc, oi));
		atomic_store(&cq->oi, PRM_GET(cqc, cqc, oi));
	}
	if (sel & MLX5_CQ_MODIFY_PERIOD_MODE) {
		PRM_SET(cqc, cq->cqc, cq_period_mode, mode);
		atomic_store(&cq->cq_period_mode, mode);
	}
	pthread_mutex_unlock(&cq->lock);
out:
	emu_fw_obj_put(obj);
	return s;
}

enum fw_synd fw_cmd_destroy_cq(struct fw_cmd *cmd)
{
	return fw_cmd_obj_destroy(cmd, EMU_FW_OBJ_CQ,
				  PRM_GET(destroy_cq_in, cmd->in, cqn),
				  FW_SYND_CQ_INVALID, FW_SYND_CQ_IN_USE);
}
