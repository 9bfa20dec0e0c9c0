/* SPDX-License-Identifier: MIT */
/*
 * The physical limits the benchmarks' ratios are taken against, measured
 * by the same run on the same machine (the method of docs/performance.md):
 * memcpy, a cache-line handoff between two threads, a ring of 64-byte
 * records between two threads, and the kernel's UDP loopback path.
 *
 * Each call runs its trials and returns the best trial and the median;
 * quick trims the trials to prove the path only.  The two-thread
 * measurements pin their threads to the first two CPUs the process may
 * use and give the caller its CPU mask back; they return a zero figure
 * when fewer than two CPUs are allowed, or when a socket call fails.
 */
#ifndef MLX5EMU_TESTS_BENCH_BENCH_LIMITS_H
#define MLX5EMU_TESTS_BENCH_BENCH_LIMITS_H

#include <stddef.h>

#include "bench_util.h"

/* libc memcpy of size bytes, cache-hot, through a function pointer the
 * compiler cannot see through (a run-time size, as in an emulator): GB/s. */
struct bench_fig lim_memcpy(size_t size, int quick);

/* Half the round trip of two threads bouncing a counter between two cache
 * lines, each spinning with PAUSE: ns (best = the smallest). */
struct bench_fig lim_handoff(int quick);

/* 64-byte records one thread hands another through a 1024-slot ring, each
 * carrying its own sequence word (a CQE's owner bit) or published by a
 * head index (a doorbell record), the consumer returning slots every 32;
 * the faster discipline's figure: M records/s. */
struct bench_fig lim_ring(int quick);

/* Half the round trip of a 64-byte UDP datagram on 127.0.0.1 between two
 * busy-polling threads: ns (best = the smallest). */
struct bench_fig lim_udp_oneway(int quick);

/* Datagrams of size bytes per second one thread delivers to a busy-polling
 * receiver over 127.0.0.1 with UDP_SEGMENT (GSO, as many datagrams per
 * send as fit 64 KiB) and UDP_GRO, under a credit window so none is lost:
 * M datagrams/s. */
struct bench_fig lim_udp_gso(size_t size, int quick);

#endif /* MLX5EMU_TESTS_BENCH_BENCH_LIMITS_H */
