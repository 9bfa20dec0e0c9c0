/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_eth_tis.c -- CREATE_TIS / MODIFY_TIS / QUERY_TIS /
 * DESTROY_TIS.
 *
 * A transport interface send: the attributes an SQ's packets leave with
 * (priority, LAG port).  CREATE_TIS checks the features first (tls_en
 * without tls_tx; underlay_qpn, an IPoIB feature; pd, which only TLS uses),
 * then the LAG fields (a port affinity, strict or not, only where the
 * device advertises lag_tx_port_affinity, and at most num_lag_ports), then
 * takes the transport domain (the caller's or the kernel's).  prio is kept
 * as given (mlx5e puts the traffic class at prio[3:1]).  MODIFY_TIS changes
 * what its bitmask names (prio, lag_tx_port_affinity,
 * strict_lag_tx_port_affinity), checked as at create.  A TIS used by an SQ
 * cannot be destroyed.
 */
#include <string.h>

#include "emu/firmware/fw_eth_int.h"

_Static_assert(PRM_ST_SZ_BYTES(tisc) == sizeof(((struct emu_fw_tis *)0)->ctx),
	       "tisc");

void fw_tis_release(struct emu_fw_obj *obj)
{
	struct emu_fw_tis *tis = emu_fw_to_tis(obj);

	if (tis->td)
		fw_obj_unuse(&tis->td->obj);
}

void fw_tis_fini(struct emu_fw_obj *obj)
{
	pthread_mutex_destroy(&emu_fw_to_tis(obj)->lock);
}

static enum fw_synd fw_tis_lag(const struct emu_fw *fw, const void *tisc)
{
	uint32_t port = PRM_GET(tisc, tisc, lag_tx_port_affinity);

	if (!port && !PRM_GET(tisc, tisc, strict_lag_tx_port_affinity))
		return FW_SYND_OK;
	if (!FW_CAP_GEN(fw, lag_tx_port_affinity) ||
	    port > FW_CAP_GEN(fw, num_lag_ports))
		return FW_SYND_TIS_BAD_LAG;
	return FW_SYND_OK;
}

static void fw_tis_apply(struct emu_fw_tis *tis, const void *tisc,
			 bool prio, bool lag, bool strict)
{
	if (prio) {
		atomic_store(&tis->prio, PRM_GET(tisc, tisc, prio));
		PRM_SET(tisc, tis->ctx, prio, PRM_GET(tisc, tisc, prio));
	}
	if (lag) {
		atomic_store(&tis->lag_tx_port_affinity,
			     PRM_GET(tisc, tisc, lag_tx_port_affinity));
		PRM_SET(tisc, tis->ctx, lag_tx_port_affinity,
			PRM_GET(tisc, tisc, lag_tx_port_affinity));
	}
	if (strict) {
		atomic_store(&tis->strict_lag_tx_port_affinity,
			     PRM_GET(tisc, tisc, strict_lag_tx_port_affinity));
		PRM_SET(tisc, tis->ctx, strict_lag_tx_port_affinity,
			PRM_GET(tisc, tisc, strict_lag_tx_port_affinity));
	}
}

enum fw_synd fw_cmd_create_tis(struct fw_cmd *cmd)
{
	const void *tisc = PRM_ADDR_OF(create_tis_in, cmd->in, ctx);
	struct emu_fw_obj *obj, *td;
	struct emu_fw_tis *tis;
	enum fw_synd s;

	if ((PRM_GET(tisc, tisc, tls_en) && !FW_CAP_GEN(cmd->fw, tls_tx)) ||
	    PRM_GET(tisc, tisc, underlay_qpn) || PRM_GET(tisc, tisc, pd))
		return FW_SYND_TIS_FEATURE_NOT_SUPPORTED;
	s = fw_tis_lag(cmd->fw, tisc);
	if (s)
		return s;
	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_TIS, &obj);
	if (s)
		return s;
	tis = emu_fw_to_tis(obj);
	pthread_mutex_init(&tis->lock, NULL);
	s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_TD,
			   PRM_GET(tisc, tisc, transport_domain),
			   FW_SYND_TIS_BAD_TD, &td);
	if (s) {
		fw_cmd_obj_abort(obj);
		return s;
	}
	tis->td = emu_fw_to_td(td);
	memcpy(tis->ctx, tisc, sizeof(tis->ctx));
	fw_tis_apply(tis, tisc, true, true, true);
	s = fw_cmd_obj_publish(obj, FW_SYND_TIS_LIMIT);
	if (s)
		return s;
	PRM_SET(create_tis_out, cmd->out, tisn, obj->id);
	return FW_SYND_OK;
}

static enum fw_synd fw_tis_own(struct fw_cmd *cmd, uint32_t tisn,
			       struct emu_fw_tis **tisp)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	s = fw_cmd_obj_own(cmd, EMU_FW_OBJ_TIS, tisn, FW_SYND_TIS_INVALID,
			   &obj);
	if (!s)
		*tisp = emu_fw_to_tis(obj);
	return s;
}

enum fw_synd fw_cmd_modify_tis(struct fw_cmd *cmd)
{
	const void *tisc = PRM_ADDR_OF(modify_tis_in, cmd->in, ctx);
	const uint8_t *bm = PRM_ADDR_OF(modify_tis_in, cmd->in, bitmask);
	bool prio = PRM_GET(modify_tis_bitmask, bm, prio);
	bool lag = PRM_GET(modify_tis_bitmask, bm, lag_tx_port_affinity);
	bool strict = PRM_GET(modify_tis_bitmask, bm,
			      strict_lag_tx_port_affinity);
	struct emu_fw_tis *tis = NULL;
	uint8_t other[8], merged[PRM_ST_SZ_BYTES(tisc)];
	enum fw_synd s;

	s = fw_tis_own(cmd, PRM_GET(modify_tis_in, cmd->in, tisn), &tis);
	if (s)
		return s;
	memcpy(other, bm, sizeof(other));
	PRM_SET(modify_tis_bitmask, other, prio, 0);
	PRM_SET(modify_tis_bitmask, other, lag_tx_port_affinity, 0);
	PRM_SET(modify_tis_bitmask, other, strict_lag_tx_port_affinity, 0);
	if (!fw_all_zero(other, sizeof(other)))
		s = FW_SYND_TIS_BAD_BITMASK;
	pthread_mutex_lock(&tis->lock);
	/* The LAG fields as they would be after the change. */
	memcpy(merged, tis->ctx, sizeof(merged));
	if (lag)
		PRM_SET(tisc, merged, lag_tx_port_affinity,
			PRM_GET(tisc, tisc, lag_tx_port_affinity));
	if (strict)
		PRM_SET(tisc, merged, strict_lag_tx_port_affinity,
			PRM_GET(tisc, tisc, strict_lag_tx_port_affinity));
	if (!s)
		s = fw_tis_lag(cmd->fw, merged);
	if (!s)
		fw_tis_apply(tis, tisc, prio, lag, strict);
	pthread_mutex_unlock(&tis->lock);
	emu_fw_obj_put(&tis->obj);
	return s;
}

enum fw_synd fw_cmd_query_tis(struct fw_cmd *cmd)
{
	void *tisc = PRM_ADDR_OF(query_tis_out, cmd->out, tis_context);
	struct emu_fw_tis *tis = NULL;
	enum fw_synd s;

	s = fw_tis_own(cmd, PRM_GET(query_tis_in, cmd->in, tisn), &tis);
	if (s)
		return s;
	pthread_mutex_lock(&tis->lock);
	memcpy(tisc, tis->ctx, sizeof(tis->ctx));
	pthread_mutex_unlock(&tis->lock);
	emu_fw_obj_put(&tis->obj);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_destroy_tis(struct fw_cmd *cmd)
{
	return fw_cmd_obj_destroy(cmd, EMU_FW_OBJ_TIS,
				  PRM_GET(destroy_tis_in, cmd->in, tisn),
				  FW_SYND_TIS_INVALID, FW_SYND_TIS_IN_USE);
}
