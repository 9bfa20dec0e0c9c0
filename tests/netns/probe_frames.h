/* SPDX-License-Identifier: MIT */
/*
 * What the netns probes (eth_probe, mana_probe) share: the frames they
 * build for the Linux stack to judge, byte by byte, and their command
 * line's MAC.
 */
#ifndef MLX5EMU_TESTS_NETNS_PROBE_FRAMES_H
#define MLX5EMU_TESTS_NETNS_PROBE_FRAMES_H

#include <stdint.h>

#define PROBE_OWN_IP "198.18.0.1"

void probe_wr16(uint8_t *q, uint16_t v);
/* "aa:bb:cc:dd:ee:ff" into mac; 0, or -1 when it is none. */
int probe_parse_mac(const char *s, uint8_t mac[6]);
/* At @f: Ethernet from @smac to @dmac, IPv4 from PROBE_OWN_IP to @dst
 * (id @id, TTL 64, @proto) with a zero header checksum; the IP header. */
uint8_t *probe_l2l3(uint8_t *f, const uint8_t dmac[6], const uint8_t smac[6],
		    const char *dst, uint8_t proto, uint16_t l4len, uint16_t id);
/* At @t: a TCP header from port 40001 to @dport, PSH ACK (a closed port
 * answers RST), and @len payload bytes. */
void probe_tcp_psh(uint8_t *t, uint16_t dport, uint32_t len);
/* The IPv4 header's checksum, computed and stored. */
void probe_ip_csum(uint8_t *ip);

#endif /* MLX5EMU_TESTS_NETNS_PROBE_FRAMES_H */
