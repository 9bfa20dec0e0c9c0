/* SPDX-License-Identifier: MIT */
/*
 * Errors, the provider's way (docs/architecture.md, "Errors"):
 *  - backend ops return 0 or a negative errno (handles: NULL with errno);
 *  - provider internals return 0 or a positive errno (pointers: NULL with
 *    errno set), so the value a backend gives is negated where it is
 *    received;
 *  - entry points answer as rdma-core 44 documents each one.
 * These two helpers serve the entry points that both return an errno and
 * set errno to it (the mlx5dv_devx_* calls).
 */
#ifndef MLX5EMU_PROVIDER_CORE_ERROR_H
#define MLX5EMU_PROVIDER_CORE_ERROR_H

#include <errno.h>

/* @err (positive) set in errno and returned. */
static inline int prov_err(int err)
{
	errno = err;
	return err;
}

/* A backend result (0 or a negative errno) in that form. */
static inline int prov_be_err(int ret)
{
	return ret < 0 ? prov_err(-ret) : 0;
}

#endif /* MLX5EMU_PROVIDER_CORE_ERROR_H */
