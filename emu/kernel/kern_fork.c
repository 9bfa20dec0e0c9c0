/* SPDX-License-Identifier: MIT */
/*
 * fork(): the emulated device stays with the parent.
 *
 * A real ConnectX is shared through the kernel: a forked child's inherited
 * contexts still reach it.  Here the device model lives in the parent's
 * memory, and the child only has a copy that nothing runs.  So in the child
 * an inherited context is one of a device after a fatal error, in mlx5_ib's
 * internal-error state: every command and kernel service fails with EIO,
 * except teardown (destroy, dereg, free, close), which succeeds and only
 * releases what the child holds, as mlx5_cmd_exec answers teardown
 * commands OK in that state.  Nothing completes: the child's engine does
 * not know the inherited queues.  New opens get fresh devices (kern_dev.c)
 * with new addresses (emu/device).
 *
 * The child writes nothing the parent can see, also not from exit
 * handlers: the pages behind UARs (the memfd of each ucontext, mapped
 * MAP_SHARED by the provider, the application or this layer) are replaced
 * by private copies at the same addresses, and the descriptors this layer
 * writes and reads for an inherited ucontext (async-command eventfds) by
 * fresh ones under the same numbers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emu/kernel/kern.h"

/* The name memfd_create() gave every ucontext's memfd (kern_ctx.c). */
#define KERN_MEMFD_MAPS_NAME "/memfd:" KERN_MEMFD_NAME " "
#define KERN_FORK_MAX_MAPS 256

bool kern_uctx_lost(const struct kern_uctx *uctx)
{
	return uctx->pid != getpid();
}

struct kern_map {
	uintptr_t start, end;
	int prot;
};

/*
 * The shared mappings of our memfds, from /proc/self/maps ("start-end
 * perms offset dev inode path").  Read with plain read(): this runs in a
 * child right after fork().  How many were found (at most max).
 */
static int kern_fork_find_maps(struct kern_map *maps, int max)
{
	static char buf[8192];
	size_t have = 0;
	int fd, n = 0;
	ssize_t got;

	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while ((got = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		char *line = buf, *nl;

		have += (size_t)got;
		buf[have] = '\0';
		while ((nl = strchr(line, '\n'))) {
			unsigned long s, e;
			char perms[8];

			*nl = '\0';
			if (n < max && strstr(line, KERN_MEMFD_MAPS_NAME) &&
			    sscanf(line, "%lx-%lx %7s", &s, &e, perms) == 3 &&
			    perms[3] == 's') {
				maps[n].start = s;
				maps[n].end = e;
				maps[n].prot = (perms[0] == 'r' ? PROT_READ : 0) |
					       (perms[1] == 'w' ? PROT_WRITE : 0);
				n++;
			}
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0;	/* a line longer than the buffer */
	}
	close(fd);
	return n;
}

/* The same bytes at the same address, now private to this process. */
static void kern_fork_privatize(const struct kern_map *m)
{
	size_t len = m->end - m->start;
	void *addr = (void *)m->start, *copy;

	copy = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (copy == MAP_FAILED)
		return;
	if (!(m->prot & PROT_READ))
		mprotect(addr, len, PROT_READ);
	memcpy(copy, addr, len);
	if (mmap(addr, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
		memcpy(addr, copy, len);
		mprotect(addr, len, m->prot);
	}
	munmap(copy, len);
}

void kern_fork_child(struct cds_list_head *uctxs)
{
	struct kern_map maps[KERN_FORK_MAX_MAPS];
	struct kern_uctx *uctx;
	int n;

	cds_list_for_each_entry(uctx, uctxs, node) {
		/* Another thread of the parent may have held it. */
		pthread_mutex_init(&uctx->lock, NULL);
	}
	kern_cmd_comp_fork_child(uctxs);
	kern_event_fork_child(uctxs);
	/* Found first, changed after: the maps file moves under changes. */
	do {
		n = kern_fork_find_maps(maps, KERN_FORK_MAX_MAPS);
		for (int i = 0; i < n; i++)
			kern_fork_privatize(&maps[i]);
	} while (n == KERN_FORK_MAX_MAPS);
}

/*
 * The last close of a lost ucontext: what the child holds of it goes, and
 * nothing else (no command, and the memfd's pages stay the parent's).
 */
void kern_fork_forget(struct kern_uctx *uctx)
{
	struct mlx5be_obj *obj, *otmp;
	struct mlx5be_umem *umem, *mtmp;
	struct mlx5be_uar *uar, *utmp;

	cds_list_for_each_entry_safe(obj, otmp, &uctx->objs, node) {
		kern_event_obj_gone(obj);
		free(obj);
	}
	cds_list_for_each_entry_safe(umem, mtmp, &uctx->umems, node)
		free(umem);
	cds_list_for_each_entry_safe(uar, utmp, &uctx->uars, node)
		kern_uar_release(uctx, uar);
	cds_list_for_each_entry_safe(uar, utmp, &uctx->dead_uars, node)
		kern_uar_release(uctx, uar);
	close(uctx->memfd);
	pthread_mutex_destroy(&uctx->lock);
	free(uctx);
}
