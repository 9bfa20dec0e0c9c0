/* SPDX-License-Identifier: MIT */
/*
 * The seed corpus of fuzz_eth: the emu/eth suites' literal frames (a VLAN
 * TCP/IPv4 frame, a QinQ IPv6 first fragment behind extension headers, a
 * VXLAN frame), written into the directory given.
 *
 *     fuzz_eth_seeds DIR
 */
#include <stdio.h>

#include "eth_frames.h"

static int put(const char *dir, const char *name, const uint8_t *b,
	       size_t n)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "wb");
	if (!fp || fwrite(b, 1, n, fp) != n || fclose(fp)) {
		perror(path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fuzz_eth_seeds DIR\n");
		return 2;
	}
	return put(argv[1], "vlan_tcp4", frame_vlan_tcp4,
		   sizeof(frame_vlan_tcp4)) |
	       put(argv[1], "qinq_frag6", frame_qinq_frag6,
		   sizeof(frame_qinq_frag6)) |
	       put(argv[1], "vxlan", frame_vxlan, sizeof(frame_vxlan));
}
