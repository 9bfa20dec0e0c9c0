/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_lag.c -- QUERY_LAG.
 *
 * The device advertises no LAG (lag_master 0): a function is never part of
 * a bond, so the LAG context reads all zero (lag_state 0, no port affinity
 * remapping), which is what software checking for an active LAG expects.
 */
#include "emu/firmware/fw_int.h"

enum fw_synd fw_cmd_query_lag(struct fw_cmd *cmd)
{
	(void)cmd;		/* the outbox is already zero */
	return FW_SYND_OK;
}
