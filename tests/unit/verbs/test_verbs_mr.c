/* SPDX-License-Identifier: MIT */
/*
 * ibv_reg_mr (the exported symbol and the verbs.h macro path, which picks
 * ibv_reg_mr_iova2 for non-constant or optional access flags),
 * ibv_reg_mr_iova, ibv_reg_mr_iova2, ibv_rereg_mr and ibv_dereg_mr, with the
 * errnos of libibverbs 44 and the kernel (ib_uverbs_reg_mr,
 * ib_check_mr_access, ib_umem_get, ib_uverbs_rereg_mr).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "verbs_test.h"

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static void *buf;
#define BUF_LEN (4 * 4096)

static void setup(void)
{
	ctx = vt_open(true);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	buf = vt_alloc(BUF_LEN);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	free(buf);
}

/* Registers through the exported ibv_reg_mr symbol (constant-free path). */
static struct ibv_mr *reg_exported(void *addr, size_t len, int access)
{
	return (ibv_reg_mr)(pd, addr, len, access);
}

static void expect_reg_fail(void *addr, size_t len, unsigned int access, int err)
{
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr_iova2(pd, addr, len, (uintptr_t)addr, access));
	ck_assert_msg(errno == err, "iova2 access %#x: errno %d, want %d",
		      access, errno, err);
	errno = 0;
	ck_assert_ptr_null(reg_exported(addr, len, (int)access));
	ck_assert_msg(errno == err, "reg_mr access %#x: errno %d, want %d",
		      access, errno, err);
}

START_TEST(test_reg_fields)
{
	unsigned int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			      IBV_ACCESS_REMOTE_WRITE;
	struct ibv_mr *mr = ibv_reg_mr(pd, (char *)buf + 100, 5000, access);
	struct ibv_mr *mr2 = reg_exported(buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE);

	ck_assert_msg(mr, "reg_mr: %s", strerror(errno));
	ck_assert_ptr_nonnull(mr2);
	ck_assert_ptr_eq(mr->context, ctx);
	ck_assert_ptr_eq(mr->pd, pd);
	ck_assert_ptr_eq(mr->addr, (char *)buf + 100);
	ck_assert_uint_eq(mr->length, 5000);
	ck_assert_uint_eq(mr->lkey, mr->rkey);
	ck_assert_uint_ne(mr->lkey >> 8, 0);
	ck_assert_uint_ne(mr->lkey, mr2->lkey);
	ck_assert_uint_ne(mr->lkey >> 8, mr2->lkey >> 8);
	/* The key byte changes from one mkey to the next. */
	ck_assert_uint_ne(mr->lkey & 0xff, mr2->lkey & 0xff);
	ck_assert_uint_ne(mr->handle, mr2->handle);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr2), 0);
}
END_TEST

START_TEST(test_reg_access_ok)
{
	struct ibv_device_attr dattr;
	unsigned int ok[] = {
		0,
		IBV_ACCESS_LOCAL_WRITE,
		IBV_ACCESS_REMOTE_READ,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ZERO_BASED,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_HUGETLB,
		/* Optional bits: dropped when not supported. */
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING,
		IBV_ACCESS_LOCAL_WRITE | (1u << 25),
		IBV_ACCESS_OPTIONAL_RANGE,
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct ibv_mr *mr = ibv_reg_mr_iova2(pd, buf, BUF_LEN,
						     (uintptr_t)buf, ok[i]);

		ck_assert_msg(mr, "access %#x: %s", ok[i], strerror(errno));
		ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	}
	ck_assert_int_eq(ibv_query_device(ctx, &dattr), 0);
	if (dattr.atomic_cap != IBV_ATOMIC_NONE) {
		struct ibv_mr *mr = ibv_reg_mr(pd, buf, BUF_LEN,
					       IBV_ACCESS_LOCAL_WRITE |
					       IBV_ACCESS_REMOTE_ATOMIC);

		ck_assert_msg(mr, "atomic: %s", strerror(errno));
		ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	}
}
END_TEST

/* The verbs.h macro: a run-time access value goes to ibv_reg_mr_iova2. */
START_TEST(test_reg_macro_runtime_access)
{
	volatile unsigned int v = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING;
	unsigned int access = v;
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 4096, access);

	ck_assert_msg(mr, "reg_mr: %s", strerror(errno));
	ck_assert_ptr_eq(mr->addr, buf);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
}
END_TEST

START_TEST(test_reg_remote_without_local_write)
{
	expect_reg_fail(buf, 4096, IBV_ACCESS_REMOTE_WRITE, EINVAL);
	expect_reg_fail(buf, 4096, IBV_ACCESS_REMOTE_ATOMIC, EINVAL);
	expect_reg_fail(buf, 4096, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
			EINVAL);
}
END_TEST

START_TEST(test_reg_on_demand)
{
	struct ibv_mr *mr;

	/* ODP where the backend takes ODP umems (test_dp_odp); the hw
	 * backend's verbs MRs are DEVX umems, which take none. */
	if (vt_backend_hw()) {
		expect_reg_fail(buf, 4096, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_ON_DEMAND, EOPNOTSUPP);
	} else {
		mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_ON_DEMAND);
		ck_assert_ptr_nonnull(mr);
		ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	}
	/* The local-write rule is checked first. */
	expect_reg_fail(buf, 4096, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_ON_DEMAND,
			EINVAL);
}
END_TEST

START_TEST(test_reg_unknown_bits)
{
	/* FLUSH_GLOBAL / FLUSH_PERSISTENT: known, no device capability. */
	expect_reg_fail(buf, 4096, 1u << 8, EOPNOTSUPP);
	expect_reg_fail(buf, 4096, 1u << 9, EOPNOTSUPP);
	/* Outside IB_ACCESS_SUPPORTED. */
	expect_reg_fail(buf, 4096, 1u << 10, EINVAL);
	expect_reg_fail(buf, 4096, 1u << 19, EINVAL);
	expect_reg_fail(buf, 4096, 1u << 30, EINVAL);
	expect_reg_fail(buf, 4096, 1u << 31, EINVAL);
	/* Unknown beats ON_DEMAND. */
	expect_reg_fail(buf, 4096, IBV_ACCESS_ON_DEMAND | (1u << 12), EINVAL);
}
END_TEST

START_TEST(test_reg_length_zero)
{
	expect_reg_fail(buf, 0, IBV_ACCESS_LOCAL_WRITE, EINVAL);
}
END_TEST

START_TEST(test_reg_wrapping)
{
	expect_reg_fail((void *)(UINTPTR_MAX - 4095), 8192, 0, EINVAL);
}
END_TEST

START_TEST(test_reg_unmapped)
{
	char *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(munmap(p + 4096, 4096), 0);
	/* Wholly unmapped, partly unmapped, and the mapped parts alone. */
	expect_reg_fail(p + 4096, 4096, IBV_ACCESS_LOCAL_WRITE, EFAULT);
	expect_reg_fail(p, 3 * 4096, IBV_ACCESS_LOCAL_WRITE, EFAULT);
	expect_reg_fail(p + 4000, 200, 0, EFAULT);
	expect_reg_fail(NULL, 4096, 0, EFAULT);
	for (int i = 0; i < 3; i += 2) {
		struct ibv_mr *mr = ibv_reg_mr(pd, p + i * 4096, 4096, 0);

		ck_assert_ptr_nonnull(mr);
		ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	}
	munmap(p, 4096);
	munmap(p + 2 * 4096, 4096);
}
END_TEST

/* ib_umem_get pins for write when LOCAL_WRITE is asked: read-only pages
 * fail with EFAULT, and are fine for a read-only MR. */
START_TEST(test_reg_read_only_pages)
{
	char *p = mmap(NULL, 2 * 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	struct ibv_mr *mr;

	ck_assert_ptr_ne(p, MAP_FAILED);
	expect_reg_fail(p, 2 * 4096, IBV_ACCESS_LOCAL_WRITE, EFAULT);
	expect_reg_fail(p, 2 * 4096, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE, EFAULT);
	mr = ibv_reg_mr(pd, p, 2 * 4096, IBV_ACCESS_REMOTE_READ);
	ck_assert_msg(mr, "read-only MR: %s", strerror(errno));
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	munmap(p, 2 * 4096);
}
END_TEST

START_TEST(test_reg_iova)
{
	char *addr = (char *)buf + 0x123;
	struct ibv_mr *mr;

	/* Same offset within the page: any iova. */
	mr = ibv_reg_mr_iova(pd, addr, 1000, 0x10000123, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_msg(mr, "reg_mr_iova: %s", strerror(errno));
	ck_assert_ptr_eq(mr->addr, addr);
	ck_assert_uint_eq(mr->length, 1000);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	mr = (ibv_reg_mr_iova)(pd, addr, 1000, 0x123, 0);
	ck_assert_ptr_nonnull(mr);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	mr = ibv_reg_mr_iova2(pd, buf, 4096, 0, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	/* Offsets that differ: EINVAL (ib_uverbs_reg_mr). */
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr_iova(pd, addr, 1000, 0x10000000, 0));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr_iova2(pd, buf, 4096, 1, 0));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(test_rereg_input_errors)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	uint32_t lkey = mr->lkey;

	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(mr, 1 << 3, NULL, NULL, 0, 0),
			 IBV_REREG_MR_ERR_INPUT);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL,
				      NULL, 4096, 0), IBV_REREG_MR_ERR_INPUT);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL,
				      buf, 0, 0), IBV_REREG_MR_ERR_INPUT);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd, NULL, 0,
				      IBV_ACCESS_LOCAL_WRITE),
			 IBV_REREG_MR_ERR_INPUT);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_uint_eq(mr->lkey, lkey);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
}
END_TEST

START_TEST(test_rereg_cmd_errors)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	uint32_t lkey = mr->lkey;
	char *p;

	/* The kernel refuses no flags at all. */
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(mr, 0, NULL, NULL, 0, 0),
			 IBV_REREG_MR_ERR_CMD);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL,
				      0, IBV_ACCESS_REMOTE_WRITE),
			 IBV_REREG_MR_ERR_CMD);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	/* FLUSH_GLOBAL: known to the kernel, no device capability. */
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL,
				      0, IBV_ACCESS_LOCAL_WRITE | (1u << 8)),
			 IBV_REREG_MR_ERR_CMD);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, NULL, NULL, 0, 0),
			 IBV_REREG_MR_ERR_CMD);
	ck_assert_int_eq(errno, EINVAL);
	/* Memory that cannot be pinned: a page nothing may touch (an unmapped
	 * one could be mapped again by another thread before the call). */
	p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL,
				      p, 4096, 0), IBV_REREG_MR_ERR_CMD);
	ck_assert_int_eq(errno, EFAULT);
	munmap(p, 4096);
	/* Failed reregistrations left the MR as it was. */
	ck_assert_uint_eq(mr->lkey, lkey);
	ck_assert_ptr_eq(mr->addr, buf);
	ck_assert_uint_eq(mr->length, 4096);
	ck_assert_ptr_eq(mr->pd, pd);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
}
END_TEST

/* Whether a rereg kept the keys: the emulated kernel changes PD and access
 * in place as mlx5_ib's UMR does; over DEVX (the hw backend) there is no
 * UMR of the kernel's and the MR gets a new mkey. */
static void ck_rereg_keys(struct ibv_mr *mr, uint32_t lkey, bool in_place)
{
	if (in_place && !vt_backend_hw())
		ck_assert_uint_eq(mr->lkey, lkey);
	else
		ck_assert_uint_ne(mr->lkey, lkey);
	ck_assert_uint_eq(mr->lkey, mr->rkey);
}

START_TEST(test_rereg_access)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	uint32_t lkey = mr->lkey;

	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				      IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_REMOTE_WRITE), 0);
	ck_rereg_keys(mr, lkey, true);
	ck_assert_ptr_eq(mr->addr, buf);
	ck_assert_ptr_eq(mr->pd, pd);
	/* Access 0 with CHANGE_ACCESS is fine. */
	lkey = mr->lkey;
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL,
				      0, 0), 0);
	ck_rereg_keys(mr, lkey, true);
	/* MW_BIND is not one the UMR changes (can_use_umr_rereg_access): a
	 * new mkey. */
	lkey = mr->lkey;
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL,
				      0, IBV_ACCESS_MW_BIND), 0);
	ck_rereg_keys(mr, lkey, false);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
}
END_TEST

START_TEST(test_rereg_pd)
{
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);

	uint32_t lkey = mr->lkey;

	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0), 0);
	ck_assert_ptr_eq(mr->pd, pd2);
	ck_rereg_keys(mr, lkey, true);
	/* The use moved with the MR. */
	ck_assert_int_eq(ibv_dealloc_pd(pd2), EBUSY);
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd, NULL, 0, 0), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd2), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), EBUSY);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
}
END_TEST

START_TEST(test_rereg_pd_other_context)
{
	struct ibv_context *ctx2 = vt_open(false);
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx2);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);

	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0),
			 IBV_REREG_MR_ERR_CMD);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_eq(mr->pd, pd);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd2), 0);
	ck_assert_int_eq(ibv_close_device(ctx2), 0);
}
END_TEST

START_TEST(test_rereg_translation)
{
	char *other = vt_alloc(3 * 4096);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	uint32_t lkey = mr->lkey;

	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION |
				      IBV_REREG_MR_CHANGE_ACCESS, NULL,
				      other + 10, 2 * 4096,
				      IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_REMOTE_READ), 0);
	ck_assert_ptr_eq(mr->addr, other + 10);
	ck_assert_uint_eq(mr->length, 2 * 4096);
	ck_assert_uint_ne(mr->lkey, lkey);
	/* The old range is no longer pinned for it: free to go. */
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	free(other);
}
END_TEST

START_TEST(test_dereg_releases)
{
	struct ibv_mr *mr;

	for (int i = 0; i < 200; i++) {
		mr = ibv_reg_mr(pd, buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE);
		ck_assert_ptr_nonnull(mr);
		ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	}
}
END_TEST

static Suite *mr_suite(void)
{
	Suite *s = suite_create("verbs_mr");
	TCase *reg = tcase_create("reg");
	TCase *rereg = tcase_create("rereg");

	tcase_add_checked_fixture(reg, setup, teardown);
	tcase_add_test(reg, test_reg_fields);
	tcase_add_test(reg, test_reg_access_ok);
	tcase_add_test(reg, test_reg_macro_runtime_access);
	tcase_add_test(reg, test_reg_remote_without_local_write);
	tcase_add_test(reg, test_reg_on_demand);
	tcase_add_test(reg, test_reg_unknown_bits);
	tcase_add_test(reg, test_reg_length_zero);
	tcase_add_test(reg, test_reg_wrapping);
	tcase_add_test(reg, test_reg_unmapped);
	tcase_add_test(reg, test_reg_read_only_pages);
	tcase_add_test(reg, test_reg_iova);
	tcase_add_test(reg, test_dereg_releases);
	suite_add_tcase(s, reg);

	tcase_add_checked_fixture(rereg, setup, teardown);
	tcase_add_test(rereg, test_rereg_input_errors);
	tcase_add_test(rereg, test_rereg_cmd_errors);
	tcase_add_test(rereg, test_rereg_access);
	tcase_add_test(rereg, test_rereg_pd);
	tcase_add_test(rereg, test_rereg_pd_other_context);
	tcase_add_test(rereg, test_rereg_translation);
	suite_add_tcase(s, rereg);
	return s;
}

int main(void)
{
	return vt_run(mr_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
