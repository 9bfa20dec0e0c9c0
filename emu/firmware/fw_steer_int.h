/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_steer_int.h -- what the NIC flow steering files share
 * (fw_flow_table.c, fw_flow_group.c, fw_fte.c, fw_steer.c).  Every helper
 * here runs under the device's steering lock.
 */
#ifndef MLX5EMU_FW_STEER_INT_H
#define MLX5EMU_FW_STEER_INT_H

#include <string.h>

#include "emu/firmware/fw_int.h"

/* A table type this device steers (NIC RX or TX, as advertised). */
bool fw_steer_type_ok(const struct emu_fw *fw, unsigned int type);
/* A property of the NIC tables of @type (RX, else TX). */
#define FW_CAP_NIC_FT(fw, type, fld)					\
	((type) == MLX5_FLOW_TABLE_TYPE_NIC_RX ? FW_CAP_NIC_RX(fw, fld) :	\
						 FW_CAP_NIC_TX(fw, fld))

/*
 * The table @id of @type a command operates on: owned by cmd->uid.  The
 * steering lock keeps it published while held, so no reference is kept.
 */
enum fw_synd fw_ft_own(struct fw_cmd *cmd, unsigned int type, uint32_t id,
		       struct emu_fw_flow_table **ftp);

/*
 * A table another steering object points to (a miss or a forward from
 * @from): of the same type, deeper than @from, of cmd->uid or the
 * kernel's (the kernel itself may point to any uid's table: mlx5_ib hooks
 * DEVX tables below its own).  On success it has one more use, counted in
 * n_refs; drop with fw_ft_unref.
 */
enum fw_synd fw_ft_ref(struct fw_cmd *cmd, const struct emu_fw_flow_table *from,
		       uint32_t id, enum fw_synd bad,
		       struct emu_fw_flow_table **ftp);
void fw_ft_unref(struct emu_fw_flow_table *ft);

/* The group holding @flow_index, or NULL. */
struct emu_fw_flow_group *fw_ft_group_at(const struct emu_fw_flow_table *ft,
					 uint32_t flow_index);

/* Word @w of a match parameter at any alignment (one load). */
static inline uint64_t fw_match_word(const void *match, unsigned int w)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)match + 8 * w, sizeof(v));
	return v;
}

/*
 * The bucket of a group's hash index for @words (a packet's or an entry's
 * match parameter as 64-bit words): a hash of the words the criteria
 * cover, masked.  The lookup and the index share it.
 */
static inline uint32_t fw_fg_bucket(const struct emu_fw_flow_group *fg,
				    const void *words)
{
	uint64_t h = UINT64_C(0x9e3779b97f4a7c15);

	for (unsigned int i = 0; i < fg->nwords; i++) {
		unsigned int w = fg->word[i];

		h = (h ^ (fw_match_word(words, w) & fg->mask[w])) *
		    UINT64_C(0xff51afd7ed558ccd);
		h ^= h >> 33;
	}
	/* MurmurHash3's finaliser: every input bit reaches the low bits. */
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return (uint32_t)h & fg->hmask;
}

/* Put @fte in its group's index, or @fte in the place of @old (same
 * flow index); take @fte out.  Under the steering lock; lookups see the
 * chain whole at every step. */
void fw_fg_link(struct emu_fw_flow_group *fg, struct emu_fw_fte *fte,
		struct emu_fw_fte *old);
void fw_fg_unlink(struct emu_fw_flow_group *fg, struct emu_fw_fte *fte);

/* Free a replaced group list after a grace period (NULL: nothing). */
void fw_groups_defer_free(struct emu_fw_flow_groups *gs);

/* Drop what an entry holds (group, tables, counters) and free it after
 * a grace period (now: at device teardown, when no reader is left). */
void fw_fte_release(struct emu_fw_fte *fte, bool now);

/* The fte_match_param blocks this device matches (MLX5_MATCH_*). */
#define FW_STEER_MATCH_BLOCKS						\
	(MLX5_MATCH_OUTER_HEADERS | MLX5_MATCH_MISC_PARAMETERS |	\
	 MLX5_MATCH_INNER_HEADERS | MLX5_MATCH_MISC_PARAMETERS_2 |	\
	 MLX5_MATCH_MISC_PARAMETERS_3)
/* Bytes of one block of fte_match_param. */
#define FW_STEER_BLOCK_BYTES PRM_ST_SZ_BYTES(fte_match_set_lyr_2_4)

#endif /* MLX5EMU_FW_STEER_INT_H */
