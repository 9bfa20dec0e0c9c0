/* SPDX-License-Identifier: MIT */
/*
 * The emulated mana_ib (emu/mana/kern, backend/mana.h's emu side): the
 * object graph DPDK's mana PMD builds, each check with the errno
 * drivers/infiniband/hw/mana gives, and what reaches the firmware (ids,
 * the vPort's owner, the replicated indirection table).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "backend/backend_impl.h"
#include "backend/mana.h"
#include "emu/mana/kern/mana_kern.h"
#include "mlx5emu/mlx5emu.h"

#include "ut_env.h"
#include "ut_run.h"

static const struct manabe_ops *be = &manabe_emu_ops;
static struct manabe_ctx *ctx;
static int cmd_fd;

static void *buf(size_t len)
{
	void *p = aligned_alloc(4096, len);

	ck_assert_ptr_nonnull(p);
	memset(p, 0, len);
	return p;
}

static void setup(void)
{
	ck_assert_int_eq(be->open(0, -1, &ctx, &cmd_fd), 0);
}

static void teardown(void)
{
	struct mana_fw_counts c;

	mana_fw_counts(ctx->dev->fw, &c);
	be->close(ctx);
	close(cmd_fd);
}

START_TEST(device_and_queries)
{
	struct mlx5be_device_info info[4];
	struct manabe_device_attr a;
	struct mlx5be_port_attr pa;
	void *page;

	ck_assert_int_eq(be->get_devices(info, 4), 1);
	ck_assert_str_eq(info[0].name, "mana_0");
	ck_assert_uint_eq(info[0].vendor_id, 0x1414);
	ck_assert_uint_eq(info[0].vendor_part_id, 2);
	ck_assert_int_eq(be->query_device(ctx, &a), 0);
	ck_assert_uint_eq(a.max_qp_wr, 256);
	ck_assert_uint_eq(a.max_cqe, 256);
	ck_assert_uint_eq(a.max_send_sge, 30);
	ck_assert_uint_eq(a.max_recv_sge, 15);
	ck_assert_uint_eq(a.raw_packet_caps, IBV_RAW_PACKET_CAP_IP_CSUM);
	ck_assert_uint_eq(a.phys_port_cnt, 2);
	ck_assert_int_eq(be->query_port(ctx, 2, &pa), 0);
	ck_assert_uint_eq(pa.state, IBV_PORT_ACTIVE);
	ck_assert_uint_eq(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	ck_assert_int_eq(be->query_port(ctx, 3, &pa), -EINVAL);
	ck_assert_int_eq(be->query_port(ctx, 0, &pa), -EINVAL);
	/* cmd_fd's first page is the doorbell page, writable, and the
	 * device's own view sees what is stored there */
	page = mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, cmd_fd, 0);
	ck_assert_ptr_ne(page, MAP_FAILED);
	*(volatile uint64_t *)page = 0x1234500000007ull;
	ck_assert_uint_eq(*(volatile uint64_t *)ctx->db_page, 0x1234500000007ull);
	munmap(page, 4096);
}
END_TEST

START_TEST(raw_send_qp)
{
	struct manabe_obj *pd, *pd2, *cq, *cq2, *qp, *qp2, *other;
	struct manabe_raw_qp_resp r;
	void *cqb = buf(4096), *cqb2 = buf(4096), *sq = buf(8192), *sq2 = buf(8192);
	uint32_t pdn, pdn2;
	struct mana_fw_vport v;
	struct mana_fw_wq w;

	ck_assert_int_eq(be->alloc_pd(ctx, &pd, &pdn), 0);
	ck_assert_int_eq(be->alloc_pd(ctx, &pd2, &pdn2), 0);
	ck_assert_uint_ne(pdn, pdn2);
	ck_assert_int_eq(be->create_cq(ctx, cqb, 257, -1, 0, &cq), -EINVAL);
	ck_assert_int_eq(be->create_cq(ctx, cqb, 64, -1, 0, &cq), 0);
	ck_assert_int_eq(be->create_cq(ctx, cqb2, 64, -1, 0, &cq2), 0);

	/* mana_ib_create_qp_raw()'s checks, in order */
	ck_assert_int_eq(be->create_qp_raw(pd, 0, cq, sq, 8192, 64, 1, &qp, &r), -EINVAL);
	ck_assert_int_eq(be->create_qp_raw(pd, 3, cq, sq, 8192, 64, 1, &qp, &r), -EINVAL);
	ck_assert_int_eq(be->create_qp_raw(pd, 1, cq, sq, 8192, 257, 1, &qp, &r), -EINVAL);
	ck_assert_int_eq(be->create_qp_raw(pd, 1, cq, sq, 8192, 64, 31, &qp, &r), -EINVAL);
	ck_assert_int_eq(mana_fw_vport_get(ctx->dev->fw, 0, &v), 0);
	ck_assert(!v.tx_configured);	/* refusals configured nothing */

	ck_assert_int_eq(be->create_qp_raw(pd, 1, cq, sq, 8192, 64, 1, &qp, &r), 0);
	ck_assert_int_eq(mana_fw_vport_get(ctx->dev->fw, 0, &v), 0);
	ck_assert(v.tx_configured);
	ck_assert_uint_eq(v.pd_id, pdn);
	ck_assert_uint_eq(v.db_page, ctx->db_page_id);
	ck_assert_uint_eq(r.tx_vp_offset, v.tx_vport_offset);
	ck_assert_int_eq(mana_fw_wq_by_id(ctx->dev->fw, MANA_FW_GDMA_SQ, r.sqid, &w), 0);
	ck_assert_uint_eq(w.cq_id, r.cqid);
	ck_assert_uint_eq(w.wq_addr, (uintptr_t)sq);
	ck_assert_uint_eq(w.cq_addr, (uintptr_t)cqb);
	ck_assert_uint_eq(w.cq_size, 64 * 64);

	/* another PD on the same port: the vPort has its owner; this PD on
	 * the other port: both vPort failures, ENODEV as upstream answers */
	ck_assert_int_eq(be->create_qp_raw(pd2, 1, cq2, sq2, 8192, 64, 1, &qp2, &r), -ENODEV);
	ck_assert_int_eq(be->create_qp_raw(pd, 2, cq2, sq2, 8192, 64, 1, &qp2, &r), -ENODEV);
	/* the bound CQ cannot serve a second QP: its region is the device's */
	ck_assert_int_eq(be->create_qp_raw(pd, 1, cq, sq2, 8192, 64, 1, &qp2, &r), -EPROTO);
	/* objects in use */
	ck_assert_int_eq(be->obj_destroy(cq), -EBUSY);
	ck_assert_int_eq(be->obj_destroy(pd), -EBUSY);

	ck_assert_int_eq(be->obj_destroy(qp), 0);
	ck_assert_int_eq(mana_fw_wq_by_id(ctx->dev->fw, MANA_FW_GDMA_SQ, r.sqid, &w), -ENOENT);
	/* the port is free for the other PD now */
	ck_assert_int_eq(be->create_qp_raw(pd2, 1, cq2, sq2, 8192, 64, 1, &other, &r), 0);
	ck_assert_int_eq(be->obj_destroy(other), 0);
	ck_assert_int_eq(be->obj_destroy(cq), 0);
	ck_assert_int_eq(be->obj_destroy(cq2), 0);
	ck_assert_int_eq(be->obj_destroy(pd), 0);
	ck_assert_int_eq(be->obj_destroy(pd2), 0);

	struct mana_fw_counts c;

	mana_fw_counts(ctx->dev->fw, &c);
	ck_assert_uint_eq(c.pds + c.regions + c.wqs + c.mrs, 0);
	free(cqb);
	free(cqb2);
	free(sq);
	free(sq2);
}
END_TEST

START_TEST(unpinnable_buffers)
{
	struct manabe_obj *pd, *cq, *mr;
	uint32_t pdn, lkey, rkey;
	void *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	munmap((char *)p + 4096, 4096);
	ck_assert_int_eq(be->alloc_pd(ctx, &pd, &pdn), 0);
	ck_assert_int_eq(be->create_cq(ctx, p, 128, -1, 0, &cq), -EFAULT);
	ck_assert_int_eq(be->reg_mr(pd, p, 8192, (uintptr_t)p, 0, &mr, &lkey, &rkey), -EFAULT);
	mprotect(p, 4096, PROT_READ);
	ck_assert_int_eq(be->reg_mr(pd, p, 64, (uintptr_t)p,
				    IBV_ACCESS_LOCAL_WRITE, &mr, &lkey, &rkey), -EFAULT);
	ck_assert_int_eq(be->reg_mr(pd, p, 64, (uintptr_t)p, 0, &mr, &lkey, &rkey), 0);
	ck_assert_int_eq(mana_fw_mr_check(ctx->dev->fw, lkey, (uintptr_t)p, 64, false), 0);
	ck_assert_int_eq(mana_fw_mr_check(ctx->dev->fw, lkey, (uintptr_t)p, 64, true), -EACCES);
	/* mana_ib's VALID_MR_FLAGS, and remote write without local write */
	ck_assert_int_eq(be->reg_mr(pd, p, 64, (uintptr_t)p, IBV_ACCESS_MW_BIND,
				    &mr, &lkey, &rkey), -EINVAL);
	ck_assert_int_eq(be->obj_destroy(pd), -EBUSY);
	ck_assert_int_eq(be->obj_destroy(mr), 0);
	ck_assert_int_eq(be->obj_destroy(pd), 0);
	munmap(p, 4096);
}
END_TEST

START_TEST(rss_qp)
{
	struct manabe_obj *pd, *cq[3], *wq[3], *tbl, *big, *qp;
	struct manabe_rss_entry e[4];
	void *bufs[6];
	uint8_t key[40];
	uint32_t pdn;
	struct mana_fw_vport v;

	for (int i = 0; i < 40; i++)
		key[i] = (uint8_t)(i * 7);
	ck_assert_int_eq(be->alloc_pd(ctx, &pd, &pdn), 0);
	for (int i = 0; i < 3; i++) {
		bufs[2 * i] = buf(4096);
		bufs[2 * i + 1] = buf(4096);
		ck_assert_int_eq(be->create_cq(ctx, bufs[2 * i], 64, -1, 0, &cq[i]), 0);
		ck_assert_int_eq(be->create_wq(pd, cq[i], bufs[2 * i + 1], 4096, 64, 1,
					       &wq[i]), 0);
	}
	ck_assert_int_eq(be->create_ind_table(ctx, wq, 14, &big), -EINVAL);
	ck_assert_int_eq(be->create_ind_table(ctx, wq, 7, &big), -EINVAL);
	ck_assert_int_eq(be->create_ind_table(ctx, wq, 1, &tbl), 0);
	ck_assert_int_eq(be->obj_destroy(wq[0]), -EBUSY);

	ck_assert_int_eq(be->create_qp_rss(pd, 1, tbl, 64, 16, 1, key, 40, &qp, e), -EINVAL);
	ck_assert_int_eq(be->create_qp_rss(pd, 1, tbl, 64, 1, 2, key, 40, &qp, e), -EINVAL);
	ck_assert_int_eq(be->create_qp_rss(pd, 3, tbl, 64, 1, 1, key, 40, &qp, e), -EINVAL);
	ck_assert_int_eq(be->create_qp_rss(pd, 2, tbl, 64, 1, 1, key, 40, &qp, e), 0);
	ck_assert_uint_ne(e[0].wqid, e[1].wqid);
	ck_assert_uint_ne(e[0].cqid, e[1].cqid);
	ck_assert_int_eq(mana_fw_vport_get(ctx->dev->fw, 1, &v), 0);
	ck_assert(v.rx_enable && v.rss_enable);
	for (int i = 0; i < 64; i++)
		ck_assert_uint_eq(v.table[i], e[i % 2].wqid);
	ck_assert_uint_eq(v.default_rq, e[1].wqid);	/* the last WQ */
	ck_assert_mem_eq(v.key, key, 40);

	ck_assert_int_eq(be->obj_destroy(tbl), -EBUSY);
	ck_assert_int_eq(be->obj_destroy(qp), 0);
	ck_assert_int_eq(be->obj_destroy(tbl), 0);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(be->obj_destroy(cq[i]), -EBUSY);
		ck_assert_int_eq(be->obj_destroy(wq[i]), 0);
		ck_assert_int_eq(be->obj_destroy(cq[i]), 0);
	}
	ck_assert_int_eq(be->obj_destroy(pd), 0);

	struct mana_fw_counts c;

	mana_fw_counts(ctx->dev->fw, &c);
	ck_assert_uint_eq(c.pds + c.regions + c.wqs, 0);
	for (int i = 0; i < 6; i++)
		free(bufs[i]);
}
END_TEST

/* The next event record on @fd, within a second. */
static struct manabe_event next_event(int fd)
{
	struct manabe_event ev = { 0 };
	struct pollfd p = { .fd = fd, .events = POLLIN };

	ck_assert_int_eq(poll(&p, 1, 1000), 1);
	ck_assert_int_eq(read(fd, &ev, sizeof(ev)), (ssize_t)sizeof(ev));
	return ev;
}

/* A vPort's carrier: the port query and PORT_ERR / PORT_ACTIVE to every
 * context, once per change; events MANA has not are refused. */
START_TEST(carrier_events)
{
	struct manabe_ctx *c2;
	struct mlx5be_port_attr pa;
	struct manabe_event ev;
	int p[2], fd2;

	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	ck_assert_int_eq(be->open(0, p[1], &c2, &fd2), 0);
	ck_assert_int_eq(mana_kern_inject(1, MLX5EMU_FAULT_PORT_DOWN, 1), -ENODEV);
	ck_assert_int_eq(mana_kern_inject(0, MLX5EMU_FAULT_PORT_DOWN, 3), -EINVAL);
	ck_assert_int_eq(mana_kern_inject(0, MLX5EMU_FAULT_QP_FATAL, 0), -EOPNOTSUPP);

	ck_assert_int_eq(mana_kern_inject(0, MLX5EMU_FAULT_PORT_DOWN, 2), 0);
	ev = next_event(p[0]);
	ck_assert_uint_eq(ev.type, IBV_EVENT_PORT_ERR);
	ck_assert_uint_eq(ev.port, 2);
	ck_assert_int_eq(be->query_port(c2, 2, &pa), 0);
	ck_assert_int_eq(pa.state, IBV_PORT_DOWN);
	ck_assert_int_eq(pa.phys_state, 3);		/* Disabled */
	ck_assert_int_eq(be->query_port(c2, 1, &pa), 0);
	ck_assert_int_eq(pa.state, IBV_PORT_ACTIVE);
	/* down again: no change, no event */
	ck_assert_int_eq(mana_kern_inject(0, MLX5EMU_FAULT_PORT_DOWN, 2), 0);
	ck_assert_int_eq(mana_kern_inject(0, MLX5EMU_FAULT_PORT_UP, 2), 0);
	ev = next_event(p[0]);
	ck_assert_uint_eq(ev.type, IBV_EVENT_PORT_ACTIVE);
	ck_assert_uint_eq(ev.port, 2);
	ck_assert_int_eq(be->query_port(c2, 2, &pa), 0);
	ck_assert_int_eq(pa.state, IBV_PORT_ACTIVE);
	ck_assert_int_eq(pa.phys_state, 5);
	ck_assert_int_eq(read(p[0], &ev, sizeof(ev)), -1);
	ck_assert_int_eq(errno, EAGAIN);
	be->close(c2);
	close(fd2);
	/* a closed context hears nothing, and its descriptor is not kept */
	ck_assert_int_eq(mana_kern_inject(0, MLX5EMU_FAULT_PORT_DOWN, 1), 0);
	close(p[1]);
	ck_assert_int_eq(read(p[0], &ev, sizeof(ev)), 0);	/* EOF */
	close(p[0]);
}
END_TEST

/* A fatal error: DEVICE_FATAL, every command but a destroy is EIO, the
 * destroys still release what they name. */
START_TEST(device_fatal)
{
	struct manabe_obj *pd, *cq, *mr;
	struct manabe_ctx *c2;
	struct manabe_device_attr a;
	struct mlx5be_port_attr pa;
	struct manabe_event ev;
	void *cqb = buf(4096);
	uint32_t pdn, lkey, rkey;
	int p[2], fd2;

	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	ck_assert_int_eq(be->open(0, p[1], &c2, &fd2), 0);
	close(p[1]);
	ck_assert_int_eq(be->alloc_pd(c2, &pd, &pdn), 0);
	ck_assert_int_eq(be->create_cq(c2, cqb, 64, -1, 0, &cq), 0);
	ck_assert_int_eq(mana_kern_inject(0, MLX5EMU_FAULT_DEVICE_FATAL, 0), 0);
	ev = next_event(p[0]);
	ck_assert_uint_eq(ev.type, IBV_EVENT_DEVICE_FATAL);
	ck_assert_int_eq(mana_kern_inject(0, MLX5EMU_FAULT_DEVICE_FATAL, 0), 0);
	ck_assert_int_eq(read(p[0], &ev, sizeof(ev)), -1);	/* only once */

	ck_assert_int_eq(be->alloc_pd(c2, &pd, &pdn), -EIO);
	ck_assert_int_eq(be->reg_mr(pd, cqb, 4096, (uintptr_t)cqb, 0, &mr,
				    &lkey, &rkey), -EIO);
	ck_assert_int_eq(be->query_device(c2, &a), -EIO);
	ck_assert_int_eq(be->query_port(c2, 1, &pa), -EIO);
	ck_assert_int_eq(be->open(0, -1, &c2, &fd2), -EIO);
	ck_assert_int_eq(be->obj_destroy(cq), 0);
	ck_assert_int_eq(be->obj_destroy(pd), 0);
	be->close(c2);
	close(fd2);
	close(p[0]);
	free(cqb);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_kern");
	TCase *tc = tcase_create("mana_ib");

	ut_clear_env();
	setenv("MLX5EMU_NUM_DEVICES", "0", 1);
	setenv("MLX5EMU_MANA_DEVICES", "1", 1);
	setenv("MLX5EMU_NUM_PORTS", "2", 1);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, device_and_queries);
	tcase_add_test(tc, raw_send_qp);
	tcase_add_test(tc, unpinnable_buffers);
	tcase_add_test(tc, rss_qp);
	tcase_add_test(tc, carrier_events);
	tcase_add_test(tc, device_fatal);
	suite_add_tcase(s, tc);
	return ut_run(s);
}
