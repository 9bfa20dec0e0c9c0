/* SPDX-License-Identifier: MIT */
/*
 * emu/mem/storetrap.c -- the store trap (see storetrap.h).
 *
 * The table is a fixed array read without a lock from the fault handler.
 * A slot's fields are written only while it is not live, and published by
 * the release store that makes it live.  A handler announces itself in the
 * slot's "inside" counter before it looks at "live"; removal clears "live"
 * and then waits for the counter to drain.  Both sides use sequentially
 * consistent operations on the two words, so either the handler sees the
 * slot dead or the remover sees the handler inside: no handler can use a
 * slot after remove has returned.
 *
 * The decoder checks that the effective address it computes is the
 * address the kernel reported: an instruction it misreads is left alone
 * rather than given a wrong value.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <ucontext.h>

#include "emu/mem/sigfault.h"
#include "emu/mem/storetrap.h"

struct emu_storetrap {
	atomic_bool live;
	atomic_uint inside;	/* handlers looking at this slot */
	bool used;		/* under storetrap_lock */
	uintptr_t base;
	size_t len;
	emu_storetrap_fn fn;
	void *arg;
	atomic_ulong stores;
};

static pthread_mutex_t storetrap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_storetrap storetrap_slots[EMU_STORETRAP_MAX];
static atomic_ulong storetrap_nundecoded;

/* One decoded store. */
struct st_store {
	uintptr_t ea;
	uint64_t value;
	unsigned int size;
	unsigned int len;	/* instruction bytes */
	int wb_reg;		/* aarch64 writeback: register (-1 none, 31 sp) */
	uint64_t wb_val;
};

#if defined(__x86_64__)

static const int x86_greg_index[16] = {
	REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
	REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
};

static uint64_t x86_greg(const ucontext_t *uc, unsigned int r)
{
	return (uint64_t)uc->uc_mcontext.gregs[x86_greg_index[r & 15]];
}

static uint64_t x86_le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static int64_t x86_sext(uint64_t v, unsigned int bytes)
{
	unsigned int shift = 64 - 8 * bytes;

	return (int64_t)(v << shift) >> shift;
}

enum x86_src { SRC_GPR, SRC_GPR8, SRC_IMM, SRC_XMM };

/*
 * x86-64 forms, in 64-bit mode only:
 *   88 /r, 89 /r      MOV r/m, r (8; 16 with 66, 32, 64 with REX.W)
 *   C6 /0, C7 /0      MOV r/m, imm (imm32 sign-extended with REX.W)
 *   0F C3 /r          MOVNTI m, r (32, 64 with REX.W)
 *   66 0F D6 /r       MOVQ m64, xmm
 *   66 0F 7E /r       MOVD m32, xmm / MOVQ m64, xmm with REX.W
 *   VEX.128.66.0F D6, 7E: the same as VMOVQ/VMOVD (AVX builds)
 * Segment overrides other than FS/GS are no-ops in 64-bit mode; FS, GS,
 * the address-size prefix, LOCK and REP change the meaning and are not
 * claimed.
 */
static bool x86_decode(const uint8_t *pc, const ucontext_t *uc,
		       struct st_store *st)
{
	unsigned int i = 0, rex = 0, mod, reg, rm, immlen = 0;
	bool opsize = false, riprel = false;
	enum x86_src src;
	uint64_t ea = 0;
	uint8_t op;

	for (;; i++) {
		if (i >= 14)
			return false;
		op = pc[i];
		if (op == 0x66)
			opsize = true;
		else if (op != 0x26 && op != 0x2e && op != 0x36 && op != 0x3e)
			break;
	}
	if (op == 0xc4 || op == 0xc5) {
		/* VEX (always, in 64-bit mode): its R, X, B, W become a REX */
		uint8_t b1 = pc[i + 1], b2 = op == 0xc5 ? b1 : pc[i + 2];

		if (opsize)
			return false;
		rex = 0x40 | (b1 & 0x80 ? 0 : 4);
		if (op == 0xc4) {
			rex |= (b1 & 0x40 ? 0 : 2) | (b1 & 0x20 ? 0 : 1) |
			       (b2 & 0x80 ? 8 : 0);
			/* map 0F only */
			if ((b1 & 0x1f) != 1)
				return false;
		}
		i += op == 0xc5 ? 2 : 3;
		/* vvvv unused (1111), 128-bit, pp = 66 */
		if ((b2 & 0x7f) != 0x79)
			return false;
		op = pc[i++];
		if (op == 0xd6) {
			st->size = 8;
		} else if (op == 0x7e) {
			st->size = (rex & 8) ? 8 : 4;
		} else {
			return false;
		}
		src = SRC_XMM;
		goto modrm;
	}
	if ((op & 0xf0) == 0x40) {
		rex = op;
		op = pc[++i];
	}
	i++;
	switch (op) {
	case 0x88:
		src = SRC_GPR8;
		st->size = 1;
		break;
	case 0x89:
		src = SRC_GPR;
		st->size = (rex & 8) ? 8 : opsize ? 2 : 4;
		break;
	case 0xc6:
		src = SRC_IMM;
		st->size = immlen = 1;
		break;
	case 0xc7:
		src = SRC_IMM;
		st->size = (rex & 8) ? 8 : opsize ? 2 : 4;
		immlen = opsize && !(rex & 8) ? 2 : 4;
		break;
	case 0x0f:
		op = pc[i++];
		if (op == 0xc3 && !opsize) {
			src = SRC_GPR;
			st->size = (rex & 8) ? 8 : 4;
		} else if (op == 0xd6 && opsize) {
			src = SRC_XMM;
			st->size = 8;
		} else if (op == 0x7e && opsize) {
			src = SRC_XMM;
			st->size = (rex & 8) ? 8 : 4;
		} else {
			return false;
		}
		break;
	default:
		return false;
	}

modrm:
	mod = pc[i] >> 6;
	reg = (pc[i] >> 3 & 7) | (rex & 4) << 1;
	rm = pc[i] & 7;
	i++;
	if (mod == 3)
		return false;
	if (src == SRC_IMM && (reg & 7) != 0)
		return false;
	if (rm == 4) {
		uint8_t sib = pc[i++];
		unsigned int scale = sib >> 6;
		unsigned int index = (sib >> 3 & 7) | (rex & 2) << 2;
		unsigned int base = (sib & 7) | (rex & 1) << 3;

		/* index 100 without REX.X is "none"; r12 as index is real */
		if (index != 4)
			ea += x86_greg(uc, index) << scale;
		if ((sib & 7) == 5 && mod == 0) {
			ea += (uint64_t)x86_sext(x86_le(pc + i, 4), 4);
			i += 4;
		} else {
			ea += x86_greg(uc, base);
		}
	} else if (rm == 5 && mod == 0) {
		/* RIP-relative, whatever REX.B says; the end is known later */
		riprel = true;
		ea += (uint64_t)x86_sext(x86_le(pc + i, 4), 4);
		i += 4;
	} else {
		ea += x86_greg(uc, rm | (rex & 1) << 3);
	}
	if (mod == 1) {
		ea += (uint64_t)x86_sext(pc[i], 1);
		i += 1;
	} else if (mod == 2) {
		ea += (uint64_t)x86_sext(x86_le(pc + i, 4), 4);
		i += 4;
	}

	switch (src) {
	case SRC_GPR:
		st->value = x86_greg(uc, reg);
		break;
	case SRC_GPR8:
		/* without REX, 4..7 are AH, CH, DH, BH */
		if (!rex && reg >= 4 && reg < 8)
			st->value = x86_greg(uc, reg - 4) >> 8;
		else
			st->value = x86_greg(uc, reg);
		break;
	case SRC_IMM:
		st->value = (uint64_t)x86_sext(x86_le(pc + i, immlen), immlen);
		i += immlen;
		break;
	case SRC_XMM:
		if (!uc->uc_mcontext.fpregs)
			return false;
		st->value = uc->uc_mcontext.fpregs->_xmm[reg].element[0] |
			    (uint64_t)uc->uc_mcontext.fpregs->_xmm[reg].element[1] << 32;
		break;
	}
	if (st->size < 8)
		st->value &= (UINT64_C(1) << (8 * st->size)) - 1;
	if (i > 15)
		return false;
	st->len = i;
	if (riprel)
		ea += (uint64_t)uc->uc_mcontext.gregs[REG_RIP] + i;
	st->ea = (uintptr_t)ea;
	st->wb_reg = -1;
	return true;
}

static bool arch_decode(const ucontext_t *uc, struct st_store *st)
{
	return x86_decode((const uint8_t *)uc->uc_mcontext.gregs[REG_RIP], uc,
			  st);
}

static void arch_step(ucontext_t *uc, const struct st_store *st)
{
	uc->uc_mcontext.gregs[REG_RIP] += st->len;
}

#define STORETRAP_ARCH 1

#elif defined(__aarch64__)

/* Not exercised on the host this was written on (x86-64); the decoder
 * itself is (emu_storetrap_a64_decode, below). */
static bool arch_decode(const ucontext_t *uc, struct st_store *st)
{
	struct emu_storetrap_a64 a;
	uint32_t insn;

	memcpy(&insn, (const void *)uc->uc_mcontext.pc, 4);
	if (!emu_storetrap_a64_decode(insn, (const uint64_t *)uc->uc_mcontext.regs,
				      uc->uc_mcontext.sp, &a))
		return false;
	st->ea = (uintptr_t)a.ea;
	st->value = a.value;
	st->size = a.size;
	st->len = 4;
	st->wb_reg = a.wb_reg;
	st->wb_val = a.wb_val;
	return true;
}

static void arch_step(ucontext_t *uc, const struct st_store *st)
{
	if (st->wb_reg == 31)
		uc->uc_mcontext.sp = st->wb_val;
	else if (st->wb_reg >= 0)
		uc->uc_mcontext.regs[st->wb_reg] = st->wb_val;
	uc->uc_mcontext.pc += st->len;
}

#define STORETRAP_ARCH 1

#else
#define STORETRAP_ARCH 0
#endif

/*
 * aarch64: STR/STRB/STRH (immediate: unsigned offset, pre- and post-index)
 * and STUR/STURB/STURH of a general register.  Register 31 is SP as the
 * base, XZR/WZR as the source.
 */
static uint64_t a64_reg(const uint64_t x[31], uint64_t sp, unsigned int r,
			bool is_base)
{
	if (r == 31)
		return is_base ? sp : 0;
	return x[r];
}

bool emu_storetrap_a64_decode(uint32_t insn, const uint64_t x[31], uint64_t sp,
			      struct emu_storetrap_a64 *st)
{
	unsigned int sz = insn >> 30, rn = insn >> 5 & 31, rt = insn & 31;
	uint64_t base = a64_reg(x, sp, rn, true);

	st->size = 1u << sz;
	st->wb_reg = -1;
	st->wb_val = 0;
	if ((insn & 0x3fc00000) == 0x39000000) {
		st->ea = base + ((uint64_t)(insn >> 10 & 0xfff) << sz);
	} else if ((insn & 0x3fe00000) == 0x38000000) {
		uint64_t imm9 = (uint64_t)((int64_t)((uint64_t)(insn >> 12 & 0x1ff)
						     << 55) >> 55);

		switch (insn >> 10 & 3) {
		case 0:		/* STUR */
			st->ea = base + imm9;
			break;
		case 1:		/* post-index */
			st->ea = base;
			st->wb_reg = (int)rn;
			st->wb_val = base + imm9;
			break;
		case 3:		/* pre-index */
			st->ea = base + imm9;
			st->wb_reg = (int)rn;
			st->wb_val = st->ea;
			break;
		default:	/* STTR: unprivileged, not from a compiler */
			return false;
		}
		/* writeback into the stored register is unpredictable */
		if (st->wb_reg >= 0 && rn == rt && rn != 31)
			return false;
	} else {
		return false;
	}
	st->value = a64_reg(x, sp, rt, false);
	if (st->size < 8)
		st->value &= (UINT64_C(1) << (8 * st->size)) - 1;
	return true;
}

static bool storetrap_claim(struct emu_storetrap *t, uintptr_t addr,
			    siginfo_t *si, ucontext_t *uc)
{
#if STORETRAP_ARCH
	struct st_store st;

	if (addr < t->base || addr - t->base >= t->len)
		return false;
	if (!arch_decode(uc, &st) || st.ea != addr ||
	    st.size > t->len - (addr - t->base)) {
		atomic_fetch_add_explicit(&storetrap_nundecoded, 1,
					  memory_order_relaxed);
		return false;
	}
	t->fn(t->arg, addr - t->base, st.value, st.size);
	atomic_fetch_add_explicit(&t->stores, 1, memory_order_relaxed);
	arch_step(uc, &st);
	return true;
#else
	(void)t; (void)addr; (void)si; (void)uc;
	return false;
#endif
}

static bool storetrap_fault(int sig, siginfo_t *si, void *uctx)
{
	uintptr_t addr = (uintptr_t)si->si_addr;

	if (sig != SIGSEGV || si->si_code != SEGV_ACCERR)
		return false;
	for (size_t i = 0; i < EMU_STORETRAP_MAX; i++) {
		struct emu_storetrap *t = &storetrap_slots[i];
		bool claimed = false;

		if (!atomic_load_explicit(&t->live, memory_order_relaxed))
			continue;
		atomic_fetch_add(&t->inside, 1);
		if (atomic_load(&t->live))
			claimed = storetrap_claim(t, addr, si, uctx);
		atomic_fetch_sub_explicit(&t->inside, 1, memory_order_release);
		if (claimed)
			return true;
	}
	return false;
}

int emu_storetrap_add(void *page, size_t len, emu_storetrap_fn fn, void *arg,
		      struct emu_storetrap **out)
{
	uintptr_t base = (uintptr_t)page;
	struct emu_storetrap *free_slot = NULL;
	int ret;

	if (!page || !len || !fn || !out || base + len < base)
		return -EINVAL;
	ret = emu_sigfault_register(storetrap_fault);
	if (ret)
		return ret;
	pthread_mutex_lock(&storetrap_lock);
	for (size_t i = 0; i < EMU_STORETRAP_MAX; i++) {
		struct emu_storetrap *t = &storetrap_slots[i];

		if (!t->used) {
			if (!free_slot)
				free_slot = t;
		} else if (base < t->base + t->len && t->base < base + len) {
			ret = -EINVAL;
			goto out;
		}
	}
	if (!free_slot) {
		ret = -ENOSPC;
		goto out;
	}
	free_slot->used = true;
	free_slot->base = base;
	free_slot->len = len;
	free_slot->fn = fn;
	free_slot->arg = arg;
	atomic_store_explicit(&free_slot->stores, 0, memory_order_relaxed);
	atomic_store_explicit(&free_slot->live, true, memory_order_seq_cst);
	*out = free_slot;
out:
	pthread_mutex_unlock(&storetrap_lock);
	return ret;
}

void emu_storetrap_remove(struct emu_storetrap *t)
{
	if (!t)
		return;
	atomic_store(&t->live, false);
	while (atomic_load(&t->inside))
		sched_yield();
	pthread_mutex_lock(&storetrap_lock);
	t->used = false;
	pthread_mutex_unlock(&storetrap_lock);
}

unsigned long emu_storetrap_stores(const struct emu_storetrap *t)
{
	return atomic_load_explicit(&t->stores, memory_order_relaxed);
}

unsigned long emu_storetrap_undecoded(void)
{
	return atomic_load_explicit(&storetrap_nundecoded, memory_order_relaxed);
}
