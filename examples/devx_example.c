/* SPDX-License-Identifier: MIT */
/*
 * mlx5emu-devx-example: driving the (emulated) ConnectX firmware through
 * DEVX, as DPDK- or UCX-style code does on hardware.
 *
 *   1. open mlx5_0 (or argv[1]) with MLX5DV_CONTEXT_FLAGS_DEVX
 *   2. QUERY_HCA_CAP (general, current) through mlx5dv_devx_general_cmd
 *   3. ALLOC_PD as a DEVX object
 *   4. a CQ made of DEVX parts: a umem for the CQE buffer, an 8-byte umem
 *      for the doorbell record, the EQ of vector 0, the non-cached UAR
 *   5. CREATE_CQ, QUERY_CQ, MODIFY_CQ (moderation), QUERY_CQ again
 *   6. a firmware error on purpose: CREATE_CQ with log_cq_size above the
 *      device's log_max_cq_sz fails with EREMOTEIO, and the outbox carries
 *      the status and syndrome
 *   7. everything destroyed again
 *
 * Each step is printed; the exit status is 0 when every step behaved as
 * expected (the failing CREATE_CQ included), 1 otherwise.
 *
 * It runs on the emulator by itself: built into <build>/bin and installed
 * into ${bindir}, beside the mlx5emu command, its RUNPATH leads to the
 * drop-in libraries (mlx5emu run -- mlx5emu-devx-example works as well).
 * Mailboxes are built with mlx5emu's prm/prm.h accessors (PRM_SET/PRM_GET,
 * big-endian and bit-exact like rdma-core's DEVX_SET/DEVX_GET).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"

#define CQ_LOG_SIZE 8	/* 256 CQEs of 64 bytes */

static int failures;

#define STEP(fmt, ...) printf("%-34s " fmt "\n", __VA_ARGS__)

static void fail(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(const char *what, const char *fmt, ...)
{
	va_list ap;

	printf("%-34s FAILED: ", what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failures++;
}

/* "BAD_PARAM" for 0x3: the PRM status name without its decorations. */
static const char *status_name(uint8_t status)
{
	static char buf[48];
	const char *name = NULL;
	size_t len;

	switch (status) {
#define X(sym, val, str) case val: name = #sym; break;
	PRM_CMD_STATUSES(X)
#undef X
	default:
		return "unknown";
	}
	name += strlen("MLX5_CMD_STAT_");
	len = strlen(name);
	if (len > 4 && !strcmp(name + len - 4, "_ERR"))
		len -= 4;
	snprintf(buf, sizeof(buf), "%.*s", (int)len, name);
	return buf;
}

static void print_fw_error(const char *call, int err, const void *out)
{
	printf("  %s: %s, status 0x%x (%s), syndrome 0x%x\n", call, strerror(err),
	       PRM_GET(mbox_out, out, status),
	       status_name(PRM_GET(mbox_out, out, status)),
	       PRM_GET(mbox_out, out, syndrome));
}

static struct ibv_context *open_devx(const char *name)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int n;

	list = ibv_get_device_list(&n);
	if (!list) {
		fail("ibv_get_device_list", "%s", strerror(errno));
		return NULL;
	}
	for (int i = 0; i < n && !ctx; i++) {
		if (strcmp(ibv_get_device_name(list[i]), name))
			continue;
		ctx = mlx5dv_open_device(list[i], &attr);
		if (!ctx)
			fail("mlx5dv_open_device", "%s: %s", name, strerror(errno));
	}
	if (!ctx && !failures)
		fail("mlx5dv_open_device", "no device %s among %d", name, n);
	ibv_free_device_list(list);
	return ctx;
}

struct umem {
	void *buf;
	struct mlx5dv_devx_umem *umem;
};

static bool umem_reg(struct ibv_context *ctx, struct umem *m, size_t size,
		     size_t align, const char *what)
{
	if (posix_memalign(&m->buf, align, size)) {
		fail(what, "out of memory");
		return false;
	}
	memset(m->buf, 0, size);
	m->umem = mlx5dv_devx_umem_reg(ctx, m->buf, size, IBV_ACCESS_LOCAL_WRITE);
	if (!m->umem) {
		fail(what, "mlx5dv_devx_umem_reg: %s", strerror(errno));
		free(m->buf);
		return false;
	}
	STEP("umem_id %u (%zu bytes)", what, m->umem->umem_id, size);
	return true;
}

static void umem_dereg(struct umem *m, const char *what)
{
	int ret;

	if (!m->umem)
		return;
	ret = mlx5dv_devx_umem_dereg(m->umem);
	if (ret)
		fail(what, "mlx5dv_devx_umem_dereg: %s", strerror(ret));
	else
		STEP("%s", what, "deregistered");
	free(m->buf);
}

static void fill_create_cq(void *in, unsigned int log_size, uint32_t uar_page,
			   uint32_t eqn, const struct umem *buf,
			   const struct umem *dbr)
{
	memset(in, 0, PRM_ST_SZ_BYTES(create_cq_in));
	PRM_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	PRM_SET(create_cq_in, in, cq_context.log_cq_size, log_size);
	PRM_SET(create_cq_in, in, cq_context.uar_page, uar_page);
	PRM_SET(create_cq_in, in, cq_context.c_eqn, eqn);
	PRM_SET(create_cq_in, in, cq_context.dbr_umem_valid, 1);
	PRM_SET(create_cq_in, in, cq_context.dbr_umem_id, dbr->umem->umem_id);
	PRM_SET(create_cq_in, in, cq_umem_id, buf->umem->umem_id);
	PRM_SET(create_cq_in, in, cq_umem_valid, 1);
}

static bool query_cq(struct mlx5dv_devx_obj *cq, uint32_t cqn, void *out)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_cq_in)] = { 0 };
	int ret;

	PRM_SET(query_cq_in, in, opcode, MLX5_CMD_OP_QUERY_CQ);
	PRM_SET(query_cq_in, in, cqn, cqn);
	memset(out, 0, PRM_ST_SZ_BYTES(query_cq_out));
	ret = mlx5dv_devx_obj_query(cq, in, sizeof(in), out,
				    PRM_ST_SZ_BYTES(query_cq_out));
	if (ret) {
		fail("QUERY_CQ", "%s", strerror(ret));
		if (ret == EREMOTEIO)
			print_fw_error("mlx5dv_devx_obj_query", ret, out);
		return false;
	}
	STEP("log_cq_size %u, uar_page 0x%x, c_eqn %u, cq_period %u, cq_max_count %u",
	     "QUERY_CQ",
	     PRM_GET(query_cq_out, out, cq_context.log_cq_size),
	     PRM_GET(query_cq_out, out, cq_context.uar_page),
	     PRM_GET(query_cq_out, out, cq_context.c_eqn),
	     PRM_GET(query_cq_out, out, cq_context.cq_period),
	     PRM_GET(query_cq_out, out, cq_context.cq_max_count));
	return true;
}

static void cq_steps(struct ibv_context *ctx, unsigned int log_max_cq_sz)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)];
	uint8_t out[PRM_ST_SZ_BYTES(create_cq_out)];
	uint8_t qout[PRM_ST_SZ_BYTES(query_cq_out)];
	uint8_t min[PRM_ST_SZ_BYTES(modify_cq_in)] = { 0 };
	uint8_t mout[PRM_ST_SZ_BYTES(modify_cq_out)] = { 0 };
	struct umem buf = { 0 }, dbr = { 0 };
	struct mlx5dv_devx_obj *cq, *bad;
	struct mlx5dv_devx_uar *uar;
	uint32_t eqn, cqn;
	int ret;

	ret = mlx5dv_devx_query_eqn(ctx, 0, &eqn);
	if (ret) {
		fail("mlx5dv_devx_query_eqn", "%s", strerror(ret));
		return;
	}
	STEP("vector 0 -> eqn %u", "mlx5dv_devx_query_eqn", eqn);
	uar = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	if (!uar) {
		fail("mlx5dv_devx_alloc_uar(NC)", "%s", strerror(errno));
		return;
	}
	STEP("page_id 0x%x, reg_addr = base_addr + 0x%tx", "mlx5dv_devx_alloc_uar(NC)",
	     uar->page_id, (char *)uar->reg_addr - (char *)uar->base_addr);
	if (!umem_reg(ctx, &buf, (size_t)64 << CQ_LOG_SIZE, 4096, "CQ buffer umem") ||
	    !umem_reg(ctx, &dbr, 8, 8, "CQ doorbell umem"))
		goto out;

	fill_create_cq(in, CQ_LOG_SIZE, uar->page_id, eqn, &buf, &dbr);
	cq = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	if (!cq) {
		fail("CREATE_CQ", "%s", strerror(errno));
		if (errno == EREMOTEIO)
			print_fw_error("mlx5dv_devx_obj_create", EREMOTEIO, out);
		goto out;
	}
	cqn = PRM_GET(create_cq_out, out, cqn);
	STEP("cqn 0x%x (%u CQEs)", "CREATE_CQ", cqn, 1u << CQ_LOG_SIZE);
	query_cq(cq, cqn, qout);

	/* Moderation: modify_field_select bit 0 = cq_period, bit 1 = cq_max_count. */
	PRM_SET(modify_cq_in, min, opcode, MLX5_CMD_OP_MODIFY_CQ);
	PRM_SET(modify_cq_in, min, cqn, cqn);
	PRM_SET(modify_cq_in, min,
		modify_field_select_resize_field_select.modify_field_select.modify_field_select,
		0x3);
	PRM_SET(modify_cq_in, min, cq_context.cq_period, 10);
	PRM_SET(modify_cq_in, min, cq_context.cq_max_count, 64);
	ret = mlx5dv_devx_obj_modify(cq, min, sizeof(min), mout, sizeof(mout));
	if (ret) {
		fail("MODIFY_CQ", "%s", strerror(ret));
		if (ret == EREMOTEIO)
			print_fw_error("mlx5dv_devx_obj_modify", ret, mout);
	} else {
		STEP("%s", "MODIFY_CQ", "cq_period 10, cq_max_count 64");
		if (query_cq(cq, cqn, qout) &&
		    (PRM_GET(query_cq_out, qout, cq_context.cq_period) != 10 ||
		     PRM_GET(query_cq_out, qout, cq_context.cq_max_count) != 64))
			fail("QUERY_CQ", "the moderation did not stick");
	}

	/* A firmware error on purpose. */
	fill_create_cq(in, log_max_cq_sz + 1, uar->page_id, eqn, &buf, &dbr);
	memset(out, 0, sizeof(out));
	printf("%-34s log_cq_size %u > log_max_cq_sz %u (expected to fail)\n",
	       "CREATE_CQ", log_max_cq_sz + 1, log_max_cq_sz);
	errno = 0;
	bad = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	if (bad) {
		fail("CREATE_CQ", "an oversized CQ was created");
		mlx5dv_devx_obj_destroy(bad);
	} else {
		int err = errno;

		print_fw_error("mlx5dv_devx_obj_create", err, out);
		if (err != EREMOTEIO ||
		    PRM_GET(mbox_out, out, status) != MLX5_CMD_STAT_BAD_PARAM_ERR)
			fail("CREATE_CQ", "expected EREMOTEIO with BAD_PARAM");
		else
			STEP("%s", "CREATE_CQ", "failed as expected");
	}

	ret = mlx5dv_devx_obj_destroy(cq);
	if (ret)
		fail("DESTROY_CQ", "mlx5dv_devx_obj_destroy: %s", strerror(ret));
	else
		STEP("cqn 0x%x destroyed", "mlx5dv_devx_obj_destroy(CQ)", cqn);
out:
	umem_dereg(&buf, "CQ buffer umem");
	umem_dereg(&dbr, "CQ doorbell umem");
	mlx5dv_devx_free_uar(uar);	/* the NC singleton: a no-op */
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "mlx5_0";
	uint8_t cin[PRM_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	uint8_t pin[PRM_ST_SZ_BYTES(alloc_pd_in)] = { 0 };
	uint8_t pout[PRM_ST_SZ_BYTES(alloc_pd_out)] = { 0 };
	size_t coutlen = PRM_ST_SZ_BYTES(query_hca_cap_out);
	unsigned int log_max_cq_sz;
	struct mlx5dv_devx_obj *pd;
	struct ibv_context *ctx;
	uint8_t *cout;
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ctx = open_devx(name);
	if (!ctx)
		return 1;
	STEP("%s with MLX5DV_CONTEXT_FLAGS_DEVX", "mlx5dv_open_device", name);

	cout = calloc(1, coutlen);
	if (!cout) {
		fail("QUERY_HCA_CAP", "out of memory");
		goto close;
	}
	PRM_SET(query_hca_cap_in, cin, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, cin, op_mod,
		(MLX5_CAP_GENERAL << 1) | HCA_CAP_OPMOD_GET_CUR);
	ret = mlx5dv_devx_general_cmd(ctx, cin, sizeof(cin), cout, coutlen);
	if (ret) {
		fail("QUERY_HCA_CAP", "mlx5dv_devx_general_cmd: %s", strerror(ret));
		if (ret == EREMOTEIO)
			print_fw_error("mlx5dv_devx_general_cmd", ret, cout);
		free(cout);
		goto close;
	}
#define CAP(f) PRM_GET(query_hca_cap_out, cout, capability.cmd_hca_cap.f)
	log_max_cq_sz = CAP(log_max_cq_sz);
	STEP("port_type %s, num_ports %u, log_max_cq_sz %u, log_max_pd %u",
	     "QUERY_HCA_CAP (general)", CAP(port_type) == 1 ? "Ethernet" : "IB",
	     CAP(num_ports), log_max_cq_sz, CAP(log_max_pd));
#undef CAP
	free(cout);

	PRM_SET(alloc_pd_in, pin, opcode, MLX5_CMD_OP_ALLOC_PD);
	pd = mlx5dv_devx_obj_create(ctx, pin, sizeof(pin), pout, sizeof(pout));
	if (!pd) {
		fail("ALLOC_PD", "mlx5dv_devx_obj_create: %s", strerror(errno));
		if (errno == EREMOTEIO)
			print_fw_error("mlx5dv_devx_obj_create", EREMOTEIO, pout);
		goto close;
	}
	STEP("pdn 0x%x", "ALLOC_PD", PRM_GET(alloc_pd_out, pout, pd));

	cq_steps(ctx, log_max_cq_sz);

	ret = mlx5dv_devx_obj_destroy(pd);
	if (ret)
		fail("DEALLOC_PD", "mlx5dv_devx_obj_destroy: %s", strerror(ret));
	else
		STEP("%s", "mlx5dv_devx_obj_destroy(PD)", "done");
close:
	ret = ibv_close_device(ctx);
	if (ret)
		fail("ibv_close_device", "%s", strerror(errno));
	printf("%s\n", failures ? "FAILED" : "every step behaved as expected");
	return failures ? 1 : 0;
}
