/* SPDX-License-Identifier: MIT */
/*
 * emu/wire/wire_frame.c -- RoCE frames built and parsed.
 *
 *   RoCE v2:  Ethernet | IPv4 or IPv6 | UDP (dport 4791) | BTH | ext | payload | pad | ICRC
 *   RoCE v1:  Ethernet (0x8915) | GRH | BTH | ext | payload | pad | ICRC
 *
 * The BTH (IBA 9.3): opcode; SE, MigReq, PadCnt, TVer; P_Key; FECN,
 * BECN, resv6; destination QP; AckReq, resv7; PSN.  The extension
 * headers follow in the order of wire_opcode.c.  IPv4-mapped GIDs go as
 * IPv4, the rest as IPv6.  The UDP checksum is 0, as RoCE senders leave
 * it (the ICRC protects the packet).  A parse checks what a receiving
 * ConnectX would: versions, lengths against the IP and UDP lengths,
 * fragments, the IPv4 header checksum, TVer 0, the pad count, payload
 * only where the opcode carries one, and the ICRC.
 */
#include <string.h>

#include "emu/wire/wire_int.h"

#define BTH_LEN 12
#define IPV4_LEN 20
#define IPV6_LEN 40
#define UDP_LEN 8

static bool wire_v4(const struct emu_wire_roce *h)
{
	return h->version == 2 && emu_wire_gid_is_v4(h->dgid);
}

static uint32_t wire_l3_len(const struct emu_wire_roce *h)
{
	if (h->version == 1)
		return IPV6_LEN;		/* GRH */
	return (wire_v4(h) ? IPV4_LEN : IPV6_LEN) + UDP_LEN;
}

uint32_t emu_wire_roce_hlen(const struct emu_wire_roce *h)
{
	const struct emu_wire_opinfo *oi = emu_wire_opinfo(h->opcode);

	return oi ? EMU_WIRE_ETH_HLEN + wire_l3_len(h) + oi->hlen : 0;
}

/* The extension headers of h's opcode, in order. */
static uint8_t *wire_ext_put(uint8_t *p, const struct emu_wire_roce *h,
			     uint16_t hdrs)
{
	if (hdrs & EMU_WIRE_H_XRCETH) {
		emu_put_be32(p, h->xrc_srqn & 0xffffff);
		p += 4;
	}
	if (hdrs & EMU_WIRE_H_DCETH) {
		emu_put_be64(p, h->dc_key);
		emu_put_be32(p + 8, h->dc_dci & 0xffffff);
		emu_put_be32(p + 12, h->dc_gen);
		emu_put_be32(p + 16, h->dc_psn0 & 0xffffff);
		p += 20;
	}
	if (hdrs & EMU_WIRE_H_DETH) {
		emu_put_be32(p, h->qkey);
		emu_put_be32(p + 4, h->src_qpn & 0xffffff);
		p += 8;
	}
	if (hdrs & (EMU_WIRE_H_RETH | EMU_WIRE_H_ATOMIC)) {
		emu_put_be64(p, h->va);
		emu_put_be32(p + 8, h->rkey);
		if (hdrs & EMU_WIRE_H_RETH) {
			emu_put_be32(p + 12, h->dma_len);
			p += 16;
		} else {
			emu_put_be64(p + 12, h->swap_add);
			emu_put_be64(p + 20, h->compare);
			p += 28;
		}
	}
	if (hdrs & EMU_WIRE_H_AETH) {
		emu_put_be32(p, (uint32_t)h->syndrome << 24 | (h->msn & 0xffffff));
		p += 4;
	}
	if (hdrs & EMU_WIRE_H_ATOMIC_ACK) {
		emu_put_be64(p, h->orig);
		p += 8;
	}
	if (hdrs & EMU_WIRE_H_IMM) {
		memcpy(p, &h->imm, 4);
		p += 4;
	}
	if (hdrs & EMU_WIRE_H_IETH) {
		emu_put_be32(p, h->ieth);
		p += 4;
	}
	return p;
}

uint32_t emu_wire_roce_build(const struct emu_wire_roce *h, uint8_t *frame,
			     uint32_t paylen)
{
	const struct emu_wire_opinfo *oi = emu_wire_opinfo(h->opcode);
	uint32_t hlen = emu_wire_roce_hlen(h), pad = (4 - (paylen & 3)) & 3;
	uint32_t len = hlen + paylen + pad + EMU_WIRE_ICRC_LEN;
	uint32_t l4len, icrc;
	uint8_t *p = frame, *bth;

	if (!oi || len > EMU_WIRE_FRAME_MAX)
		return 0;
	memcpy(p, h->dmac, 6);
	memcpy(p + 6, h->smac, 6);
	l4len = oi->hlen + paylen + pad + EMU_WIRE_ICRC_LEN;
	if (h->version == 1) {
		emu_put_be16(p + 12, EMU_WIRE_ETH_P_ROCE);
		p += EMU_WIRE_ETH_HLEN;
		emu_wire_ipv6_build(p, h->sgid, h->dgid, h->tclass,
				    h->flow_label, h->hop_limit, 0x1b,
				    (uint16_t)l4len);
		p += IPV6_LEN;
	} else {
		l4len += UDP_LEN;
		if (wire_v4(h)) {
			emu_put_be16(p + 12, EMU_WIRE_ETH_P_IPV4);
			p += EMU_WIRE_ETH_HLEN;
			emu_wire_ipv4_build(p, h->sgid, h->dgid, h->tclass,
					    h->hop_limit, (uint16_t)l4len);
			p += IPV4_LEN;
		} else {
			emu_put_be16(p + 12, EMU_WIRE_ETH_P_IPV6);
			p += EMU_WIRE_ETH_HLEN;
			emu_wire_ipv6_build(p, h->sgid, h->dgid, h->tclass,
					    h->flow_label, h->hop_limit, 17,
					    (uint16_t)l4len);
			p += IPV6_LEN;
		}
		emu_put_be16(p, h->udp_sport);
		emu_put_be16(p + 2, EMU_WIRE_ROCE_V2_PORT);
		emu_put_be16(p + 4, (uint16_t)l4len);
		emu_put_be16(p + 6, 0);
		p += UDP_LEN;
	}
	bth = p;
	bth[0] = h->opcode;
	bth[1] = (uint8_t)((h->se ? 0x80 : 0) | (h->migreq ? 0x40 : 0) |
			   pad << 4);		/* TVer 0 */
	emu_put_be16(bth + 2, h->pkey);
	emu_put_be32(bth + 4, (h->fecn ? 0x80000000u : 0) |
			    (h->becn ? 0x40000000u : 0) | (h->dqpn & 0xffffff));
	emu_put_be32(bth + 8, (h->ackreq ? 0x80000000u : 0) | (h->psn & 0xffffff));
	p = wire_ext_put(bth + BTH_LEN, h, oi->hdrs);
	p += paylen;
	memset(p, 0, pad);
	p += pad;
	icrc = h->icrc_later ? 0 : emu_wire_icrc(frame, EMU_WIRE_ETH_HLEN, len);
	emu_put_le32(p, icrc);
	return len;
}

void emu_wire_icrc_put(uint8_t *frame, uint32_t len)
{
	if (len >= EMU_WIRE_ETH_HLEN + EMU_WIRE_ICRC_LEN)
		emu_put_le32(frame + len - EMU_WIRE_ICRC_LEN,
			     emu_wire_icrc(frame, EMU_WIRE_ETH_HLEN, len));
}

/* The extension headers of a received packet (bounds checked before). */
static void wire_ext_get(const uint8_t *p, struct emu_wire_roce *h,
			 uint16_t hdrs)
{
	if (hdrs & EMU_WIRE_H_XRCETH) {
		h->xrc_srqn = emu_get_be32(p) & 0xffffff;
		p += 4;
	}
	if (hdrs & EMU_WIRE_H_DCETH) {
		h->dc_key = emu_get_be64(p);
		h->dc_dci = emu_get_be32(p + 8) & 0xffffff;
		h->dc_gen = emu_get_be32(p + 12);
		h->dc_psn0 = emu_get_be32(p + 16) & 0xffffff;
		p += 20;
	}
	if (hdrs & EMU_WIRE_H_DETH) {
		h->qkey = emu_get_be32(p);
		h->src_qpn = emu_get_be32(p + 4) & 0xffffff;
		p += 8;
	}
	if (hdrs & (EMU_WIRE_H_RETH | EMU_WIRE_H_ATOMIC)) {
		h->va = emu_get_be64(p);
		h->rkey = emu_get_be32(p + 8);
		if (hdrs & EMU_WIRE_H_RETH) {
			h->dma_len = emu_get_be32(p + 12);
			p += 16;
		} else {
			/* An atomic's operand is 8 bytes (IBA 9.4.5); the
			 * AtomicETH has no length of its own. */
			h->dma_len = 8;
			h->swap_add = emu_get_be64(p + 12);
			h->compare = emu_get_be64(p + 20);
			p += 28;
		}
	}
	if (hdrs & EMU_WIRE_H_AETH) {
		uint32_t v = emu_get_be32(p);

		h->syndrome = (uint8_t)(v >> 24);
		h->msn = v & 0xffffff;
		p += 4;
	}
	if (hdrs & EMU_WIRE_H_ATOMIC_ACK) {
		h->orig = emu_get_be64(p);
		p += 8;
	}
	if (hdrs & EMU_WIRE_H_IMM) {
		memcpy(&h->imm, p, 4);
		p += 4;
	}
	if (hdrs & EMU_WIRE_H_IETH)
		h->ieth = emu_get_be32(p);
}

/* The UDP checksum over the pseudo-header (RFC 768, RFC 8200 8.1) and
 * the datagram: 0 when it holds. */
static uint16_t wire_udp_csum(const uint8_t *f, uint32_t l3, uint32_t udp,
			      uint32_t ulen)
{
	const uint8_t *ip = f + l3;
	uint32_t sum = 17 + ulen;

	if ((ip[0] >> 4) == 4) {
		for (int i = 12; i < 20; i += 2)
			sum += emu_get_be16(ip + i);
	} else {
		for (int i = 8; i < 40; i += 2)
			sum += emu_get_be16(ip + i);
	}
	for (uint32_t i = 0; i < ulen; i += 2)
		sum += i + 1 < ulen ? emu_get_be16(f + udp + i) :
				      (uint32_t)f[udp + i] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* IP (or GRH) and UDP: *bth the BTH's offset, *end the packet's end.
 * Only the first avail of the len bytes are at f. */
static enum emu_wire_drop wire_parse_l3(const uint8_t *f, uint32_t avail,
					uint32_t len, uint32_t l3, uint16_t type,
					struct emu_wire_roce *h, uint32_t *bth,
					uint32_t *end)
{
	const uint8_t *ip = f + l3;
	uint32_t udp, ulen;

	if (type == EMU_WIRE_ETH_P_IPV4) {
		uint32_t tot;

		if (len < l3 + IPV4_LEN + UDP_LEN)
			return EMU_WIRE_DROP_MALFORMED;
		if (ip[9] != 17)
			return EMU_WIRE_DROP_NOT_ROCE;
		tot = emu_get_be16(ip + 2);
		/* No options, no fragments, a good header checksum. */
		if (ip[0] != 0x45 || (emu_get_be16(ip + 6) & 0x3fff) ||
		    tot < IPV4_LEN + UDP_LEN || l3 + tot > len ||
		    wire_ip_csum(ip, IPV4_LEN))
			return EMU_WIRE_DROP_MALFORMED;
		memset(h->sgid, 0, 10);
		h->sgid[10] = h->sgid[11] = 0xff;
		memcpy(h->dgid, h->sgid, 12);
		memcpy(h->sgid + 12, ip + 12, 4);
		memcpy(h->dgid + 12, ip + 16, 4);
		h->tclass = ip[1];
		h->hop_limit = ip[8];
		h->version = 2;
		udp = l3 + IPV4_LEN;
		*end = l3 + tot;
	} else {
		uint32_t w0, plen;

		if (len < l3 + IPV6_LEN)
			return EMU_WIRE_DROP_MALFORMED;
		w0 = emu_get_be32(ip);
		plen = emu_get_be16(ip + 4);
		if (w0 >> 28 != 6 || l3 + IPV6_LEN + plen > len)
			return EMU_WIRE_DROP_MALFORMED;
		h->tclass = (uint8_t)(w0 >> 20);
		h->flow_label = w0 & 0xfffff;
		h->hop_limit = ip[7];
		memcpy(h->sgid, ip + 8, 16);
		memcpy(h->dgid, ip + 24, 16);
		*end = l3 + IPV6_LEN + plen;
		if (type == EMU_WIRE_ETH_P_ROCE) {
			if (ip[6] != 0x1b)
				return EMU_WIRE_DROP_MALFORMED;
			h->version = 1;
			*bth = l3 + IPV6_LEN;
			return EMU_WIRE_DROP_NONE;
		}
		if (ip[6] != 17)
			return EMU_WIRE_DROP_NOT_ROCE;
		h->version = 2;
		udp = l3 + IPV6_LEN;
		if (plen < UDP_LEN)
			return EMU_WIRE_DROP_MALFORMED;
	}
	if (emu_get_be16(f + udp + 2) != EMU_WIRE_ROCE_V2_PORT)
		return EMU_WIRE_DROP_NOT_ROCE;
	ulen = emu_get_be16(f + udp + 4);
	if (ulen < UDP_LEN || udp + ulen != *end)
		return EMU_WIRE_DROP_MALFORMED;
	/* RoCE senders leave the checksum 0; one that is set must hold
	 * (and needs the whole datagram). */
	if (emu_get_be16(f + udp + 6) &&
	    (avail < len || wire_udp_csum(f, l3, udp, ulen)))
		return EMU_WIRE_DROP_MALFORMED;
	h->udp_sport = emu_get_be16(f + udp);
	*bth = udp + UDP_LEN;
	return EMU_WIRE_DROP_NONE;
}

/* avail: the bytes at f, len or (without the ICRC check) fewer: every
 * read below avail is then guarded by a check of its own, as every read
 * below len is by the length checks. */
static enum emu_wire_drop wire_roce_parse(const uint8_t *f, uint32_t avail,
					  uint32_t len, struct emu_wire_roce *h,
					  uint32_t *payoff, uint32_t *paylen,
					  bool check_icrc)
{
	const struct emu_wire_opinfo *oi;
	uint32_t l3 = EMU_WIRE_ETH_HLEN, bth, end, rest;
	enum emu_wire_drop why;
	const uint8_t *b;
	uint16_t type;

	memset(h, 0, sizeof(*h));
	if (len < EMU_WIRE_ETH_HLEN ||
	    (avail < len && avail < l3 + IPV6_LEN + UDP_LEN))
		return EMU_WIRE_DROP_MALFORMED;
	memcpy(h->dmac, f, 6);
	memcpy(h->smac, f + 6, 6);
	type = emu_get_be16(f + 12);
	if (type != EMU_WIRE_ETH_P_IPV4 && type != EMU_WIRE_ETH_P_IPV6 &&
	    type != EMU_WIRE_ETH_P_ROCE)
		return EMU_WIRE_DROP_NOT_ROCE;
	why = wire_parse_l3(f, avail, len, l3, type, h, &bth, &end);
	if (why)
		return why;
	if (end < bth + BTH_LEN + EMU_WIRE_ICRC_LEN || avail < bth + BTH_LEN)
		return EMU_WIRE_DROP_MALFORMED;
	b = f + bth;
	h->opcode = b[0];
	h->se = b[1] & 0x80;
	h->migreq = b[1] & 0x40;
	h->padcnt = (b[1] >> 4) & 3;
	h->pkey = emu_get_be16(b + 2);
	h->fecn = b[4] & 0x80;
	h->becn = b[4] & 0x40;
	h->dqpn = emu_get_be32(b + 4) & 0xffffff;
	h->ackreq = b[8] & 0x80;
	h->psn = emu_get_be32(b + 8) & 0xffffff;
	/* IBA C9-4: transport header version 0 only. */
	if (b[1] & 0x0f)
		return EMU_WIRE_DROP_MALFORMED;
	/* IBA 10.9.3: the port's one partition is the default, 0xffff; a
	 * limited member (0x7fff) is in it too. */
	if ((h->pkey & 0x7fff) != 0x7fff)
		return EMU_WIRE_DROP_PKEY;
	oi = emu_wire_opinfo(h->opcode);
	if (!oi)
		return EMU_WIRE_DROP_OPCODE;
	if (end < bth + oi->hlen + EMU_WIRE_ICRC_LEN || avail < bth + oi->hlen)
		return EMU_WIRE_DROP_MALFORMED;
	rest = end - bth - oi->hlen - EMU_WIRE_ICRC_LEN;
	/* The pad makes the payload a whole number of words (IBA 9.3.1). */
	if ((rest & 3) || h->padcnt > rest ||
	    (!(oi->flags & EMU_WIRE_F_PAYLOAD) && rest))
		return EMU_WIRE_DROP_MALFORMED;
	if (check_icrc && emu_get_le32(f + end - EMU_WIRE_ICRC_LEN) !=
			  emu_wire_icrc(f, l3, end))
		return EMU_WIRE_DROP_ICRC;
	wire_ext_get(b + BTH_LEN, h, oi->hdrs);
	*payoff = bth + oi->hlen;
	*paylen = rest - h->padcnt;
	return EMU_WIRE_DROP_NONE;
}

enum emu_wire_drop emu_wire_roce_parse(const uint8_t *f, uint32_t len,
				       struct emu_wire_roce *h,
				       uint32_t *payoff, uint32_t *paylen)
{
	return wire_roce_parse(f, len, len, h, payoff, paylen, true);
}

enum emu_wire_drop emu_wire_roce_parse_trusted(const uint8_t *f, uint32_t len,
					       struct emu_wire_roce *h,
					       uint32_t *payoff,
					       uint32_t *paylen)
{
	return wire_roce_parse(f, len, len, h, payoff, paylen, false);
}

enum emu_wire_drop emu_wire_roce_parse_head(const uint8_t *head,
					    uint32_t avail, uint32_t len,
					    struct emu_wire_roce *h,
					    uint32_t *payoff,
					    uint32_t *paylen)
{
	return wire_roce_parse(head, avail < len ? avail : len, len, h,
			       payoff, paylen, false);
}

const char *emu_wire_drop_name(enum emu_wire_drop why)
{
	static const char *const n[EMU_WIRE_DROP_NUM] = {
		[EMU_WIRE_DROP_NONE] = "none",
		[EMU_WIRE_DROP_MALFORMED] = "malformed",
		[EMU_WIRE_DROP_ICRC] = "bad_icrc",
		[EMU_WIRE_DROP_NOT_ROCE] = "not_roce",
		[EMU_WIRE_DROP_VXLAN] = "vxlan",
		[EMU_WIRE_DROP_L2] = "l2",
		[EMU_WIRE_DROP_OPCODE] = "opcode",
		[EMU_WIRE_DROP_PKEY] = "pkey",
		[EMU_WIRE_DROP_NO_QP] = "no_qp",
		[EMU_WIRE_DROP_PSN] = "psn",
		[EMU_WIRE_DROP_PORT_DOWN] = "port_down",
		[EMU_WIRE_DROP_FAULT] = "fault",
		[EMU_WIRE_DROP_NO_ROUTE] = "no_route",
		[EMU_WIRE_DROP_TX_ERR] = "tx_error",
	};

	return (unsigned int)why < EMU_WIRE_DROP_NUM ? n[why] : "?";
}
