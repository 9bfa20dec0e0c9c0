/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_api.c -- the engine's entry of the project's public API
 * (include/mlx5emu/mlx5emu.h): mlx5emu_progress().
 */
#include <limits.h>

#include <mlx5emu/mlx5emu.h>

#include "emu/engine/eng.h"
#include "shell/abi_export.h"

MLX5EMU_ABI(mlx5emu_progress);
int mlx5emu_abi_mlx5emu_progress(void)
{
	unsigned int done = emu_eng_progress(EMU_ENG_WHY_API);

	return done > INT_MAX ? INT_MAX : (int)done;
}
