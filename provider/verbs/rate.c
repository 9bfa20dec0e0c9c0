/* SPDX-License-Identifier: MIT */
/* Static-rate conversions, with libibverbs 44's exact tables. */
#include <infiniband/verbs.h>

#include "shell/abi_export.h"

static const struct {
	enum ibv_rate rate;
	int mult;	/* multiple of 2.5 Gb/s, -1 when not a multiple */
	int mbps;
} rate_table[] = {
	{ IBV_RATE_2_5_GBPS, 1, 2500 },     { IBV_RATE_5_GBPS, 2, 5000 },
	{ IBV_RATE_10_GBPS, 4, 10000 },     { IBV_RATE_20_GBPS, 8, 20000 },
	{ IBV_RATE_30_GBPS, 12, 30000 },    { IBV_RATE_40_GBPS, 16, 40000 },
	{ IBV_RATE_60_GBPS, 24, 60000 },    { IBV_RATE_80_GBPS, 32, 80000 },
	{ IBV_RATE_120_GBPS, 48, 120000 },  { IBV_RATE_14_GBPS, -1, 14062 },
	{ IBV_RATE_56_GBPS, -1, 56250 },    { IBV_RATE_112_GBPS, -1, 112500 },
	{ IBV_RATE_168_GBPS, -1, 168750 },  { IBV_RATE_25_GBPS, -1, 25781 },
	{ IBV_RATE_100_GBPS, -1, 103125 },  { IBV_RATE_200_GBPS, -1, 206250 },
	{ IBV_RATE_300_GBPS, -1, 309375 },  { IBV_RATE_28_GBPS, 11, 28125 },
	{ IBV_RATE_50_GBPS, 20, 53125 },    { IBV_RATE_400_GBPS, 160, 425000 },
	{ IBV_RATE_600_GBPS, 240, 637500 }, { IBV_RATE_800_GBPS, 320, 850000 },
	{ IBV_RATE_1200_GBPS, 480, 1275000 },
};

#define RATE_COUNT (sizeof(rate_table) / sizeof(rate_table[0]))

MLX5EMU_ABI(ibv_rate_to_mult);
int mlx5emu_abi_ibv_rate_to_mult(enum ibv_rate rate)
{
	for (unsigned int i = 0; i < RATE_COUNT; i++)
		if (rate_table[i].rate == rate)
			return rate_table[i].mult;
	return -1;
}

MLX5EMU_ABI(mult_to_ibv_rate);
enum ibv_rate mlx5emu_abi_mult_to_ibv_rate(int mult)
{
	for (unsigned int i = 0; i < RATE_COUNT; i++)
		if (rate_table[i].mult == mult && mult != -1)
			return rate_table[i].rate;
	return IBV_RATE_MAX;
}

MLX5EMU_ABI(ibv_rate_to_mbps);
int mlx5emu_abi_ibv_rate_to_mbps(enum ibv_rate rate)
{
	for (unsigned int i = 0; i < RATE_COUNT; i++)
		if (rate_table[i].rate == rate)
			return rate_table[i].mbps;
	return -1;
}

MLX5EMU_ABI(mbps_to_ibv_rate);
enum ibv_rate mlx5emu_abi_mbps_to_ibv_rate(int mbps)
{
	for (unsigned int i = 0; i < RATE_COUNT; i++)
		if (rate_table[i].mbps == mbps)
			return rate_table[i].rate;
	return IBV_RATE_MAX;
}
