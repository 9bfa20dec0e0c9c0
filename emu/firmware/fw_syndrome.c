/* SPDX-License-Identifier: MIT */
/* emu/firmware/fw_syndrome.c -- lookups over prm/syndromes.def. */
#include <string.h>

#include "prm/prm_cmd.h"
#include "emu/firmware/fw_syndrome.h"

static const struct fw_syndrome fw_syndromes[FW_SYND_COUNT] = {
	[FW_SYND_OK] = {
		.id = FW_SYND_OK, .name = "OK", .value = 0,
		.status = MLX5_CMD_STAT_OK, .text = "success",
		.source = "PRM: status 0 is OK",
	},
#define FW_SYND(id_, value_, status_, text_, source_)			\
	[FW_SYND_##id_] = {						\
		.id = FW_SYND_##id_, .name = #id_, .value = (value_),	\
		.status = MLX5_CMD_STAT_##status_, .text = (text_),	\
		.source = (source_),					\
	},
#include "prm/syndromes.def"
#undef FW_SYND
};

/* Every entry is a failure, and emulator values stay in their range. */
#define FW_SYND(id_, value_, status_, text_, source_)			\
	_Static_assert((int)MLX5_CMD_STAT_##status_ != (int)MLX5_CMD_STAT_OK,	\
		       #id_ ": a syndrome entry must not have status OK"); \
	_Static_assert((value_) != 0, #id_ ": syndrome 0 is reserved for OK");
#include "prm/syndromes.def"
#undef FW_SYND

const struct fw_syndrome *fw_syndrome_get(enum fw_synd id)
{
	if ((unsigned int)id >= FW_SYND_COUNT)
		return NULL;
	return &fw_syndromes[id];
}

const struct fw_syndrome *fw_syndrome_find(uint32_t value)
{
	for (size_t i = 0; i < FW_SYND_COUNT; i++)
		if (fw_syndromes[i].value == value)
			return &fw_syndromes[i];
	return NULL;
}

const struct fw_syndrome *fw_syndrome_by_name(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < FW_SYND_COUNT; i++)
		if (strcmp(fw_syndromes[i].name, name) == 0)
			return &fw_syndromes[i];
	return NULL;
}

int fw_syndrome_is_cited(const struct fw_syndrome *s)
{
	return s && strcmp(s->source, "emulator-assigned") != 0;
}
