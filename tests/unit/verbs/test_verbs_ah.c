/* SPDX-License-Identifier: MIT */
/*
 * ibv_create_ah / ibv_destroy_ah on RoCE ports (GRH required, the source
 * GID entry must exist, the destination GID must have an L2 address), and
 * ibv_init_ah_from_wc / ibv_create_ah_from_wc as libibverbs 44 builds the
 * reverse path from a received GRH (IPv6 or IPv4 header).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/ip.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_test.h"

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gids[4];
static int gid_tbl_len;

static void setup(void)
{
	struct ibv_port_attr pattr;

	ctx = vt_open(false);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	ck_assert_int_eq(ibv_query_port(ctx, 1, &pattr), 0);
	ck_assert_int_eq(pattr.link_layer, IBV_LINK_LAYER_ETHERNET);
	gid_tbl_len = pattr.gid_tbl_len;
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(ibv_query_gid(ctx, 1, i, &gids[i]), 0);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

static struct ibv_ah_attr global_attr(int sgid_index, const union ibv_gid *dgid)
{
	struct ibv_ah_attr attr = {
		.is_global = 1, .port_num = 1, .sl = 3,
		.static_rate = IBV_RATE_10_GBPS,
		.grh = { .sgid_index = (uint8_t)sgid_index, .hop_limit = 64,
			 .traffic_class = 0x20, .flow_label = 0x12345 },
	};

	attr.grh.dgid = *dgid;
	return attr;
}

static void expect_ah_fail(struct ibv_ah_attr *attr, int err)
{
	errno = 0;
	ck_assert_ptr_null(ibv_create_ah(pd, attr));
	ck_assert_msg(errno == err, "errno %d, want %d", errno, err);
}

START_TEST(test_create_each_gid)
{
	/* RoCE v1/v2, link-local and IPv4-mapped, to each of them. */
	for (int s = 0; s < 4; s++) {
		for (int d = 0; d < 4; d++) {
			struct ibv_ah_attr attr = global_attr(s, &gids[d]);
			struct ibv_ah *ah = ibv_create_ah(pd, &attr);

			ck_assert_msg(ah, "sgid %d dgid %d: %s", s, d, strerror(errno));
			ck_assert_ptr_eq(ah->context, ctx);
			ck_assert_ptr_eq(ah->pd, pd);
			ck_assert_int_eq(ibv_destroy_ah(ah), 0);
		}
	}
}
END_TEST

START_TEST(test_handles)
{
	struct ibv_ah_attr attr = global_attr(1, &gids[1]);
	struct ibv_ah *a = ibv_create_ah(pd, &attr), *b = ibv_create_ah(pd, &attr);

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_ne(a->handle, b->handle);
	ck_assert_int_eq(ibv_destroy_ah(a), 0);
	ck_assert_int_eq(ibv_destroy_ah(b), 0);
}
END_TEST

START_TEST(test_no_grh)
{
	struct ibv_ah_attr attr = { .is_global = 0, .port_num = 1, .dlid = 1 };

	expect_ah_fail(&attr, EINVAL);
}
END_TEST

START_TEST(test_bad_port)
{
	struct ibv_ah_attr attr = global_attr(1, &gids[1]);

	attr.port_num = 0;
	expect_ah_fail(&attr, EINVAL);
	attr.port_num = 2;
	expect_ah_fail(&attr, EINVAL);
	attr.port_num = 255;
	expect_ah_fail(&attr, EINVAL);
}
END_TEST

START_TEST(test_bad_sgid)
{
	struct ibv_ah_attr attr = global_attr(4, &gids[1]);

	/* An empty entry: rdma_get_gid_attr's ENODATA. */
	if (gid_tbl_len > 4)
		expect_ah_fail(&attr, ENODATA);
	/* Past the table: EINVAL. */
	if (gid_tbl_len < 256) {
		attr.grh.sgid_index = (uint8_t)gid_tbl_len;
		expect_ah_fail(&attr, EINVAL);
		attr.grh.sgid_index = 255;
		expect_ah_fail(&attr, EINVAL);
	}
}
END_TEST

START_TEST(test_unresolvable_dgid)
{
	union ibv_gid dgid;
	struct ibv_ah_attr attr;

	/* A global unicast GID nothing in the fabric routes to. */
	ck_assert_int_eq(inet_pton(AF_INET6, "2001:db8::1", dgid.raw), 1);
	attr = global_attr(1, &dgid);
	expect_ah_fail(&attr, EINVAL);
}
END_TEST

START_TEST(test_pd_busy)
{
	struct ibv_ah_attr attr = global_attr(1, &gids[1]);
	struct ibv_ah *ah = ibv_create_ah(pd, &attr);

	ck_assert_ptr_nonnull(ah);
	ck_assert_int_eq(ibv_dealloc_pd(pd), EBUSY);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
}
END_TEST

/* A RoCE v2 GRH: IPv6 with next header UDP (the GRH the device scatters). */
static void v6_grh(struct ibv_grh *grh, const union ibv_gid *sgid,
		   const union ibv_gid *dgid, uint8_t next_hdr)
{
	memset(grh, 0, sizeof(*grh));
	grh->version_tclass_flow = htobe32(6u << 28 | 0x48u << 20 | 0xabcde);
	grh->next_hdr = next_hdr;
	grh->hop_limit = 17;
	grh->sgid = *sgid;
	grh->dgid = *dgid;
}

START_TEST(test_init_from_wc_v6)
{
	union ibv_gid remote;
	struct ibv_wc wc = { .wc_flags = IBV_WC_GRH, .slid = 7, .sl = 2,
			     .dlid_path_bits = 1 };
	struct ibv_ah_attr attr;
	struct ibv_grh grh;
	struct ibv_ah *ah;

	ck_assert_int_eq(inet_pton(AF_INET6, "fe80::1234:56ff:fe78:9abc", remote.raw), 1);
	v6_grh(&grh, &remote, &gids[1], IPPROTO_UDP);
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), 0);
	ck_assert_int_eq(attr.is_global, 1);
	ck_assert_int_eq(attr.port_num, 1);
	ck_assert_int_eq(attr.dlid, 7);
	ck_assert_int_eq(attr.sl, 2);
	ck_assert_int_eq(attr.src_path_bits, 1);
	ck_assert_int_eq(attr.grh.sgid_index, 1);	/* the v2 entry */
	ck_assert_int_eq(attr.grh.hop_limit, 17);
	ck_assert_int_eq(attr.grh.traffic_class, 0x48);
	ck_assert_uint_eq(attr.grh.flow_label, 0xabcde);
	ck_assert_mem_eq(attr.grh.dgid.raw, remote.raw, 16);
	/* next_hdr 0x1b (IB BTH): RoCE v1, the same GID's v1 entry. */
	v6_grh(&grh, &remote, &gids[0], 0x1b);
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), 0);
	ck_assert_int_eq(attr.grh.sgid_index, 0);
	ah = ibv_create_ah_from_wc(pd, &wc, &grh, 1);
	ck_assert_msg(ah, "create_ah_from_wc: %s", strerror(errno));
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
}
END_TEST

START_TEST(test_init_from_wc_v4)
{
	struct ibv_wc wc = { .wc_flags = IBV_WC_GRH };
	struct ibv_ah_attr attr;
	struct ibv_grh grh;
	struct iphdr *ip4 = (struct iphdr *)((char *)&grh + 20);
	uint32_t sum = 0;
	struct ibv_ah *ah;

	memset(&grh, 0, sizeof(grh));
	ip4->version = 4;
	ip4->ihl = 5;
	ip4->tos = 0x10;
	ip4->ttl = 33;
	ip4->protocol = IPPROTO_UDP;
	memcpy(&ip4->daddr, &gids[3].raw[12], 4);	/* our IPv4 */
	ip4->saddr = htonl(0x7f0a0b0c);
	for (int i = 0; i < 10; i++)
		sum += ((uint16_t *)ip4)[i];
	sum = (sum & 0xffff) + (sum >> 16);
	ip4->check = (uint16_t)~sum;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), 0);
	ck_assert_int_eq(attr.is_global, 1);
	ck_assert_int_eq(attr.grh.sgid_index, 3);	/* IPv4-mapped RoCE v2 */
	ck_assert_int_eq(attr.grh.hop_limit, 33);
	ck_assert_int_eq(attr.grh.traffic_class, 0x10);
	ck_assert_int_eq(attr.grh.dgid.raw[10], 0xff);
	ck_assert_int_eq(attr.grh.dgid.raw[11], 0xff);
	ck_assert_mem_eq(&attr.grh.dgid.raw[12], &ip4->saddr, 4);
	ah = ibv_create_ah_from_wc(pd, &wc, &grh, 1);
	ck_assert_msg(ah, "create_ah_from_wc: %s", strerror(errno));
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	/* A multicast destination never names one of our GIDs. */
	ip4->daddr = htonl(0xe0000001);
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(test_init_from_wc_bad)
{
	union ibv_gid remote, mcast;
	struct ibv_wc wc = { .wc_flags = IBV_WC_GRH };
	struct ibv_ah_attr attr;
	struct ibv_grh grh;

	inet_pton(AF_INET6, "fe80::1", remote.raw);
	inet_pton(AF_INET6, "ff02::1", mcast.raw);
	v6_grh(&grh, &remote, &mcast, IPPROTO_UDP);
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), -1);
	ck_assert_int_eq(errno, EINVAL);
	v6_grh(&grh, &remote, &gids[1], IPPROTO_TCP);
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), -1);
	ck_assert_int_eq(errno, EPROTONOSUPPORT);
	/* Not one of our GIDs: the search runs off the table. */
	v6_grh(&grh, &gids[1], &remote, IPPROTO_UDP);
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(ibv_create_ah_from_wc(pd, &wc, &grh, 1));
	/* Neither IPv6 nor IPv4. */
	memset(&grh, 0, sizeof(grh));
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), -1);
	ck_assert_int_eq(errno, EPROTONOSUPPORT);
	/* Without a GRH: a local path, no GID needed (and on RoCE no AH). */
	wc.wc_flags = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), 0);
	ck_assert_int_eq(attr.is_global, 0);
	errno = 0;
	ck_assert_ptr_null(ibv_create_ah_from_wc(pd, &wc, &grh, 1));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

static Suite *ah_suite(void)
{
	Suite *s = suite_create("verbs_ah");
	TCase *tc = tcase_create("ah");
	TCase *wc = tcase_create("ah_from_wc");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_create_each_gid);
	tcase_add_test(tc, test_handles);
	tcase_add_test(tc, test_no_grh);
	tcase_add_test(tc, test_bad_port);
	tcase_add_test(tc, test_bad_sgid);
	tcase_add_test(tc, test_unresolvable_dgid);
	tcase_add_test(tc, test_pd_busy);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(wc, setup, teardown);
	tcase_add_test(wc, test_init_from_wc_v6);
	tcase_add_test(wc, test_init_from_wc_v4);
	tcase_add_test(wc, test_init_from_wc_bad);
	suite_add_tcase(s, wc);
	return s;
}

int main(void)
{
	return vt_run(ah_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
