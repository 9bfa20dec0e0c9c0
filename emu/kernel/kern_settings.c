/* SPDX-License-Identifier: MIT */
/*
 * The backend settings (backend.kind, backend.hw_libdir) for the selection
 * in backend/backend.c, read from the project's one settings table
 * (emu/device) so the config file and the environment are parsed and
 * checked in one place (backend/backend_impl.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/device/dev.h"
#include "emu/device/dev_config.h"
#include "emu/kernel/kern.h"

int mlx5be_emu_settings(struct mlx5be_settings *s)
{
	const struct emu_config *cur = emu_devices_config();
	struct emu_config_error err;
	struct emu_config *cfg = NULL;

	memset(s, 0, sizeof(*s));
	s->kind = MLX5BE_KIND_EMU;
	if (!cur) {
		cfg = malloc(sizeof(*cfg));
		if (!cfg)
			return -ENOMEM;
		if (emu_config_load(cfg, &err)) {
			free(cfg);
			return -EINVAL;
		}
		cur = cfg;
	}
	if (!strcmp(cur->backend_kind, "hw"))
		s->kind = MLX5BE_KIND_HW;
	else if (!strcmp(cur->backend_kind, "auto"))
		s->kind = MLX5BE_KIND_AUTO;
	snprintf(s->hw_libdir, sizeof(s->hw_libdir), "%s",
		 cur->backend_hw_libdir);
	free(cfg);
	return 0;
}
