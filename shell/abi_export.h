/* SPDX-License-Identifier: MIT */
/*
 * How the core library defines an entry point of the drop-in ABI.
 *
 * Each exported name@version of the shells (shell/NAME.syms) jumps to
 * mlx5emu_abi_<name> in libmlx5emu_core.so.0.  Defining it through
 * MLX5EMU_ABI() gives it exactly the type the public header declares for
 * <name> (rdma-core's, or include/mlx5emu/mlx5emu.h for libmlx5emu.so.1),
 * so a wrong signature fails to compile, and makes it visible to the
 * shells.  Entries not defined this way fall back to the generated weak
 * stubs that fail as rdma-core does for a missing feature (gen_shell.py).
 */
#ifndef MLX5EMU_SHELL_ABI_EXPORT_H
#define MLX5EMU_SHELL_ABI_EXPORT_H

#define MLX5EMU_ABI(name)                                                     \
	extern __typeof__(name) mlx5emu_abi_##name                             \
		__attribute__((visibility("default")))

#endif /* MLX5EMU_SHELL_ABI_EXPORT_H */
