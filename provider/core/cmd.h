/* SPDX-License-Identifier: MIT */
/*
 * PRM commands the provider issues on its own behalf (capability reads,
 * the objects behind verbs), with the kernel's mapping of a firmware
 * status to errno: what mlx5_ib does when it runs a command for a verb,
 * as opposed to DEVX, which hands the application EREMOTEIO and the
 * outbox.
 */
#ifndef MLX5EMU_PROVIDER_CORE_CMD_H
#define MLX5EMU_PROVIDER_CORE_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"

struct prov_context;

/*
 * The errno the kernel's mlx5_cmd_exec() gives for a firmware status
 * (cmd_status_to_err in mlx5_core cmd.c); 0 for OK.
 */
int prov_cmd_status_errno(const void *out);

/*
 * A PRM object created on behalf of a verb, as the kernel creates it: NULL
 * with errno set (never 0: EIO when nothing said why); a firmware failure
 * is the status's errno, not EREMOTEIO.
 */
struct mlx5be_obj *prov_obj_create(struct prov_context *pctx, const void *in,
				   size_t inlen, void *out, size_t outlen);

/*
 * MODIFY and QUERY commands on a PRM object behind a verb, as the kernel
 * runs them: 0 or a positive errno, a firmware failure the status's errno
 * (the outbox filled in), not EREMOTEIO.
 */
int prov_obj_modify(struct prov_context *pctx, struct mlx5be_obj *obj,
		    const void *in, size_t inlen, void *out, size_t outlen);
int prov_obj_query(struct prov_context *pctx, struct mlx5be_obj *obj,
		   const void *in, size_t inlen, void *out, size_t outlen);

/* Destroys a PRM object; 0 or a positive errno. */
int prov_obj_destroy(struct prov_context *pctx, struct mlx5be_obj *obj);

/*
 * mlx5dv_devx_{cq,qp,srq,...}_query and _modify: the DEVX object methods
 * run on the PRM object behind a verbs object (the kernel's handle of that
 * object), answering as those entry points do: the errno, also set in
 * errno; a firmware failure is EREMOTEIO with the outbox filled in.
 */
int prov_devx_obj_query(struct prov_context *pctx, struct mlx5be_obj *obj,
			const void *in, size_t inlen, void *out, size_t outlen);
int prov_devx_obj_modify(struct prov_context *pctx, struct mlx5be_obj *obj,
			 const void *in, size_t inlen, void *out,
			 size_t outlen);

/* Registers @size bytes at @addr (4 KiB pages); NULL with errno. */
struct mlx5be_umem *prov_umem_reg(struct prov_context *pctx, void *addr,
				  size_t size, uint32_t access, uint32_t *id);
void prov_umem_dereg(struct prov_context *pctx, struct mlx5be_umem *umem);

/*
 * Runs one PRM query command for the provider's own derivations and maps a
 * firmware status to the errno the kernel's mlx5_cmd_exec() gives for it
 * (cmd_status_to_err in mlx5_core cmd.c).  0 or an errno.
 */
int prov_cmd_exec(struct prov_context *pctx, const void *in, size_t inlen,
		  void *out, size_t outlen);

#endif /* MLX5EMU_PROVIDER_CORE_CMD_H */
