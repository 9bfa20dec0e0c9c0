/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the NIC flow steering suites (test_fw_steer_*.c): mailboxes
 * for tables, groups, entries and roots, built with the PRM accessors.
 * The _m forms leave the outbox in m for the caller to check; the others
 * fail the test unless the firmware accepts and return the new id.
 */
#ifndef MLX5EMU_TESTS_UNIT_FIRMWARE_TEST_FW_STEER_UTIL_H
#define MLX5EMU_TESTS_UNIT_FIRMWARE_TEST_FW_STEER_UTIL_H

#include "fw_test_util.h"

#define RX MLX5_FLOW_TABLE_TYPE_NIC_RX
#define TX MLX5_FLOW_TABLE_TYPE_NIC_TX

/* CREATE_FLOW_TABLE; miss 0: default miss, else forward to that table. */
void fts_ft_m(struct emu_fw *fw, struct fwt_mbox *m, uint16_t uid,
	      unsigned int type, unsigned int level, unsigned int log_size,
	      uint32_t miss);
uint32_t fts_ft(struct emu_fw *fw, uint16_t uid, unsigned int type,
		unsigned int level, unsigned int log_size, uint32_t miss);

/* CREATE_FLOW_GROUP over [start, end] with criteria (0x200 bytes, NULL:
 * none) under the enable bits. */
void fts_fg_m(struct emu_fw *fw, struct fwt_mbox *m, uint16_t uid,
	      unsigned int type, uint32_t table, uint32_t start, uint32_t end,
	      unsigned int enable, const void *criteria);
uint32_t fts_fg(struct emu_fw *fw, uint16_t uid, unsigned int type,
		uint32_t table, uint32_t start, uint32_t end,
		unsigned int enable, const void *criteria);

/* One entry: its action, tag, at most one destination (dest_type < 0:
 * none) and one counter (0: none), and the match value (NULL: zero). */
struct fts_fte {
	unsigned int action;
	uint32_t flow_tag;
	int dest_type;
	uint32_t dest_id;
	uint32_t counter;
	const void *value;
};
/* SET_FLOW_TABLE_ENTRY (op_mod 0 create, 1 modify with mask). */
void fts_fte_m(struct emu_fw *fw, struct fwt_mbox *m, uint16_t uid,
	       unsigned int op_mod, unsigned int mask, unsigned int type,
	       uint32_t table, uint32_t group, uint32_t index,
	       const struct fts_fte *e);
void fts_fte(struct emu_fw *fw, uint16_t uid, unsigned int type,
	     uint32_t table, uint32_t group, uint32_t index,
	     const struct fts_fte *e);
void fts_fte_del_m(struct emu_fw *fw, struct fwt_mbox *m, uint16_t uid,
		   unsigned int type, uint32_t table, uint32_t index);

/* A bare TIR numbered @id of @uid unless one exists (fts_fte_m makes one
 * for every TIR destination it names but FTS_NO_TIR). */
#define FTS_NO_TIR 0xabcdefu
void fts_tir_at(struct emu_fw *fw, uint16_t uid, uint32_t id);

/* SET_FLOW_TABLE_ROOT (uid 0 unless given; op_mod 1 disconnects). */
void fts_root_m(struct emu_fw *fw, struct fwt_mbox *m, uint16_t uid,
		unsigned int op_mod, unsigned int type, uint32_t table);

/* The kernel's NIC RX table at level 0 with 1 << log_size entries, set
 * as the root (both checked); its id. */
uint32_t fts_rx_root(struct emu_fw *fw, unsigned int log_size);

/* DESTROY_FLOW_TABLE / DESTROY_FLOW_GROUP. */
void fts_ft_destroy_m(struct emu_fw *fw, struct fwt_mbox *m, uint16_t uid,
		      unsigned int type, uint32_t table);
void fts_fg_destroy_m(struct emu_fw *fw, struct fwt_mbox *m, uint16_t uid,
		      unsigned int type, uint32_t table, uint32_t group);

/* A match parameter's outer dmac / smac (6 bytes), IPv4 addresses. */
void fts_set_dmac(void *match, const uint8_t *mac);
void fts_set_smac(void *match, const uint8_t *mac);

#endif /* MLX5EMU_TESTS_UNIT_FIRMWARE_TEST_FW_STEER_UTIL_H */
