/* SPDX-License-Identifier: MIT */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emu/firmware/fw.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

#include "fault_test_util.h"
#include "ut_env.h"


void ft_reset(void)
{
	ut_clear_env();
	emu_fault_set_observer(NULL, NULL);
	emu_fault_reset();
}

int ft_add(const char *text)
{
	char err[EMU_FAULT_ERR_MAX] = "";
	int id = emu_fault_add_text(text, err, sizeof(err));

	ck_assert_msg(id > 0, "add \"%s\": %d %s", text, id, err);
	return id;
}

char ft_hook(int dev, uint16_t opcode, uint16_t op_mod, uint16_t uid,
	     uint8_t *status, uint32_t *syndrome)
{
	uint8_t in[16] = { 0 };
	uint8_t st = 0;
	uint32_t sy = 0;
	bool failed;

	PRM_SET(mbox_in, in, opcode, opcode);
	PRM_SET(mbox_in, in, uid, uid);
	PRM_SET(mbox_in, in, op_mod, op_mod);
	failed = emu_fault_pre_cmd((void *)(intptr_t)dev, in, sizeof(in),
				   opcode, op_mod, uid, &st, &sy);
	if (status)
		*status = st;
	if (syndrome)
		*syndrome = sy;
	return failed ? 'F' : '.';
}

void ft_pattern(char *buf, int n, int dev, uint16_t opcode, uint16_t uid)
{
	for (int i = 0; i < n; i++)
		buf[i] = ft_hook(dev, opcode, 0, uid, NULL, NULL);
	buf[n] = '\0';
}

struct emu_fw *ft_fw(int dev_index)
{
	struct emu_fw_config cfg;
	struct emu_fw *fw;

	emu_fw_config_default(&cfg);
	fw = emu_fw_create(&cfg);
	ck_assert_ptr_nonnull(fw);
	emu_fault_attach(fw, dev_index);
	return fw;
}

uint8_t ft_alloc_pd(struct emu_fw *fw, uint32_t *pdn, uint32_t *syndrome)
{
	uint8_t in[PRM_ST_SZ_BYTES(alloc_pd_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)] = { 0 };

	PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	ck_assert_int_eq(emu_fw_cmd_exec(fw, in, sizeof(in), out, sizeof(out)), 0);
	if (pdn)
		*pdn = PRM_GET(alloc_pd_out, out, pd);
	if (syndrome)
		*syndrome = emu_fw_out_syndrome(out);
	return emu_fw_out_status(out);
}

uint8_t ft_dealloc_pd(struct emu_fw *fw, uint32_t pdn, uint32_t *syndrome)
{
	uint8_t in[PRM_ST_SZ_BYTES(dealloc_pd_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(dealloc_pd_out)] = { 0 };

	PRM_SET(dealloc_pd_in, in, opcode, MLX5_CMD_OP_DEALLOC_PD);
	PRM_SET(dealloc_pd_in, in, pd, pdn);
	ck_assert_int_eq(emu_fw_cmd_exec(fw, in, sizeof(in), out, sizeof(out)), 0);
	if (syndrome)
		*syndrome = emu_fw_out_syndrome(out);
	return emu_fw_out_status(out);
}

double ft_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
