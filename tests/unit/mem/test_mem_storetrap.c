/* SPDX-License-Identifier: MIT */
/*
 * The store trap (emu/mem/storetrap.h): every store form the decoder
 * claims, written in inline assembly so the instruction is the one named,
 * reaches the callback with its exact offset, value and size; the thread
 * goes on at the next instruction with its registers as they were; what
 * the trap does not claim (another address, an instruction it does not
 * decode, a removed range) reaches the handler installed before it; and
 * concurrent stores from several threads are all seen.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emu/mem/sigfault.h"
#include "emu/mem/storetrap.h"

#include "ut_run.h"

#if defined(__x86_64__)

/* ---- what the callback saw ---- */

static volatile size_t seen_off;
static volatile uint64_t seen_val;
static volatile unsigned int seen_size;
static atomic_int seen_n;

static void record(void *arg, size_t off, uint64_t value, unsigned int size)
{
	(void)arg;
	seen_off = off;
	seen_val = value;
	seen_size = size;
	atomic_fetch_add(&seen_n, 1);
}

static uint8_t *ro_page(void)
{
	uint8_t *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	return p;
}

static struct emu_storetrap *trap_page(uint8_t *p)
{
	struct emu_storetrap *t = NULL;

	ck_assert_int_eq(emu_storetrap_add(p, 4096, record, NULL, &t), 0);
	ck_assert_ptr_nonnull(t);
	atomic_store(&seen_n, 0);
	return t;
}

static void expect(size_t off, uint64_t val, unsigned int size)
{
	ck_assert_int_eq(atomic_load(&seen_n), 1);
	ck_assert_uint_eq(seen_off, off);
	ck_assert_uint_eq(seen_val, val);
	ck_assert_uint_eq(seen_size, size);
	atomic_store(&seen_n, 0);
}

/* ---- the application's handler, installed before the trap ---- */

static sigjmp_buf back;
static volatile sig_atomic_t app_seen;
static void *volatile app_addr;

static void app_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	app_seen++;
	app_addr = si->si_addr;
	siglongjmp(back, 1);
}

static void install_app_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = app_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	ck_assert_int_eq(sigaction(SIGSEGV, &sa, NULL), 0);
}

/* ---- MOV r/m64, r64 from every general register ---- */

/*
 * Load v into REG, store it (89 /r, REX.W, disp8) and copy REG out; the
 * instruction after the store bumps a mark, so a wrong step shows.
 */
#define STORE_FROM(REG)							\
static uint64_t store_from_##REG(uint8_t *p, uint64_t v, int *mark)	\
{									\
	uint64_t out;							\
	__asm__ volatile("mov %[v], %%" #REG "\n\t"			\
			 "mov %%" #REG ", 0x18(%[p])\n\t"		\
			 "incl %[mark]\n\t"				\
			 "mov %%" #REG ", %[out]"			\
			 : [out] "=r"(out), [mark] "+m"(*mark)		\
			 : [v] "r"(v), [p] "r"(p)			\
			 : #REG, "memory");				\
	return out;							\
}
STORE_FROM(rax) STORE_FROM(rbx) STORE_FROM(rcx) STORE_FROM(rdx)
STORE_FROM(rsi) STORE_FROM(rdi) STORE_FROM(r8) STORE_FROM(r9)
STORE_FROM(r10) STORE_FROM(r11) STORE_FROM(r12) STORE_FROM(r13)
STORE_FROM(r14) STORE_FROM(r15)

static const struct {
	const char *name;
	uint64_t (*fn)(uint8_t *, uint64_t, int *);
} gpr_stores[] = {
#define GPR(r) { #r, store_from_##r }
	GPR(rax), GPR(rbx), GPR(rcx), GPR(rdx), GPR(rsi), GPR(rdi), GPR(r8),
	GPR(r9), GPR(r10), GPR(r11), GPR(r12), GPR(r13), GPR(r14), GPR(r15),
#undef GPR
};

START_TEST(mov_from_each_gpr)
{
	uint8_t *p = ro_page();
	struct emu_storetrap *t = trap_page(p);
	uint64_t v = 0x8877665544332211ull ^ ((uint64_t)_i << 56);
	int mark = 0;

	ck_assert_uint_eq(gpr_stores[_i].fn(p, v, &mark), v);
	ck_assert_int_eq(mark, 1);
	expect(0x18, v, 8);
	ck_assert_uint_eq(emu_storetrap_stores(t), 1);
	/* the store itself never reaches the page */
	ck_assert_uint_eq(*(volatile uint64_t *)(p + 0x18), 0);
	emu_storetrap_remove(t);
	munmap(p, 4096);
}
END_TEST

/* rsp and rbp as the source: stored as they are, never changed. */
START_TEST(mov_from_rsp_rbp)
{
	uint8_t *p = ro_page();
	struct emu_storetrap *t = trap_page(p);
	uint64_t sp, bp;

	__asm__ volatile("mov %%rsp, %[sp]\n\t"
			 "mov %%rsp, 0x20(%[p])"
			 : [sp] "=&r"(sp) : [p] "r"(p) : "memory");
	expect(0x20, sp, 8);
	__asm__ volatile("mov %%rbp, %[bp]\n\t"
			 "mov %%rbp, 0x28(%[p])"
			 : [bp] "=&r"(bp) : [p] "r"(p) : "memory");
	expect(0x28, bp, 8);
	emu_storetrap_remove(t);
	munmap(p, 4096);
}
END_TEST

/* ---- addressing forms ---- */

static uint8_t rip_page[4096] __attribute__((aligned(4096)));

START_TEST(addressing_forms)
{
	uint8_t *p = ro_page();
	struct emu_storetrap *t = trap_page(p);
	uint64_t v = 0x0123456789abcdefull, idx;

	/* (base) with mod 00, disp8, disp32, negative disp32 */
	__asm__ volatile("mov %0, (%1)" :: "a"(v), "D"(p) : "memory");
	expect(0, v, 8);
	__asm__ volatile("mov %0, 0x7f(%1)" :: "a"(v), "D"(p) : "memory");
	expect(0x7f, v, 8);
	__asm__ volatile("mov %0, 0x400(%1)" :: "a"(v), "D"(p) : "memory");
	expect(0x400, v, 8);
	__asm__ volatile("mov %0, -0x3f8(%1)" :: "a"(v), "D"(p + 0x800)
			 : "memory");
	expect(0x408, v, 8);
	__asm__ volatile("mov %0, -0x8(%1)" :: "a"(v), "D"(p + 0x810)
			 : "memory");
	expect(0x808, v, 8);

	/* SIB: each scale, with and without displacement */
	idx = 3;
	__asm__ volatile("mov %0, (%1,%2,1)" :: "a"(v), "D"(p), "c"(idx) : "memory");
	expect(3, v, 8);
	__asm__ volatile("mov %0, 0x10(%1,%2,2)" :: "a"(v), "D"(p), "c"(idx) : "memory");
	expect(0x16, v, 8);
	__asm__ volatile("mov %0, 0x100(%1,%2,4)" :: "a"(v), "D"(p), "c"(idx) : "memory");
	expect(0x10c, v, 8);
	__asm__ volatile("mov %0, -0x10(%1,%2,8)" :: "a"(v), "D"(p + 0x20), "c"(idx)
			 : "memory");
	expect(0x28, v, 8);
	/* SIB without a base: disp32 + index * scale */
	__asm__ volatile("mov %0, 0x30(,%1,1)" :: "a"(v), "c"(p) : "memory");
	expect(0x30, v, 8);

	/* rsp as base (always a SIB), the page reached through the index */
	__asm__ volatile("mov %1, %%rcx\n\t"
			 "sub %%rsp, %%rcx\n\t"
			 "mov %0, 0x38(%%rsp,%%rcx,1)"
			 :: "a"(v), "r"(p) : "rcx", "memory");
	expect(0x38, v, 8);

	/* r12 as base needs a SIB; r13 as base needs a disp8 of 0; rbp
	 * likewise (borrowed for one instruction); r12 as index exists */
	{
		register uint8_t *r12 __asm__("r12") = p + 0x40;
		register uint8_t *r13 __asm__("r13") = p + 0x48;

		__asm__ volatile("mov %0, (%1)" :: "a"(v), "r"(r12) : "memory");
		expect(0x40, v, 8);
		__asm__ volatile("mov %0, (%1)" :: "a"(v), "r"(r13) : "memory");
		expect(0x48, v, 8);
	}
	{
		register uint64_t r12i __asm__("r12") = 5;

		__asm__ volatile("mov %0, (%1,%2,8)" :: "a"(v), "D"(p), "r"(r12i)
				 : "memory");
		expect(0x28, v, 8);
	}
	__asm__ volatile("xchg %%rbp, %%rdx\n\t"
			 "mov %%rax, (%%rbp)\n\t"
			 "xchg %%rbp, %%rdx"
			 :: "a"(v), "d"(p + 0x50) : "memory");
	expect(0x50, v, 8);
	/* r8..r15 as base and index (REX.B, REX.X) */
	{
		register uint8_t *r9 __asm__("r9") = p;
		register uint64_t r14 __asm__("r14") = 7;

		__asm__ volatile("mov %0, 0x1(%1,%2,4)" :: "a"(v), "r"(r9), "r"(r14)
				 : "memory");
		expect(0x1d, v, 8);
	}

	emu_storetrap_remove(t);
	munmap(p, 4096);
}
END_TEST

/* RIP-relative, also with an immediate after the displacement (the
 * next instruction's address is past the immediate). */
START_TEST(rip_relative)
{
	struct emu_storetrap *t;
	uint64_t v = 0xfeedfacecafebeefull;

	ck_assert_int_eq(mprotect(rip_page, 4096, PROT_READ), 0);
	ck_assert_int_eq(emu_storetrap_add(rip_page, 4096, record, NULL, &t), 0);
	atomic_store(&seen_n, 0);
	__asm__ volatile("mov %0, rip_page+0x60(%%rip)" :: "a"(v) : "memory");
	expect(0x60, v, 8);
	__asm__ volatile("movq $-2, rip_page+0x68(%%rip)" ::: "memory");
	expect(0x68, UINT64_MAX - 1, 8);
	__asm__ volatile("movl $0x12345678, rip_page+0x70(%%rip)" ::: "memory");
	expect(0x70, 0x12345678, 4);
	emu_storetrap_remove(t);
	ck_assert_int_eq(mprotect(rip_page, 4096, PROT_READ | PROT_WRITE), 0);
}
END_TEST

/* ---- operand sizes and immediates ---- */

START_TEST(sizes_and_immediates)
{
	uint8_t *p = ro_page();
	struct emu_storetrap *t = trap_page(p);
	uint64_t v = 0xa1b2c3d4e5f60718ull;

	/* imm32 sign-extended to 64 bits with REX.W */
	__asm__ volatile("movq $-5, 0x10(%0)" :: "D"(p) : "memory");
	expect(0x10, 0xfffffffffffffffbull, 8);
	__asm__ volatile("movq $0x7fffffff, 0x10(%0)" :: "D"(p) : "memory");
	expect(0x10, 0x7fffffff, 8);
	/* without REX.W: 32 bits, not extended */
	__asm__ volatile("movl $0x89abcdef, 0x14(%0)" :: "D"(p) : "memory");
	expect(0x14, 0x89abcdef, 4);
	__asm__ volatile("movw $0xbeef, 0x16(%0)" :: "D"(p) : "memory");
	expect(0x16, 0xbeef, 2);
	__asm__ volatile("movb $0x9c, 0x17(%0)" :: "D"(p) : "memory");
	expect(0x17, 0x9c, 1);
	/* register forms of 32, 16 and 8 bits, AH and a REX-only byte reg */
	__asm__ volatile("mov %%eax, 0x20(%0)" :: "D"(p), "a"(v) : "memory");
	expect(0x20, 0xe5f60718, 4);
	__asm__ volatile("mov %%r10d, 0x24(%0)" :: "D"(p), "a"(v) : "r10", "memory");
	__asm__ volatile("mov %%ax, 0x28(%0)" :: "D"(p), "a"(v) : "memory");
	/* the r10d store above stored whatever r10 held: only the count */
	ck_assert_int_eq(atomic_load(&seen_n), 2);
	ck_assert_uint_eq(seen_off, 0x28);
	ck_assert_uint_eq(seen_val, 0x0718);
	ck_assert_uint_eq(seen_size, 2);
	atomic_store(&seen_n, 0);
	__asm__ volatile("mov %%al, 0x2a(%0)" :: "D"(p), "a"(v) : "memory");
	expect(0x2a, 0x18, 1);
	__asm__ volatile("mov %%ah, 0x2b(%0)" :: "D"(p), "a"(v) : "memory");
	expect(0x2b, 0x07, 1);
	__asm__ volatile("mov %%sil, 0x2c(%0)" :: "D"(p), "S"(v) : "memory");
	expect(0x2c, 0x18, 1);
	/* MOVNTI */
	__asm__ volatile("movnti %1, 0x30(%0)" :: "D"(p), "r"(v) : "memory");
	expect(0x30, v, 8);
	emu_storetrap_remove(t);
	munmap(p, 4096);
}
END_TEST

START_TEST(movq_from_xmm)
{
	uint8_t *p = ro_page();
	struct emu_storetrap *t = trap_page(p);
	uint64_t v = 0x1122334455667788ull, back0, back9;

	/* 66 0F D6: MOVQ m64, xmm (xmm0, and xmm9 through REX.R) */
	__asm__ volatile("movq %1, %%xmm0\n\t"
			 "movq %%xmm0, 0x40(%2)\n\t"
			 "movq %%xmm0, %0"
			 : "=r"(back0) : "r"(v), "D"(p) : "xmm0", "memory");
	expect(0x40, v, 8);
	ck_assert_uint_eq(back0, v);
	__asm__ volatile("movq %1, %%xmm9\n\t"
			 "movq %%xmm9, 0x48(%2)\n\t"
			 "movq %%xmm9, %0"
			 : "=r"(back9) : "r"(~v), "D"(p) : "xmm9", "memory");
	expect(0x48, ~v, 8);
	ck_assert_uint_eq(back9, ~v);
	/* 66 REX.W 0F 7E: MOVQ r/m64, xmm, spelled out; 66 0F 7E: MOVD */
	__asm__ volatile("movq %0, %%xmm1\n\t"
			 ".byte 0x66, 0x48, 0x0f, 0x7e, 0x4f, 0x50\n\t"	/* movq %%xmm1, 0x50(%%rdi) */
			 "movd %%xmm1, 0x58(%1)"
			 :: "r"(v), "D"(p) : "xmm1", "memory");
	ck_assert_int_eq(atomic_load(&seen_n), 2);
	ck_assert_uint_eq(seen_off, 0x58);
	ck_assert_uint_eq(seen_val, 0x55667788);
	ck_assert_uint_eq(seen_size, 4);
	ck_assert_uint_eq(emu_storetrap_stores(t), 4);
	emu_storetrap_remove(t);
	munmap(p, 4096);
}
END_TEST

/* The VEX forms an AVX build emits: VMOVQ m64, xmm (2- and 3-byte VEX,
 * the latter for an extended base register), VMOVD, VMOVQ r/m64 (W1). */
START_TEST(vmovq_from_xmm)
{
	uint8_t *p = ro_page();
	struct emu_storetrap *t = trap_page(p);
	uint64_t v = 0x0badc0ffee0ddf00ull;

	if (!__builtin_cpu_supports("avx")) {
		emu_storetrap_remove(t);
		munmap(p, 4096);
		return;
	}
	__asm__ volatile("vmovq %0, %%xmm2\n\t"
			 "vmovq %%xmm2, 0x40(%1)"
			 :: "r"(v), "D"(p) : "xmm2", "memory");
	expect(0x40, v, 8);
	{
		register uint8_t *r11 __asm__("r11") = p + 0x100;

		__asm__ volatile("vmovq %0, %%xmm10\n\t"
				 "vmovq %%xmm10, 0x8(%1)"
				 :: "r"(~v), "r"(r11) : "xmm10", "memory");
		expect(0x108, ~v, 8);
	}
	__asm__ volatile("vmovq %0, %%xmm3\n\t"
			 "vmovd %%xmm3, 0x48(%1)"
			 :: "r"(v), "D"(p) : "xmm3", "memory");
	expect(0x48, (uint32_t)v, 4);
	/* VEX.128.66.0F.W1 7E: vmovq %%xmm3, 0x50(%%rdi), spelled out */
	__asm__ volatile("vmovq %0, %%xmm3\n\t"
			 ".byte 0xc4, 0xe1, 0xf9, 0x7e, 0x5f, 0x50"
			 :: "r"(v), "D"(p) : "xmm3", "memory");
	expect(0x50, v, 8);
	emu_storetrap_remove(t);
	munmap(p, 4096);
}
END_TEST

/* Every general register, the stack pointer and the flags hold what
 * they held across a trapped store (the handler changes only the PC).
 * The stack pointer and flags go to static memory: with every register
 * taken, only RIP-relative operands are left. */
static volatile uint64_t sp0, sp1;
static volatile unsigned char cf;

START_TEST(registers_unchanged)
{
	uint8_t *p = ro_page();
	struct emu_storetrap *t = trap_page(p);
	register uint64_t rax __asm__("rax") = 0x1010101010101001ull;
	register uint64_t rbx __asm__("rbx") = 0x2020202020202002ull;
	register uint64_t rcx __asm__("rcx") = 0x3030303030303003ull;
	register uint64_t rdx __asm__("rdx") = 0x4040404040404004ull;
	register uint64_t rsi __asm__("rsi") = 0x5050505050505005ull;
	register uint8_t *rdi __asm__("rdi") = p;
	register uint64_t r8 __asm__("r8") = 0x8080808080808008ull;
	register uint64_t r9 __asm__("r9") = 0x9090909090909009ull;
	register uint64_t r10 __asm__("r10") = 0xa0a0a0a0a0a0a00aull;
	register uint64_t r11 __asm__("r11") = 0xb0b0b0b0b0b0b00bull;
	register uint64_t r12 __asm__("r12") = 0xc0c0c0c0c0c0c00cull;
	register uint64_t r13 __asm__("r13") = 0xd0d0d0d0d0d0d00dull;
	register uint64_t r14 __asm__("r14") = 0xe0e0e0e0e0e0e00eull;
	register uint64_t r15 __asm__("r15") = 0xf0f0f0f0f0f0f00full;
	__asm__ volatile("mov %%rsp, sp0(%%rip)\n\t"
			 "stc\n\t"
			 "mov %%r13, 0x60(%%rdi)\n\t"
			 "mov %%rsp, sp1(%%rip)\n\t"
			 "setc cf(%%rip)"
			 : "+r"(rax), "+r"(rbx), "+r"(rcx), "+r"(rdx), "+r"(rsi),
			   "+r"(rdi), "+r"(r8), "+r"(r9), "+r"(r10), "+r"(r11),
			   "+r"(r12), "+r"(r13), "+r"(r14), "+r"(r15)
			 :: "memory");
	{
		/* copied before any call: a call may clobber a register
		 * variable's register */
		const uint64_t got[14] = {
			rax, rbx, rcx, rdx, rsi, (uint64_t)rdi, r8, r9, r10,
			r11, r12, r13, r14, r15,
		};
		const uint64_t want[14] = {
			0x1010101010101001ull, 0x2020202020202002ull,
			0x3030303030303003ull, 0x4040404040404004ull,
			0x5050505050505005ull, (uint64_t)p,
			0x8080808080808008ull, 0x9090909090909009ull,
			0xa0a0a0a0a0a0a00aull, 0xb0b0b0b0b0b0b00bull,
			0xc0c0c0c0c0c0c00cull, 0xd0d0d0d0d0d0d00dull,
			0xe0e0e0e0e0e0e00eull, 0xf0f0f0f0f0f0f00full,
		};

		for (int i = 0; i < 14; i++)
			ck_assert_msg(got[i] == want[i], "register %d: %#lx",
				      i, (unsigned long)got[i]);
	}
	ck_assert_uint_eq(sp0, sp1);
	ck_assert_uint_eq(cf, 1);
	expect(0x60, 0xd0d0d0d0d0d0d00dull, 8);
	emu_storetrap_remove(t);
	munmap(p, 4096);
}
END_TEST

/* ---- what the trap leaves alone ---- */

START_TEST(reads_do_not_fault)
{
	uint8_t *p = ro_page();
	struct emu_storetrap *t = trap_page(p);
	unsigned long before = emu_sigfault_seen();
	uint64_t sum = 0;

	for (int i = 0; i < 4096; i += 8)
		sum += *(volatile uint64_t *)(p + i);
	ck_assert_uint_eq(sum, 0);
	ck_assert_uint_eq(emu_sigfault_seen(), before);
	ck_assert_int_eq(atomic_load(&seen_n), 0);
	emu_storetrap_remove(t);
	munmap(p, 4096);
}
END_TEST

START_TEST(other_faults_chain)
{
	uint8_t *p = ro_page(), *q = ro_page();
	struct emu_storetrap *t;

	install_app_handler();
	t = trap_page(p);
	/* a read-only page nobody trapped */
	if (sigsetjmp(back, 1) == 0) {
		*(volatile uint64_t *)(q + 8) = 1;
		ck_abort_msg("store to an untrapped read-only page went through");
	}
	ck_assert_int_eq(app_seen, 1);
	ck_assert_ptr_eq(app_addr, q + 8);
	/* a store the decoder does not know, into the trapped page */
	if (sigsetjmp(back, 1) == 0) {
		__asm__ volatile("addq $1, 0x10(%0)" :: "r"(p) : "memory");
		ck_abort_msg("an undecoded store went through");
	}
	ck_assert_int_eq(app_seen, 2);
	ck_assert_ptr_eq(app_addr, p + 0x10);
	ck_assert_uint_ge(emu_storetrap_undecoded(), 1);
	ck_assert_int_eq(atomic_load(&seen_n), 0);
	/* the trap still works afterwards */
	*(volatile uint64_t *)(p + 8) = 42;
	expect(8, 42, 8);
	/* a removed range is the application's fault again */
	emu_storetrap_remove(t);
	if (sigsetjmp(back, 1) == 0) {
		*(volatile uint64_t *)(p + 8) = 43;
		ck_abort_msg("store to a removed trap went through");
	}
	ck_assert_int_eq(app_seen, 3);
	ck_assert_ptr_eq(app_addr, p + 8);
	ck_assert_int_eq(atomic_load(&seen_n), 0);
	munmap(p, 4096);
	munmap(q, 4096);
}
END_TEST

START_TEST(add_rejects)
{
	uint8_t *p = ro_page();
	struct emu_storetrap *t, *u;

	ck_assert_int_eq(emu_storetrap_add(NULL, 4096, record, NULL, &t), -EINVAL);
	ck_assert_int_eq(emu_storetrap_add(p, 0, record, NULL, &t), -EINVAL);
	ck_assert_int_eq(emu_storetrap_add(p, 4096, NULL, NULL, &t), -EINVAL);
	ck_assert_int_eq(emu_storetrap_add(p, 4096, record, NULL, &t), 0);
	ck_assert_int_eq(emu_storetrap_add(p + 2048, 8, record, NULL, &u), -EINVAL);
	emu_storetrap_remove(t);
	ck_assert_int_eq(emu_storetrap_add(p + 2048, 8, record, NULL, &u), 0);
	emu_storetrap_remove(u);
	munmap(p, 4096);
}
END_TEST

/* remove() does not return while a handler is inside the callback. */
static atomic_int in_fn, let_go, removed;

static void slow_fn(void *arg, size_t off, uint64_t value, unsigned int size)
{
	(void)arg; (void)off; (void)value; (void)size;
	atomic_store(&in_fn, 1);
	while (!atomic_load(&let_go))
		;
	atomic_store(&in_fn, 0);
}

static void *store_once(void *p)
{
	*(volatile uint64_t *)p = 1;
	return NULL;
}

static void *remove_it(void *t)
{
	emu_storetrap_remove(t);
	atomic_store(&removed, 1);
	return NULL;
}

START_TEST(remove_waits_for_handler)
{
	uint8_t *p = ro_page();
	struct emu_storetrap *t;
	pthread_t st, rm;

	ck_assert_int_eq(emu_storetrap_add(p, 4096, slow_fn, NULL, &t), 0);
	ck_assert_int_eq(pthread_create(&st, NULL, store_once, p), 0);
	while (!atomic_load(&in_fn))
		;
	ck_assert_int_eq(pthread_create(&rm, NULL, remove_it, t), 0);
	usleep(50 * 1000);
	ck_assert_int_eq(atomic_load(&removed), 0);
	atomic_store(&let_go, 1);
	pthread_join(rm, NULL);
	ck_assert_int_eq(atomic_load(&removed), 1);
	ck_assert_int_eq(atomic_load(&in_fn), 0);
	pthread_join(st, NULL);
	munmap(p, 4096);
}
END_TEST

/* ---- many threads ---- */

enum { NTHREADS = 4, NSTORES = 10000 };

struct mt {
	uint8_t *page;
	atomic_ulong count[NTHREADS];
	atomic_ulong next[NTHREADS];	/* the sequence number expected next */
	atomic_ulong out_of_order;
	atomic_int go;
};

static void mt_record(void *arg, size_t off, uint64_t value, unsigned int size)
{
	struct mt *m = arg;
	unsigned int th = (unsigned int)(off / 64);

	if (size != 8 || th >= NTHREADS || value >> 32 != th) {
		atomic_fetch_add(&m->out_of_order, 1);
		return;
	}
	if ((uint32_t)value != atomic_load(&m->next[th]))
		atomic_fetch_add(&m->out_of_order, 1);
	atomic_store(&m->next[th], (uint32_t)value + 1);
	atomic_fetch_add(&m->count[th], 1);
}

struct mt_arg {
	struct mt *m;
	unsigned int th;
};

static void *mt_thread(void *p)
{
	struct mt_arg *a = p;
	volatile uint64_t *slot = (volatile uint64_t *)(a->m->page + 64 * a->th);

	while (!atomic_load(&a->m->go))
		;
	for (uint32_t i = 0; i < NSTORES; i++)
		*slot = (uint64_t)a->th << 32 | i;
	return NULL;
}

START_TEST(threads_all_seen)
{
	static struct mt m;
	struct mt_arg args[NTHREADS];
	pthread_t tid[NTHREADS];
	struct emu_storetrap *t;

	m.page = ro_page();
	ck_assert_int_eq(emu_storetrap_add(m.page, 4096, mt_record, &m, &t), 0);
	for (unsigned int i = 0; i < NTHREADS; i++) {
		args[i] = (struct mt_arg){ &m, i };
		ck_assert_int_eq(pthread_create(&tid[i], NULL, mt_thread, &args[i]), 0);
	}
	atomic_store(&m.go, 1);
	for (unsigned int i = 0; i < NTHREADS; i++)
		pthread_join(tid[i], NULL);
	for (unsigned int i = 0; i < NTHREADS; i++)
		ck_assert_uint_eq(atomic_load(&m.count[i]), NSTORES);
	ck_assert_uint_eq(atomic_load(&m.out_of_order), 0);
	ck_assert_uint_eq(emu_storetrap_stores(t), NTHREADS * NSTORES);
	emu_storetrap_remove(t);
	munmap(m.page, 4096);
}
END_TEST

#endif /* __x86_64__ */

/* ---- the aarch64 decoder, on plain values (any host) ---- */

/*
 * Instruction words as an aarch64 assembler (clang) encodes them, with
 * x[n] = 0x1000 * (n + 1) + n and sp = 0x7f00.
 */
static const struct a64_case {
	const char *text;
	uint32_t insn;
	bool ok;
	uint64_t ea, value;
	unsigned int size;
	int wb_reg;
	uint64_t wb_val;
} a64_cases[] = {
#define X(n) (UINT64_C(0x1000) * ((n) + 1) + (n))
	{ "str x1, [x2]", 0xf9000041, true, X(2), X(1), 8, -1, 0 },
	{ "str x1, [x2, #8]", 0xf9000441, true, X(2) + 8, X(1), 8, -1, 0 },
	{ "str w3, [x4, #4092]", 0xb90ffc83, true, X(4) + 4092, X(3) & 0xffffffff, 4, -1, 0 },
	{ "str xzr, [x5, #32760]", 0xf93ffcbf, true, X(5) + 32760, 0, 8, -1, 0 },
	{ "strb w6, [x7, #1]", 0x390004e6, true, X(7) + 1, X(6) & 0xff, 1, -1, 0 },
	{ "strh w8, [x9, #2]", 0x79000528, true, X(9) + 2, X(8) & 0xffff, 2, -1, 0 },
	{ "stur x10, [x11, #-8]", 0xf81f816a, true, X(11) - 8, X(10), 8, -1, 0 },
	{ "stur w12, [x13, #255]", 0xb80ff1ac, true, X(13) + 255, X(12) & 0xffffffff, 4, -1, 0 },
	{ "str x14, [x15, #-16]!", 0xf81f0dee, true, X(15) - 16, X(14), 8, 15, X(15) - 16 },
	{ "str x16, [x17], #24", 0xf8018630, true, X(17), X(16), 8, 17, X(17) + 24 },
	{ "str x18, [sp, #8]", 0xf90007f2, true, 0x7f08, X(18), 8, -1, 0 },
	{ "str x19, [sp, #-32]!", 0xf81e0ff3, true, 0x7ee0, X(19), 8, 31, 0x7ee0 },
	{ "str wzr, [x20], #-4", 0xb81fc69f, true, X(20), 0, 4, 20, X(20) - 4 },
	{ "str x1, [x2, x3]", 0xf8236841, false, 0, 0, 0, 0, 0 },
	{ "stp x1, x2, [x3]", 0xa9000861, false, 0, 0, 0, 0, 0 },
	{ "ldr x1, [x2]", 0xf9400041, false, 0, 0, 0, 0, 0 },
	{ "str q0, [x1]", 0x3d800020, false, 0, 0, 0, 0, 0 },
	{ "sttr x1, [x2]", 0xf8000841, false, 0, 0, 0, 0, 0 },
	{ "str x1, [x1], #8 (unpredictable)", 0xf8008421, false, 0, 0, 0, 0, 0 },
#undef X
};

START_TEST(a64_decode)
{
	const struct a64_case *c = &a64_cases[_i];
	struct emu_storetrap_a64 st;
	uint64_t x[31];

	for (int n = 0; n < 31; n++)
		x[n] = UINT64_C(0x1000) * (uint64_t)(n + 1) + (uint64_t)n;
	ck_assert_msg(emu_storetrap_a64_decode(c->insn, x, 0x7f00, &st) == c->ok,
		      "%s", c->text);
	if (!c->ok)
		return;
	ck_assert_msg(st.ea == c->ea, "%s: ea %#lx", c->text, (unsigned long)st.ea);
	ck_assert_msg(st.value == c->value, "%s: value %#lx", c->text,
		      (unsigned long)st.value);
	ck_assert_msg(st.size == c->size, "%s: size %u", c->text, st.size);
	ck_assert_msg(st.wb_reg == c->wb_reg, "%s: wb %d", c->text, st.wb_reg);
	if (c->wb_reg >= 0)
		ck_assert_msg(st.wb_val == c->wb_val, "%s: wb_val %#lx", c->text,
			      (unsigned long)st.wb_val);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mem_storetrap");
	TCase *tc = tcase_create("x86_64");
	TCase *ta = tcase_create("a64_decode");

#if defined(__x86_64__)
	tcase_add_loop_test(tc, mov_from_each_gpr, 0,
			    sizeof(gpr_stores) / sizeof(gpr_stores[0]));
	tcase_add_test(tc, mov_from_rsp_rbp);
	tcase_add_test(tc, addressing_forms);
	tcase_add_test(tc, rip_relative);
	tcase_add_test(tc, sizes_and_immediates);
	tcase_add_test(tc, movq_from_xmm);
	tcase_add_test(tc, vmovq_from_xmm);
	tcase_add_test(tc, registers_unchanged);
	tcase_add_test(tc, reads_do_not_fault);
	tcase_add_test(tc, other_faults_chain);
	tcase_add_test(tc, add_rejects);
	tcase_add_test(tc, remove_waits_for_handler);
	tcase_add_test(tc, threads_all_seen);
#endif
	suite_add_tcase(s, tc);
	tcase_add_loop_test(ta, a64_decode, 0,
			    sizeof(a64_cases) / sizeof(a64_cases[0]));
	suite_add_tcase(s, ta);
	return ut_run(s) ? 1 : 0;
}
