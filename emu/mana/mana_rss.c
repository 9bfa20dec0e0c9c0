/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/mana_rss.c -- receive-side scaling as a MANA vPort does it.
 *
 * The kernel hands the vPort a 40-byte Toeplitz key and a 64-entry table
 * of receive objects, and ignores the verbs hash-fields mask: hashing
 * follows the NDIS hash types (Linux mana.h NDIS_HASH_*, mana_en.c
 * mana_config_rss; rdma-core's RSS QP passes the table replicated i % n).
 * The hash picks table[hash & 63]; frames without IP go to the default
 * receive object.  The Toeplitz function is emu/eth's.
 *
 * Chosen where no source says: only the outer headers are hashed (no
 * inner-header hashing for tunnels is documented), and a fragment, or a
 * TCP/UDP header that does not parse, hashes on its addresses alone (what
 * NDIS asks of a NIC that cannot see the ports).
 */
#include <errno.h>
#include <string.h>

#include "emu/mana/mana.h"

int mana_rss_init(struct mana_rss *rss, const uint8_t key[MANA_RSS_KEY_LEN],
		  const uint32_t *table, unsigned int n, uint32_t default_q)
{
	if (n == 0 || n > MANA_RSS_TABLE)
		return -EINVAL;
	emu_eth_toeplitz_init(&rss->tz, key);
	for (unsigned int i = 0; i < MANA_RSS_TABLE; i++)
		rss->table[i] = table[i % n];
	rss->default_q = default_q;
	rss->enable = true;
	return 0;
}

size_t mana_rss_tuple(const uint8_t *f, const struct emu_eth_pkt *p,
		      uint8_t out[EMU_ETH_RSS_INPUT_MAX], uint16_t *hashtype)
{
	const struct emu_eth_hdrs *h = &p->outer;
	size_t alen, n;

	*hashtype = 0;
	if (h->l3 == EMU_ETH_L3_IPV4)
		alen = 4;
	else if (h->l3 == EMU_ETH_L3_IPV6)
		alen = 16;
	else
		return 0;
	/* source address then destination, as the header has them */
	memcpy(out, f + h->l3_off + (alen == 4 ? 12 : 8), 2 * alen);
	n = 2 * alen;
	if ((h->l4 == EMU_ETH_L4_TCP || h->l4 == EMU_ETH_L4_UDP) && !h->frag) {
		memcpy(out + n, f + h->l4_off, 4);	/* source, destination port */
		*hashtype = MANA_HASH_L4;
		return n + 4;
	}
	*hashtype = MANA_HASH_L3;
	return n;
}

void mana_rss_classify(const struct mana_rss *rss, const uint8_t *f,
		       const struct emu_eth_pkt *p, struct mana_rss_res *res)
{
	uint8_t in[EMU_ETH_RSS_INPUT_MAX];
	size_t n = mana_rss_tuple(f, p, in, &res->hashtype);

	res->hash = 0;
	res->queue = rss->default_q;
	if (!n)
		return;
	res->hash = emu_eth_toeplitz(&rss->tz, in, n);
	if (rss->enable)
		res->queue = rss->table[res->hash & (MANA_RSS_TABLE - 1)];
}
