/* SPDX-License-Identifier: MIT */
/*
 * The limits of bench_limits.h.  Every two-thread figure is measured with
 * both threads pinned, one per CPU: the point is the hardware's cost of
 * moving a cache line or a datagram between cores, not the scheduler's.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench_limits.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

#define LINE 64
#define MAX_TRIALS 64

static void *(*volatile lim_copy)(void *, const void *, size_t) = memcpy;

/* The two CPUs of a two-thread measurement; the caller's mask is saved
 * and given back by pair_end. */
struct pair {
	int cpu[2];
	cpu_set_t saved;
};

static int pair_begin(struct pair *p)
{
	if (!bench_two_cpus(&p->cpu[0], &p->cpu[1]) ||
	    pthread_getaffinity_np(pthread_self(), sizeof(p->saved), &p->saved))
		return -1;
	bench_pin(p->cpu[0]);
	return 0;
}

static void pair_end(struct pair *p)
{
	pthread_setaffinity_np(pthread_self(), sizeof(p->saved), &p->saved);
}

static const struct bench_fig no_fig;

struct bench_fig lim_memcpy(size_t size, int quick)
{
	int trials = quick ? 3 : 11;
	/* about 0.3 GB per trial (0.03 quick): long enough for the clock */
	long reps = (long)((quick ? 3e7 : 3e8) / (double)size) + 1;
	char *src = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
	char *dst = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
	double v[MAX_TRIALS];

	if (!src || !dst) {
		free(src);
		free(dst);
		return no_fig;
	}
	memset(src, 0x5a, size);
	memset(dst, 0xa5, size);
	for (long r = 0; r < reps / 4 + 1; r++)
		lim_copy(dst, src, size);
	for (int t = 0; t < trials; t++) {
		uint64_t t0 = bench_now_ns();

		for (long r = 0; r < reps; r++) {
			lim_copy(dst, src, size);
			__asm__ __volatile__("" : : "r"(dst) : "memory");
		}
		v[t] = (double)size * (double)reps /
		       (double)(bench_now_ns() - t0);
	}
	free(src);
	free(dst);
	return bench_fig_of(v, (size_t)trials, 0);
}

/* ---- handoff ---- */

struct bounce {
	_Alignas(LINE) _Atomic uint64_t ping;
	_Alignas(LINE) _Atomic uint64_t pong;
	int cpu;
};

static void *bounce_back(void *arg)
{
	struct bounce *b = arg;
	uint64_t seen = 0;

	bench_pin(b->cpu);
	for (;;) {
		uint64_t v = atomic_load_explicit(&b->ping, memory_order_acquire);

		if (v == seen) {
			bench_cpu_relax();
			continue;
		}
		if (v == UINT64_MAX)
			return NULL;
		seen = v;
		atomic_store_explicit(&b->pong, v, memory_order_release);
	}
}

struct bench_fig lim_handoff(int quick)
{
	int batches = quick ? 21 : 201;
	const uint64_t per = 2000;
	struct bounce *b = aligned_alloc(LINE, sizeof(*b));
	double v[256];
	struct pair p;
	pthread_t th;
	uint64_t i = 0;

	if (!b || pair_begin(&p)) {
		free(b);
		return no_fig;
	}
	atomic_init(&b->ping, 0);
	atomic_init(&b->pong, 0);
	b->cpu = p.cpu[1];
	pthread_create(&th, NULL, bounce_back, b);
	for (int k = -5; k < batches; k++) {	/* 5 batches of warm-up */
		uint64_t t0 = bench_now_ns();

		for (uint64_t n = 0; n < per; n++) {
			atomic_store_explicit(&b->ping, ++i, memory_order_release);
			while (atomic_load_explicit(&b->pong, memory_order_acquire) != i)
				bench_cpu_relax();
		}
		if (k >= 0)
			v[k] = (double)(bench_now_ns() - t0) / (double)per / 2;
	}
	atomic_store_explicit(&b->ping, UINT64_MAX, memory_order_release);
	pthread_join(th, NULL);
	pair_end(&p);
	free(b);
	return bench_fig_of(v, (size_t)batches, 1);
}

/* ---- ring of 64-byte records ---- */

#define SLOTS 1024
#define RETURN_EVERY 32

struct ring {
	_Alignas(LINE) _Atomic uint64_t head;	/* producer: records published */
	_Alignas(LINE) _Atomic uint64_t tail;	/* consumer: slots returned */
	_Alignas(LINE) uint64_t count;
	int inband, cpu;
	uint64_t sum;
	_Alignas(LINE) uint64_t rec[SLOTS][8];	/* word 0: sequence */
};

static void *ring_consume(void *arg)
{
	struct ring *r = arg;
	uint64_t sum = 0, head = 0;

	bench_pin(r->cpu);
	for (uint64_t n = 0; n < r->count; n++) {
		uint64_t *s = r->rec[n % SLOTS];

		if (r->inband) {
			while (atomic_load_explicit((_Atomic uint64_t *)&s[0],
						    memory_order_acquire) != n + 1)
				;
		} else {
			while (head <= n)
				head = atomic_load_explicit(&r->head,
							    memory_order_acquire);
		}
		for (int w = 0; w < 8; w++)	/* the whole record, as a WQE */
			sum += s[w] * (uint64_t)(w + 1);
		if ((n + 1) % RETURN_EVERY == 0)
			atomic_store_explicit(&r->tail, n + 1, memory_order_release);
	}
	r->sum = sum;
	return NULL;
}

/* Records per second of one trial; -1 when a record arrived corrupted. */
static double ring_trial(struct ring *r, int cpu, int inband, uint64_t count)
{
	uint64_t tail = 0, expect = 0;
	pthread_t th;

	memset(r, 0, sizeof(*r));
	r->count = count;
	r->inband = inband;
	r->cpu = cpu;
	pthread_create(&th, NULL, ring_consume, r);
	uint64_t t0 = bench_now_ns();

	for (uint64_t n = 0; n < count; n++) {
		uint64_t *s = r->rec[n % SLOTS];

		while (n - tail >= SLOTS)
			tail = atomic_load_explicit(&r->tail, memory_order_acquire);
		for (int w = 1; w < 8; w++)
			s[w] = n ^ (uint64_t)w;
		if (inband) {
			atomic_store_explicit((_Atomic uint64_t *)&s[0], n + 1,
					      memory_order_release);
		} else {
			s[0] = n + 1;
			atomic_store_explicit(&r->head, n + 1, memory_order_release);
		}
	}
	pthread_join(th, NULL);
	double secs = (double)(bench_now_ns() - t0) * 1e-9;

	for (uint64_t n = 0; n < count; n++) {
		expect += n + 1;
		for (int w = 1; w < 8; w++)
			expect += (n ^ (uint64_t)w) * (uint64_t)(w + 1);
	}
	return r->sum == expect ? (double)count / secs : -1;
}

struct bench_fig lim_ring(int quick)
{
	int trials = quick ? 2 : 7;
	/* records for about 0.1 s a trial (0.02 s quick), from a first
	 * trial of a million: a contended machine slows the ring 100-fold */
	double secs = quick ? 0.02 : 0.1, rate;
	uint64_t count = 1000000;
	struct ring *r = aligned_alloc(LINE, sizeof(*r));
	struct bench_fig best = no_fig;
	double v[MAX_TRIALS];
	struct pair p;

	if (!r || pair_begin(&p)) {
		free(r);
		return no_fig;
	}
	rate = ring_trial(r, p.cpu[1], 1, count);
	if (rate > 0 && rate * secs > (double)count)
		count = (uint64_t)(rate * secs);
	for (int inband = 0; inband < 2; inband++) {
		struct bench_fig f;

		for (int t = 0; t < trials; t++) {
			v[t] = ring_trial(r, p.cpu[1], inband, count) / 1e6;
			if (v[t] < 0) {
				fprintf(stderr, "lim_ring: a record arrived corrupted\n");
				pair_end(&p);
				free(r);
				return no_fig;
			}
		}
		f = bench_fig_of(v, (size_t)trials, 0);
		if (f.best > best.best)
			best = f;
	}
	pair_end(&p);
	free(r);
	return best;
}

/* ---- UDP over loopback ---- */

/* Two UDP sockets on 127.0.0.1 connected to each other; 0 or -1. */
static int udp_pair(int s[2])
{
	struct sockaddr_in a[2];
	int buf = 8 << 20;

	for (int i = 0; i < 2; i++) {
		socklen_t len = sizeof(a[i]);

		memset(&a[i], 0, sizeof(a[i]));
		a[i].sin_family = AF_INET;
		a[i].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		s[i] = socket(AF_INET, SOCK_DGRAM, 0);
		if (s[i] < 0 || bind(s[i], (struct sockaddr *)&a[i], sizeof(a[i])) ||
		    getsockname(s[i], (struct sockaddr *)&a[i], &len))
			goto fail;
		/* capped by net.core.[rw]mem_max; the credit window adapts */
		setsockopt(s[i], SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
		setsockopt(s[i], SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	}
	if (connect(s[0], (struct sockaddr *)&a[1], sizeof(a[1])) ||
	    connect(s[1], (struct sockaddr *)&a[0], sizeof(a[0])))
		goto fail;
	return 0;
fail:
	perror("lim: UDP socket");
	for (int i = 0; i < 2; i++)
		if (s[i] >= 0)
			close(s[i]);
	return -1;
}

/* Busy-polls one datagram into buf; its length, or -1 after 1 s. */
static ssize_t udp_spin_recv(int s, void *buf, size_t len)
{
	uint64_t t0 = bench_now_ns();

	for (unsigned n = 1;; n++) {
		ssize_t r = recv(s, buf, len, MSG_DONTWAIT);

		if (r >= 0)
			return r;
		if (n % 4096 == 0 && bench_now_ns() - t0 > 1000000000u)
			return -1;
	}
}

struct echo {
	int sock, cpu, count;
};

static void *udp_echo(void *arg)
{
	struct echo *e = arg;
	char buf[64];

	bench_pin(e->cpu);
	for (int i = 0; i < e->count; i++) {
		if (udp_spin_recv(e->sock, buf, sizeof(buf)) < 0)
			break;
		send(e->sock, buf, sizeof(buf), 0);
	}
	return NULL;
}

struct bench_fig lim_udp_oneway(int quick)
{
	int batches = quick ? 11 : 51, per = 500, warm = 1000;
	struct echo e;
	struct pair p;
	char buf[64] = { 0 };
	double v[64];
	int s[2], ok = 1;
	pthread_t th;

	if (pair_begin(&p))
		return no_fig;
	if (udp_pair(s)) {
		pair_end(&p);
		return no_fig;
	}
	e = (struct echo){ .sock = s[1], .cpu = p.cpu[1],
			   .count = warm + batches * per };
	pthread_create(&th, NULL, udp_echo, &e);
	for (int k = -1; ok && k < batches; k++) {
		int n = k < 0 ? warm : per;
		uint64_t t0 = bench_now_ns();

		for (int i = 0; ok && i < n; i++) {
			send(s[0], buf, sizeof(buf), 0);
			ok = udp_spin_recv(s[0], buf, sizeof(buf)) == sizeof(buf);
		}
		if (k >= 0)
			v[k] = (double)(bench_now_ns() - t0) / n / 2;
	}
	if (!ok)	/* the echo thread gives up after 1 s without one */
		fprintf(stderr, "lim_udp_oneway: a datagram was lost\n");
	pthread_join(th, NULL);
	close(s[0]);
	close(s[1]);
	pair_end(&p);
	return ok ? bench_fig_of(v, (size_t)batches, 1) : no_fig;
}

struct gro_sink {
	int sock, cpu;
	size_t size;
	_Alignas(LINE) _Atomic uint64_t got;	/* datagrams received */
	_Alignas(LINE) _Atomic int stop;
	uint64_t t_last;
};

static void *gro_receive(void *arg)
{
	struct gro_sink *g = arg;
	static _Thread_local char buf[65536];
	int one = 1;

	bench_pin(g->cpu);
	setsockopt(g->sock, SOL_UDP, UDP_GRO, &one, sizeof(one));
	while (!atomic_load_explicit(&g->stop, memory_order_acquire)) {
		/* one receive may return several coalesced datagrams */
		ssize_t r = recv(g->sock, buf, sizeof(buf), MSG_DONTWAIT);

		if (r <= 0)
			continue;
		atomic_store_explicit(&g->got,
			atomic_load_explicit(&g->got, memory_order_relaxed) +
			((size_t)r + g->size - 1) / g->size, memory_order_release);
		g->t_last = bench_now_ns();
	}
	return NULL;
}

/* Datagrams per second delivered in one trial of secs; 0 on failure. */
static double gso_trial(int cpu, size_t size, double secs)
{
	static char payload[65536];
	/* at most 64 segments and 64 KiB of IP payload per send */
	int segs = size * 64 <= 61440 ? 64 : (int)(61440 / size);
	int seg = (int)size, rcvbuf = 0, s[2];
	socklen_t len = sizeof(rcvbuf);
	struct gro_sink g;
	uint64_t sent = 0, window;
	pthread_t th;

	if (udp_pair(s))
		return 0;
	if (setsockopt(s[0], SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg))) {
		perror("lim: UDP_SEGMENT");
		close(s[0]);
		close(s[1]);
		return 0;
	}
	/* in flight: a quarter of the receive buffer, counting the kernel's
	 * per-datagram overhead, so nothing is dropped */
	getsockopt(s[1], SOL_SOCKET, SO_RCVBUF, &rcvbuf, &len);
	window = (uint64_t)rcvbuf / 4 / (size + 768);
	if (window < (uint64_t)segs)
		window = (uint64_t)segs;
	memset(&g, 0, sizeof(g));
	g.sock = s[1];
	g.cpu = cpu;
	g.size = size;
	pthread_create(&th, NULL, gro_receive, &g);
	uint64_t t0 = bench_now_ns(), end = t0 + (uint64_t)(secs * 1e9), t = t0;
	uint64_t stall = 0;

	while (t < end) {
		uint64_t got = atomic_load_explicit(&g.got, memory_order_acquire);

		t = bench_now_ns();
		if (sent - got + (uint64_t)segs > window) {
			/* a send the kernel dropped would stall us: 50 ms */
			if (!stall)
				stall = t;
			else if (t - stall > 50000000u)
				break;
			bench_cpu_relax();
			continue;
		}
		stall = 0;
		if (send(s[0], payload, (size_t)segs * size, 0) > 0)
			sent += (uint64_t)segs;
	}
	/* let the receiver drain what is in flight */
	for (uint64_t w = bench_now_ns();
	     atomic_load_explicit(&g.got, memory_order_acquire) < sent &&
	     bench_now_ns() - w < 50000000u;)
		bench_cpu_relax();
	atomic_store_explicit(&g.stop, 1, memory_order_release);
	pthread_join(th, NULL);
	close(s[0]);
	close(s[1]);
	uint64_t got = atomic_load(&g.got);

	return g.t_last > t0 ? (double)got / ((double)(g.t_last - t0) * 1e-9) : 0;
}

struct bench_fig lim_udp_gso(size_t size, int quick)
{
	int trials = quick ? 2 : 5;
	double v[MAX_TRIALS];
	struct pair p;

	if (!size || size > 61440 || pair_begin(&p))
		return no_fig;
	for (int t = 0; t < trials; t++)
		v[t] = gso_trial(p.cpu[1], size, quick ? 0.05 : 0.25) / 1e6;
	pair_end(&p);
	return bench_fig_of(v, (size_t)trials, 0);
}
