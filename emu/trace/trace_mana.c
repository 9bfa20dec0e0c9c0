/* SPDX-License-Identifier: MIT */
/*
 * emu/trace/trace_mana.c -- a MANA control message (what mana_ib sends the
 * device over the hardware channel) as one trace line beside the command
 * lines, decoded by field name from prm/defs/mana.prm's layouts, which
 * prm/mana.def names per message type.  The request and response headers
 * (gdma_req_hdr, gdma_resp_hdr) are left out but for the response's
 * status, shown by its name in prm/mana_status.def.
 *
 * TEXT:  mana_0 #5 MANA_CREATE_WQ_OBJ req{vport=0x..,wq_type=0x1,...}
 *          -> OK(0x0) resp{wq_id=0x1,cq_id=0x1,wq_obj=0x..}
 * JSON:  {"seq":5,"dev":"mana_0","pid":..,"msg":"MANA_CREATE_WQ_OBJ",
 *         "msg_type":131076,"req_struct":"mana_create_wqobj_req","req":{..},
 *         "status":"OK","status_value":0,"resp_struct":"..","resp":{..}}
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/trace/trace_fmt.h"
#include "emu/trace/trace_int.h"
#include "prm/prm_le.h"

struct mana_msg_desc {
	const char *name, *req, *resp;
	uint32_t type;
};

static const struct mana_msg_desc mana_msgs[] = {
#define MANA_MSG(n, code, rq, rs) { #n, rq, rs, code },
#include "prm/mana.def"
#undef MANA_MSG
};

static const struct {
	const char *name;
	uint32_t value;
} mana_statuses[] = {
#define MANA_STATUS(n, v, why) { #n, v },
#include "prm/mana_status.def"
#undef MANA_STATUS
};

static const struct mana_msg_desc *mana_msg(uint32_t type)
{
	for (size_t i = 0; i < sizeof(mana_msgs) / sizeof(mana_msgs[0]); i++)
		if (mana_msgs[i].type == type)
			return &mana_msgs[i];
	return NULL;
}

const char *emu_trace_mana_status_name(uint32_t status)
{
	for (size_t i = 0; i < sizeof(mana_statuses) / sizeof(mana_statuses[0]); i++)
		if (mana_statuses[i].value == status)
			return mana_statuses[i].name;
	return NULL;
}

/* One side's fields (NULL layout: none), without its header. */
static char *mana_side(const char *layout, const void *buf, size_t len,
		       enum emu_trace_format fmt, bool elide)
{
	const struct prm_struct_desc *sd = layout ? prm_struct_find(layout) : NULL;

	if (!sd || !buf || !len || !strcmp(layout, "gdma_resp_hdr"))
		return NULL;
	return emu_trace_format_struct(sd, buf, len, 0, 0, fmt, elide, true,
				       NULL);
}

char *emu_trace_format_mana_msg(const struct emu_trace_mana_msg *m,
				enum emu_trace_format fmt, bool elide,
				size_t *len)
{
	const struct mana_msg_desc *d;
	struct trace_buf b = { 0 };
	const char *st_name;
	uint32_t status = UINT32_MAX;
	char *req, *resp;

	if (!m || (fmt != EMU_TRACE_TEXT && fmt != EMU_TRACE_JSON)) {
		errno = EINVAL;
		return NULL;
	}
	d = mana_msg(m->type);
	if (m->resp && m->resp_len >= PRM_LE_ST_SZ_BYTES(gdma_resp_hdr))
		status = PRM_LE_GET(gdma_resp_hdr, m->resp, status);
	st_name = emu_trace_mana_status_name(status);
	req = mana_side(d ? d->req : NULL, m->req, m->req_len, fmt, elide);
	resp = status == 0 ? mana_side(d ? d->resp : NULL, m->resp, m->resp_len,
				       fmt, elide) : NULL;
	if (fmt == EMU_TRACE_TEXT) {
		if (m->dev)
			trace_buf_printf(&b, "%s ", m->dev);
		if (m->seq)
			trace_buf_printf(&b, "#%llu ", (unsigned long long)m->seq);
		if (d)
			trace_buf_printf(&b, "%s", d->name);
		else
			trace_buf_printf(&b, "MSG(0x%x)", m->type);
		trace_buf_printf(&b, " req{%s} -> %s(0x%x)", req ? req : "",
				 st_name ? st_name : "STATUS", status);
		if (resp)
			trace_buf_printf(&b, " resp{%s}", resp);
		trace_buf_puts(&b, "\n");
	} else {
		trace_buf_puts(&b, "{");
		if (m->seq)
			trace_buf_printf(&b, "\"seq\":%llu,", (unsigned long long)m->seq);
		if (m->dev)
			trace_buf_printf(&b, "\"dev\":\"%s\",", m->dev);
		if (m->pid)
			trace_buf_printf(&b, "\"pid\":%ld,", m->pid);
		trace_buf_printf(&b, "\"msg\":%s%s%s,\"msg_type\":%u,",
				 d ? "\"" : "", d ? d->name : "null", d ? "\"" : "",
				 m->type);
		if (req)
			trace_buf_printf(&b, "\"req_struct\":\"%s\",\"req\":%s,",
					 d->req, req);
		trace_buf_printf(&b, "\"status\":%s%s%s,\"status_value\":%u",
				 st_name ? "\"" : "", st_name ? st_name : "null",
				 st_name ? "\"" : "", status);
		if (resp)
			trace_buf_printf(&b, ",\"resp_struct\":\"%s\",\"resp\":%s",
					 d->resp, resp);
		trace_buf_puts(&b, "}\n");
	}
	free(req);
	free(resp);
	return trace_buf_take(&b, len);
}
