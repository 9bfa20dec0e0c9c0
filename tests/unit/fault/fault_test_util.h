/* SPDX-License-Identifier: MIT */
/* Helpers shared by the emu/fault Check suites (internal library). */
#ifndef MLX5EMU_TESTS_UNIT_FAULT_FAULT_TEST_UTIL_H
#define MLX5EMU_TESTS_UNIT_FAULT_FAULT_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/fault/fault.h"

struct emu_fw;

/* Unsets every MLX5EMU_* variable and resets the rule engine. */
void ft_reset(void);

/* Adds a rule (text); fails the test if it is refused.  Returns its id. */
int ft_add(const char *text);

/*
 * Runs the hook as device dev's firmware would for opcode/op_mod/uid and
 * returns 'F' (failed: status and syndrome set), or '.'.
 */
char ft_hook(int dev, uint16_t opcode, uint16_t op_mod, uint16_t uid,
	     uint8_t *status, uint32_t *syndrome);

/* n hook calls with the same command: their outcomes as a string. */
void ft_pattern(char *buf, int n, int dev, uint16_t opcode, uint16_t uid);

/* A firmware with the default configuration and the fault hook. */
struct emu_fw *ft_fw(int dev_index);
/* ALLOC_PD (uid 0) on fw; the outbox status, *pdn on success. */
uint8_t ft_alloc_pd(struct emu_fw *fw, uint32_t *pdn, uint32_t *syndrome);
uint8_t ft_dealloc_pd(struct emu_fw *fw, uint32_t pdn, uint32_t *syndrome);

/* Milliseconds on the monotonic clock. */
double ft_now_ms(void);

#endif
