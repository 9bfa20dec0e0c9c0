/* SPDX-License-Identifier: MIT */
/*
 * cli/devnodes.c -- mlx5emu run --dev-nodes: /dev/infiniband/uverbsN for
 * programs that stat() it, without touching the machine's /dev.
 *
 * The program gets a private mount namespace (and, when not root, a user
 * namespace mapping only the caller's own uid and gid).  There, /dev is a
 * tmpfs that holds a bind mount of every entry of the real /dev (reached
 * through a descriptor opened before the tmpfs covers it), the real /dev's
 * symbolic links copied, and a new directory infiniband/ with one node per
 * emulated device: a character device with the device's own numbers when
 * mknod() is allowed (root), else a bind mount of /dev/null; and one node
 * per user capability the devices advertise (mlx5_perm_ctrl_local ...),
 * mode 0600 as ib_ucaps makes them, as empty files the emulator knows by
 * their inodes (a program opens these, and no driver of this machine would
 * open a character device of theirs).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "cli/cli.h"

/* ---- which nodes: asked of the emulator in a child ---- */

void cli_uverbs_dir(const struct ibv_device *dev, char *buf, size_t len)
{
	/* dev_path when the library fills it, else its place beside the
	 * ib device in the same tree (class/infiniband_verbs/uverbsN). */
	if (dev->dev_path[0])
		snprintf(buf, len, "%s", dev->dev_path);
	else
		snprintf(buf, len, "%s/../../infiniband_verbs/%s",
			 dev->ibdev_path, dev->dev_name);
}

/* class/infiniband_ucaps/NAME/dev beside class/infiniband. */
static void probe_ucaps(FILE *out, const struct ibv_device *dev)
{
	char dir[PATH_MAX], path[PATH_MAX + NAME_MAX + 8], num[32];
	struct dirent *de;
	unsigned int major, minor;
	DIR *d;

	char *slash;

	/* ROOT/class/infiniband/mlx5_0 is a symbolic link: cut the string. */
	snprintf(dir, sizeof(dir), "%s", dev->ibdev_path);
	for (int i = 0; i < 2 && (slash = strrchr(dir, '/')); i++)
		*slash = '\0';
	if ((size_t)snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir),
			     "/infiniband_ucaps") >= sizeof(dir) - strlen(dir))
		return;
	d = opendir(dir);
	if (!d)
		return;		/* no device advertises one */
	while ((de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/dev", dir, de->d_name);
		f = fopen(path, "r");
		if (f && fgets(num, sizeof(num), f) &&
		    sscanf(num, "%u:%u", &major, &minor) == 2)
			fprintf(out, "ucap %s %u %u\n", de->d_name, major, minor);
		if (f)
			fclose(f);
	}
	closedir(d);
}

static void probe_child(int fd)
{
	struct ibv_device **list;
	FILE *out = fdopen(fd, "w");
	int n = 0;

	if (!out)
		_exit(1);
	/* Only the device list is wanted: nothing to trace or fail. */
	unsetenv("MLX5EMU_TRACE");
	unsetenv("MLX5EMU_TRACE_FILE");
	unsetenv("MLX5EMU_FAULTS");
	list = ibv_get_device_list(&n);
	if (!list) {
		fprintf(out, "error %s\n", strerror(errno));
		fclose(out);
		exit(1);	/* exit(): the emulator's atexit cleanup runs */
	}
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX + 8], dev[32] = "";
		unsigned int major = 0, minor = 0;
		FILE *f;

		cli_uverbs_dir(list[i], path, sizeof(path) - 4);
		strcat(path, "/dev");
		f = fopen(path, "r");
		if (!f || !fgets(dev, sizeof(dev), f) ||
		    sscanf(dev, "%u:%u", &major, &minor) != 2) {
			fprintf(out, "error %s: no major:minor\n", path);
			if (f)
				fclose(f);
			continue;
		}
		fclose(f);
		fprintf(out, "node %s %u %u\n", list[i]->dev_name, major, minor);
	}
	if (n > 0)
		probe_ucaps(out, list[0]);
	ibv_free_device_list(list);
	fclose(out);
	exit(0);
}

int cli_probe_devnodes(struct cli_devnode *nodes, int max, char *why,
		       size_t whylen)
{
	char line[256], err[sizeof(line)] = "";
	int pfd[2], status, n = 0;
	pid_t pid;
	FILE *in;

	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (!pid) {
		close(pfd[0]);
		probe_child(pfd[1]);
	}
	close(pfd[1]);
	in = fdopen(pfd[0], "r");
	while (in && fgets(line, sizeof(line), in)) {
		struct cli_devnode d;

		if (!strncmp(line, "error ", 6)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(err, sizeof(err), "%s", line + 6);
		} else if (n < max &&
			   sscanf(line, "node %63s %u %u", d.name, &d.major,
				  &d.minor) == 3) {
			d.ucap = false;
			nodes[n++] = d;
		} else if (n < max &&
			   sscanf(line, "ucap %63s %u %u", d.name, &d.major,
				  &d.minor) == 3) {
			d.ucap = true;
			nodes[n++] = d;
		}
	}
	if (in)
		fclose(in);
	else
		close(pfd[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || err[0]) {
		snprintf(why, whylen, "cannot list the emulated devices%s%s",
			 err[0] ? ": " : "", err);
		return -1;
	}
	return n;
}

/* ---- the namespace ---- */

static int write_file(const char *path, const char *text, char *why,
		      size_t whylen)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t len = (ssize_t)strlen(text);

	if (fd < 0 || write(fd, text, (size_t)len) != len) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int enter_namespaces(char *why, size_t whylen)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (uid == 0) {
		if (unshare(CLONE_NEWNS)) {
			snprintf(why, whylen, "unshare(CLONE_NEWNS): %s",
				 strerror(errno));
			return -1;
		}
		return 0;
	}
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
		snprintf(why, whylen,
			 "no user namespace for a non-root user (%s); run as root, or allow unprivileged user namespaces (kernel.unprivileged_userns_clone=1)",
			 strerror(errno));
		return -1;
	}
	/* The caller's own ids only, so the program keeps them. */
	if (write_file("/proc/self/setgroups", "deny", why, whylen))
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned int)uid,
		 (unsigned int)uid);
	if (write_file("/proc/self/uid_map", map, why, whylen))
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned int)gid,
		 (unsigned int)gid);
	return write_file("/proc/self/gid_map", map, why, whylen);
}

static int bind_from(int olddev, const char *name, const char *target,
		     char *why, size_t whylen)
{
	char src[64 + NAME_MAX];

	snprintf(src, sizeof(src), "/proc/self/fd/%d/%s", olddev, name);
	if (mount(src, target, NULL, MS_BIND | MS_REC, NULL)) {
		snprintf(why, whylen, "bind %s on %s: %s", src, target,
			 strerror(errno));
		return -1;
	}
	return 0;
}

static int make_file(const char *path, char *why, size_t whylen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

/* The real /dev, entry by entry, into the tmpfs now on /dev. */
static int copy_dev(int olddev, DIR *dir, char *why, size_t whylen)
{
	struct dirent *de;

	while ((de = readdir(dir))) {
		char target[16 + NAME_MAX], link[PATH_MAX];
		struct stat st;
		ssize_t n;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, "infiniband"))
			continue;
		if (fstatat(olddev, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;	/* gone meanwhile */
		snprintf(target, sizeof(target), "/dev/%s", de->d_name);
		if (S_ISLNK(st.st_mode)) {
			n = readlinkat(olddev, de->d_name, link, sizeof(link) - 1);
			if (n < 0)
				continue;
			link[n] = '\0';
			if (symlink(link, target)) {
				snprintf(why, whylen, "symlink %s: %s", target,
					 strerror(errno));
				return -1;
			}
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if (mkdir(target, st.st_mode & 07777)) {
				snprintf(why, whylen, "mkdir %s: %s", target,
					 strerror(errno));
				return -1;
			}
		} else if (make_file(target, why, whylen)) {
			return -1;
		}
		if (bind_from(olddev, de->d_name, target, why, whylen))
			return -1;
	}
	return 0;
}

int cli_devnodes_setup(const struct cli_devnode *nodes, int n,
		       const char **how, char *why, size_t whylen)
{
	bool cdev = true;
	int olddev, ret = -1;
	DIR *dir;

	if (enter_namespaces(why, whylen))
		return -1;
	/* Nothing done here may reach the machine's mounts. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		snprintf(why, whylen, "making / private: %s", strerror(errno));
		return -1;
	}
	olddev = open("/dev", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (olddev < 0) {
		snprintf(why, whylen, "/dev: %s", strerror(errno));
		return -1;
	}
	dir = fdopendir(dup(olddev));
	if (!dir) {
		snprintf(why, whylen, "/dev: %s", strerror(errno));
		close(olddev);
		return -1;
	}
	if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID, "mode=0755,size=1m")) {
		snprintf(why, whylen, "tmpfs on /dev: %s", strerror(errno));
		goto out;
	}
	if (copy_dev(olddev, dir, why, whylen))
		goto out;
	if (mkdir("/dev/infiniband", 0755)) {
		snprintf(why, whylen, "mkdir /dev/infiniband: %s", strerror(errno));
		goto out;
	}
	for (int i = 0; i < n; i++) {
		char path[128];

		snprintf(path, sizeof(path), "/dev/infiniband/%s", nodes[i].name);
		if (nodes[i].ucap) {
			if (make_file(path, why, whylen))
				goto out;
			continue;
		}
		if (cdev && !mknod(path, S_IFCHR | 0666,
				   makedev(nodes[i].major, nodes[i].minor))) {
			chmod(path, 0666);	/* past the umask */
			continue;
		}
		if (cdev && errno != EPERM) {
			snprintf(why, whylen, "mknod %s: %s", path, strerror(errno));
			goto out;
		}
		cdev = false;	/* no mknod here: /dev/null stands in */
		if (make_file(path, why, whylen) ||
		    bind_from(olddev, "null", path, why, whylen))
			goto out;
	}
	*how = cdev ? "character devices" : "bind mounts of /dev/null";
	ret = 0;
out:
	closedir(dir);
	close(olddev);
	return ret;
}
