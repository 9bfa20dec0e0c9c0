/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_core.c -- the engine: its run lock, passes, thread and
 * devices.
 *
 * The run lock.  All engine state is changed only by its holder: the
 * engine thread or an application thread doing inline progress.  Inline
 * progress only tries the lock; if it is held it sets `pending`, which the
 * holder re-checks after releasing (so a request is never lost), and wakes
 * the thread only if it is parked (`parked`): no system call otherwise.
 *
 * The thread.  It runs passes while they find work, spins on empty passes
 * for ENG_SPIN_NS, then parks on a futex with a timeout that starts at
 * ENG_PARK_MIN_US and doubles to ENG_PARK_MID_US, and to ENG_PARK_MAX_US
 * once idle for ENG_PARK_LONG_NS (or the next timer, whichever is first).
 * Programs that ring doorbells only in memory (DEVX users) are found by the
 * pass after the park: the worst-case pickup delay of an idle engine is
 * ENG_PARK_MAX_US plus one pass (1 ms within the first 50 ms of idleness).
 * An idle pass costs ~0.1 us; a park and wakeup ~10-30 us on this kind of
 * machine, so a long-idle engine costs 250 wakeups a second, well under 1%
 * of a CPU.
 *
 * Destroys synchronise with passes by taking the run lock once the object
 * is unpublished (sync), so no pass can still be touching it.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "emu/engine/eng_int.h"
#include "emu/mem/mem.h"

#define ENG_SPIN_NS 50000ull		/* spin this long before parking */
#define ENG_PARK_MIN_US 50u
#define ENG_PARK_MID_US 1000u		/* the first 50 ms idle */
#define ENG_PARK_LONG_NS 50000000ull
#define ENG_PARK_MAX_US 4000u		/* idle longer */

struct eng eng_g = {
	.run = PTHREAD_MUTEX_INITIALIZER,
	.cfg = PTHREAD_MUTEX_INITIALIZER,
	.qps = CDS_LIST_HEAD_INIT(eng_g.qps),
	.wake_fd = -1,
	.cqs = CDS_LIST_HEAD_INIT(eng_g.cqs),
};
static bool eng_thread_running;	/* under cfg */
static int eng_threaded_cfg = -1;	/* under cfg: -1 not read yet */
static pthread_once_t eng_atexit_once = PTHREAD_ONCE_INIT;

uint64_t eng_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void eng_timer_arm(struct eng *e, uint64_t deadline)
{
	if (deadline == UINT64_MAX)	/* no timer: waits for an event */
		return;
	if (!e->next_timer_ns || deadline < e->next_timer_ns)
		e->next_timer_ns = deadline;
}

/* Round-robin: the QP after the first of the last pass goes first. */
static void eng_rotate(struct eng *e)
{
	struct cds_list_head *first = e->qps.next;

	if (first != &e->qps && first->next != &e->qps) {
		cds_list_del(first);
		cds_list_add_tail(first, &e->qps);
	}
}

/*
 * One bounded pass over every attached QP, hinted ones first: each runs
 * its requester for at most ENG_PASS_WQES_PER_QP WQEs.  Returns the work
 * done (WQEs executed or flushed).  Run lock held.
 */
static unsigned int eng_pass(struct eng *e)
{
	unsigned int done = 0;
	struct eng_qp *qp, *tmp;

	e->now_ns = eng_clock_ns();
	if (e->next_timer_ns && e->next_timer_ns <= e->now_ns)
		e->next_timer_ns = 0;	/* re-armed by who still waits */
	e->passes++;
	emu_fw_rcu_lock();
	eng_uar_scan(e);
	if (e->nwire)
		done += eng_wire_rx(e, ENG_PASS_WQES);
	for (int hinted = 1; hinted >= 0; hinted--) {
		cds_list_for_each_entry_safe(qp, tmp, &e->qps, node) {
			if (qp->hinted != (bool)hinted)
				continue;
			qp->hinted = false;
			if (done >= ENG_PASS_WQES)
				break;
			if (!qp->dev->fatal)
				done += eng_req_run(qp, ENG_PASS_WQES_PER_QP);
		}
	}
	if (e->nwire)
		eng_wire_flush(e);
	eng_cq_scan(e);
	emu_fw_rcu_unlock();
	eng_rotate(e);
	e->wqes += done;
	return done;
}

/* Release the run lock; run again for whoever asked meanwhile. */
static void eng_release(struct eng *e)
{
	for (;;) {
		pthread_mutex_unlock(&e->run);
		if (!atomic_load(&e->pending))
			return;
		if (pthread_mutex_trylock(&e->run))
			return;		/* the new holder sees pending */
		atomic_store(&e->pending, 0);
		eng_pass(e);
	}
}

static void eng_futex_wake(struct eng *e)
{
	atomic_fetch_add(&e->wake_seq, 1);
	syscall(SYS_futex, &e->wake_seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	/* A thread parked on the wire's ports waits in poll(). */
	if (e->wake_fd >= 0)
		eng_wire_wake(e);
}

void emu_eng_progress(unsigned int why)
{
	struct eng *e = &eng_g;

	(void)why;
	if (pthread_mutex_trylock(&e->run) == 0) {
		atomic_store(&e->pending, 0);
		eng_pass(e);
		eng_release(e);
		return;
	}
	atomic_store(&e->pending, 1);
	if (atomic_load(&e->parked))
		eng_futex_wake(e);
}

static void eng_park(struct eng *e, unsigned int us)
{
	unsigned int seq = atomic_load(&e->wake_seq);
	struct timespec ts;
	uint64_t ns = (uint64_t)us * 1000;

	pthread_mutex_lock(&e->run);
	if (e->next_timer_ns) {
		uint64_t now = eng_clock_ns();

		ns = e->next_timer_ns > now ?
		     (e->next_timer_ns - now < ns ? e->next_timer_ns - now : ns) : 0;
	}
	pthread_mutex_unlock(&e->run);
	if (!ns)
		return;
	ts.tv_sec = (time_t)(ns / 1000000000ull);
	ts.tv_nsec = (long)(ns % 1000000000ull);
	atomic_store(&e->parked, 1);
	if (!atomic_load(&e->pending) && !atomic_load(&e->stop)) {
		/* Ports only change under cfg, which the thread's owner
		 * holds while it runs. */
		if (e->nwire)
			eng_wire_park(e, ns);
		else
			syscall(SYS_futex, &e->wake_seq, FUTEX_WAIT_PRIVATE,
				seq, &ts, NULL, 0);
	}
	atomic_store(&e->parked, 0);
}

static void *eng_thread_main(void *arg)
{
	struct eng *e = arg;
	unsigned int park_us = ENG_PARK_MIN_US, max_us;
	uint64_t idle_since = 0;

	while (!atomic_load(&e->stop)) {
		unsigned int done;

		pthread_mutex_lock(&e->run);
		atomic_store(&e->pending, 0);
		done = eng_pass(e);
		eng_release(e);
		if (done) {
			idle_since = 0;
			park_us = ENG_PARK_MIN_US;
			continue;
		}
		if (!idle_since)
			idle_since = eng_clock_ns();
		/* With a wire the thread never spins: a frame wakes its
		 * poll(), and the application's own polling runs passes;
		 * two spinners per process on two CPUs would turn every
		 * round trip into a scheduler time slice. */
		if (!e->nwire && eng_clock_ns() - idle_since < ENG_SPIN_NS) {
			__builtin_ia32_pause();
			continue;
		}
		eng_park(e, park_us);
		max_us = eng_clock_ns() - idle_since < ENG_PARK_LONG_NS ?
			 ENG_PARK_MID_US : ENG_PARK_MAX_US;
		park_us = park_us * 2 > max_us ? max_us : park_us * 2;
	}
	return NULL;
}

unsigned int emu_eng_max_pickup_us(void)
{
	return ENG_PARK_MAX_US;
}

/* Start the thread if it should run and does not (cfg held). */
static int eng_thread_start(struct eng *e)
{
	if (eng_thread_running || !e->threaded)
		return 0;
	atomic_store(&e->stop, false);
	if (pthread_create(&e->thread, NULL, eng_thread_main, e))
		return -EAGAIN;
	eng_thread_running = true;
	return 0;
}

static void eng_thread_stop(struct eng *e)
{
	if (!eng_thread_running)
		return;
	atomic_store(&e->stop, true);
	eng_futex_wake(e);
	pthread_join(e->thread, NULL);
	eng_thread_running = false;
}

void emu_eng_stop(void)
{
	pthread_mutex_lock(&eng_g.cfg);
	eng_thread_stop(&eng_g);
	pthread_mutex_unlock(&eng_g.cfg);
}

int emu_eng_start(void)
{
	int ret;

	pthread_mutex_lock(&eng_g.cfg);
	ret = eng_thread_start(&eng_g);
	pthread_mutex_unlock(&eng_g.cfg);
	return ret;
}

/* At exit the thread stops before the process tears its memory down. */
static void eng_atexit(void)
{
	emu_eng_stop();
}

/*
 * A forked child has no engine thread and its devices are its parent's
 * (the kernel layer forgets them and makes fresh ones): start over, with
 * locks another thread may have held at fork() re-made.  The parent's
 * engine state is left behind, as the kernel layer leaves its devices.
 */
static void eng_atfork_child(void)
{
	struct eng *e = &eng_g;

	pthread_mutex_init(&e->run, NULL);
	pthread_mutex_init(&e->cfg, NULL);
	atomic_store(&e->pending, 0);
	atomic_store(&e->parked, 0);
	atomic_store(&e->stop, false);
	memset(e->devs, 0, sizeof(e->devs));
	CDS_INIT_LIST_HEAD(&e->qps);
	CDS_INIT_LIST_HEAD(&e->cqs);
	e->next_timer_ns = 0;
	/* The parent's ports and wake descriptor are not the child's. */
	e->nwire = 0;
	e->nacks = 0;
	e->nroutes = 0;
	e->wake_fd = -1;
	eng_thread_running = false;
}

static void eng_atexit_register(void)
{
	atexit(eng_atexit);
	pthread_atfork(NULL, NULL, eng_atfork_child);
}

bool emu_eng_thread_running(void)
{
	bool r;

	pthread_mutex_lock(&eng_g.cfg);
	r = eng_thread_running;
	pthread_mutex_unlock(&eng_g.cfg);
	return r;
}

bool emu_eng_threaded(void)
{
	return eng_g.threaded;
}

/* The firmware's sync: a pass that could reach the object is over. */
static void eng_sync(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&eng_g.run);
	eng_release(&eng_g);
}

/* The firmware's run_locked: a CQ resize swaps the ring between passes. */
static void eng_run_locked(void *arg, void (*fn)(void *), void *fnarg)
{
	(void)arg;
	pthread_mutex_lock(&eng_g.run);
	fn(fnarg);
	eng_release(&eng_g);
}

/* The firmware's port_changed: the device raises PORT_CHANGE. */
static void eng_port_changed(void *arg, unsigned int port, bool up)
{
	pthread_mutex_lock(&eng_g.run);
	eng_event_port(arg, port, up);
	eng_release(&eng_g);
}

struct eng_dev *eng_dev_of(const struct emu_fw *fw)
{
	for (int i = 0; i < ENG_MAX_DEVS; i++)
		if (eng_g.devs[i] && eng_g.devs[i]->fw == fw)
			return eng_g.devs[i];
	return NULL;
}

int emu_eng_set_irq(struct emu_fw *fw, emu_eng_irq_fn fn, void *arg)
{
	struct eng_dev *dev;

	pthread_mutex_lock(&eng_g.run);
	dev = eng_dev_of(fw);
	if (dev) {
		dev->irq = fn;
		dev->irq_arg = arg;
	}
	eng_release(&eng_g);
	return dev ? 0 : -ENODEV;
}

int emu_eng_device_add(struct emu_fw *fw, int index)
{
	struct eng *e = &eng_g;
	struct eng_dev *dev;
	int ret, slot = -1;

	pthread_once(&eng_atexit_once, eng_atexit_register);
	ret = emu_mem_init();
	if (ret)
		return ret;
	pthread_mutex_lock(&e->cfg);
	if (eng_threaded_cfg < 0) {
		const char *v = getenv("MLX5EMU_ENGINE_THREAD");

		eng_threaded_cfg = !(v && !strcmp(v, "0"));
		e->threaded = eng_threaded_cfg;
	}
	for (int i = 0; i < ENG_MAX_DEVS; i++) {
		if (e->devs[i] && e->devs[i]->fw == fw) {
			pthread_mutex_unlock(&e->cfg);
			return -EEXIST;
		}
		if (!e->devs[i] && slot < 0)
			slot = i;
	}
	if (slot < 0) {
		pthread_mutex_unlock(&e->cfg);
		return -ENOSPC;
	}
	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		pthread_mutex_unlock(&e->cfg);
		return -ENOMEM;
	}
	dev->fw = fw;
	dev->index = index;
	dev->ops.qp_changed = eng_qp_changed;
	dev->ops.sync = eng_sync;
	dev->ops.run_locked = eng_run_locked;
	dev->ops.port_changed = eng_port_changed;
	dev->ops.cq_created = eng_cq_created;
	dev->ops.arg = dev;
	pthread_mutex_lock(&e->run);
	e->devs[slot] = dev;
	e->nroutes = 0;		/* the GIDs of the process changed */
	e->route_epoch++;
	pthread_mutex_unlock(&e->run);
	emu_fw_set_engine(fw, &dev->ops);
	ret = eng_thread_start(e);
	pthread_mutex_unlock(&e->cfg);
	return ret;
}

void emu_eng_device_remove(struct emu_fw *fw)
{
	struct eng *e = &eng_g;
	struct eng_dev *dev = NULL;
	bool last = true;

	pthread_mutex_lock(&e->cfg);
	emu_fw_set_engine(fw, NULL);
	pthread_mutex_lock(&e->run);
	for (int i = 0; i < ENG_MAX_DEVS; i++) {
		if (e->devs[i] && e->devs[i]->fw == fw) {
			dev = e->devs[i];
			e->devs[i] = NULL;
		} else if (e->devs[i]) {
			last = false;
		}
	}
	if (dev) {
		eng_qp_detach_all(e, dev);
		eng_wire_dev_fini(dev);
		e->nroutes = 0;
		e->route_epoch++;
		eng_cq_unwatch_dev(e, dev);
	}
	pthread_mutex_unlock(&e->run);
	if (last)
		eng_thread_stop(e);
	pthread_mutex_unlock(&e->cfg);
	free(dev);
}

int emu_eng_port_attach(struct emu_fw *fw, unsigned int port,
			struct emu_wire_port *wp)
{
	struct eng *e = &eng_g;
	int ret = -ENOENT;

	pthread_mutex_lock(&e->cfg);
	pthread_mutex_lock(&e->run);
	for (int i = 0; i < ENG_MAX_DEVS; i++)
		if (e->devs[i] && e->devs[i]->fw == fw)
			ret = eng_wire_attach(e, e->devs[i], port, wp);
	pthread_mutex_unlock(&e->run);
	pthread_mutex_unlock(&e->cfg);
	if (ret)
		emu_wire_port_destroy(wp);
	/* A parked thread learns of the new port with its next wake. */
	emu_eng_progress(EMU_ENG_WHY_DOORBELL);
	return ret;
}
