/* SPDX-License-Identifier: MIT */
/* The MANA program tests' mini-PMD (mana_pmd.h). */
#include <check.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mana_pmd.h"

static void *mp_alloc(size_t size, void *priv)
{
	void *p = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);

	(void)priv;
	if (p)
		memset(p, 0, size);
	return p;
}

static void mp_free(void *p, void *priv)
{
	(void)priv;
	free(p);
}

const struct manadv_ctx_allocators mp_allocators = { mp_alloc, mp_free, NULL };

struct ibv_context *mp_open(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n;

	list = ibv_get_device_list(&n);
	ck_assert_ptr_nonnull(list);
	for (int i = 0; i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	ck_assert_msg(ctx, "cannot open %s", name);
	return ctx;
}

void mp_port_mac(struct ibv_context *ctx, int dev_port, uint8_t mac[6])
{
	char path[512];
	unsigned int m[6];
	FILE *f;

	snprintf(path, sizeof(path), "%s/device/net/%sp%d/address",
		 ctx->device->ibdev_path, "mana0", dev_port);
	f = fopen(path, "r");
	ck_assert_msg(f, "cannot read %s", path);
	ck_assert_int_eq(fscanf(f, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2],
				&m[3], &m[4], &m[5]), 6);
	fclose(f);
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)m[i];
}

uint64_t mp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void mp_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

uint32_t mp_get32(const volatile uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

void mp_wqe(uint8_t *w, const uint8_t oob[8], uint64_t addr, uint32_t key,
	    uint32_t len)
{
	memset(w, 0, 32);
	mp_put32(w + 4, 1u | 2u << 8);	/* num_sge 1, inline_oob_size_div4 2 */
	if (oob)
		memcpy(w + 8, oob, 8);
	mp_put32(w + 16, (uint32_t)addr);
	mp_put32(w + 20, (uint32_t)(addr >> 32));
	mp_put32(w + 24, key);
	mp_put32(w + 28, len);
}

void mp_tx_oob(uint8_t oob[8], uint32_t cq_id, uint32_t sq_id,
	       uint32_t vp_offset)
{
	memset(oob, 0, 8);
	mp_put32(oob, cq_id << 8);			/* vcq_num */
	mp_put32(oob + 4, (sq_id >> 10) << 10 |	/* vsq_frame */
			  vp_offset << 24);		/* short_vp_offset */
}

/* One 64-bit store, as the PMD's MMIO write.  A relaxed atomic store is
 * the same plain MOV; written so only because lcores ring the same
 * register, which ThreadSanitizer would otherwise call a data race. */
void mp_doorbell(void *page, unsigned int off, uint32_t qid, uint32_t tail)
{
	__atomic_store_n((uint64_t *)((char *)page + off),
			 (uint64_t)tail << 32 | qid, __ATOMIC_RELAXED);
}

const volatile uint8_t *mp_cqe_at(const void *ring, uint32_t n, uint32_t head)
{
	const volatile uint8_t *c = (const uint8_t *)ring + 64 * (head % n);

	/* The owner bits (31:29 of the last dword) are in the CQE's last
	 * byte, which the device writes last: read it alone, then the rest. */
	if (__atomic_load_n(c + 63, __ATOMIC_ACQUIRE) >> 5 != ((head / n + 1) & 7))
		return NULL;
	return c;
}

const volatile uint8_t *mp_cqe_wait(const void *ring, uint32_t n, uint32_t head)
{
	uint64_t until = mp_now_ms() + 5000;
	const volatile uint8_t *c;

	while (!(c = mp_cqe_at(ring, n, head)) && mp_now_ms() < until)
		sched_yield();
	return c;
}

void mp_txq_open(struct mp_txq *t, bool channel)
{
	struct manadv_ctx_allocators al = mp_allocators;

	memset(t, 0, sizeof(*t));
	t->ctx = mp_open("mana_0");
	ck_assert_int_eq(manadv_set_context_attr(t->ctx,
				MANADV_CTX_ATTR_BUF_ALLOCATORS, &al), 0);
	t->pd = ibv_alloc_pd(t->ctx);
	ck_assert_ptr_nonnull(t->pd);
	struct ibv_parent_domain_init_attr pa = {
		.pd = t->pd, .comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.pd_context = (void *)1,
	};
	t->ppd = ibv_alloc_parent_domain(t->ctx, &pa);
	ck_assert_ptr_nonnull(t->ppd);
	if (channel) {
		t->ch = ibv_create_comp_channel(t->ctx);
		ck_assert_ptr_nonnull(t->ch);
	}
	t->cq = ibv_create_cq(t->ctx, 64, t, t->ch, 0);
	ck_assert_ptr_nonnull(t->cq);
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RAW_PACKET, .send_cq = t->cq, .recv_cq = t->cq,
		.cap = { .max_send_wr = 64, .max_send_sge = 1 },
	};
	t->qp = ibv_create_qp(t->ppd, &qa);
	ck_assert_ptr_nonnull(t->qp);
	t->mem = aligned_alloc(4096, 4096);
	memset(t->mem, 0, 4096);
	memset(t->mem, 0xff, 12);
	t->mem[12] = 0x88;
	t->mem[13] = 0xb5;
	t->mr = ibv_reg_mr(t->pd, t->mem, 4096, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(t->mr);
	struct manadv_obj o = { .qp = { t->qp, &t->dq }, .cq = { t->cq, &t->dc } };

	ck_assert_int_eq(manadv_init_obj(&o, MANADV_OBJ_QP | MANADV_OBJ_CQ), 0);
}

void mp_txq_post(struct mp_txq *t, uint32_t len)
{
	uint8_t oob[8];

	mp_tx_oob(oob, t->dc.cq_id, t->dq.sq_id, t->dq.tx_vp_offset);
	mp_wqe((uint8_t *)t->dq.sq_buf + 32 * (t->posted % (t->dq.sq_size / 32)),
	       oob, (uintptr_t)t->mem, t->mr->lkey, len);
	t->posted++;
}

void mp_txq_send(struct mp_txq *t)
{
	mp_txq_post(t, 60);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	mp_doorbell(t->dq.db_page, 0, t->dq.sq_id, 32 * t->posted);
	ck_assert(mp_cqe_wait(t->dc.buf, t->dc.count, t->posted - 1) != NULL);
}

void mp_txq_close(struct mp_txq *t, bool objects)
{
	if (objects) {
		ck_assert_int_eq(ibv_destroy_qp(t->qp), 0);
		ck_assert_int_eq(ibv_destroy_cq(t->cq), 0);
	}
	if (t->ch)
		ck_assert_int_eq(ibv_destroy_comp_channel(t->ch), 0);
	ck_assert_int_eq(ibv_dereg_mr(t->mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(t->ppd), 0);
	ck_assert_int_eq(ibv_dealloc_pd(t->pd), 0);
	ck_assert_int_eq(ibv_close_device(t->ctx), 0);
	free(t->mem);
}

static uint32_t mp_sum16(const uint8_t *b, size_t n, uint32_t s)
{
	for (size_t k = 0; k + 1 < n; k += 2)
		s += (uint32_t)b[k] << 8 | b[k + 1];
	if (n & 1)
		s += (uint32_t)b[n - 1] << 8;
	return s;
}

static uint16_t mp_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

void mp_udp_frame(uint8_t *f, const uint8_t dst[6], const uint8_t src[6],
		  uint32_t seq, bool seed)
{
	static const uint8_t ip[20] = { 0x45, 0, 0, 46, 0, 1, 0, 0, 64, 17, 0, 0,
					198, 18, 0, 1, 198, 18, 0, 2 };
	uint16_t sport = (uint16_t)(1000 + 7 * seq), ph;

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memcpy(f + 14, ip, 20);
	f[34] = (uint8_t)(sport >> 8);
	f[35] = (uint8_t)sport;
	f[36] = 5000 >> 8;
	f[37] = 5000 & 0xff;
	f[38] = 0;
	f[39] = 26;
	for (int i = 0; i < 18; i++)
		f[42 + i] = (uint8_t)(0xa0 + i);
	memcpy(f + 42, &seq, 4);
	ph = seed ? mp_fold(mp_sum16(f + 26, 8, 17 + 26)) : 0;
	f[40] = (uint8_t)(ph >> 8);
	f[41] = (uint8_t)ph;
}

bool mp_udp_csums_ok(const uint8_t *f)
{
	return mp_fold(mp_sum16(f + 14, 20, 0)) == 0xffff &&
	       mp_fold(mp_sum16(f + 34, 26, mp_sum16(f + 26, 8, 17 + 26))) == 0xffff;
}
