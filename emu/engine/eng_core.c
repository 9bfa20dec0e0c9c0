/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_core.c -- the engine: its run lock, passes, modes, thread
 * and devices.
 *
 * The run lock.  All engine state is changed only by its holder: the
 * engine thread or an application thread doing inline progress.  Inline
 * progress only tries the lock; if it is held it sets `pending`, which a
 * holder running passes (`passing`) re-checks after releasing, so a
 * request is never lost.  A holder seen without `passing` is letting go
 * or runs no passes (a command): the caller tries a little longer and
 * only then wakes the thread, if it is parked (`parked`).  No system call
 * otherwise.  The thread itself only tries the lock too, also for its look
 * at the timers and ports before it parks (as a passer): blocking on it
 * would turn the application's unlock into a system call, and on two CPUs
 * make the thread a third one beside two application threads.
 *
 * The thread (threaded mode).  It runs passes while they find work, spins
 * on empty passes for ENG_SPIN_NS, then parks on a futex with a timeout
 * that starts at ENG_PARK_MIN_US and doubles to ENG_PARK_MID_US, and to
 * ENG_PARK_MAX_US once idle for ENG_PARK_LONG_NS (or the next timer,
 * whichever is first).  Programs that ring doorbells only in memory (DEVX
 * users) are found by the pass after the park: the worst-case pickup delay
 * of an idle engine is ENG_PARK_MAX_US plus one pass (ENG_PARK_MID_US
 * within the first 50 ms of idleness), plus whatever the scheduler adds
 * on a loaded machine.  An idle wakeup costs a pass (~0.1 us a QP) and a
 * futex round trip; 250 a second measure under 1% of a CPU
 * (docs/performance.md).
 *
 * Progress calls.  A doorbell runs a pass on the caller's thread when the
 * lock is free: a provider posting work gets it executed inside its own
 * post, and the thread stays parked.  An empty poll does nothing while the
 * thread is awake (it is on the way), and while it is parked runs a pass
 * every ENG_POLL_EVERY-th empty poll of the calling thread: work written
 * only to memory is found by a busy poller without a system call per
 * poll.  Without a thread (inline and deterministic modes) every call runs
 * a pass.
 *
 * Deterministic mode.  No thread, and the device model's clock is virtual
 * (emu/base/clock.h): a progress call whose pass finds nothing moves the
 * clock to the next timer (an RNR or transport retry) and runs again, so
 * timers fire without waiting and a run gives the same results each time.
 *
 * The wire without a thread (inline and deterministic modes).  Every pass
 * receives what the wire's sockets hold, so the application's own calls
 * (post, poll, get-event, mlx5emu_progress) pump the wire.  A WAIT that
 * finds nothing sleeps on the sockets a little and asks its caller to come
 * back rather than block (eng_wire_wait).  Once frames cross the wire the
 * virtual clock keeps pace with the wall clock: another process cannot be
 * replayed.
 *
 * Exit.  The atexit handler marks the engine finished under the run lock
 * (no pass runs afterwards, also not from application threads still
 * posting) and joins the thread, before any other handler frees anything.
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

#include "emu/base/clock.h"
#include "emu/engine/eng_int.h"
#include "emu/mem/mem.h"

#define ENG_SPIN_NS 50000ull		/* spin this long before parking */
#define ENG_PARK_MIN_US 50u
#define ENG_PARK_MID_US 1000u		/* the first 50 ms idle */
#define ENG_PARK_LONG_NS 50000000ull
#define ENG_PARK_MAX_US 4000u		/* idle longer */
/* Empty polls per inline pass, parked.  A poller waiting for a frame
 * from another process finds it within this many polls: ib_send_lat took
 * 2.3 us one way with 64, 1.4 us with 4 and with 1; every poll (1) cost
 * the 64-byte ib_write_bw loop 8 % of its rate, 4 nothing measurable. */
#define ENG_POLL_EVERY 4
#define ENG_WAIT_ROUNDS 4096		/* passes a WAIT runs at most */
/* Tries at the run lock while its holder is not a passer: a passer letting
 * go takes a few instructions, a command longer. */
#define ENG_RETRIES 64

struct eng eng_g = {
	.run = PTHREAD_MUTEX_INITIALIZER,
	.cfg = PTHREAD_MUTEX_INITIALIZER,
	.qps = CDS_LIST_HEAD_INIT(eng_g.qps),
	.wake_fd = -1,
	.cqs = CDS_LIST_HEAD_INIT(eng_g.cqs),
	.sqs = CDS_LIST_HEAD_INIT(eng_g.sqs),
	.mode = EMU_ENG_THREADED,
	.threaded = true,
};
static bool eng_thread_running;	/* under cfg */
static pthread_once_t eng_atexit_once = PTHREAD_ONCE_INIT;
/* Empty polls of this thread since its last inline pass. */
static _Thread_local unsigned int eng_polls;

/* The device model's clock: wall, or virtual in deterministic mode. */
uint64_t eng_clock_ns(void)
{
	return emu_clock_ns();
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
 * done (WQEs executed or flushed, packets sent).  Run lock held.
 */
static unsigned int eng_pass(struct eng *e)
{
	unsigned int done = 0;
	struct eng_qp *qp, *tmp;

	if (atomic_load(&e->finished))
		return 0;
	e->now_ns = eng_clock_ns();
	if (e->next_timer_ns && e->next_timer_ns <= e->now_ns)
		e->next_timer_ns = 0;	/* re-armed by who still waits */
	e->passes++;
	e->dp_now = atomic_load_explicit(&e->dp, memory_order_relaxed) |
		    (e->dp_busy ? ENG_DP_BUSY : 0);
	emu_fw_rcu_lock();
	eng_uar_scan(e);
	if (e->nwire) {
		done += eng_wire_rx(e, ENG_PASS_WQES, false);
		if (eng_wire_rx_due(e))
			done += eng_wire_rx(e, ENG_PASS_WQES, true);
	}
	for (int hinted = 1; hinted >= 0; hinted--) {
		cds_list_for_each_entry_safe(qp, tmp, &e->qps, node) {
			if (qp->hinted != (bool)hinted)
				continue;
			qp->hinted = false;
			if (done >= ENG_PASS_WQES)
				break;
			if (qp->dev->fatal)
				continue;
			if (e->dp_now)
				eng_dp_release(qp);	/* delayed CQEs */
			done += eng_req_run(qp, ENG_PASS_WQES_PER_QP);
		}
	}
	done += eng_sq_pass(e, ENG_PASS_WQES > done ? ENG_PASS_WQES - done : 0);
	eng_resp_flush_acks(e);
	if (e->nwire)
		eng_wire_flush(e);
	eng_cq_scan(e);
	emu_fw_rcu_unlock();
	eng_rotate(e);
	e->wqes += done;
	return done;
}

/*
 * Hold the run lock as a passer, if it is free: while `passing` is set the
 * holder re-checks `pending` when it lets go, so a caller that finds the
 * lock held by it needs to wake nobody.  The thread holds it so to look at
 * the timers and ports before it parks.
 */
static bool eng_hold(struct eng *e)
{
	if (pthread_mutex_trylock(&e->run))
		return false;
	/* A requester that misses it tries again or wakes the thread. */
	atomic_store_explicit(&e->passing, 1, memory_order_relaxed);
	return true;
}

/* Let go; true if a request came meanwhile: it is the caller's. */
static bool eng_unhold(struct eng *e)
{
	atomic_store_explicit(&e->passing, 0, memory_order_release);
	pthread_mutex_unlock(&e->run);
	/* Pairs with the requester's store of pending before its load of
	 * passing: one of the two sees the other. */
	atomic_thread_fence(memory_order_seq_cst);
	return atomic_load(&e->pending);
}

/* Take the run lock to run passes, which serve every request so far. */
static bool eng_acquire(struct eng *e)
{
	if (!eng_hold(e))
		return false;
	atomic_store(&e->pending, 0);
	return true;
}

/* Release the run lock; run again for whoever asked meanwhile. */
static void eng_release(struct eng *e)
{
	while (eng_unhold(e) && eng_acquire(e))
		eng_pass(e);	/* else the new holder sees pending */
}

static void eng_futex_wake(struct eng *e)
{
	atomic_fetch_add(&e->wake_seq, 1);
	syscall(SYS_futex, &e->wake_seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	/* A thread parked on the wire's ports waits in poll(). */
	if (e->wake_fd >= 0)
		eng_wire_wake(e);
}

uint64_t eng_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Deterministic mode, nothing ran: move the clock to the earliest timer.
 * Once frames cross the wire the clock only keeps pace with the wall
 * clock instead: a peer in another process answers in real time, and
 * jumping to the retransmission timer would resend (and exhaust the
 * retries) before it can.  False when no timer is due.  Run lock held.
 */
static bool eng_advance_clock(struct eng *e)
{
	uint64_t wall;

	if (e->mode != EMU_ENG_DETERMINISTIC)
		return false;
	if (e->wire_traffic) {
		wall = eng_wall_ns();
		if (e->wall_ns)
			emu_clock_advance_to(emu_clock_ns() + (wall - e->wall_ns));
		e->wall_ns = wall;
		return e->next_timer_ns && e->next_timer_ns <= emu_clock_ns();
	}
	e->wall_ns = 0;
	if (!e->next_timer_ns)
		return false;
	emu_clock_advance_to(e->next_timer_ns);
	return true;
}

/* Passes for a progress call; run lock held. */
static unsigned int eng_progress_locked(struct eng *e, unsigned int why)
{
	unsigned int done, n;

	e->posting = why == EMU_ENG_WHY_DOORBELL;
	done = eng_pass(e);
	e->posting = false;

	if (!e->threaded && why == EMU_ENG_WHY_WAIT) {
		/* Until nothing is left, timers included (bounded: a QP that
		 * retries forever would not end it). */
		for (int i = 0; i < ENG_WAIT_ROUNDS; i++) {
			n = eng_pass(e);
			done += n;
			if (!n && !eng_advance_clock(e))
				break;
		}
	} else if (!done && eng_advance_clock(e)) {
		done = eng_pass(e);
	}
	return done;
}

bool emu_eng_pumps_wire(void)
{
	return !eng_g.threaded && atomic_load(&eng_g.nwire);
}

static void eng_park(struct eng *e, unsigned int us);

/*
 * No thread, a wire, and nothing to do: the caller is about to wait for an
 * event that only a frame from another process (or a timer) can bring.
 * Sleep on the wire's sockets for at most ENG_PARK_MAX_US, as the thread
 * would, then run what came; the caller calls again before it blocks
 * (emu_eng_pumps_wire).
 */
static unsigned int eng_wire_wait(struct eng *e)
{
	unsigned int done = 0;

	eng_park(e, ENG_PARK_MAX_US);
	if (eng_acquire(e)) {
		done = eng_progress_locked(e, EMU_ENG_WHY_WAIT);
		eng_release(e);
	}
	return done;
}

unsigned int emu_eng_progress(unsigned int why)
{
	struct eng *e = &eng_g;
	unsigned int done;

	if (e->threaded && why == EMU_ENG_WHY_POLL) {
		/* The thread is awake and on its way, or parked: then try
		 * every ENG_POLL_EVERY-th empty poll. */
		if (!atomic_load_explicit(&e->parked, memory_order_relaxed) ||
		    ++eng_polls < ENG_POLL_EVERY)
			return 0;
		eng_polls = 0;
	}
	for (int tries = 0;; tries++) {
		if (eng_acquire(e)) {
			done = eng_progress_locked(e, why);
			/* The caller blocks next: frames that come must
			 * wake the thread (the wire's peers may think this
			 * caller polls). */
			if (why == EMU_ENG_WHY_WAIT && e->nwire)
				eng_wire_idle(e);
			eng_release(e);
			if (!done && why == EMU_ENG_WHY_WAIT &&
			    emu_eng_pumps_wire())
				done = eng_wire_wait(e);
			return done;
		}
		/* A holder running passes runs one more for this call.
		 * Seen without one, the holder is letting go (and may
		 * have looked already) or runs no passes (a command):
		 * try a little longer, then wake the parked thread. */
		atomic_store(&e->pending, 1);
		if (atomic_load(&e->passing))
			return 0;
		if (tries == ENG_RETRIES)
			break;
		__builtin_ia32_pause();
	}
	if (atomic_load(&e->parked))
		eng_futex_wake(e);
	return 0;
}

/*
 * A request nobody serves: no passer holds the lock to look at it when it
 * lets go.  A passer clears `passing` just before it lets go and looks
 * right after, so a request seen beside no passer is given a moment.
 */
static bool eng_request_unserved(struct eng *e)
{
	for (int i = 0; i < ENG_RETRIES; i++) {
		if (!atomic_load(&e->pending) || atomic_load(&e->passing))
			return false;
		__builtin_ia32_pause();
	}
	return true;
}

static void eng_park(struct eng *e, unsigned int us)
{
	unsigned int seq = atomic_load(&e->wake_seq);
	struct eng_wire_parking pk = { .n = 0, .wait = true };
	struct timespec ts;
	uint64_t ns = (uint64_t)us * 1000;

	/* The next timer shortens the sleep; when another thread runs a
	 * pass it arms the timers again itself, and reads the ports: only
	 * a wake-up or the timeout then ends the sleep.  Waiting for the
	 * lock would make its holder's unlock a system call and this
	 * thread a third one competing for two CPUs. */
	if (eng_hold(e)) {
		if (e->next_timer_ns) {
			uint64_t now = eng_clock_ns();

			ns = e->next_timer_ns > now ?
			     (e->next_timer_ns - now < ns ?
			      e->next_timer_ns - now : ns) : 0;
		}
		if (e->nwire)
			eng_wire_park_prepare(e, &pk);
		if (eng_unhold(e))
			return;
	}
	if (!ns || !pk.wait)
		return;
	ts.tv_sec = (time_t)(ns / 1000000000ull);
	ts.tv_nsec = (long)(ns % 1000000000ull);
	atomic_store(&e->parked, 1);
	if (!eng_request_unserved(e) && !atomic_load(&e->stop)) {
		if (e->nwire)
			eng_wire_park_wait(e, &pk, ns);
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
	uint64_t idle_since = 0, worked_ns = 0;

	while (!atomic_load(&e->stop)) {
		unsigned int done;

		/*
		 * An application thread holding the lock runs a pass itself:
		 * waiting on the lock would make its unlock a system call.
		 * Within ENG_SPIN_NS of work of its own the thread tries
		 * again (the application posts while the thread executes,
		 * one CPU each); else it stays out of the way as if idle.
		 */
		if (!eng_acquire(e)) {
			if (worked_ns &&
			    eng_clock_ns() - worked_ns < ENG_SPIN_NS) {
				__builtin_ia32_pause();
				continue;
			}
			done = 0;
		} else {
			done = eng_pass(e);
			eng_release(e);
		}
		if (done) {
			worked_ns = eng_clock_ns();
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
	if (eng_thread_running || !e->threaded || atomic_load(&e->finished))
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

/* Whether a device is joined (cfg held). */
static bool eng_has_devices(const struct eng *e)
{
	for (int i = 0; i < ENG_MAX_DEVS; i++)
		if (e->devs[i])
			return true;
	return false;
}

int emu_eng_set_mode(enum emu_eng_mode mode)
{
	struct eng *e = &eng_g;
	int ret = 0;

	if (mode != EMU_ENG_THREADED && mode != EMU_ENG_INLINE &&
	    mode != EMU_ENG_DETERMINISTIC)
		return -EINVAL;
	pthread_mutex_lock(&e->cfg);
	if (eng_has_devices(e) || eng_thread_running) {
		ret = mode == e->mode ? 0 : -EBUSY;
	} else {
		e->mode = mode;
		e->threaded = mode == EMU_ENG_THREADED;
		emu_clock_set_virtual(mode == EMU_ENG_DETERMINISTIC);
		pthread_mutex_lock(&e->run);
		e->wire_traffic = false;
		e->wall_ns = 0;
		pthread_mutex_unlock(&e->run);
	}
	pthread_mutex_unlock(&e->cfg);
	return ret;
}

enum emu_eng_mode emu_eng_mode(void)
{
	return eng_g.mode;
}

/*
 * At exit, before anything is freed: no pass runs from now on (also not
 * from application threads still posting: they hold the run lock for a
 * pass, which the flag is set under), and the thread is joined.
 */
static void eng_atexit(void)
{
	struct eng *e = &eng_g;

	pthread_mutex_lock(&e->cfg);
	pthread_mutex_lock(&e->run);
	atomic_store(&e->finished, true);
	pthread_mutex_unlock(&e->run);
	eng_thread_stop(e);
	pthread_mutex_unlock(&e->cfg);
}

/*
 * A forked child has no engine thread and its devices are its parent's
 * (the kernel layer forgets them and makes fresh ones): start over, with
 * locks another thread may have held at fork() re-made.  The parent's
 * engine state is left behind, as the kernel layer leaves its devices.
 */
static void eng_atfork_child(void)
{
	static CDS_LIST_HEAD(eng_forked_qps);
	static CDS_LIST_HEAD(eng_forked_cqs);
	static CDS_LIST_HEAD(eng_forked_sqs);
	static struct eng_dev *eng_forked_devs;
	struct eng *e = &eng_g;

	/* The parent's devices and queues stay referenced, never run. */
	cds_list_splice(&e->qps, &eng_forked_qps);
	cds_list_splice(&e->cqs, &eng_forked_cqs);
	cds_list_splice(&e->sqs, &eng_forked_sqs);
	for (int i = 0; i < ENG_MAX_DEVS; i++) {
		if (!e->devs[i])
			continue;
		e->devs[i]->forked_next = eng_forked_devs;
		eng_forked_devs = e->devs[i];
	}
	pthread_mutex_init(&e->run, NULL);
	pthread_mutex_init(&e->cfg, NULL);
	atomic_store(&e->pending, 0);
	atomic_store(&e->parked, 0);
	atomic_store(&e->passing, 0);
	atomic_store(&e->stop, false);
	atomic_store(&e->finished, false);
	memset(e->devs, 0, sizeof(e->devs));
	CDS_INIT_LIST_HEAD(&e->qps);
	CDS_INIT_LIST_HEAD(&e->cqs);
	CDS_INIT_LIST_HEAD(&e->sqs);
	e->next_timer_ns = 0;
	/* The parent's ports and wake descriptor are not the child's. */
	e->nwire = 0;
	e->nacks = 0;
	e->nroutes = 0;
	e->wake_fd = -1;
	e->wire_traffic = false;
	e->wall_ns = 0;
	e->dp_busy = 0;
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
	dev->ops.sq_changed = eng_sq_changed;
	dev->ops.rq_changed = eng_rq_changed;
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
		eng_sq_detach_all(e, dev);
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
