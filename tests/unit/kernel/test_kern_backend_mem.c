/* SPDX-License-Identifier: MIT */
/*
 * umem registration and UARs through the ops.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "test_kern_backend.h"

#define ALL_PGSZ (UINT64_MAX & ~(uint64_t)4095)

static struct mlx5be_ctx *ctx;
static int cmd_fd;
static struct emu_fw *fw;

static void setup(void)
{
	ctx = kbt_open(&cmd_fd);
	fw = kbt_fw(ctx);
}

static void teardown(void)
{
	BE->close(ctx);
}

static void *map_pages(size_t n, int prot)
{
	void *p = mmap(NULL, n * 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	return p;
}

/* Whether none of the n pages at @p is mapped (mincore: ENOMEM). */
static bool pages_unmapped(const char *p, size_t n)
{
	unsigned char vec;

	for (size_t i = 0; i < n; i++)
		if (mincore((void *)(p + i * 4096), 4096, &vec) == 0 ||
		    errno != ENOMEM)
			return false;
	return true;
}

/*
 * umem_reg must fail with @err and register nothing.  With a @hole (pages
 * the test unmapped), an attempt during which another thread of the
 * process (the sanitizer's allocator, a library) mapped over the hole
 * proves nothing: it is undone and false returned.
 */
static bool reg_fails(void *addr, size_t size, uint32_t access, uint64_t pgsz,
		      int err, const char *hole, size_t hole_n)
{
	unsigned int before = emu_fw_obj_count(fw, EMU_FW_OBJ_UMEM);
	unsigned long cmds = kbt_fw_cmds();
	struct mlx5be_umem *u;
	uint32_t id = 0x5a5a5a5a;
	int saved;

	errno = 0;
	u = BE->umem_reg(ctx, addr, size, access, pgsz, &id);
	saved = errno;
	if (hole && !pages_unmapped(hole, hole_n)) {
		if (u)
			ck_assert_int_eq(BE->umem_dereg(u), 0);
		return false;
	}
	ck_assert_ptr_null(u);
	ck_assert_int_eq(saved, err);
	ck_assert_uint_eq(id, 0x5a5a5a5a);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_UMEM), before);
	ck_assert_uint_eq(kbt_fw_cmds(), cmds);
	return true;
}

static void ck_reg_fails(void *addr, size_t size, uint32_t access,
			 uint64_t pgsz, int err)
{
	reg_fails(addr, size, access, pgsz, err, NULL, 0);
}

/*
 * Maps three pages, unmaps @hole_n of them from @hole_first, and expects
 * registering [p + off, p + off + size) for writing with @pgsz to fail
 * with EFAULT; an attempt whose hole was mapped over is made again with
 * fresh pages.
 */
static void ck_reg_fails_unmapped(size_t hole_first, size_t hole_n,
				  size_t off, size_t size, uint64_t pgsz)
{
	for (int attempt = 0; attempt < 20; attempt++) {
		char *p = map_pages(3, PROT_READ | PROT_WRITE);
		char *hole = p + hole_first * 4096;
		bool done;

		ck_assert_int_eq(munmap(hole, hole_n * 4096), 0);
		done = reg_fails(p + off, size, IBV_ACCESS_LOCAL_WRITE, pgsz,
				 EFAULT, hole, hole_n);
		/* Only our own pages: what filled the hole is not ours. */
		for (size_t i = 0; i < 3; i++)
			if (i < hole_first || i >= hole_first + hole_n)
				munmap(p + i * 4096, 4096);
		if (done)
			return;
	}
	ck_abort_msg("every hole was mapped over by another thread");
}

/* ---- umem ---- */

START_TEST(test_umem_reg_dereg)
{
	unsigned int before = emu_fw_obj_count(fw, EMU_FW_OBJ_UMEM);
	char *p = map_pages(4, PROT_READ | PROT_WRITE);
	struct mlx5be_umem *u;
	uint16_t owner;
	uint32_t id;

	u = BE->umem_reg(ctx, p + 0x148, 3 * 4096, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			 IBV_ACCESS_RELAXED_ORDERING, ALL_PGSZ, &id);
	ck_assert_ptr_nonnull(u);
	ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_UMEM, id, &owner));
	ck_assert_uint_eq(owner, kbt_uid(ctx));
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_UMEM), before + 1);
	ck_assert_int_eq(BE->umem_dereg(u), 0);
	ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_UMEM, id, NULL));
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_UMEM), before);
	/* Read-only memory, registered for reading only. */
	ck_assert_int_eq(mprotect(p, 4 * 4096, PROT_READ), 0);
	u = BE->umem_reg(ctx, p, 4096, IBV_ACCESS_REMOTE_READ, ALL_PGSZ, &id);
	ck_assert_ptr_nonnull(u);
	ck_assert_int_eq(BE->umem_dereg(u), 0);
	munmap(p, 4 * 4096);
}
END_TEST

/* Pinning an unmapped page: EFAULT (a hole in the middle, the end, all). */
START_TEST(test_umem_unmapped)
{
	ck_reg_fails_unmapped(1, 1, 0, 3 * 4096, ALL_PGSZ);
	ck_reg_fails_unmapped(1, 1, 4000, 200, ALL_PGSZ);
	ck_reg_fails_unmapped(1, 1, 4096, 8, ALL_PGSZ);
	ck_reg_fails_unmapped(2, 1, 2 * 4096 + 100, 8192 - 100, ALL_PGSZ);
	ck_reg_fails_unmapped(0, 3, 0, 4096, ALL_PGSZ);
}
END_TEST

/* Pinning for write (LOCAL_WRITE/REMOTE_WRITE) needs writable pages;
 * PROT_NONE cannot be pinned at all. */
START_TEST(test_umem_protections)
{
	char *p = map_pages(2, PROT_READ);

	ck_reg_fails(p, 4096, IBV_ACCESS_LOCAL_WRITE, ALL_PGSZ, EFAULT);
	ck_reg_fails(p, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		     ALL_PGSZ, EFAULT);
	ck_assert_int_eq(mprotect(p + 4096, 4096, PROT_NONE), 0);
	ck_reg_fails(p, 8192, IBV_ACCESS_REMOTE_READ, ALL_PGSZ, EFAULT);
	munmap(p, 8192);
}
END_TEST

START_TEST(test_umem_size0)
{
	char *p = map_pages(1, PROT_READ | PROT_WRITE);

	ck_reg_fails(p, 0, IBV_ACCESS_LOCAL_WRITE, ALL_PGSZ, EINVAL);
	/* A range that wraps around the address space. */
	ck_reg_fails(p, SIZE_MAX - 100, IBV_ACCESS_LOCAL_WRITE, ALL_PGSZ, EINVAL);
	munmap(p, 4096);
}
END_TEST

/* The method takes LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ and
 * RELAXED_ORDERING; ib_check_mr_access wants LOCAL_WRITE with REMOTE_WRITE.
 * EINVAL comes before the range is looked at. */
static const uint32_t bad_access[] = {
	IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC,
	IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND,
	IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ZERO_BASED,
	IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND,
	IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_HUGETLB,
	IBV_ACCESS_REMOTE_WRITE,
	IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	1u << 30,
};

START_TEST(test_umem_bad_access)
{
	char *p = map_pages(1, PROT_READ | PROT_WRITE);

	ck_reg_fails(p, 4096, bad_access[_i], ALL_PGSZ, EINVAL);
	ck_reg_fails(NULL, 4096, bad_access[_i], ALL_PGSZ, EINVAL);
	munmap(p, 4096);
}
END_TEST

/* devx_umem_find_best_pgsize: some page size in [4 KiB, size]. */
START_TEST(test_umem_pgsz)
{
	char *p = map_pages(4, PROT_READ | PROT_WRITE);
	struct mlx5be_umem *u;
	uint32_t id;

	ck_reg_fails(p, 16384, IBV_ACCESS_LOCAL_WRITE, 0, EINVAL);
	ck_reg_fails(p, 16384, IBV_ACCESS_LOCAL_WRITE, 0x800, EINVAL);
	ck_reg_fails(p, 16384, IBV_ACCESS_LOCAL_WRITE, 1ull << 21, EINVAL);
	/* EFAULT first: the pages are pinned before the page size is picked. */
	ck_reg_fails_unmapped(2, 1, 2 * 4096, 4096, 0);
	u = BE->umem_reg(ctx, p, 8192, IBV_ACCESS_LOCAL_WRITE, 1ull << 13, &id);
	ck_assert_ptr_nonnull(u);
	ck_assert_int_eq(BE->umem_dereg(u), 0);
	u = BE->umem_reg(ctx, p, 100, IBV_ACCESS_LOCAL_WRITE, 4096, &id);
	ck_assert_ptr_nonnull(u);
	ck_assert_int_eq(BE->umem_dereg(u), 0);
	munmap(p, 4 * 4096);
}
END_TEST

/*
 * The page size the kernel picks (devx_umem_find_best_pgsize over
 * ib_umem_find_best_pgsz, process pages standing for physical ones), as
 * firmware received it in CREATE_UMEM: the smallest offered size that
 * holds the whole range in one page, else the largest offered, never
 * above the umem's size rounded up; above 4 KiB halved until the umem
 * starts and ends on a page bound.  And the rights of the MTT entries.
 */
static const struct {
	uint32_t off, len;	/* from a 64 KiB aligned address */
	uint64_t bitmap;
	unsigned int shift;	/* the umem's page size */
	uint32_t size;		/* what firmware covers: to the last page's end */
} pgsz_cases[] = {
	{ 0, 65536, ALL_PGSZ, 16, 65536 },
	{ 0, 8192, ALL_PGSZ, 13, 8192 },
	{ 0x1000, 8192, ALL_PGSZ, 12, 8192 },	/* 8 KiB: not aligned */
	{ 0, 8192, 0x1000 | 0x4000, 12, 8192 },	/* 16 KiB: above the size */
	{ 0, 12288, ALL_PGSZ, 12, 12288 },	/* 16 KiB: its end */
	{ 0x100, 100, ALL_PGSZ, 12, 4096 - 0x100 },
	{ 0x10, 65536, ALL_PGSZ, 12, 17 * 4096 - 0x10 },
	/* 64 KiB only, but neither start nor length fits: halved to 4 KiB */
	{ 0x1000, 65536, 0x10000, 12, 65536 },
	{ 0, 131072, 0x1000 | 0x10000, 16, 131072 },
};

START_TEST(test_umem_pgsz_choice)
{
	char *map = map_pages(64, PROT_READ | PROT_WRITE), *p;
	struct emu_fw_umem *um;
	struct emu_fw_obj *obj;
	struct mlx5be_umem *u;
	uint32_t id;

	p = (char *)(((uintptr_t)map + 65535) & ~(uintptr_t)65535);
	u = BE->umem_reg(ctx, p + pgsz_cases[_i].off, pgsz_cases[_i].len,
			 IBV_ACCESS_LOCAL_WRITE, pgsz_cases[_i].bitmap, &id);
	ck_assert_msg(u, "umem_reg: %s", strerror(errno));
	obj = emu_fw_obj_get(fw, EMU_FW_OBJ_UMEM, id);
	ck_assert_ptr_nonnull(obj);
	um = emu_fw_to_umem(obj);
	ck_assert_uint_eq(um->page_shift, pgsz_cases[_i].shift);
	ck_assert_ptr_eq(um->addr, p + pgsz_cases[_i].off);
	ck_assert_uint_eq(um->size, pgsz_cases[_i].size);
	ck_assert_uint_eq(um->access, EMU_FW_UMEM_READ | EMU_FW_UMEM_WRITE);
	emu_fw_obj_put(obj);
	ck_assert_int_eq(BE->umem_dereg(u), 0);
	munmap(map, 64 * 4096);
}
END_TEST

/* Registered without write access, the pages are pinned for reading and
 * their MTT entries carry rd_en only: the device may not write them. */
START_TEST(test_umem_read_only_mtt)
{
	char *p = map_pages(2, PROT_READ | PROT_WRITE);
	struct emu_fw_obj *obj;
	struct mlx5be_umem *u;
	uint32_t id;

	u = BE->umem_reg(ctx, p, 8192, IBV_ACCESS_REMOTE_READ, ALL_PGSZ, &id);
	ck_assert_ptr_nonnull(u);
	obj = emu_fw_obj_get(fw, EMU_FW_OBJ_UMEM, id);
	ck_assert_ptr_nonnull(obj);
	ck_assert_uint_eq(emu_fw_to_umem(obj)->access, EMU_FW_UMEM_READ);
	ck_assert(!emu_fw_umem_writable(emu_fw_to_umem(obj)));
	emu_fw_obj_put(obj);
	ck_assert_uint_eq(kbt_fw_last_opcode(), MLX5_CMD_OP_CREATE_UMEM);
	ck_assert_uint_eq(kbt_fw_last_uid(), kbt_uid(ctx));
	ck_assert_int_eq(BE->umem_dereg(u), 0);
	ck_assert_uint_eq(kbt_fw_last_opcode(), MLX5_CMD_OP_DESTROY_UMEM);
	munmap(p, 8192);
}
END_TEST

/* A umem a CQ lives in cannot go: firmware refuses DESTROY_UMEM (bad
 * resource state: EINVAL), it stays registered; after the CQ it can. */
START_TEST(test_umem_dereg_busy)
{
	struct kbt_cq cq;
	uint16_t owner;

	kbt_cq_create(ctx, &cq);
	ck_assert_int_eq(BE->umem_dereg(cq.buf.umem), -EINVAL);
	ck_assert_int_eq(BE->umem_dereg(cq.dbr.umem), -EINVAL);
	ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_UMEM, cq.buf.id, &owner));
	ck_assert_uint_eq(owner, kbt_uid(ctx));
	ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_UMEM, cq.dbr.id, NULL));
	ck_assert_int_eq(BE->obj_destroy(cq.obj), 0);
	cq.obj = NULL;
	kbt_cq_destroy(&cq);
	ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_UMEM, cq.buf.id, NULL));
}
END_TEST

/* ---- UARs ---- */

/* A UAR is a page of cmd_fd at mmap_off: what the application writes
 * through its own mapping the kernel (and the device) sees. */
START_TEST(test_uar_alloc_mmap)
{
	const uint32_t flags[] = { MLX5DV_UAR_ALLOC_TYPE_BF,
				   MLX5DV_UAR_ALLOC_TYPE_NC };
	unsigned int before = emu_fw_obj_count(fw, EMU_FW_OBJ_UAR);
	struct mlx5be_uar_info info[2];
	struct mlx5be_uar *uar[2];

	for (int i = 0; i < 2; i++) {
		volatile uint64_t *app;
		uint16_t owner;

		memset(&info[i], 0, sizeof(info[i]));
		uar[i] = BE->uar_alloc(ctx, flags[i], &info[i]);
		ck_assert_ptr_nonnull(uar[i]);
		ck_assert_uint_ne(info[i].page_id, 0);
		ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_UAR, info[i].page_id, &owner));
		ck_assert_uint_eq(owner, kbt_uid(ctx));
		ck_assert_int_eq(info[i].mmap_off % 4096, 0);
		app = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, cmd_fd,
			   info[i].mmap_off);
		ck_assert_ptr_ne((void *)app, MAP_FAILED);
		app[0x800 / 8] = 0x1122334455667788ull + i;	/* a doorbell */
		ck_assert_uint_eq(((volatile uint64_t *)uar[i]->page)[0x800 / 8],
				  0x1122334455667788ull + i);
		munmap((void *)app, 4096);
	}
	ck_assert_uint_ne(info[0].page_id, info[1].page_id);
	ck_assert_int_ne(info[0].mmap_off, info[1].mmap_off);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_UAR), before + 2);
	for (int i = 0; i < 2; i++) {
		BE->uar_free(uar[i]);
		ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_UAR, info[i].page_id, NULL));
	}
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_UAR), before);
}
END_TEST

START_TEST(test_uar_bad_flags)
{
	const uint32_t bad[] = { 2, 3, 0x80000000u, UINT32_MAX };
	unsigned int before = emu_fw_obj_count(fw, EMU_FW_OBJ_UAR);
	unsigned long cmds = kbt_fw_cmds();

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct mlx5be_uar_info info = { .page_id = 77 };

		errno = 0;
		ck_assert_ptr_null(BE->uar_alloc(ctx, bad[i], &info));
		ck_assert_int_eq(errno, EINVAL);
		ck_assert_uint_eq(info.page_id, 77);
	}
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_UAR), before);
	ck_assert_uint_eq(kbt_fw_cmds(), cmds);
}
END_TEST

/* Freeing the UAR a CQ rings: the index stays allocated until the CQ is
 * gone (firmware refuses DEALLOC_UAR while it is used), then goes. */
START_TEST(test_uar_free_in_use)
{
	unsigned int before = emu_fw_obj_count(fw, EMU_FW_OBJ_UAR);
	struct kbt_cq cq;
	uint32_t page;

	kbt_cq_create(ctx, &cq);
	page = cq.uar_info.page_id;
	BE->uar_free(cq.uar);
	cq.uar = NULL;
	ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_UAR, page, NULL));
	ck_assert_int_eq(BE->obj_destroy(cq.obj), 0);
	cq.obj = NULL;
	ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_UAR, page, NULL));
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_UAR), before);
	kbt_cq_destroy(&cq);
}
END_TEST

Suite *kbt_mem_suite(void)
{
	Suite *s = suite_create("kern_backend_mem");
	TCase *tc = tcase_create("umem");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_umem_reg_dereg);
	tcase_add_test(tc, test_umem_unmapped);
	tcase_add_test(tc, test_umem_protections);
	tcase_add_test(tc, test_umem_size0);
	tcase_add_loop_test(tc, test_umem_bad_access, 0,
			    sizeof(bad_access) / sizeof(bad_access[0]));
	tcase_add_test(tc, test_umem_pgsz);
	tcase_add_loop_test(tc, test_umem_pgsz_choice, 0,
			    sizeof(pgsz_cases) / sizeof(pgsz_cases[0]));
	tcase_add_test(tc, test_umem_read_only_mtt);
	tcase_add_test(tc, test_umem_dereg_busy);
	suite_add_tcase(s, tc);

	tc = tcase_create("uar");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_uar_alloc_mmap);
	tcase_add_test(tc, test_uar_bad_flags);
	tcase_add_test(tc, test_uar_free_in_use);
	suite_add_tcase(s, tc);
	return s;
}
