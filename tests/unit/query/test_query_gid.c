/* SPDX-License-Identifier: MIT */
/*
 * GID and P_Key queries over the drop-in libraries: the GID table of a
 * mlx5 RoCE port (0/1 link-local RoCE v1/v2, 2/3 IPv4-mapped RoCE v1/v2,
 * the rest empty), and each entry point's errno convention:
 * _ibv_query_gid_ex (errno, ENODATA when empty), ibv_query_gid and
 * ibv_query_gid_type (-1 + errno), _ibv_query_gid_table (negative errno),
 * ibv_query_pkey / ibv_get_pkey_index (-1).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "query_test.h"
#include "provider/rdma_private.h"

static struct ibv_context *ctx;
static struct ibv_port_attr port;

static void setup(void)
{
	ctx = qt_open(false);
	ck_assert_int_eq(ibv_query_port(ctx, 1, &port), 0);
	ck_assert_int_gt(port.gid_tbl_len, 4);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

static bool is_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/* Entries 0..3 as a mlx5 port fills them from its netdev's addresses. */
static void check_layout_entry(const struct ibv_gid_entry *e, uint32_t index)
{
	const uint8_t *g = e->gid.raw;

	ck_assert_uint_eq(e->gid_index, index);
	ck_assert_uint_eq(e->port_num, 1);
	ck_assert_uint_eq(e->gid_type, index % 2 ? IBV_GID_TYPE_ROCE_V2 :
						   IBV_GID_TYPE_ROCE_V1);
	if (index < 2) {
		static const uint8_t ll[8] = { 0xfe, 0x80 };

		ck_assert(!memcmp(g, ll, sizeof(ll)));
		/* pyverbs skips GIDs whose interface id is zero. */
		ck_assert(!is_zero(g + 8, 8));
	} else {
		static const uint8_t v4m[12] = { [10] = 0xff, [11] = 0xff };

		ck_assert(!memcmp(g, v4m, sizeof(v4m)));
		ck_assert_uint_eq(g[12], 127);	/* the loopback range */
	}
}

START_TEST(test_gid_layout)
{
	struct ibv_gid_entry e[4];

	for (uint32_t i = 0; i < 4; i++) {
		memset(&e[i], 0xa5, sizeof(e[i]));
		ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, i, &e[i], 0), 0);
		check_layout_entry(&e[i], i);
	}
	/* v1 and v2 entries carry the same address. */
	ck_assert(!memcmp(&e[0].gid, &e[1].gid, 16));
	ck_assert(!memcmp(&e[2].gid, &e[3].gid, 16));
	ck_assert(memcmp(&e[0].gid, &e[2].gid, 16));
}
END_TEST

/* The sysfs-like tree agrees with the queries (gids/N is "xxxx:...:xxxx"). */
START_TEST(test_gid_sysfs)
{
	for (uint32_t i = 0; i < 4; i++) {
		struct ibv_gid_entry e;
		char path[64], buf[64], want[64];
		const uint8_t *g;

		ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, i, &e, 0), 0);
		g = e.gid.raw;
		snprintf(path, sizeof(path), "ports/1/gids/%u", i);
		ck_assert_int_gt(qt_read_ibdev(ctx, path, buf, sizeof(buf)), 0);
		snprintf(want, sizeof(want),
			 "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
			 g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9],
			 g[10], g[11], g[12], g[13], g[14], g[15]);
		ck_assert_str_eq(buf, want);
		snprintf(path, sizeof(path), "ports/1/gid_attrs/types/%u", i);
		ck_assert_int_gt(qt_read_ibdev(ctx, path, buf, sizeof(buf)), 0);
		ck_assert_str_eq(buf, i % 2 ? "RoCE v2" : "IB/RoCE v1");
	}
}
END_TEST

START_TEST(test_gid_empty_entries)
{
	for (int i = 4; i < port.gid_tbl_len; i++) {
		struct ibv_gid_entry e, before;
		union ibv_gid gid;
		enum ibv_gid_type_sysfs_emu type = IBV_GID_TYPE_SYSFS_ROCE_V2;

		memset(&e, 0xa5, sizeof(e));
		before = e;
		ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, i, &e, 0), ENODATA);
		ck_assert(!memcmp(&e, &before, sizeof(e)));
		memset(&gid, 0xa5, sizeof(gid));
		ck_assert_int_eq(ibv_query_gid(ctx, 1, i, &gid), 0);
		ck_assert(is_zero(&gid, sizeof(gid)));
		ck_assert_int_eq(ibv_query_gid_type(ctx, 1, i, &type), 0);
		ck_assert_int_eq(type, IBV_GID_TYPE_SYSFS_IB_ROCE_V1);
	}
}
END_TEST

START_TEST(test_gid_compat_calls)
{
	for (int i = 0; i < 4; i++) {
		struct ibv_gid_entry e;
		union ibv_gid gid;
		enum ibv_gid_type_sysfs_emu type;

		ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, i, &e, 0), 0);
		ck_assert_int_eq(ibv_query_gid(ctx, 1, i, &gid), 0);
		ck_assert(!memcmp(&gid, &e.gid, sizeof(gid)));
		ck_assert_int_eq(ibv_query_gid_type(ctx, 1, i, &type), 0);
		ck_assert_int_eq(type, i % 2 ? IBV_GID_TYPE_SYSFS_ROCE_V2 :
					       IBV_GID_TYPE_SYSFS_IB_ROCE_V1);
	}
}
END_TEST

START_TEST(test_gid_ex_bad)
{
	struct ibv_gid_entry e, before;

	memset(&e, 0xa5, sizeof(e));
	before = e;
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 0, &e, 1), EINVAL);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 0, &e, 1u << 31), EINVAL);
	ck_assert_int_eq(_ibv_query_gid_ex(ctx, 1, 0, &e, 0, sizeof(e) - 1), EINVAL);
	ck_assert_int_eq(_ibv_query_gid_ex(ctx, 1, 0, &e, 0, sizeof(e) + 8), EINVAL);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 0, 0, &e, 0), EINVAL);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 2, 0, &e, 0), EINVAL);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, port.gid_tbl_len, &e, 0), EINVAL);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, UINT32_MAX, &e, 0), EINVAL);
	ck_assert(!memcmp(&e, &before, sizeof(e)));
}
END_TEST

START_TEST(test_gid_compat_bad)
{
	union ibv_gid gid;
	enum ibv_gid_type_sysfs_emu type;

	errno = 0;
	ck_assert_int_eq(ibv_query_gid(ctx, 1, port.gid_tbl_len, &gid), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_query_gid(ctx, 1, -1, &gid), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_query_gid(ctx, 0, 0, &gid), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_query_gid_type(ctx, 1, port.gid_tbl_len, &type), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_query_gid_type(ctx, 3, 0, &type), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(test_gid_table)
{
	size_t max = (size_t)port.gid_tbl_len;
	struct ibv_gid_entry *t = calloc(max, sizeof(*t));

	ck_assert_ptr_nonnull(t);
	memset(t, 0xa5, max * sizeof(*t));
	ck_assert_int_eq(ibv_query_gid_table(ctx, t, max, 0), 4);
	for (uint32_t i = 0; i < 4; i++) {
		struct ibv_gid_entry e;

		check_layout_entry(&t[i], i);
		ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, i, &e, 0), 0);
		ck_assert(!memcmp(&e, &t[i], sizeof(e)));
	}
	/* Nothing past the valid entries is written. */
	ck_assert_uint_eq(((uint8_t *)&t[4])[0], 0xa5);
	/* Exactly enough room is enough. */
	ck_assert_int_eq(ibv_query_gid_table(ctx, t, 4, 0), 4);
	free(t);
}
END_TEST

START_TEST(test_gid_table_bad)
{
	struct ibv_gid_entry t[4];

	ck_assert_int_eq(ibv_query_gid_table(ctx, t, 0, 0), -EINVAL);
	ck_assert_int_eq(ibv_query_gid_table(ctx, t, 3, 0), -EINVAL);
	ck_assert_int_eq(ibv_query_gid_table(ctx, t, 4, 1), -EINVAL);
	ck_assert_int_eq(_ibv_query_gid_table(ctx, t, 4, 0, 0), -EINVAL);
}
END_TEST

/* Other entry sizes: copied up to the smaller size, the rest zeroed. */
START_TEST(test_gid_table_entry_size)
{
	const size_t big = sizeof(struct ibv_gid_entry) + 8;
	uint8_t buf[4 * (sizeof(struct ibv_gid_entry) + 8)];
	struct ibv_gid_entry e;

	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(_ibv_query_gid_table(ctx, (void *)buf, 4, 0, big), 4);
	for (uint32_t i = 0; i < 4; i++) {
		ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, i, &e, 0), 0);
		ck_assert(!memcmp(buf + i * big, &e, sizeof(e)));
		ck_assert(is_zero(buf + i * big + sizeof(e), 8));
	}
	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(_ibv_query_gid_table(ctx, (void *)buf, 4, 0, 16), 4);
	for (uint32_t i = 0; i < 4; i++) {
		ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, i, &e, 0), 0);
		ck_assert(!memcmp(buf + i * 16, &e.gid, 16));
	}
	ck_assert_uint_eq(buf[4 * 16], 0xa5);
}
END_TEST

START_TEST(test_pkey)
{
	__be16 pkey = 0;

	ck_assert_int_eq(ibv_query_pkey(ctx, 1, 0, &pkey), 0);
	ck_assert_uint_eq(be16toh(pkey), 0xffff);
	ck_assert_int_eq(ibv_get_pkey_index(ctx, 1, htobe16(0xffff)), 0);
}
END_TEST

START_TEST(test_pkey_bad)
{
	__be16 pkey = htobe16(0x1234);

	errno = 0;
	ck_assert_int_eq(ibv_query_pkey(ctx, 1, port.pkey_tbl_len, &pkey), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_uint_eq(be16toh(pkey), 0x1234);
	errno = 0;
	ck_assert_int_eq(ibv_query_pkey(ctx, 2, 0, &pkey), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(ibv_get_pkey_index(ctx, 1, htobe16(0x8001)), -1);
}
END_TEST

static Suite *query_gid_suite(void)
{
	Suite *s = suite_create("query_gid");
	TCase *tc = tcase_create("gid");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_gid_layout);
	tcase_add_test(tc, test_gid_sysfs);
	tcase_add_test(tc, test_gid_empty_entries);
	tcase_add_test(tc, test_gid_compat_calls);
	tcase_add_test(tc, test_gid_ex_bad);
	tcase_add_test(tc, test_gid_compat_bad);
	tcase_add_test(tc, test_gid_table);
	tcase_add_test(tc, test_gid_table_bad);
	tcase_add_test(tc, test_gid_table_entry_size);
	tcase_add_test(tc, test_pkey);
	tcase_add_test(tc, test_pkey_bad);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(query_gid_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
