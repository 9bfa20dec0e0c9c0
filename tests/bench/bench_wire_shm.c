/* SPDX-License-Identifier: MIT */
/*
 * bench_wire_shm: the CPU time a RoCE frame costs on the same-host fast
 * path, without the engine and without a second CPU: two ports over shm
 * links in one thread, 64 KiB messages cut into RC WRITE frames (the
 * payload copied from an application buffer into each frame, as the
 * engine does), flushed in batches of 16 and received at once, each
 * payload copied into a 64 KiB buffer standing for the MR.  The thread's
 * CPU time, so other jobs on a shared machine move the figure less than
 * they move perftest's throughput.  Then the same with the receiving
 * port in a second thread on another CPU (both pinned), as between two
 * processes, where the ring's lines move between the CPUs: each side's
 * CPU time a frame (the receiver's only inside receives that brought
 * frames).  Not a timed test: the quick mode (-q) only proves that every
 * frame arrives.
 *
 * Output lines: "key best median unit" per payload size (ns a frame),
 * then "gbps_<payload> x": the payload bytes per second of CPU time of
 * the median; "two_rx_<payload>" and "two_tx_<payload>" likewise.
 *
 * Usage: bench_wire_shm [-q]
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "emu/wire/wire.h"

#include "bench_util.h"

#define MSG (64u * 1024u)
#define BATCH 16u

static uint8_t app[MSG], mr[MSG];
static unsigned long delivered;
static _Atomic unsigned long taken;	/* two threads: frames received */

static struct emu_wire_link *link_make(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct emu_wire_ep ep = { .family = AF_INET };
	socklen_t l = sizeof(sa);
	struct emu_wire_link *u;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(fd, (struct sockaddr *)&sa, &l)) {
		perror("bench_wire_shm: socket");
		exit(1);
	}
	ep.port = ntohs(sa.sin_port);
	memcpy(ep.addr, &sa.sin_addr, 4);
	u = emu_wire_link_udp_create(fd, &ep);
	return u ? emu_wire_link_shm_create(u) : NULL;
}

static void on_roce(void *arg, struct emu_wire_port *p,
		    const struct emu_wire_roce *h, const uint8_t *payload,
		    uint32_t paylen)
{
	(void)arg;
	(void)p;
	if (h->va < MSG && paylen <= MSG - h->va)
		memcpy(mr + h->va, payload, paylen);
	delivered++;
}

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The receiving side of two threads: until want frames came, and the
 * CPU time of the receives that brought some. */
struct two_rx {
	struct emu_wire_port *rx;
	unsigned long want;
	int cpu;
	double cpu_s;
};

static void *two_rx_main(void *arg)
{
	static const struct emu_wire_rx_ops ops = { .roce = on_roce };
	struct two_rx *t = arg;

	bench_pin(t->cpu);
	while (atomic_load(&taken) < t->want) {
		double t0 = thread_cpu_s();
		unsigned int n = emu_wire_rx(t->rx, &ops, NULL, 64, 1, false);

		if (n) {
			t->cpu_s += thread_cpu_s() - t0;
			atomic_fetch_add(&taken, n);
		}
	}
	return NULL;
}

/* ns of CPU time a frame over msgs messages of mtu-byte frames; with
 * two, received in another thread (*rx_ns its side's). */
static double trial(struct emu_wire_port *tx, struct emu_wire_port *rx,
		    uint32_t mtu, long msgs, const int *two, double *rx_ns)
{
	static const struct emu_wire_rx_ops ops = { .roce = on_roce };
	struct emu_wire_roce h = {
		.version = 2, .opcode = 0x0a, .pkey = 0xffff, .dqpn = 0x12,
		.hop_limit = 64, .udp_sport = 0xc000, .rkey = 5,
		.dmac = { 2, 0xc9, 127, 0, 0, 2 },
		.smac = { 2, 0xc9, 127, 0, 0, 1 },
		.sgid = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 },
		.dgid = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 2 },
	};
	uint32_t nf = MSG / mtu, hl;
	unsigned long want = delivered + (unsigned long)msgs * nf, sent = 0;
	struct two_rx t = { .rx = rx, .want = (unsigned long)msgs * nf };
	pthread_t th;
	double t0;

	if (two) {
		atomic_store(&taken, 0);
		t.cpu = two[1];
		bench_pin(two[0]);
		if (pthread_create(&th, NULL, two_rx_main, &t)) {
			perror("bench_wire_shm: thread");
			exit(1);
		}
	}
	t0 = thread_cpu_s();
	for (long m = 0; m < msgs; m++) {
		for (uint32_t k = 0; k < nf; k++) {
			uint8_t *f;

			/* No more in flight than the ring holds. */
			while (two && sent - atomic_load(&taken) > 1024)
				sched_yield();
			f = emu_wire_tx_frame(tx);
			sent++;

			h.icrc_later = emu_wire_port_icrc_later(tx);
			h.va = (uint64_t)k * mtu;
			h.dma_len = mtu;
			h.psn = (h.psn + 1) & 0xffffff;
			hl = emu_wire_roce_hlen(&h);
			memcpy(f + hl, app + k * mtu, mtu);
			emu_wire_tx_queue(tx, f, emu_wire_roce_build(&h, f, mtu),
					  1, h.icrc_later);
			if (k % BATCH == BATCH - 1 || k == nf - 1) {
				emu_wire_tx_flush(tx, 1);
				if (!two)
					emu_wire_rx(rx, &ops, NULL, 64, 1,
						    false);
			}
		}
	}
	t0 = thread_cpu_s() - t0;
	if (two) {
		pthread_join(th, NULL);
		*rx_ns = t.cpu_s * 1e9 / (double)(msgs * nf);
	}
	if (delivered != want) {
		fprintf(stderr, "bench_wire_shm: %lu of %lu frames arrived\n",
			delivered - (want - (unsigned long)msgs * nf),
			(unsigned long)msgs * nf);
		exit(1);
	}
	return t0 * 1e9 / (double)(msgs * nf);
}

int main(int argc, char **argv)
{
	static const uint32_t mtus[] = { 1024, 4096 };
	int quick = argc > 1 && !strcmp(argv[1], "-q");
	int ntrials = quick ? 1 : 7, two[2];
	long msgs = quick ? 50 : 10000;
	struct emu_wire_link *la = link_make(), *lb = link_make();
	struct emu_wire_port_cfg ca = {
		.name = "tx", .vni = 7, .mac = { 2, 0xc9, 127, 0, 0, 1 },
	};
	struct emu_wire_port_cfg cb = {
		.name = "rx", .vni = 7, .mac = { 2, 0xc9, 127, 0, 0, 2 },
	};
	struct emu_wire_port *tx, *rx;
	struct emu_wire_ep to;

	if (!la || !lb) {
		perror("bench_wire_shm: link");
		return 1;
	}
	to = lb->local;
	tx = emu_wire_port_create(&ca, la);
	rx = emu_wire_port_create(&cb, lb);
	if (!tx || !rx || emu_wire_port_add_peer(tx, NULL, &to)) {
		perror("bench_wire_shm: port");
		return 1;
	}
	memset(app, 0x5a, sizeof(app));
	/* The first frame connects the ring; the receiver's sockets take
	 * the rendezvous. */
	{
		static const struct emu_wire_rx_ops ops = { .roce = on_roce };
		uint8_t *f = emu_wire_tx_frame(tx);
		struct emu_wire_roce h = {
			.version = 2, .opcode = 0x04, .pkey = 0xffff,
			.dqpn = 0x12, .hop_limit = 64,
			.dmac = { 2, 0xc9, 127, 0, 0, 2 },
			.sgid = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 },
			.dgid = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 2 },
		};

		emu_wire_tx_queue(tx, f, emu_wire_roce_build(&h, f, 0), 1,
				  false);
		emu_wire_tx_flush(tx, 1);
		for (int i = 0; i < 200 && !delivered; i++) {
			emu_wire_rx(rx, &ops, NULL, 64, 1, true);
			emu_wire_rx(rx, &ops, NULL, 64, 1, false);
			if (!delivered)
				usleep(1000);
		}
		if (!delivered) {
			fprintf(stderr, "bench_wire_shm: no ring\n");
			return 1;
		}
	}
	printf("# bench_wire_shm: CPU ns a frame, 64 KiB RC WRITEs through "
	       "two ports over shm links, one thread\n");
	printf("# key best median unit\n");
	for (size_t s = 0; s < sizeof(mtus) / sizeof(mtus[0]); s++) {
		double t[7];

		trial(tx, rx, mtus[s], msgs / 10 + 1, NULL, NULL); /* warm */
		for (int i = 0; i < ntrials; i++)
			t[i] = trial(tx, rx, mtus[s], msgs, NULL, NULL);
		bench_sort(t, (size_t)ntrials);
		printf("frame_%u %.1f %.1f ns\n", mtus[s], t[0],
		       t[ntrials / 2]);
		printf("gbps_%u %.2f\n", mtus[s],
		       (double)mtus[s] / t[ntrials / 2]);
	}
	if (!bench_two_cpus(&two[0], &two[1])) {
		printf("# two threads: fewer than two CPUs, not run\n");
		goto out;
	}
	printf("# the receiving port in a thread on CPU %d, the sending one "
	       "on CPU %d\n", two[1], two[0]);
	for (size_t s = 0; s < sizeof(mtus) / sizeof(mtus[0]); s++) {
		double t[7], r[7];

		for (int i = 0; i < ntrials; i++)
			t[i] = trial(tx, rx, mtus[s], msgs, two, &r[i]);
		bench_sort(t, (size_t)ntrials);
		bench_sort(r, (size_t)ntrials);
		printf("two_rx_%u %.1f %.1f ns\n", mtus[s], r[0],
		       r[ntrials / 2]);
		printf("two_tx_%u %.1f %.1f ns\n", mtus[s], t[0],
		       t[ntrials / 2]);
	}
out:
	emu_wire_port_destroy(tx);
	emu_wire_port_destroy(rx);
	return 0;
}
