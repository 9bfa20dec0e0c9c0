/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_addr.h -- the ports' IPv4 addresses.
 *
 * Each port owns an IPv4 address unique on the host, proven by holding a UDP
 * socket bound to <address>:<wire.udp_port> (4789, VXLAN's port) without
 * SO_REUSEADDR for the life of the process: the port's tunnel endpoint,
 * over which the wire carries its frames.  By
 * default the first candidate is derived from the pid on the loopback range,
 * so processes on one host spread out and rarely collide; a collision
 * (EADDRINUSE) just moves on to the next candidate.
 *
 * Candidates: never 127.0.0.1, never a last octet of 0 or 255, never
 * 0.0.0.0/8 or 224.0.0.0 and above.  Pid-derived candidates are
 * 127.a.b.c with a in 1..254 (so 127.0.0.0/16, where hosts put their own
 * names, is left alone), b in 0..255, c in 1..254.
 */
#ifndef MLX5EMU_EMU_DEVICE_DEV_ADDR_H
#define MLX5EMU_EMU_DEVICE_DEV_ADDR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define EMU_ROCE_UDP_PORT 4791
/* The tunnel endpoints' default UDP port (IANA's VXLAN port). */
#define EMU_VXLAN_UDP_PORT 4789
/* Candidates tried before giving up. */
#define EMU_ADDR_MAX_TRIES 1024

/* NULL if ip (host order) may be a port address, else why not. */
const char *emu_addr_unusable(uint32_t ip);

/* The first candidate for a process (host order), derived from pid. */
uint32_t emu_addr_pid_candidate(pid_t pid);
/* The same from a seed (deterministic mode: the same every run). */
uint32_t emu_addr_seed_candidate(uint64_t seed);

/* The candidate after ip (host order); stays on 127/8 when ip is on it. */
uint32_t emu_addr_next(uint32_t ip);

/*
 * Binds a UDP socket (SOCK_CLOEXEC, SO_REUSEADDR off) to the first free
 * candidate at or after *ip, port udp_port, trying at most max_tries
 * candidates.  Returns the fd and updates *ip, or a negative errno with why
 * filled in (-EADDRINUSE when every candidate was taken, -EADDRNOTAVAIL when
 * the address is not local to this host).
 */
int emu_addr_bind(uint32_t *ip, uint16_t udp_port, unsigned int max_tries,
		  char *why, size_t whylen);

#endif /* MLX5EMU_EMU_DEVICE_DEV_ADDR_H */
