/* SPDX-License-Identifier: MIT */
/*
 * DEVX commands and objects, with the checks the kernel applies before a
 * mailbox reaches firmware (drivers/infiniband/hw/mlx5/devx.c): the opcode
 * must belong to the method's class, a modify/query must target the
 * handle's own object, vhca_tunnel_id must be 0; the context's uid is
 * stamped over the caller's; the *_umem_valid bits are set by the kernel;
 * the destroy command is built from the create.  A firmware error on
 * create/modify/query/general is -EREMOTEIO with the outbox copied back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/kernel/kern.h"
#include "emu/kernel/kern_devx_rules.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

/*
 * A private, zero-padded copy of the caller's mailbox, checked in the
 * kernel's order (lengths, vhca_tunnel_id, uid, method class) and stamped
 * with the context's uid.  The copy is made first and covers every word
 * the rules read or write (kern_devx_in_span), so no rule touches a byte
 * outside it, however short the caller's inbox is; the checks read the
 * copy, where bytes past inlen are zero.
 */
static void *kern_cmd_prepare(struct kern_uctx *uctx, const void *in,
			      size_t inlen, size_t outlen,
			      enum kern_devx_method method, int *err)
{
	size_t span;
	uint16_t uid;
	void *buf;

	/* The length rule comes first; nothing of the inbox is read before. */
	if (inlen < KERN_DEVX_CMD_IN_MIN || inlen > KERN_DEVX_ATTR_LEN_MAX) {
		*err = -EINVAL;
		return NULL;
	}
	span = kern_devx_in_span(kern_mbox_opcode(in));
	buf = calloc(1, inlen > span ? inlen : span);
	if (!buf) {
		*err = -ENOMEM;
		return NULL;
	}
	memcpy(buf, in, inlen);
	*err = kern_devx_check(method, buf, inlen, outlen, uctx->uid, 0, false,
			       &uid);
	if (!*err && method == KERN_DEVX_OBJ_CREATE)
		*err = kern_devx_prepare_create(buf, inlen, uid);
	else if (!*err)
		kern_mbox_set_uid(buf, uid);
	if (*err) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Runs a prepared command; -EREMOTEIO when firmware says no. */
static int kern_cmd_run(struct kern_uctx *uctx, const void *in, size_t inlen,
			void *out, size_t outlen)
{
	int ret = kern_fw_exec(uctx->kdev, in, inlen, out, outlen);

	if (ret)
		return ret;
	return kern_mbox_status(out) ? -EREMOTEIO : 0;
}

int kern_general_cmd(struct mlx5be_ctx *ctx, const void *in, size_t inlen,
		     void *out, size_t outlen)
{
	int ret;
	void *buf;

	if (kern_uctx_lost(ctx->uctx))
		return -EIO;
	buf = kern_cmd_prepare(ctx->uctx, in, inlen, outlen, KERN_DEVX_GENERAL,
			       &ret);
	if (!buf)
		return ret;
	ret = kern_cmd_run(ctx->uctx, buf, inlen, out, outlen);
	free(buf);
	return ret;
}

struct mlx5be_obj *kern_obj_create(struct mlx5be_ctx *ctx, const void *in,
				   size_t inlen, void *out, size_t outlen)
{
	struct kern_uctx *uctx = ctx->uctx;
	struct mlx5be_obj *obj = NULL;
	size_t kout_len;
	void *buf, *kout = NULL;
	int ret = -EIO;

	if (kern_uctx_lost(uctx))
		goto err;
	buf = kern_cmd_prepare(uctx, in, inlen, outlen, KERN_DEVX_OBJ_CREATE, &ret);
	if (!buf)
		goto err;
	/* The kernel's own outbox (uverbs copies out_len of it back): the
	 * created id is read from it, which must hold that field whatever
	 * out_len the caller gave. */
	kout_len = kern_devx_out_span(kern_mbox_opcode(buf));
	if (kout_len < outlen)
		kout_len = outlen;
	kout = calloc(1, kout_len);
	obj = calloc(1, sizeof(*obj));
	if (!kout || !obj) {
		ret = -ENOMEM;
		goto err_obj;
	}
	obj->uctx = uctx;
	CDS_INIT_LIST_HEAD(&obj->subs);
	obj->bulk = kern_devx_flow_counter_bulk(buf);
	/* mlx5_create_cq looks the completion EQ up before firmware does. */
	if (kern_mbox_opcode(buf) == MLX5_CMD_OP_CREATE_CQ &&
	    !kern_devx_cq_is_apu(buf, false) &&
	    !kern_dev_is_comp_eq(uctx->kdev, kern_devx_cq_eqn(buf))) {
		ret = -ENOENT;
		goto err_obj;
	}
	pthread_mutex_lock(&uctx->lock);
	ret = kern_cmd_run(uctx, buf, inlen, kout, outlen);
	if (!ret || ret == -EREMOTEIO)
		memcpy(out, kout, outlen);	/* firmware answered */
	if (ret)
		goto err_unlock;
	ret = kern_devx_created_obj_id(buf, kout, &obj->enc_id);
	if (!ret)
		ret = kern_devx_build_destroy(buf, kout, obj->destroy_in,
					      &obj->destroy_inlen,
					      &obj->destroy_outlen);
	obj->flow = kern_devx_destroy_flow(buf, false);
	/* mlx5_create_cq: on the EQ's table once firmware made it. */
	if (!ret && obj->flow == KERN_DESTROY_CQ)
		ret = kern_dev_cq_attach(uctx->kdev, kern_devx_cq_eqn(buf),
					 kern_devx_dec_obj_id(obj->enc_id));
	if (ret) {
		/* Cannot track it: undo, as the kernel would on a late error. */
		uint8_t dout[64];

		if (obj->destroy_inlen)
			kern_fw_exec(uctx->kdev, obj->destroy_in, obj->destroy_inlen,
				     dout, sizeof(dout));
		goto err_unlock;
	}
	cds_list_add_tail(&obj->node, &uctx->objs);
	pthread_mutex_unlock(&uctx->lock);
	free(kout);
	free(buf);
	return obj;

err_unlock:
	pthread_mutex_unlock(&uctx->lock);
err_obj:
	free(obj);
	free(kout);
	free(buf);
err:
	errno = -ret;
	return NULL;
}

void *kern_obj_cmd_prepare(struct mlx5be_obj *obj, const void *in, size_t inlen,
			   size_t outlen, enum kern_devx_method method, int *err)
{
	void *buf = kern_cmd_prepare(obj->uctx, in, inlen, outlen, method, err);

	if (!buf)
		return NULL;
	if (!kern_devx_obj_id_matches(obj->enc_id, obj->bulk, buf)) {
		free(buf);
		*err = -EINVAL;
		return NULL;
	}
	if (method == KERN_DEVX_OBJ_MODIFY)
		kern_devx_set_umem_valid(buf);
	return buf;
}

int kern_obj_cmd_run(struct mlx5be_obj *obj, const void *buf, size_t inlen,
		     void *out, size_t outlen)
{
	return kern_cmd_run(obj->uctx, buf, inlen, out, outlen);
}

/* Modify and query: the mailbox must name the handle's own object. */
static int kern_obj_cmd(struct mlx5be_obj *obj, const void *in, size_t inlen,
			void *out, size_t outlen, enum kern_devx_method method)
{
	void *buf;
	int ret;

	if (kern_uctx_lost(obj->uctx))
		return -EIO;
	buf = kern_obj_cmd_prepare(obj, in, inlen, outlen, method, &ret);
	if (!buf)
		return ret;
	ret = kern_cmd_run(obj->uctx, buf, inlen, out, outlen);
	free(buf);
	return ret;
}

int kern_obj_modify(struct mlx5be_obj *obj, const void *in, size_t inlen,
		    void *out, size_t outlen)
{
	return kern_obj_cmd(obj, in, inlen, out, outlen, KERN_DEVX_OBJ_MODIFY);
}

int kern_obj_query(struct mlx5be_obj *obj, const void *in, size_t inlen,
		   void *out, size_t outlen)
{
	return kern_obj_cmd(obj, in, inlen, out, outlen, KERN_DEVX_OBJ_QUERY);
}

/* Runs a command of the kernel's own; the status maps to an errno. */
static int kern_obj_exec(struct mlx5be_obj *obj, const void *in, size_t inlen,
			 size_t outlen)
{
	uint8_t out[64] = {};
	int ret;

	if (outlen > sizeof(out))
		outlen = sizeof(out);
	ret = kern_fw_exec(obj->uctx->kdev, in, inlen, out, outlen);
	if (ret)
		return ret;
	return kern_devx_status_errno(KERN_CMD_DESTROY, kern_mbox_status(out));
}

/*
 * devx_obj_cleanup: a DCT is drained first (mlx5_core_destroy_dct, whose
 * drain error stops the destroy), a CQ leaves its EQ's table first
 * (mlx5_core_destroy_cq), anything else is the destroy built from the
 * create.  Firmware drains at once (the DCT_DRAINED event the kernel then
 * waits for is the engine's to raise), so the destroy follows directly.
 */
static int kern_obj_destroy_locked(struct mlx5be_obj *obj)
{
	int ret;

	if (obj->flow == KERN_DESTROY_DCT) {
		uint8_t drain[KERN_DEVX_DESTROY_INBOX_MAX];
		size_t drain_inlen;

		ret = kern_devx_build_drain_dct(obj->destroy_in, drain,
						&drain_inlen);
		if (!ret)
			ret = kern_obj_exec(obj, drain, drain_inlen,
					    obj->destroy_outlen);
		if (ret)
			return ret;
	} else if (obj->flow == KERN_DESTROY_CQ) {
		kern_dev_cq_detach(obj->uctx->kdev, kern_devx_dec_obj_id(obj->enc_id));
	}
	if (obj->lb_qp) {
		kern_lb_disable(obj->uctx->kdev, false, true);
		obj->lb_qp = false;
	}
	if (obj->flow == KERN_DESTROY_FLOW_RULE)
		ret = kern_flow_detach(obj);
	else
		ret = kern_obj_exec(obj, obj->destroy_in, obj->destroy_inlen,
				    obj->destroy_outlen);
	if (ret)
		return ret;
	kern_event_obj_gone(obj);
	cds_list_del(&obj->node);
	free(obj);
	return 0;
}

int kern_obj_destroy(struct mlx5be_obj *obj)
{
	struct kern_uctx *uctx = obj->uctx;
	int ret;

	pthread_mutex_lock(&uctx->lock);
	if (kern_uctx_lost(uctx)) {
		/* Teardown succeeds; only the child's copy goes, and with it
		 * the subscriptions that name it. */
		cds_list_del(&obj->node);
		pthread_mutex_unlock(&uctx->lock);
		kern_event_obj_gone(obj);
		free(obj);
		return 0;
	}
	ret = kern_obj_destroy_locked(obj);
	/* A freed UAR this object held may go now. */
	if (!ret)
		kern_uar_reap(uctx, false);
	pthread_mutex_unlock(&uctx->lock);
	return ret;
}

void kern_obj_destroy_all(struct kern_uctx *uctx)
{
	struct mlx5be_obj *obj, *prev;
	bool progress = true;

	pthread_mutex_lock(&uctx->lock);
	/*
	 * Newest first: an object is created after everything it uses.  A
	 * modify may have made an older object use a newer one, so what
	 * firmware refuses is retried while a pass still destroys something.
	 */
	while (progress && !cds_list_empty(&uctx->objs)) {
		progress = false;
		for (obj = cds_list_entry(uctx->objs.prev, struct mlx5be_obj, node);
		     &obj->node != &uctx->objs; obj = prev) {
			prev = cds_list_entry(obj->node.prev, struct mlx5be_obj, node);
			if (!kern_obj_destroy_locked(obj))
				progress = true;
		}
	}
	/* Firmware still refuses: forget them rather than leak the context
	 * (they stay charged to the uid, which then cannot be freed). */
	while (!cds_list_empty(&uctx->objs)) {
		obj = cds_list_entry(uctx->objs.prev, struct mlx5be_obj, node);
		kern_event_obj_gone(obj);
		cds_list_del(&obj->node);
		free(obj);
	}
	pthread_mutex_unlock(&uctx->lock);
}
