/* SPDX-License-Identifier: MIT */
/*
 * bench_wire_shm: the CPU time a RoCE frame costs on the same-host fast
 * path, without the engine and without a second CPU: two ports over shm
 * links in one thread, 64 KiB messages cut into RC WRITE frames (the
 * payload copied from an application buffer into each frame, as the
 * engine does), flushed in batches of 16 and received at once, each
 * payload copied into a 64 KiB buffer standing for the MR.  The thread's
 * CPU time, so other jobs on a shared machine move the figure less than
 * they move perftest's throughput.  Not a timed test: the quick mode (-q)
 * only proves that every frame arrives.
 *
 * Output lines: "key best median unit" per payload size (ns a frame),
 * then "gbps_<payload> x": the payload bytes per second of CPU time of
 * the median.
 *
 * Usage: bench_wire_shm [-q]
 */
#include <arpa/inet.h>
#include <netinet/in.h>
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

/* ns of CPU time a frame over msgs messages of mtu-byte frames. */
static double trial(struct emu_wire_port *tx, struct emu_wire_port *rx,
		    uint32_t mtu, long msgs)
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
	unsigned long want = delivered + (unsigned long)msgs * nf;
	double t0 = thread_cpu_s();

	for (long m = 0; m < msgs; m++) {
		for (uint32_t k = 0; k < nf; k++) {
			uint8_t *f = emu_wire_tx_frame(tx);

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
				emu_wire_rx(rx, &ops, NULL, 64, 1, false);
			}
		}
	}
	if (delivered != want) {
		fprintf(stderr, "bench_wire_shm: %lu of %lu frames arrived\n",
			delivered - (want - (unsigned long)msgs * nf),
			(unsigned long)msgs * nf);
		exit(1);
	}
	return (thread_cpu_s() - t0) * 1e9 / (double)(msgs * nf);
}

int main(int argc, char **argv)
{
	static const uint32_t mtus[] = { 1024, 4096 };
	int quick = argc > 1 && !strcmp(argv[1], "-q");
	int ntrials = quick ? 1 : 7;
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

		trial(tx, rx, mtus[s], msgs / 10 + 1);	/* warm */
		for (int i = 0; i < ntrials; i++)
			t[i] = trial(tx, rx, mtus[s], msgs);
		bench_sort(t, (size_t)ntrials);
		printf("frame_%u %.1f %.1f ns\n", mtus[s], t[0],
		       t[ntrials / 2]);
		printf("gbps_%u %.2f\n", mtus[s],
		       (double)mtus[s] / t[ntrials / 2]);
	}
	emu_wire_port_destroy(tx);
	emu_wire_port_destroy(rx);
	return 0;
}
