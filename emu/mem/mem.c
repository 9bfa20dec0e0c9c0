/* SPDX-License-Identifier: MIT */
/*
 * emu/mem/mem.c -- checked access to application memory (see mem.h).
 *
 * Each access runs under a guard: a recovery point (sigsetjmp, no signal
 * mask saved: the dispatcher runs with SA_NODEFER) and the application
 * ranges the access may touch, published in a thread-local slot.  A fault
 * whose address lies in one of those ranges unwinds to the recovery point;
 * the access returns -EFAULT.  Guards nest (an application signal handler
 * may run device work while the thread was inside an access): each saves
 * the one it replaces.
 *
 * Word-sized loads and stores on x86-64 need no recovery point: each is
 * one instruction listed in a table (section emu_mem_fixup) beside where
 * it resumes when it faults, with -EFAULT as its result, as the Linux
 * kernel's user-access helpers do.  A pass reads every queue's doorbell
 * record so: sigsetjmp and the guard cost more than the load.  Sanitizer
 * builds keep the guarded path, whose accesses they can see.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "emu/base/sanitizer.h"
#include "emu/mem/mem.h"
#include "emu/mem/sigfault.h"

struct mem_guard {
	sigjmp_buf env;
	uintptr_t lo[2], hi[2];	/* application ranges [lo, hi) */
	struct mem_guard *prev;
};

/* initial-exec: the handler must not allocate TLS on first touch. */
static __thread struct mem_guard *mem_cur
	__attribute__((tls_model("initial-exec")));

static atomic_bool mem_ready;
static atomic_ulong mem_nfaults;

/* The sanitizers must see these accesses (TSan the acquire that orders a
 * doorbell record before the WQE it announces): they keep the guard. */
#if defined(__x86_64__) && defined(__linux__) && !defined(EMU_ASAN) &&    \
	!defined(EMU_TSAN)
#define MEM_FIXUP 1
#include <ucontext.h>

/* An instruction that may fault and where it then resumes, each as an
 * offset from the field itself (no relocation at load time). */
struct mem_fixup {
	int32_t insn, resume;
};

extern const struct mem_fixup __start_emu_mem_fixup[]
	__attribute__((visibility("hidden")));
extern const struct mem_fixup __stop_emu_mem_fixup[]
	__attribute__((visibility("hidden")));

/* A listed access: the instruction at label 1, resuming at label 2, with
 * err set to -EFAULT and the loaded value to 0 on a fault. */
#define MEM_FIXUP_ENTRY                                                        \
	"	.pushsection emu_mem_fixup,\"a\"\n"                           \
	"	.balign 4\n"                                                   \
	"	.long 1b - ., 3f - .\n"                                        \
	"	.popsection\n"                                                 \
	"	.pushsection .text.unlikely.emu_mem_fixup,\"ax\"\n"           \
	"3:	movl %[ef], %[err]\n"                                         \
	"	xorl %k[x], %k[x]\n"                                          \
	"	jmp 2b\n"                                                      \
	"	.popsection\n"

/* True if the fault was at a listed instruction: it resumes past it. */
static bool mem_fixup(ucontext_t *uc)
{
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];

	for (const struct mem_fixup *f = __start_emu_mem_fixup;
	     f < __stop_emu_mem_fixup; f++) {
		if ((uintptr_t)&f->insn + (intptr_t)f->insn == pc) {
			uc->uc_mcontext.gregs[REG_RIP] = (greg_t)
				((uintptr_t)&f->resume + (intptr_t)f->resume);
			return true;
		}
	}
	return false;
}
#endif

static bool mem_sigfault(int sig, siginfo_t *si, void *uctx)
{
	struct mem_guard *g = mem_cur;
	uintptr_t a = (uintptr_t)si->si_addr;

	(void)sig;
	if (si->si_code <= 0)
		return false;
#ifdef MEM_FIXUP
	if (mem_fixup(uctx)) {
		atomic_fetch_add_explicit(&mem_nfaults, 1, memory_order_relaxed);
		return true;
	}
#else
	(void)uctx;
#endif
	if (!g)
		return false;
	for (int i = 0; i < 2; i++) {
		if (a >= g->lo[i] && a < g->hi[i]) {
			mem_cur = g->prev;
			atomic_fetch_add_explicit(&mem_nfaults, 1,
						  memory_order_relaxed);
			siglongjmp(g->env, 1);
		}
	}
	return false;
}

int emu_mem_init(void)
{
	int ret;

	if (atomic_load_explicit(&mem_ready, memory_order_acquire))
		return 0;
	ret = emu_sigfault_register(mem_sigfault);
	if (ret == 0)
		atomic_store_explicit(&mem_ready, true, memory_order_release);
	return ret;
}

unsigned long emu_mem_faults(void)
{
	return atomic_load_explicit(&mem_nfaults, memory_order_relaxed);
}

static inline int mem_ensure_ready(void)
{
	if (__builtin_expect(atomic_load_explicit(&mem_ready,
						  memory_order_relaxed), 1))
		return 0;
	return emu_mem_init();
}

static inline void mem_range(struct mem_guard *g, int i, const void *p,
			     size_t len)
{
	g->lo[i] = (uintptr_t)p;
	g->hi[i] = (uintptr_t)p + len;
	if (g->hi[i] < g->lo[i])	/* wraps: the rest of the space */
		g->hi[i] = UINTPTR_MAX;
}

static inline void mem_guard_enter(struct mem_guard *g)
{
	g->prev = mem_cur;
	atomic_signal_fence(memory_order_seq_cst);
	mem_cur = g;
	atomic_signal_fence(memory_order_seq_cst);
}

static inline void mem_guard_leave(struct mem_guard *g)
{
	atomic_signal_fence(memory_order_seq_cst);
	mem_cur = g->prev;
	atomic_signal_fence(memory_order_seq_cst);
}

/*
 * The body of every accessor: set up the guard over app ranges a and b
 * (length 0: none), run the access, tear the guard down.  A recovered fault
 * comes back from sigsetjmp a second time and returns -EFAULT.
 */
#define MEM_GUARDED(a, alen, b, blen, access)                                \
	do {                                                                   \
		struct mem_guard g_;                                           \
		int r_ = mem_ensure_ready();                                   \
		if (r_)                                                        \
			return r_;                                             \
		mem_range(&g_, 0, (a), (alen));                                \
		mem_range(&g_, 1, (b), (blen));                                \
		if (sigsetjmp(g_.env, 0))                                      \
			return -EFAULT;                                        \
		mem_guard_enter(&g_);                                          \
		access;                                                        \
		mem_guard_leave(&g_);                                          \
	} while (0)

int emu_mem_read(void *dst, const void *app_src, size_t len)
{
	if (!len)
		return 0;
	MEM_GUARDED(app_src, len, NULL, 0, memcpy(dst, app_src, len));
	return 0;
}

int emu_mem_write(void *app_dst, const void *src, size_t len)
{
	if (!len)
		return 0;
	MEM_GUARDED(app_dst, len, NULL, 0, memcpy(app_dst, src, len));
	return 0;
}

int emu_mem_copy(void *app_dst, const void *app_src, size_t len)
{
	if (!len)
		return 0;
	MEM_GUARDED(app_dst, len, app_src, len,
		    memmove(app_dst, app_src, len));
	return 0;
}

int emu_mem_publish(void *app_dst, const void *src, size_t len)
{
	uint8_t *d = app_dst;
	const uint8_t *s = src;

	if (!len)
		return 0;
	MEM_GUARDED(app_dst, len, NULL, 0, {
		memcpy(d, s, len - 1);
		__atomic_store_n(&d[len - 1], s[len - 1], __ATOMIC_RELEASE);
	});
	return 0;
}

/*
 * A checked load of a naturally aligned word: on x86-64 one listed
 * instruction (x86-64 loads are acquire; the "memory" clobber keeps the
 * compiler from moving other accesses across it), else under a guard.
 */
#ifdef MEM_FIXUP
#define MEM_LOAD(type, insn, app, val)                                        \
	do {                                                                   \
		int err_ = mem_ensure_ready();                                 \
		type x_ = 0;                                                   \
		if (err_)                                                      \
			return err_;                                           \
		__asm__ __volatile__("1:	" insn "\n"                      \
				     "2:\n" MEM_FIXUP_ENTRY                    \
				     : [x] "+r"(x_), [err] "+r"(err_)          \
				     : [m] "m"(*(const type *)(app)),          \
				       [ef] "i"(-EFAULT)                       \
				     : "memory");                              \
		if (!err_)                                                     \
			*(val) = x_;                                           \
		return err_;                                                   \
	} while (0)
#else
#define MEM_LOAD(type, insn, app, val)                                        \
	do {                                                                   \
		MEM_GUARDED(app, sizeof(type), NULL, 0,                        \
			    *(val) = __atomic_load_n((const type *)(app),      \
						     __ATOMIC_ACQUIRE));       \
		return 0;                                                      \
	} while (0)
#endif

int emu_mem_load32(const void *app, uint32_t *val)
{
	if ((uintptr_t)app % 4)
		return -EINVAL;
	MEM_LOAD(uint32_t, "movl %[m], %k[x]", app, val);
}

int emu_mem_load64(const void *app, uint64_t *val)
{
	if ((uintptr_t)app % 8)
		return -EINVAL;
	MEM_LOAD(uint64_t, "movq %[m], %q[x]", app, val);
}

int emu_mem_store32(void *app, uint32_t val)
{
	uint32_t *p = app;

	if ((uintptr_t)app % 4)
		return -EINVAL;
#ifdef MEM_FIXUP	/* x86-64 stores are release */
	int err = mem_ensure_ready();
	uint32_t x = val;

	if (err)
		return err;
	__asm__ __volatile__("1:	movl %k[x], %[m]\n"
			     "2:\n" MEM_FIXUP_ENTRY
			     : [m] "=m"(*p), [x] "+r"(x), [err] "+r"(err)
			     : [ef] "i"(-EFAULT)
			     : "memory");
	return err;
#else
	MEM_GUARDED(app, 4, NULL, 0, __atomic_store_n(p, val, __ATOMIC_RELEASE));
	return 0;
#endif
}

int emu_mem_cas64(void *app, uint64_t *expected, uint64_t desired)
{
	uint64_t *p = app;

	if ((uintptr_t)app % 8)
		return -EINVAL;
	MEM_GUARDED(app, 8, NULL, 0,
		    __atomic_compare_exchange_n(p, expected, desired, false,
						__ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST));
	return 0;
}

int emu_mem_fadd64(void *app, uint64_t add, uint64_t *old)
{
	uint64_t *p = app;

	if ((uintptr_t)app % 8)
		return -EINVAL;
	MEM_GUARDED(app, 8, NULL, 0,
		    *old = __atomic_fetch_add(p, add, __ATOMIC_SEQ_CST));
	return 0;
}
