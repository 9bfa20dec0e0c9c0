/* SPDX-License-Identifier: MIT */
/*
 * ucontexts: what the kernel does when a process opens a device (a DEVX uid
 * from firmware, the cmd_fd whose pages are the context's UARs), when it
 * imports a context from a dup() of a cmd_fd (ibv_import_device: the same
 * ucontext, the same uid and objects), and when the last context of a
 * ucontext is closed or the process exits (everything it left is
 * destroyed, newest first, and its uid freed).
 *
 * On Linux the ucontext lives as long as the uverbs file: while any
 * descriptor of it is open.  Here the kernel cannot see the application
 * close a descriptor, so a ucontext lives while a context (the opened one
 * or an imported one) uses it: a dup() that was never imported does not
 * keep it, and importing it after the last close fails (EINVAL).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emu/kernel/kern.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

/* The live ucontexts of this process, found by their memfd's inode. */
static pthread_mutex_t kern_uctx_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cds_list_head kern_uctxs = CDS_LIST_HEAD_INIT(kern_uctxs);
/* Bumped in a forked child: the parent's ucontexts are not the child's
 * (their memory is a copy; they are never unlinked from the new list). */
static uint64_t kern_uctx_gen;
static pthread_once_t kern_uctx_atfork_once = PTHREAD_ONCE_INIT;

static void kern_uctx_atfork_child(void)
{
	kern_fork_child(&kern_uctxs);
	CDS_INIT_LIST_HEAD(&kern_uctxs);
	kern_uctx_gen++;
	pthread_mutex_init(&kern_uctx_lock, NULL);
}

static void kern_uctx_atfork_register(void)
{
	pthread_atfork(NULL, NULL, kern_uctx_atfork_child);
}

/* CREATE_UCTX: the uid every command of this context will carry. */
static int kern_uctx_cmd_create(struct kern_dev *kdev, uint32_t cap,
				uint16_t *uid)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_uctx_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(create_uctx_out)] = {};
	int ret;

	PRM_SET(create_uctx_in, in, opcode, MLX5_CMD_OP_CREATE_UCTX);
	PRM_SET(uctx, PRM_ADDR_OF(create_uctx_in, in, uctx), cap, cap);
	ret = kern_fw_exec_checked(kdev, in, sizeof(in), out, sizeof(out));
	if (ret)
		return ret;
	*uid = PRM_GET(create_uctx_out, out, uid);
	return 0;
}

static void kern_uctx_cmd_destroy(struct kern_dev *kdev, uint16_t uid)
{
	uint8_t in[PRM_ST_SZ_BYTES(destroy_uctx_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(destroy_uctx_out)] = {};

	PRM_SET(destroy_uctx_in, in, opcode, MLX5_CMD_OP_DESTROY_UCTX);
	PRM_SET(destroy_uctx_in, in, uid, uid);
	kern_fw_exec_checked(kdev, in, sizeof(in), out, sizeof(out));
}

static int kern_uctx_create(int index, uint64_t ucaps,
			    struct kern_uctx **out)
{
	uint32_t cap = 0;
	struct kern_uctx *uctx;
	struct stat st;
	int ret;

	uctx = calloc(1, sizeof(*uctx));
	if (!uctx)
		return -ENOMEM;
	ret = kern_dev_get(index, &uctx->kdev);
	if (ret)
		goto err_free;
	/* mlx5_ib_devx_create: a user context may send raw packets when the
	 * firmware offers it and the process has CAP_NET_RAW. */
	if ((KERN_CAP_GEN(uctx->kdev, uctx_cap) & MLX5_UCTX_CAP_RAW_TX) &&
	    kern_net_raw_capable())
		cap |= MLX5_UCTX_CAP_RAW_TX;
	ret = kern_ucaps_uctx_cap(uctx->kdev, ucaps, &cap);
	if (ret)
		goto err_put;
	ret = kern_uctx_cmd_create(uctx->kdev, cap, &uctx->uid);
	if (ret)
		goto err_put;
	/* mlx5_ib_alloc_ucontext: the context's transport domain. */
	ret = kern_lb_enable(uctx->kdev, true, false);
	if (ret)
		goto err_uctx;
	/* The memfd whose pages, at their mmap offsets, are UARs. */
	uctx->memfd = memfd_create(KERN_MEMFD_NAME, MFD_CLOEXEC);
	if (uctx->memfd < 0) {
		ret = -errno;
		goto err_lb;
	}
	if (fstat(uctx->memfd, &st)) {
		ret = -errno;
		goto err_memfd;
	}
	uctx->memfd_dev = st.st_dev;
	uctx->memfd_ino = st.st_ino;
	uctx->pid = getpid();
	pthread_mutex_init(&uctx->lock, NULL);
	CDS_INIT_LIST_HEAD(&uctx->objs);
	CDS_INIT_LIST_HEAD(&uctx->umems);
	CDS_INIT_LIST_HEAD(&uctx->uars);
	CDS_INIT_LIST_HEAD(&uctx->dead_uars);
	CDS_INIT_LIST_HEAD(&uctx->comps);
	CDS_INIT_LIST_HEAD(&uctx->uobjs);
	CDS_INIT_LIST_HEAD(&uctx->evchs);
	ret = kern_ibev_init(&uctx->ibev);
	if (ret)
		goto err_memfd;
	*out = uctx;
	return 0;

err_memfd:
	close(uctx->memfd);
err_lb:
	kern_lb_disable(uctx->kdev, true, false);
err_uctx:
	kern_uctx_cmd_destroy(uctx->kdev, uctx->uid);
err_put:
	kern_dev_put(uctx->kdev);
err_free:
	free(uctx);
	return ret;
}

/* Everything the ucontext still holds, in dependency order, then its uid. */
static void kern_uctx_destroy(struct kern_uctx *uctx)
{
	struct mlx5be_uar *uar, *utmp;
	struct mlx5be_umem *umem, *mtmp;

	kern_cmd_comp_detach_all(uctx);
	kern_uobj_del_all(uctx);
	kern_event_detach_all(uctx);
	/* Objects first (they hold umems and UARs), newest first. */
	kern_obj_destroy_all(uctx);
	cds_list_for_each_entry_safe(umem, mtmp, &uctx->umems, node)
		if (kern_umem_dereg(umem)) {
			/* Firmware refused: forget it (it stays charged to
			 * the uid, which then cannot be freed either). */
			cds_list_del(&umem->node);
			free(umem);
		}
	cds_list_for_each_entry_safe(uar, utmp, &uctx->uars, node)
		kern_uar_free(uar);
	pthread_mutex_lock(&uctx->lock);
	kern_uar_reap(uctx, true);
	pthread_mutex_unlock(&uctx->lock);
	kern_lb_disable(uctx->kdev, true, false);
	kern_uctx_cmd_destroy(uctx->kdev, uctx->uid);
	kern_dev_put(uctx->kdev);
	close(uctx->memfd);
	kern_ibev_fini(&uctx->ibev);
	pthread_mutex_destroy(&uctx->lock);
	free(uctx);
}

void kern_uctx_for_each(struct kern_dev *kdev,
			void (*fn)(struct kern_uctx *uctx, void *arg), void *arg)
{
	struct kern_uctx *uctx;

	pthread_mutex_lock(&kern_uctx_lock);
	cds_list_for_each_entry(uctx, &kern_uctxs, node)
		if (uctx->kdev == kdev && uctx->gen == kern_uctx_gen)
			fn(uctx, arg);
	pthread_mutex_unlock(&kern_uctx_lock);
}

int kern_ctx_open(int index, struct mlx5be_ctx **pctx, int *cmd_fd)
{
	return kern_ctx_open_ucaps(index, NULL, 0, pctx, cmd_fd);
}

int kern_ctx_open_ucaps(int index, const int *fds, uint32_t nfds,
			struct mlx5be_ctx **pctx, int *cmd_fd)
{
	struct kern_uctx *uctx = NULL;
	struct mlx5be_ctx *ctx;
	uint64_t ucaps;
	int ret;

	pthread_once(&kern_uctx_atfork_once, kern_uctx_atfork_register);
	/* ib_init_ucontext reads the ucaps before the driver's context. */
	ret = kern_ucaps_from_fds(fds, nfds, &ucaps);
	if (ret)
		return ret;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ret = kern_uctx_create(index, ucaps, &uctx);
	if (ret)
		goto err_free;
	/* The application's cmd_fd: a descriptor of the same memfd. */
	ctx->cmd_fd = fcntl(uctx->memfd, F_DUPFD_CLOEXEC, 0);
	if (ctx->cmd_fd < 0) {
		ret = -errno;
		kern_uctx_destroy(uctx);
		goto err_free;
	}
	ctx->uctx = uctx;
	uctx->handles = 1;
	pthread_mutex_lock(&kern_uctx_lock);
	uctx->gen = kern_uctx_gen;
	cds_list_add_tail(&uctx->node, &kern_uctxs);
	pthread_mutex_unlock(&kern_uctx_lock);
	*pctx = ctx;
	*cmd_fd = ctx->cmd_fd;
	return 0;

err_free:
	free(ctx);
	return ret;
}

int kern_ctx_import(int cmd_fd, struct mlx5be_ctx **pctx, int *index)
{
	struct kern_uctx *uctx, *found = NULL;
	struct mlx5be_ctx *ctx;
	struct stat st;

	/* libibverbs/device.c ibv_import_device(): "if (fstat(cmd_fd, &st)
	 * || !S_ISCHR(st.st_mode)) errno = EINVAL", then ENODEV when no
	 * device has that character device. */
	if (fstat(cmd_fd, &st))
		return -EINVAL;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	pthread_mutex_lock(&kern_uctx_lock);
	cds_list_for_each_entry(uctx, &kern_uctxs, node) {
		if (S_ISREG(st.st_mode) && uctx->memfd_dev == st.st_dev &&
		    uctx->memfd_ino == st.st_ino) {
			found = uctx;
			found->handles++;
			break;
		}
	}
	pthread_mutex_unlock(&kern_uctx_lock);
	if (!found) {
		free(ctx);
		return S_ISCHR(st.st_mode) ? -ENODEV : -EINVAL;
	}
	ctx->uctx = found;
	ctx->cmd_fd = cmd_fd;
	*index = found->kdev->index;
	*pctx = ctx;
	return 0;
}

void kern_ctx_close(struct mlx5be_ctx *ctx)
{
	struct kern_uctx *uctx = ctx->uctx;
	bool last;

	pthread_mutex_lock(&kern_uctx_lock);
	last = --uctx->handles == 0;
	if (last && uctx->gen == kern_uctx_gen)
		cds_list_del(&uctx->node);
	pthread_mutex_unlock(&kern_uctx_lock);
	/* As verbs_uninit_context(): the context's cmd_fd goes with it. */
	close(ctx->cmd_fd);
	free(ctx);
	if (last && kern_uctx_lost(uctx))
		kern_fork_forget(uctx);
	else if (last)
		kern_uctx_destroy(uctx);
}
