/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_syndrome.h -- the firmware syndrome table
 * (prm/syndromes.def) as an enum and a lookup.
 *
 * Every failing command answers with the status and syndrome of exactly one
 * entry; handlers return an enum fw_synd and never spell a number.
 */
#ifndef MLX5EMU_FW_SYNDROME_H
#define MLX5EMU_FW_SYNDROME_H

#include <stddef.h>
#include <stdint.h>

enum fw_synd {
	FW_SYND_OK = 0,		/* success: status 0, syndrome 0 */
#define FW_SYND(id, value, status, text, source) FW_SYND_##id,
#include "prm/syndromes.def"
#undef FW_SYND
	FW_SYND_COUNT
};

struct fw_syndrome {
	enum fw_synd id;
	const char *name;	/* "CQ_IN_USE" */
	uint32_t value;		/* outbox syndrome */
	uint8_t status;		/* outbox status, MLX5_CMD_STAT_* */
	const char *text;
	const char *source;	/* public evidence, or "emulator-assigned" */
};

/* Emulator-assigned syndromes are 0xEE000000..0xEEFFFFFF. */
#define FW_SYND_EMU_BASE 0xEE000000u
#define FW_SYND_EMU_MASK 0xFF000000u

/* The entry for id (FW_SYND_OK included); NULL if id is out of range. */
const struct fw_syndrome *fw_syndrome_get(enum fw_synd id);
/* The entry with this syndrome value; NULL if none (value 0: FW_SYND_OK). */
const struct fw_syndrome *fw_syndrome_find(uint32_t value);
/* The entry named name ("CQ_IN_USE"); NULL if none.  For fault rules. */
const struct fw_syndrome *fw_syndrome_by_name(const char *name);
/* True when the entry cites a public source. */
int fw_syndrome_is_cited(const struct fw_syndrome *s);

#endif /* MLX5EMU_FW_SYNDROME_H */
