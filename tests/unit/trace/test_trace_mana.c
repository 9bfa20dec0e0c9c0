/* SPDX-License-Identifier: MIT */
/*
 * The MANA control-message line (emu/trace/trace_mana.c): exact text for
 * messages built here byte by byte at the kernel's offsets (gdma.h:
 * struct gdma_create_pd_resp has pd_handle at byte 32 and pd_id at 40 after
 * the 32-byte gdma_resp_hdr, whose status is at byte 24), a refusal by its
 * status name, an unknown type, and JSON that parses with the fields named.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "emu/trace/trace_fmt.h"

#include "ut_run.h"

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);	/* little-endian hosts only, as MANA */
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static char *line(uint32_t type, const uint8_t *req, size_t rl,
		  const uint8_t *resp, size_t sl, enum emu_trace_format fmt)
{
	struct emu_trace_mana_msg m = {
		.dev = "mana_0", .seq = 3, .type = type, .req = req,
		.req_len = rl, .resp = resp, .resp_len = sl,
	};
	char *s = emu_trace_format_mana_msg(&m, fmt, true, NULL);

	ck_assert_ptr_nonnull(s);
	return s;
}

START_TEST(create_pd_text)
{
	uint8_t req[48] = { 0 }, resp[48] = { 0 };
	char *s;

	put32(req, 29);			/* hdr: GDMA_CREATE_PD */
	put32(req + 40, 0);		/* flags */
	put64(resp + 32, 0x100000100000001ull);
	put32(resp + 40, 7);
	s = line(29, req, sizeof(req), resp, sizeof(resp), EMU_TRACE_TEXT);
	ck_assert_str_eq(s, "mana_0 #3 GDMA_CREATE_PD req{} -> SUCCESS(0x0) "
			    "resp{pd_handle=0x100000100000001 pd_id=0x7}\n");
	free(s);
}
END_TEST

START_TEST(refusal_and_unknown)
{
	uint8_t req[48] = { 0 }, resp[48] = { 0 };
	char *s;

	put64(req + 40, 0xdead);	/* gdma_destroy_pd_req.pd_handle */
	put32(resp + 24, 0xe0000002);	/* BAD_HANDLE */
	put64(resp + 32, 0x55);		/* not shown: the message failed */
	s = line(30, req, sizeof(req), resp, sizeof(resp), EMU_TRACE_TEXT);
	ck_assert_str_eq(s, "mana_0 #3 GDMA_DESTROY_PD req{pd_handle=0xdead} -> "
			    "BAD_HANDLE(0xe0000002)\n");
	free(s);
	put32(resp + 24, 0xffffffff);
	s = line(0x7777, req, sizeof(req), resp, sizeof(resp), EMU_TRACE_TEXT);
	ck_assert_str_eq(s, "mana_0 #3 MSG(0x7777) req{} -> "
			    "CMD_UNSUPPORTED(0xffffffff)\n");
	free(s);
}
END_TEST

START_TEST(create_pd_json)
{
	uint8_t req[48] = { 0 }, resp[48] = { 0 };
	struct json_object *o, *v, *r;
	char *s;

	put64(resp + 32, 0x42);
	put32(resp + 40, 9);
	s = line(29, req, sizeof(req), resp, sizeof(resp), EMU_TRACE_JSON);
	ck_assert(s[strlen(s) - 1] == '\n');
	o = json_tokener_parse(s);
	ck_assert_msg(o != NULL, "%s", s);
	ck_assert(json_object_object_get_ex(o, "msg", &v));
	ck_assert_str_eq(json_object_get_string(v), "GDMA_CREATE_PD");
	ck_assert(json_object_object_get_ex(o, "msg_type", &v));
	ck_assert_int_eq(json_object_get_int(v), 29);
	ck_assert(json_object_object_get_ex(o, "status", &v));
	ck_assert_str_eq(json_object_get_string(v), "SUCCESS");
	ck_assert(json_object_object_get_ex(o, "resp_struct", &v));
	ck_assert_str_eq(json_object_get_string(v), "gdma_create_pd_resp");
	ck_assert(json_object_object_get_ex(o, "resp", &r));
	ck_assert(json_object_object_get_ex(r, "pd_id", &v));
	ck_assert_int_eq(json_object_get_int(v), 9);
	/* 64-bit fields are hex strings, which no JSON reader rounds */
	ck_assert(json_object_object_get_ex(r, "pd_handle", &v));
	ck_assert_str_eq(json_object_get_string(v), "0x42");
	ck_assert(!json_object_object_get_ex(r, "hdr", &v));
	json_object_put(o);
	free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("trace_mana");
	TCase *tc = tcase_create("messages");

	tcase_add_test(tc, create_pd_text);
	tcase_add_test(tc, refusal_and_unknown);
	tcase_add_test(tc, create_pd_json);
	suite_add_tcase(s, tc);
	return ut_run(s);
}
