/* SPDX-License-Identifier: MIT */
/*
 * emu/fault/fault_api.c -- the fault-injection entry points of the public
 * library libmlx5emu.so.1 (include/mlx5emu/mlx5emu.h).  The shell's
 * trampolines (shell/libmlx5emu.so.1.syms) jump to these
 * mlx5emu_abi_<name> definitions in the core.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "mlx5emu/mlx5emu.h"
#include "emu/base/base.h"
#include "emu/fault/fault.h"
#include "shell/abi_export.h"

#define FAULT_LAST_ERROR_MAX (EMU_FAULT_ERR_MAX + 64)

/* The calling thread's last error text (heap: see emu/base/base_tls.c). */
static struct emu_tls_buf fault_last_error_buf =
	EMU_TLS_BUF_INIT(FAULT_LAST_ERROR_MAX);

static char *fault_last_error(void)
{
	return emu_tls_buf_get(&fault_last_error_buf);
}

static void fault_error_clear(void)
{
	char *e = fault_last_error();

	if (e)
		e[0] = '\0';
}

#define SET_ERROR(...)							\
	do {								\
		char *e_ = fault_last_error();				\
		if (e_)							\
			snprintf(e_, FAULT_LAST_ERROR_MAX, __VA_ARGS__);	\
	} while (0)

MLX5EMU_ABI(mlx5emu_fault_add);
int mlx5emu_abi_mlx5emu_fault_add(const char *rule)
{
	char why[EMU_FAULT_ERR_MAX];
	int ret;

	fault_error_clear();
	if (!rule) {
		SET_ERROR("no rule text");
		return -EINVAL;
	}
	ret = emu_fault_add_text(rule, why, sizeof(why));
	if (ret < 0)
		SET_ERROR("fault rule \"%s\": %s", rule, why);
	return ret;
}

MLX5EMU_ABI(mlx5emu_fault_add_rule);
int mlx5emu_abi_mlx5emu_fault_add_rule(const struct mlx5emu_fault_rule *rule)
{
	char why[EMU_FAULT_ERR_MAX];
	int ret;

	fault_error_clear();
	if (!rule) {
		SET_ERROR("no rule");
		return -EINVAL;
	}
	ret = emu_fault_add_rule(rule, why, sizeof(why));
	if (ret < 0)
		SET_ERROR("fault rule: %s", why);
	return ret;
}

MLX5EMU_ABI(mlx5emu_fault_parse);
int mlx5emu_abi_mlx5emu_fault_parse(const char *rule,
				    struct mlx5emu_fault_rule *out)
{
	char why[EMU_FAULT_ERR_MAX];
	int ret;

	fault_error_clear();
	if (!rule) {
		SET_ERROR("no rule text");
		return -EINVAL;
	}
	ret = emu_fault_parse(rule, out, why, sizeof(why));
	if (ret)
		SET_ERROR("fault rule \"%s\": %s", rule, why);
	return ret;
}

MLX5EMU_ABI(mlx5emu_fault_remove);
int mlx5emu_abi_mlx5emu_fault_remove(int id)
{
	int ret = emu_fault_remove(id);

	fault_error_clear();
	if (ret == -ENOENT)
		SET_ERROR("no fault rule %d", id);
	return ret;
}

MLX5EMU_ABI(mlx5emu_fault_clear);
void mlx5emu_abi_mlx5emu_fault_clear(void)
{
	fault_error_clear();
	emu_fault_clear();
}

MLX5EMU_ABI(mlx5emu_fault_stats);
int mlx5emu_abi_mlx5emu_fault_stats(int id, struct mlx5emu_fault_stats *stats)
{
	int ret = emu_fault_stats(id, stats);

	fault_error_clear();
	if (ret == -ENOENT)
		SET_ERROR("no fault rule %d", id);
	return ret;
}

MLX5EMU_ABI(mlx5emu_fault_count);
int mlx5emu_abi_mlx5emu_fault_count(int id)
{
	struct mlx5emu_fault_stats st;
	int ret = mlx5emu_abi_mlx5emu_fault_stats(id, &st);

	if (ret)
		return ret;
	return st.injections > INT_MAX ? INT_MAX : (int)st.injections;
}

MLX5EMU_ABI(mlx5emu_fault_list);
int mlx5emu_abi_mlx5emu_fault_list(int *ids, int max)
{
	fault_error_clear();
	if (max < 0 || (max > 0 && !ids)) {
		SET_ERROR("mlx5emu_fault_list: bad array (max %d)", max);
		return -EINVAL;
	}
	return emu_fault_list(ids, max);
}

MLX5EMU_ABI(mlx5emu_fault_format);
int mlx5emu_abi_mlx5emu_fault_format(int id, char *buf, size_t len)
{
	int ret;

	fault_error_clear();
	if (len && !buf) {
		SET_ERROR("mlx5emu_fault_format: no buffer");
		return -EINVAL;
	}
	ret = emu_fault_format(id, buf, len);
	if (ret == -ENOENT)
		SET_ERROR("no fault rule %d", id);
	return ret;
}

MLX5EMU_ABI(mlx5emu_fault_last_error);
const char *mlx5emu_abi_mlx5emu_fault_last_error(void)
{
	const char *e = fault_last_error();

	return e ? e : "";
}
