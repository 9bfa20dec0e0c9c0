/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_settings_wire.c -- the wire's settings with a syntax of
 * their own: a tunnel endpoint, IPv4[:PORT], and static peers,
 * IPv4[:PORT][@MAC] separated by commas or spaces.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "emu/device/dev_config.h"
#include "emu/device/dev_config_int.h"

/* "a.b.c.d[:port]" of n characters; port 0 when absent. */
static int parse_ep(const char *v, size_t n, uint32_t *ip, uint16_t *port,
		    char *why, size_t whylen)
{
	char buf[64];
	const char *colon;
	struct in_addr a;
	uint64_t p = 0;

	if (n >= sizeof(buf)) {
		snprintf(why, whylen, "\"%.*s\" is too long", (int)n, v);
		return -EINVAL;
	}
	memcpy(buf, v, n);
	buf[n] = '\0';
	colon = strchr(buf, ':');
	if (colon) {
		if (emu_text_parse_u64(colon + 1, 65535, &p) || !p) {
			snprintf(why, whylen, "\"%s\": bad UDP port; expected 1 "
				 "to 65535", buf);
			return -EINVAL;
		}
		buf[colon - buf] = '\0';
	}
	if (inet_pton(AF_INET, buf, &a) != 1) {
		snprintf(why, whylen, "\"%s\" is not an IPv4 address", buf);
		return -EINVAL;
	}
	*ip = ntohl(a.s_addr);
	*port = (uint16_t)p;
	return 0;
}

static int parse_mac(const char *v, size_t n, uint8_t mac[6])
{
	unsigned int b[6];
	char buf[24], end;

	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, v, n);
	buf[n] = '\0';
	if (sscanf(buf, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2],
		   &b[3], &b[4], &b[5], &end) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

int emu_settings_validate_endpoint(const struct emu_setting *s,
				   const char *value, struct emu_config *cfg,
				   char *why, size_t whylen)
{
	uint32_t ip;
	uint16_t port;

	(void)s;
	if (!*value) {
		cfg->wire_endpoint_set = false;
		return 0;
	}
	if (parse_ep(value, strlen(value), &ip, &port, why, whylen))
		return -EINVAL;
	cfg->wire_endpoint_set = true;
	cfg->wire_endpoint = ip;
	cfg->wire_endpoint_port = port;
	return 0;
}

int emu_settings_validate_peers(const struct emu_setting *s, const char *value,
				struct emu_config *cfg, char *why, size_t whylen)
{
	struct emu_config_peer peers[EMU_CONFIG_PEERS_MAX];
	unsigned int n = 0;
	const char *p = value;

	(void)s;
	while (*p) {
		size_t len = strcspn(p, ", \t");
		const char *at = memchr(p, '@', len);
		struct emu_config_peer *e = &peers[n];

		if (!len) {
			p++;
			continue;
		}
		if (n >= EMU_CONFIG_PEERS_MAX) {
			snprintf(why, whylen, "more than %d peers",
				 EMU_CONFIG_PEERS_MAX);
			return -EINVAL;
		}
		memset(e, 0, sizeof(*e));
		if (parse_ep(p, at ? (size_t)(at - p) : len, &e->ip, &e->port,
			     why, whylen))
			return -EINVAL;
		if (at) {
			if (parse_mac(at + 1, len - (size_t)(at + 1 - p), e->mac)) {
				snprintf(why, whylen, "\"%.*s\" is not a MAC "
					 "address (xx:xx:xx:xx:xx:xx)",
					 (int)(len - (size_t)(at + 1 - p)), at + 1);
				return -EINVAL;
			}
			e->has_mac = true;
		}
		n++;
		p += len;
	}
	memcpy(cfg->peers, peers, n * sizeof(peers[0]));
	cfg->num_peers = n;
	return 0;
}

static int format_ep(char *buf, size_t len, uint32_t ip, uint16_t port)
{
	struct in_addr a = { .s_addr = htonl(ip) };
	char s[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &a, s, sizeof(s));
	return port ? snprintf(buf, len, "%s:%u", s, port) :
		      snprintf(buf, len, "%s", s);
}

void emu_settings_format_wire(const struct emu_config *cfg,
			      enum emu_setting_id id, char *buf, size_t len)
{
	size_t n = 0;

	if (id == EMU_SET_WIRE_ENDPOINT) {
		if (cfg->wire_endpoint_set)
			format_ep(buf, len, cfg->wire_endpoint,
				  cfg->wire_endpoint_port);
		return;
	}
	for (unsigned int i = 0; i < cfg->num_peers && n < len; i++) {
		const struct emu_config_peer *e = &cfg->peers[i];

		if (i)
			n += (size_t)snprintf(buf + n, len - n, ",");
		if (n < len)
			n += (size_t)format_ep(buf + n, len - n, e->ip, e->port);
		if (e->has_mac && n < len)
			n += (size_t)snprintf(buf + n, len - n,
					      "@%02x:%02x:%02x:%02x:%02x:%02x",
					      e->mac[0], e->mac[1], e->mac[2],
					      e->mac[3], e->mac[4], e->mac[5]);
	}
}
