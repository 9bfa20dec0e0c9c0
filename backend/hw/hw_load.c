/* SPDX-License-Identifier: MIT */
/*
 * The namespace rdma-core lives in.
 *
 * Our drop-in libraries carry the sonames libibverbs.so.1 and libmlx5.so.1
 * and are first in the library path, so the system's rdma-core cannot be
 * loaded beside them in this namespace: every name would bind to ours.
 * dlmopen(LM_ID_NEWLM) gives it a link-map namespace of its own.  The
 * library path (LD_LIBRARY_PATH) applies inside it as well, so nothing is
 * loaded by a bare name: the plan lists every library rdma-core needs, by
 * absolute path (hw_paths.c), dependencies first, and loads them in that
 * order; each DT_NEEDED is then already there, matched by its soname.
 * dlinfo(RTLD_DI_LINKMAP) shows what the namespace really holds; a library
 * of ours in it (libmlx5emu_core.so.0, which every shell of ours needs, or
 * anything from our own directory) is refused, then and after rdma-core
 * dlopen()s its providers at the first enumeration.
 *
 * The namespace has its own libc.  Its errno is read through its own
 * __errno_location.  Its environ is a copy of the pointer the process had
 * when it was loaded; the process's setenv() may free that array later, so
 * before each call that may read the environment (rdma-core reads MLX5_*
 * variables when a device is opened) it is pointed at the current one.
 * Its atfork list never runs on a fork() made in our namespace, so its
 * locks (malloc's arenas, stdio, rdma-core's mutexes) would be copied in
 * whatever state other threads hold them: every call that may take one runs
 * under hw_fork_lock for reading, and our own atfork handler takes it for
 * writing, so fork() happens while no thread is inside the namespace.
 * Calls that only read() a descriptor (waiting for an event or an async
 * command) take no lock there and run without it, so a waiting thread
 * never blocks a fork.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/single_threaded.h>
#include <unistd.h>

#include "backend/hw/hw.h"

#define HW_MAX_LIBS 32
#define HW_OUR_CORE "libmlx5emu_core.so.0"
#define HW_VERBS "libibverbs.so.1"
#define HW_MLX5 "libmlx5.so.1"

struct hw_syms hw_sym;

enum hw_lib { HW_LIB_VERBS, HW_LIB_MLX5 };

/* Every entry the backend calls, by the version rdma-core 44 gives it. */
static const struct hw_sym_def {
	enum hw_lib lib;
	const char *name, *version;
	size_t off;
} hw_sym_defs[] = {
#define V(f, n, v) { HW_LIB_VERBS, n, v, offsetof(struct hw_syms, f) }
#define M(f, n, v) { HW_LIB_MLX5, n, v, offsetof(struct hw_syms, f) }
	V(get_device_list, "ibv_get_device_list", "IBVERBS_1.1"),
	V(free_device_list, "ibv_free_device_list", "IBVERBS_1.1"),
	V(get_device_name, "ibv_get_device_name", "IBVERBS_1.1"),
	V(get_device_guid, "ibv_get_device_guid", "IBVERBS_1.1"),
	V(close_device, "ibv_close_device", "IBVERBS_1.1"),
	V(import_device, "ibv_import_device", "IBVERBS_1.10"),
	V(query_port, "ibv_query_port", "IBVERBS_1.1"),
	V(query_gid_ex, "_ibv_query_gid_ex", "IBVERBS_1.11"),
	V(resolve_eth_l2_from_gid, "ibv_resolve_eth_l2_from_gid", "IBVERBS_1.1"),
	V(get_async_event, "ibv_get_async_event", "IBVERBS_1.1"),
	V(ack_async_event, "ibv_ack_async_event", "IBVERBS_1.1"),
	M(is_supported, "mlx5dv_is_supported", "MLX5_1.8"),
	M(open_device, "mlx5dv_open_device", "MLX5_1.7"),
	M(general_cmd, "mlx5dv_devx_general_cmd", "MLX5_1.7"),
	M(obj_create, "mlx5dv_devx_obj_create", "MLX5_1.7"),
	M(obj_modify, "mlx5dv_devx_obj_modify", "MLX5_1.7"),
	M(obj_query, "mlx5dv_devx_obj_query", "MLX5_1.7"),
	M(obj_query_async, "mlx5dv_devx_obj_query_async", "MLX5_1.9"),
	M(obj_destroy, "mlx5dv_devx_obj_destroy", "MLX5_1.7"),
	M(create_cmd_comp, "mlx5dv_devx_create_cmd_comp", "MLX5_1.9"),
	M(destroy_cmd_comp, "mlx5dv_devx_destroy_cmd_comp", "MLX5_1.9"),
	M(get_async_cmd_comp, "mlx5dv_devx_get_async_cmd_comp", "MLX5_1.9"),
	M(umem_reg_ex, "mlx5dv_devx_umem_reg_ex", "MLX5_1.19"),
	M(umem_dereg, "mlx5dv_devx_umem_dereg", "MLX5_1.7"),
	M(alloc_uar, "mlx5dv_devx_alloc_uar", "MLX5_1.7"),
	M(free_uar, "mlx5dv_devx_free_uar", "MLX5_1.7"),
	M(query_eqn, "mlx5dv_devx_query_eqn", "MLX5_1.7"),
	M(create_event_channel, "mlx5dv_devx_create_event_channel", "MLX5_1.11"),
	M(destroy_event_channel, "mlx5dv_devx_destroy_event_channel", "MLX5_1.11"),
	M(subscribe_devx_event, "mlx5dv_devx_subscribe_devx_event", "MLX5_1.11"),
	M(subscribe_devx_event_fd, "mlx5dv_devx_subscribe_devx_event_fd", "MLX5_1.11"),
	M(get_event, "mlx5dv_devx_get_event", "MLX5_1.11"),
	M(create_flow_matcher, "mlx5dv_create_flow_matcher", "MLX5_1.6"),
	M(destroy_flow_matcher, "mlx5dv_destroy_flow_matcher", "MLX5_1.6"),
	M(create_flow, "mlx5dv_create_flow", "MLX5_1.6"),
	M(get_clock_info, "mlx5dv_get_clock_info", "MLX5_1.4"),
	M(query_device, "mlx5dv_query_device", "MLX5_1.0"),
#undef V
#undef M
};

static struct {
	pthread_mutex_t lock;		/* the load itself */
	bool tried;
	int result;			/* of the load: 0 or -errno */
	_Atomic bool loaded;
	bool report;
	atomic_flag reported;		/* one message per process */
	Lmid_t lmid;
	void *handle[HW_MAX_LIBS];
	int nhandles;
	void *verbs, *mlx5, *libc;
	int *(*errno_location)(void);
	char **_Atomic *environ_p;	/* the namespace's environ */
	pthread_rwlock_t fork_lock;
} hw = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.reported = ATOMIC_FLAG_INIT,
};

bool hw_loaded(void)
{
	return atomic_load_explicit(&hw.loaded, memory_order_acquire);
}

bool hw_reporting(void)
{
	return hw.report;
}

void hw_report(const char *fmt, ...)
{
	char msg[HW_WHY_MAX];
	va_list ap;

	if (!hw.report || atomic_flag_test_and_set(&hw.reported))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "mlx5emu: backend hw: %s\n", msg);
}

/* ---- fork and the environment ---- */

static void hw_atfork_prepare(void)
{
	pthread_rwlock_wrlock(&hw.fork_lock);
}

static void hw_atfork_parent(void)
{
	pthread_rwlock_unlock(&hw.fork_lock);
}

static void hw_fork_lock_init(void);

/* The lock's word still counts the parent's waiting threads, which the
 * child has not: a fresh lock, not an unlock. */
static void hw_atfork_child(void)
{
	hw_fork_lock_init();
}

/* Writers first: a stream of commands must not hold a fork() off.  (The
 * read side is never taken twice by one thread, which this kind forbids.) */
static void hw_fork_lock_init(void)
{
	pthread_rwlockattr_t a;

	pthread_rwlockattr_init(&a);
	pthread_rwlockattr_setkind_np(&a,
		PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&hw.fork_lock, &a);
	pthread_rwlockattr_destroy(&a);
}

void hw_enter(void)
{
	pthread_rwlock_rdlock(&hw.fork_lock);
	if (hw.environ_p)
		atomic_store_explicit(hw.environ_p, environ,
				      memory_order_relaxed);
}

void hw_leave(void)
{
	pthread_rwlock_unlock(&hw.fork_lock);
}

int hw_errno(void)
{
	return hw.errno_location ? *hw.errno_location() : EIO;
}

void hw_set_errno(void)
{
	int err = hw_errno();

	errno = err ? err : EIO;
}

/* ---- what the namespace holds ---- */

/* The directory of the object this code is in (the core library, or a
 * test program that links the components). */
static void hw_our_dir(char *buf)
{
	Dl_info info;
	char *slash;

	buf[0] = '\0';
	if (!dladdr((void *)&hw_sym_defs, &info) || !info.dli_fname ||
	    !realpath(info.dli_fname, buf))
		return;
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
}

/*
 * Whether @path is one of ours: libmlx5emu_core.so.0 (which every shell of
 * ours needs) or anything from the directory this code was loaded from.
 */
static bool hw_is_ours(const char *path, char *why, size_t whylen)
{
	char ours[PATH_MAX], real[PATH_MAX];
	const char *base = strrchr(path, '/');
	char *slash;

	base = base ? base + 1 : path;
	if (!strcmp(base, HW_OUR_CORE)) {
		snprintf(why, whylen, "%s is mlx5emu's own library", path);
		return true;
	}
	hw_our_dir(ours);
	if (!ours[0] || !realpath(path, real))
		return false;
	slash = strrchr(real, '/');
	if (slash)
		*slash = '\0';
	if (strcmp(real, ours))
		return false;
	snprintf(why, whylen, "%s is from mlx5emu's own directory %s", path,
		 ours);
	return true;
}

static int hw_check_linkmap(void *handle, char *why, size_t whylen)
{
	struct link_map *m;
	char what[HW_WHY_MAX / 2];

	if (dlinfo(handle, RTLD_DI_LINKMAP, &m) || !m) {
		snprintf(why, whylen, "dlinfo: %s", dlerror());
		return -ELIBBAD;
	}
	while (m->l_prev)
		m = m->l_prev;
	for (; m; m = m->l_next) {
		if (!m->l_name || !m->l_name[0])
			continue;
		if (hw_is_ours(m->l_name, what, sizeof(what))) {
			snprintf(why, whylen, "%s, and it got into rdma-core's namespace",
				 what);
			return -ELIBBAD;
		}
	}
	return 0;
}

/* ---- the plan: every library, dependencies first ---- */

struct hw_plan {
	char libdir[HW_PATH_MAX];	/* backend.hw_libdir, or "" */
	char pinned_verbs[HW_PATH_MAX];	/* where libibverbs.so.1 comes from */
	char pinned_mlx5[HW_PATH_MAX];
	char rtld[PATH_MAX];		/* the dynamic loader, in every namespace */
	char (*path)[HW_PATH_MAX];	/* the load order */
	char (*real)[PATH_MAX];		/* their real paths */
	int n;
	const char *parent;		/* the library being read */
	char why[HW_WHY_MAX];
};

static int hw_plan_add(struct hw_plan *p, const char *path);

static int hw_plan_needed(void *arg, const char *name)
{
	struct hw_plan *p = arg;
	char path[HW_PATH_MAX], real[PATH_MAX];
	const char *parent = p->parent;
	int ret;

	if (!strcmp(name, HW_OUR_CORE)) {
		snprintf(p->why, sizeof(p->why),
			 "refusing rdma-core: %s needs %s, so it is one of mlx5emu's drop-in libraries, not the system's rdma-core",
			 parent, name);
		return -ELIBBAD;
	}
	if (!strcmp(name, HW_VERBS))
		snprintf(path, sizeof(path), "%s", p->pinned_verbs);
	else if (!strcmp(name, HW_MLX5))
		snprintf(path, sizeof(path), "%s", p->pinned_mlx5);
	else if (p->libdir[0] &&
		 (size_t)snprintf(path, sizeof(path), "%s/%s", p->libdir, name) <
		 sizeof(path) && !access(path, R_OK))
		;	/* the test hook's directory first */
	else if (hw_path_resolve(NULL, name, path, sizeof(path))) {
		snprintf(p->why, sizeof(p->why),
			 "%s, which %s needs, is neither in /etc/ld.so.cache nor beside the process's libc",
			 name, parent);
		return -ENOENT;
	}
	if (realpath(path, real) && !strcmp(real, p->rtld))
		return 0;	/* the loader is already in every namespace */
	ret = hw_plan_add(p, path);
	p->parent = parent;
	return ret;
}

static int hw_plan_add(struct hw_plan *p, const char *path)
{
	char real[PATH_MAX], why[256];
	int ret;

	if (hw_is_ours(path, why, sizeof(why))) {
		snprintf(p->why, sizeof(p->why),
			 "refusing rdma-core: %s, not the system's rdma-core", why);
		return -ELIBBAD;
	}
	if (!realpath(path, real)) {
		snprintf(p->why, sizeof(p->why), "%s: %s", path, strerror(errno));
		return -ENOENT;
	}
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->real[i], real))
			return 0;
	if (p->n == HW_MAX_LIBS) {
		snprintf(p->why, sizeof(p->why), "more than %d libraries to load",
			 HW_MAX_LIBS);
		return -E2BIG;
	}
	/* Reserve the slot against cycles, fill it after the dependencies. */
	snprintf(p->real[p->n++], PATH_MAX, "%s", real);
	p->parent = path;
	ret = hw_elf_needed(path, hw_plan_needed, p, why, sizeof(why));
	if (ret && !p->why[0])
		snprintf(p->why, sizeof(p->why), "%s: %s", path, why);
	if (ret)
		return ret;
	/* Move this library after what it needs. */
	for (int i = 0; i < p->n; i++) {
		if (strcmp(p->real[i], real))
			continue;
		memmove(&p->real[i], &p->real[i + 1],
			(size_t)(p->n - i - 1) * sizeof(p->real[0]));
		memmove(&p->path[i], &p->path[i + 1],
			(size_t)(p->n - i - 1) * sizeof(p->path[0]));
		break;
	}
	snprintf(p->real[p->n - 1], PATH_MAX, "%s", real);
	snprintf(p->path[p->n - 1], HW_PATH_MAX, "%s", path);
	return 0;
}

/* The dynamic loader's real path (AT_BASE is where it is mapped), into
 * @buf of PATH_MAX bytes. */
static void hw_rtld_path(char *buf)
{
	Dl_info info;

	buf[0] = '\0';
	if (dladdr((void *)getauxval(AT_BASE), &info) && info.dli_fname)
		if (!realpath(info.dli_fname, buf))
			buf[0] = '\0';
}

/* Where libibverbs.so.1 and libmlx5.so.1 come from. */
static int hw_plan_pin(struct hw_plan *p, const char *libdir)
{
	static const char *const names[] = { HW_VERBS, HW_MLX5 };
	char *dst[] = { p->pinned_verbs, p->pinned_mlx5 };

	for (int i = 0; i < 2; i++) {
		if (libdir && libdir[0]) {
			snprintf(dst[i], HW_PATH_MAX, "%s/%s", libdir, names[i]);
			if (access(dst[i], R_OK)) {
				snprintf(p->why, sizeof(p->why),
					 "no %s in %s (backend.hw_libdir)", names[i],
					 libdir);
				return -ENOENT;
			}
		} else if (hw_path_resolve(NULL, names[i], dst[i], HW_PATH_MAX)) {
			snprintf(p->why, sizeof(p->why),
				 "the system's rdma-core is missing: %s is neither in /etc/ld.so.cache nor beside the process's libc (Debian: apt install libibverbs1 ibverbs-providers)",
				 names[i]);
			return -ENOENT;
		}
	}
	return 0;
}

int hw_check_namespace(void)
{
	char why[HW_WHY_MAX];
	int ret;

	if (!hw_loaded())
		return -ENODEV;
	ret = hw_check_linkmap(hw.verbs, why, sizeof(why));
	if (ret) {
		atomic_store(&hw.loaded, false);
		hw.result = ret;
		hw_report("refusing rdma-core: %s; no devices", why);
	}
	return ret;
}

/* ---- loading ---- */

static int hw_resolve_syms(char *why, size_t whylen)
{
	void *lib[] = { hw.verbs, hw.mlx5 };

	for (size_t i = 0; i < sizeof(hw_sym_defs) / sizeof(hw_sym_defs[0]); i++) {
		const struct hw_sym_def *d = &hw_sym_defs[i];
		void *f = dlvsym(lib[d->lib], d->name, d->version);
		struct link_map *m = NULL;

		if (!f) {
			dlinfo(lib[d->lib], RTLD_DI_LINKMAP, &m);
			snprintf(why, whylen,
				 "%s has no %s@%s: rdma-core 44 or later is needed",
				 m && m->l_name ? m->l_name : "rdma-core", d->name,
				 d->version);
			return -ENOSYS;
		}
		memcpy((char *)&hw_sym + d->off, &f, sizeof(f));
	}
	hw.errno_location = (int *(*)(void))dlsym(hw.libc, "__errno_location");
	hw.environ_p = (char **_Atomic *)dlsym(hw.libc, "environ");
	if (!hw.errno_location || !hw.environ_p) {
		snprintf(why, whylen, "the namespace's libc has no %s",
			 hw.errno_location ? "environ" : "__errno_location");
		return -ENOSYS;
	}
	return 0;
}

static int hw_dlmopen(const struct hw_plan *p, char *why, size_t whylen)
{
	for (int i = 0; i < p->n; i++) {
		void *h = dlmopen(hw.nhandles ? hw.lmid : LM_ID_NEWLM, p->path[i],
				  RTLD_NOW | RTLD_LOCAL);
		const char *base = strrchr(p->path[i], '/') + 1;

		if (!h) {
			snprintf(why, whylen, "dlmopen %s: %s", p->path[i], dlerror());
			return -ELIBACC;
		}
		if (!hw.nhandles && dlinfo(h, RTLD_DI_LMID, &hw.lmid)) {
			snprintf(why, whylen, "dlinfo: %s", dlerror());
			dlclose(h);
			return -ELIBACC;
		}
		hw.handle[hw.nhandles++] = h;
		if (!strcmp(p->path[i], p->pinned_verbs))
			hw.verbs = h;
		else if (!strcmp(p->path[i], p->pinned_mlx5))
			hw.mlx5 = h;
		else if (!strncmp(base, "libc.so.", 8))
			hw.libc = h;
	}
	if (!hw.verbs || !hw.mlx5 || !hw.libc) {
		snprintf(why, whylen, "the plan has no %s",
			 !hw.verbs ? HW_VERBS : !hw.mlx5 ? HW_MLX5 : "libc");
		return -ELIBACC;
	}
	return 0;
}

static void hw_unload(void)
{
	while (hw.nhandles)
		dlclose(hw.handle[--hw.nhandles]);
	hw.verbs = hw.mlx5 = hw.libc = NULL;
	hw.errno_location = NULL;
	hw.environ_p = NULL;
	memset(&hw_sym, 0, sizeof(hw_sym));
}

static int hw_load_locked(const char *libdir, char *why, size_t whylen)
{
	struct hw_plan *p = calloc(1, sizeof(*p));
	int ret = -ENOMEM;

	if (!p)
		goto out;
	p->path = calloc(HW_MAX_LIBS, sizeof(*p->path));
	p->real = calloc(HW_MAX_LIBS, sizeof(*p->real));
	if (!p->path || !p->real)
		goto out;
	hw_rtld_path(p->rtld);
	snprintf(p->libdir, sizeof(p->libdir), "%s", libdir ? libdir : "");
	ret = hw_plan_pin(p, libdir);
	if (!ret)
		ret = hw_plan_add(p, p->pinned_verbs);
	if (!ret)
		ret = hw_plan_add(p, p->pinned_mlx5);
	if (ret) {
		snprintf(why, whylen, "%s", p->why);
		goto out;
	}
	ret = hw_dlmopen(p, why, whylen);
	if (!ret)
		ret = hw_check_linkmap(hw.verbs, why, whylen);
	if (!ret)
		ret = hw_resolve_syms(why, whylen);
	if (ret)
		hw_unload();
out:
	if (ret == -ENOMEM)
		snprintf(why, whylen, "out of memory");
	if (p) {
		free(p->path);
		free(p->real);
	}
	free(p);
	return ret;
}

static void *hw_nothing(void *arg)
{
	return arg;
}

/*
 * A thread created inside the namespace gets its TLS from the dynamic
 * loader, which allocates with the program's libc malloc; a program whose
 * libc never created a thread itself believes it is single-threaded and
 * takes no lock there.  rdma-core creates no thread, but a namespace may
 * (a provider, the test double), so the program's libc is told once that
 * the process has threads: it never forgets it.
 */
static void hw_multithreaded(void)
{
	pthread_t t;

	if (__libc_single_threaded && !pthread_create(&t, NULL, hw_nothing, NULL))
		pthread_join(t, NULL);
}

int mlx5be_hw_load(const char *libdir, bool report)
{
	char why[HW_WHY_MAX] = "";
	int ret;

	pthread_mutex_lock(&hw.lock);
	if (hw.tried) {
		ret = hw.result;
		pthread_mutex_unlock(&hw.lock);
		return ret;
	}
	hw.tried = true;
	hw.report = report;
	hw_fork_lock_init();
	hw_multithreaded();
	ret = hw_load_locked(libdir, why, sizeof(why));
	hw.result = ret;
	if (ret) {
		hw_report("%s; no devices", why);
	} else {
		pthread_atfork(hw_atfork_prepare, hw_atfork_parent,
			       hw_atfork_child);
		atomic_store_explicit(&hw.loaded, true, memory_order_release);
	}
	pthread_mutex_unlock(&hw.lock);
	return ret;
}
