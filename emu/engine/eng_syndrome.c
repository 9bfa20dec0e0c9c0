/* SPDX-License-Identifier: MIT */
/* emu/engine/eng_syndrome.c -- the error CQE table (prm/cqe_syndromes.def). */
#include "emu/engine/eng_int.h"

static const struct eng_synd eng_synds[ENG_SYND_NUM] = {
#define ENG_SYND(id, synd, vendor, text, src) \
	[ENG_SYND_##id] = { (synd), (vendor), #id },
#include "prm/cqe_syndromes.def"
#undef ENG_SYND
};

const struct eng_synd *eng_synd(enum eng_synd_id id)
{
	return &eng_synds[id];
}
