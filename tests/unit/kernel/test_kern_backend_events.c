/* SPDX-License-Identifier: MIT */
/*
 * DEVX event channels and the kernel's async events through the ops:
 * event_channel_*, event_subscribe(_fd), event_read, async_event_*.
 * Events are raised the way the device raises them: a port's link
 * changing (PORT_CHANGE), an overrun injected on a CQ (CQ_ERROR).  EQE
 * bytes are checked at literal offsets: type 1, sub-type 3, data from 32.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "test_kern_backend.h"
#include "emu/engine/eng.h"

static struct mlx5be_ctx *ctx;
static struct emu_fw *fw;

static void setup(void)
{
	ctx = kbt_open(NULL);
	fw = kbt_fw(ctx);
}

static void teardown(void)
{
	if (ctx)
		BE->close(ctx);
	/* The port as every test finds it. */
	emu_fw_port_set_link(fw, 1, true);
}

static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, 0);

	ck_assert_int_ge(n, 0);
	return n == 1 && (p.revents & POLLIN);
}

static void nonblock(int fd)
{
	ck_assert_int_eq(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
}

static struct mlx5be_event_channel *channel(uint32_t flags)
{
	struct mlx5be_event_channel *ch = BE->event_channel_create(ctx, flags);

	ck_assert_ptr_nonnull(ch);
	return ch;
}

static void subscribe_port(struct mlx5be_event_channel *ch, uint64_t cookie)
{
	static const uint16_t t = MLX5_EVENT_TYPE_PORT_CHANGE;

	ck_assert_int_eq(BE->event_subscribe(ch, NULL, &t, 1, cookie), 0);
}

static void flap(void)
{
	ck_assert_int_eq(emu_fw_port_set_link(fw, 1, false), 0);
	ck_assert_int_eq(emu_fw_port_set_link(fw, 1, true), 0);
}

START_TEST(channel_flags_and_fd)
{
	struct mlx5be_event_channel *ch;

	errno = 0;
	ck_assert_ptr_null(BE->event_channel_create(ctx, 2));
	ck_assert_int_eq(errno, EINVAL);
	ch = channel(MLX5BE_EVENT_CHANNEL_OMIT_DATA);
	ck_assert_int_ge(BE->event_channel_fd(ch), 0);
	ck_assert(!readable(BE->event_channel_fd(ch)));
	BE->event_channel_destroy(ch);
}
END_TEST

START_TEST(subscribe_checks)
{
	struct mlx5be_event_channel *ch = channel(0);
	uint16_t t[17];
	struct kbt_cq cq;

	kbt_cq_create(ctx, &cq);
	for (int i = 0; i < 17; i++)
		t[i] = MLX5_EVENT_TYPE_CQ_ERROR;
	/* At least one type, at most 16. */
	ck_assert_int_eq(BE->event_subscribe(ch, cq.obj, t, 0, 1), -EINVAL);
	ck_assert_int_eq(BE->event_subscribe(ch, cq.obj, t, 17, 1), -EINVAL);
	ck_assert_int_eq(BE->event_subscribe(ch, cq.obj, t, 16, 1), 0);
	/* An object's events are the legacy affiliated ones. */
	t[0] = MLX5_EVENT_TYPE_PORT_CHANGE;
	ck_assert_int_eq(BE->event_subscribe(ch, cq.obj, t, 1, 1), -EINVAL);
	t[0] = MLX5_EVENT_TYPE_CMD;
	ck_assert_int_eq(BE->event_subscribe(ch, cq.obj, t, 1, 1), -EINVAL);
	/* Without an object: PORT_CHANGE only. */
	t[0] = MLX5_EVENT_TYPE_CQ_ERROR;
	ck_assert_int_eq(BE->event_subscribe(ch, NULL, t, 1, 1), -EINVAL);
	t[0] = MLX5_EVENT_TYPE_COMP;
	ck_assert_int_eq(BE->event_subscribe(ch, NULL, t, 1, 1), -EINVAL);
	t[0] = MLX5_EVENT_TYPE_PORT_CHANGE;
	ck_assert_int_eq(BE->event_subscribe(ch, NULL, t, 1, 1), 0);
	/* _fd: an eventfd only. */
	ck_assert_int_eq(BE->event_subscribe_fd(ch, NULL, t[0], -1), -EBADF);
	{
		int p[2];

		ck_assert_int_eq(pipe(p), 0);
		ck_assert_int_eq(BE->event_subscribe_fd(ch, NULL, t[0], p[0]),
				 -EINVAL);
		close(p[0]);
		close(p[1]);
	}
	BE->event_channel_destroy(ch);
	kbt_cq_destroy(&cq);
}
END_TEST

START_TEST(object_of_another_context)
{
	static const uint16_t t = MLX5_EVENT_TYPE_CQ_ERROR;
	struct mlx5be_ctx *other = kbt_open(NULL);
	struct mlx5be_event_channel *ch = channel(0);
	struct kbt_cq cq;

	kbt_cq_create(other, &cq);
	ck_assert_int_eq(BE->event_subscribe(ch, cq.obj, &t, 1, 1), -ENOENT);
	BE->event_channel_destroy(ch);
	kbt_cq_destroy(&cq);
	BE->close(other);
}
END_TEST

START_TEST(port_change_with_data)
{
	struct mlx5be_event_channel *ch = channel(0);
	struct mlx5be_event ev;
	int fd = BE->event_channel_fd(ch);

	subscribe_port(ch, 0x1122334455667788ull);
	ck_assert_int_eq(emu_fw_port_set_link(fw, 1, false), 0);
	ck_assert(readable(fd));
	/* A buffer shorter than cookie + EQE: EINVAL, the event stays. */
	ck_assert_int_eq(BE->event_read(ch, &ev, sizeof(ev) - 1), -EINVAL);
	ck_assert(readable(fd));
	memset(&ev, 0, sizeof(ev));
	ck_assert_int_eq(BE->event_read(ch, &ev, sizeof(ev)), 72);
	ck_assert_uint_eq(ev.cookie, 0x1122334455667788ull);
	ck_assert_uint_eq(ev.eqe[1], MLX5_EVENT_TYPE_PORT_CHANGE);
	ck_assert_uint_eq(ev.eqe[3], MLX5_PORT_CHANGE_SUBTYPE_DOWN);
	ck_assert_uint_eq(ev.eqe[40] >> 4, 1);
	ck_assert(!readable(fd));
	ck_assert_int_eq(emu_fw_port_set_link(fw, 1, true), 0);
	ck_assert_int_eq(BE->event_read(ch, &ev, sizeof(ev)), 72);
	ck_assert_uint_eq(ev.eqe[3], MLX5_PORT_CHANGE_SUBTYPE_ACTIVE);
	/* Nothing: O_NONBLOCK says EAGAIN. */
	nonblock(fd);
	ck_assert_int_eq(BE->event_read(ch, &ev, sizeof(ev)), -EAGAIN);
	BE->event_channel_destroy(ch);
}
END_TEST

START_TEST(omit_data_coalesces)
{
	struct mlx5be_event_channel *ch = channel(MLX5BE_EVENT_CHANNEL_OMIT_DATA);
	struct mlx5be_event_channel *other = channel(MLX5BE_EVENT_CHANNEL_OMIT_DATA);
	struct mlx5be_event ev;

	subscribe_port(ch, 7);
	subscribe_port(ch, 8);	/* a second subscription, its own entry */
	flap();
	flap();
	nonblock(BE->event_channel_fd(ch));
	/* Each subscription once, however many events: its cookie alone. */
	ck_assert_int_eq(BE->event_read(ch, &ev, 7), -EINVAL);
	ck_assert_int_eq(BE->event_read(ch, &ev, 8), 8);
	ck_assert_uint_eq(ev.cookie, 7);
	ck_assert_int_eq(BE->event_read(ch, &ev, 8), 8);
	ck_assert_uint_eq(ev.cookie, 8);
	ck_assert_int_eq(BE->event_read(ch, &ev, 8), -EAGAIN);
	/* Read, a subscription queues again. */
	flap();
	ck_assert_int_eq(BE->event_read(ch, &ev, 8), 8);
	/* A channel that subscribed nothing got nothing. */
	ck_assert(!readable(BE->event_channel_fd(other)));
	BE->event_channel_destroy(ch);
	BE->event_channel_destroy(other);
}
END_TEST

START_TEST(lost_events_overflow)
{
	struct mlx5be_event_channel *ch = channel(0);
	struct mlx5be_event ev;
	unsigned int n = 0;

	subscribe_port(ch, 3);
	/* 65536 queue; the 65537th is lost. */
	for (int i = 0; i < 32768; i++)
		flap();
	ck_assert_int_eq(emu_fw_port_set_link(fw, 1, false), 0);
	ck_assert_int_eq(BE->event_read(ch, &ev, sizeof(ev)), -EOVERFLOW);
	nonblock(BE->event_channel_fd(ch));
	while (BE->event_read(ch, &ev, sizeof(ev)) == 72)
		n++;
	ck_assert_uint_eq(n, 65536);
	ck_assert_int_eq(BE->event_read(ch, &ev, sizeof(ev)), -EAGAIN);
	BE->event_channel_destroy(ch);
}
END_TEST

START_TEST(eventfd_subscription)
{
	struct mlx5be_event_channel *ch = channel(0);
	int efd = eventfd(0, EFD_NONBLOCK);
	uint64_t v = 0;

	ck_assert_int_eq(BE->event_subscribe_fd(ch, NULL,
						MLX5_EVENT_TYPE_PORT_CHANGE, efd), 0);
	/* The subscription holds its own reference to the eventfd. */
	flap();
	ck_assert_int_eq(read(efd, &v, sizeof(v)), sizeof(v));
	ck_assert_uint_eq(v, 2);
	/* Nothing queued on the channel itself. */
	ck_assert(!readable(BE->event_channel_fd(ch)));
	BE->event_channel_destroy(ch);
	flap();
	ck_assert_int_eq(read(efd, &v, sizeof(v)), -1);
	close(efd);
}
END_TEST

START_TEST(events_survive_object)
{
	static const uint16_t t = MLX5_EVENT_TYPE_CQ_ERROR;
	struct mlx5be_event_channel *ch = channel(0);
	struct mlx5be_event_channel *om = channel(MLX5BE_EVENT_CHANNEL_OMIT_DATA);
	struct mlx5be_event ev;
	struct kbt_cq cq;

	kbt_cq_create(ctx, &cq);
	ck_assert_int_eq(BE->event_subscribe(ch, cq.obj, &t, 1, 0xc0ffee), 0);
	ck_assert_int_eq(BE->event_subscribe(om, cq.obj, &t, 1, 0xbeef), 0);
	ck_assert_int_eq(emu_eng_inject(fw, EMU_ENG_INJECT_CQ_OVERRUN, cq.cqn), 0);
	ck_assert_int_eq(BE->obj_destroy(cq.obj), 0);
	cq.obj = NULL;
	/* Queued before the destroy: still there. */
	ck_assert_int_eq(BE->event_read(ch, &ev, sizeof(ev)), 72);
	ck_assert_uint_eq(ev.cookie, 0xc0ffee);
	ck_assert_uint_eq(ev.eqe[1], MLX5_EVENT_TYPE_CQ_ERROR);
	ck_assert_uint_eq((uint32_t)ev.eqe[33] << 16 | ev.eqe[34] << 8 |
			  ev.eqe[35], cq.cqn);
	ck_assert_uint_eq(ev.eqe[43], 1);	/* overrun */
	ck_assert_int_eq(BE->event_read(om, &ev, 8), 8);
	ck_assert_uint_eq(ev.cookie, 0xbeef);
	BE->event_channel_destroy(ch);
	BE->event_channel_destroy(om);
	kbt_cq_destroy(&cq);
}
END_TEST

START_TEST(context_gone_eio)
{
	struct mlx5be_event_channel *ch = channel(0), *nb = channel(0);
	struct mlx5be_event ev;

	subscribe_port(ch, 1);
	subscribe_port(nb, 1);
	flap();
	BE->close(ctx);
	ctx = NULL;
	/* devx_async_event_destroy_uobj: dropped, readable, reads EIO. */
	ck_assert(readable(BE->event_channel_fd(ch)));
	ck_assert_int_eq(BE->event_read(ch, &ev, sizeof(ev)), -EIO);
	ck_assert_int_eq(BE->event_read(ch, &ev, sizeof(ev)), -EIO);
	nonblock(BE->event_channel_fd(nb));
	ck_assert_int_eq(BE->event_read(nb, &ev, sizeof(ev)), -EAGAIN);
	/* No more events reach it. */
	flap();
	BE->event_channel_destroy(ch);
	BE->event_channel_destroy(nb);
}
END_TEST

START_TEST(async_events_of_the_kernel)
{
	struct mlx5be_ctx *other = kbt_open(NULL);
	int fd = BE->async_event_fd(ctx);
	struct mlx5be_async_event ev;

	ck_assert_int_eq(BE->async_event_read(ctx, &ev), -EAGAIN);
	ck_assert(!readable(fd));
	flap();
	/* Every context of the device hears it. */
	for (int i = 0; i < 2; i++) {
		struct mlx5be_ctx *c = i ? other : ctx;

		ck_assert(readable(BE->async_event_fd(c)));
		ck_assert_int_eq(BE->async_event_read(c, &ev), 0);
		ck_assert_uint_eq(ev.event_type, IBV_EVENT_PORT_ERR);
		ck_assert_uint_eq(ev.port_num, 1);
		ck_assert_int_eq(BE->async_event_read(c, &ev), 0);
		ck_assert_uint_eq(ev.event_type, IBV_EVENT_PORT_ACTIVE);
		ck_assert_int_eq(BE->async_event_read(c, &ev), -EAGAIN);
	}
	ck_assert(!readable(fd));
	BE->close(other);
}
END_TEST

Suite *kbt_events_suite(void)
{
	Suite *s = suite_create("kern_backend_events");
	TCase *tc = tcase_create("events");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, channel_flags_and_fd);
	tcase_add_test(tc, subscribe_checks);
	tcase_add_test(tc, object_of_another_context);
	tcase_add_test(tc, port_change_with_data);
	tcase_add_test(tc, omit_data_coalesces);
	tcase_add_test(tc, lost_events_overflow);
	tcase_add_test(tc, eventfd_subscription);
	tcase_add_test(tc, events_survive_object);
	tcase_add_test(tc, context_gone_eio);
	tcase_add_test(tc, async_events_of_the_kernel);
	suite_add_tcase(s, tc);
	return s;
}
