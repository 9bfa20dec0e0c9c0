/* SPDX-License-Identifier: MIT */
/*
 * The forwarding table of a tunnel endpoint (wire_fdb.c): which outer
 * endpoint an inner destination MAC goes to, in the order a VTEP decides
 * it: an exact entry (learned or static), else a default peer (Linux's
 * all-zeros `bridge fdb` entry), else the emulator's own addressing (a
 * 02:c9 MAC is 02:c9 + the IPv4 address of a port's endpoint).
 */
#include <check.h>
#include <string.h>
#include <sys/socket.h>

#include "emu/wire/wire_int.h"
#include "ut_run.h"

#define PORT 4789

static struct wire_fdb t;
static uint8_t frame[64];

static struct emu_wire_ep ep4(uint8_t a, uint8_t b, uint8_t c, uint8_t d,
			      uint16_t port)
{
	struct emu_wire_ep e = { .family = AF_INET, .port = port,
				 .addr = { a, b, c, d } };
	return e;
}

/* A frame to dmac (its first six bytes; no IPv4 header behind). */
static void to(const uint8_t dmac[6])
{
	memset(frame, 0, sizeof(frame));
	memcpy(frame, dmac, 6);
}

static void expect(const struct emu_wire_ep *want)
{
	struct emu_wire_ep got;

	ck_assert(wire_fdb_lookup(&t, frame, sizeof(frame), &got));
	ck_assert_msg(emu_wire_ep_eq(&got, want),
		      "got %u.%u.%u.%u:%u", got.addr[0], got.addr[1],
		      got.addr[2], got.addr[3], got.port);
}

static void setup(void)
{
	memset(&t, 0, sizeof(t));
	t.peer_port = PORT;
}

static const uint8_t emu_mac[6] = { 0x02, 0xc9, 198, 18, 0, 2 };
static const uint8_t other_mac[6] = { 0x0a, 0x29, 0xc5, 0xe7, 0x8f, 0x56 };

START_TEST(emulated_mac_names_its_endpoint)
{
	struct emu_wire_ep e = ep4(198, 18, 0, 2, PORT);

	to(emu_mac);
	expect(&e);
	to(other_mac);		/* nothing says where it is */
	ck_assert(!wire_fdb_lookup(&t, frame, sizeof(frame),
				   &(struct emu_wire_ep){ 0 }));
}
END_TEST

/* RFC 7348 section 4: learned from the outer source; replies go to the
 * port every endpoint listens on, whatever port the frame came from. */
START_TEST(learned_entry_uses_the_listening_port)
{
	struct emu_wire_ep from = ep4(192, 0, 2, 2, 40123);
	struct emu_wire_ep want = ep4(192, 0, 2, 2, PORT);

	ck_assert(wire_fdb_learn(&t, emu_mac, &from));
	ck_assert(!wire_fdb_learn(&t, emu_mac, &from));	/* known */
	to(emu_mac);
	expect(&want);
	ck_assert(!wire_fdb_learn(&t, (const uint8_t[6]){ 0x03, 0, 0, 0, 0, 1 },
				  &from));		/* a group address */
}
END_TEST

/* A default peer wins over the emulator's addressing: behind it is, for
 * instance, a Linux vxlan netdev whose overlay address (from which a
 * 02:c9 MAC derives) is no endpoint at all. */
START_TEST(default_peer_before_derived_address)
{
	struct emu_wire_ep peer = ep4(192, 0, 2, 2, PORT);
	struct emu_wire_ep there = ep4(192, 0, 2, 9, PORT);
	struct emu_wire_ep from = ep4(192, 0, 2, 9, 50000);

	ck_assert_int_eq(wire_fdb_add_static(&t, NULL, &peer), 0);
	to(emu_mac);
	expect(&peer);
	to(other_mac);
	expect(&peer);
	/* What was learned is exact and wins. */
	ck_assert(wire_fdb_learn(&t, other_mac, &from));
	expect(&there);
}
END_TEST

/* A static entry for a MAC stays whatever frames say. */
START_TEST(static_entry_is_not_relearned)
{
	struct emu_wire_ep st = ep4(192, 0, 2, 7, 4790);
	struct emu_wire_ep from = ep4(192, 0, 2, 8, 1234);

	ck_assert_int_eq(wire_fdb_add_static(&t, other_mac, &st), 0);
	ck_assert(!wire_fdb_learn(&t, other_mac, &from));
	to(other_mac);
	expect(&st);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("wire_fdb");
	TCase *tc = tcase_create("lookup");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, emulated_mac_names_its_endpoint);
	tcase_add_test(tc, learned_entry_uses_the_listening_port);
	tcase_add_test(tc, default_peer_before_derived_address);
	tcase_add_test(tc, static_entry_is_not_relearned);
	suite_add_tcase(s, tc);
	return ut_run(s) ? 1 : 0;
}
