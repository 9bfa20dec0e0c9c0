/* SPDX-License-Identifier: MIT */
/*
 * Where the system's libraries are, found without the dynamic loader: a
 * dlmopen() of a bare name would search LD_LIBRARY_PATH, which names our
 * drop-in directory, so every library of the namespace is named by its
 * absolute path, found here.
 *
 *  - /etc/ld.so.cache, as glibc's ldconfig writes it (format
 *    "glibc-ld.so.cache1.1", optionally behind the old "ld.so-1.7.0" one):
 *    a header, fixed-size entries {flags, key, value, osversion, hwcap}
 *    whose key (the soname) and value (the path) are offsets of strings in
 *    the file.  The loader takes the first entry of a soname that suits
 *    the process; so do we, judging the suit by the file's ELF header.
 *  - else the directory of the process's own libc (Debian's multiarch
 *    directory, where rdma-core is installed).
 *
 * What a library needs is read from the file itself: its DT_NEEDED names
 * (PT_DYNAMIC, with DT_STRTAB translated through the PT_LOAD segments).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/hw/hw.h"

#define HW_LDCACHE "/etc/ld.so.cache"
#define CACHE_NEW_MAGIC "glibc-ld.so.cache"
#define CACHE_NEW_VERSION "1.1"
#define CACHE_OLD_MAGIC "ld.so-1.7.0"

/* The new format's header and entries (glibc's cache_file_new). */
struct cache_new_header {
	char magic[sizeof(CACHE_NEW_MAGIC) - 1];
	char version[sizeof(CACHE_NEW_VERSION) - 1];
	uint32_t nlibs;
	uint32_t len_strings;
	uint8_t flags;
	uint8_t pad[3];
	uint32_t extension_offset;
	uint32_t unused[3];
};

struct cache_new_entry {
	int32_t flags;
	uint32_t key, value;	/* offsets from the start of the file */
	uint32_t osversion;
	uint64_t hwcap;
};

/* The old format's header and entries (cache_file, file_entry). */
struct cache_old_header {
	char magic[sizeof(CACHE_OLD_MAGIC) - 1];
	uint32_t nlibs;
};

struct cache_old_entry {
	int32_t flags;
	uint32_t key, value;
};

/* A mapped file, read-only. */
struct hw_map {
	const uint8_t *p;
	size_t len;
};

static int hw_map_file(const char *path, struct hw_map *m)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		return -ENOEXEC;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	m->p = p;
	m->len = (size_t)st.st_size;
	return 0;
}

static void hw_unmap_file(struct hw_map *m)
{
	munmap((void *)m->p, m->len);
}

/* ---- ELF ---- */

/* The class and machine of this process: those of its main program. */
static int hw_self_machine(uint8_t *cls, uint16_t *machine)
{
	static uint8_t self_cls;
	static uint16_t self_machine;
	ElfW(Ehdr) eh;
	int fd;

	if (self_cls) {
		*cls = self_cls;
		*machine = self_machine;
		return 0;
	}
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (read(fd, &eh, sizeof(eh)) != (ssize_t)sizeof(eh)) {
		close(fd);
		return -ENOEXEC;
	}
	close(fd);
	self_machine = eh.e_machine;
	self_cls = eh.e_ident[EI_CLASS];
	*cls = self_cls;
	*machine = self_machine;
	return 0;
}

/* The file's ELF header if it is a shared object this process can load. */
static const ElfW(Ehdr) *hw_elf_header(const struct hw_map *m, char *why,
				       size_t whylen)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)m->p;
	uint16_t machine = 0;
	uint8_t cls = 0;

	if (m->len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG)) {
		snprintf(why, whylen, "not an ELF file");
		return NULL;
	}
	if (hw_self_machine(&cls, &machine)) {
		snprintf(why, whylen, "cannot read /proc/self/exe");
		return NULL;
	}
	/* ElfW() is this build's class: the file must be of it too. */
	if (eh->e_ident[EI_CLASS] != cls || eh->e_machine != machine ||
	    cls != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)) {
		snprintf(why, whylen, "ELF class %u machine %u, not this process's",
			 eh->e_ident[EI_CLASS], eh->e_machine);
		return NULL;
	}
	if (eh->e_type != ET_DYN || eh->e_phentsize != sizeof(ElfW(Phdr)) ||
	    eh->e_phoff > m->len ||
	    (size_t)eh->e_phnum * sizeof(ElfW(Phdr)) > m->len - eh->e_phoff) {
		snprintf(why, whylen, "not a shared object");
		return NULL;
	}
	return eh;
}

/* The file offset of virtual address @va, through the PT_LOAD segments. */
static int hw_elf_offset(const ElfW(Phdr) *ph, int n, ElfW(Addr) va,
			 size_t *off)
{
	for (int i = 0; i < n; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (va >= ph[i].p_vaddr && va - ph[i].p_vaddr < ph[i].p_filesz) {
			*off = ph[i].p_offset + (va - ph[i].p_vaddr);
			return 0;
		}
	}
	return -ENOEXEC;
}

int hw_elf_needed(const char *path, int (*fn)(void *arg, const char *name),
		  void *arg, char *why, size_t whylen)
{
	const ElfW(Phdr) *ph, *dynph = NULL;
	const ElfW(Ehdr) *eh;
	const ElfW(Dyn) *dyn;
	size_t strtab = 0, strsz = 0, n;
	struct hw_map m;
	int ret;

	ret = hw_map_file(path, &m);
	if (ret) {
		snprintf(why, whylen, "%s", strerror(-ret));
		return ret;
	}
	ret = -ENOEXEC;
	eh = hw_elf_header(&m, why, whylen);
	if (!eh)
		goto out;
	ph = (const ElfW(Phdr) *)(m.p + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			dynph = &ph[i];
	if (!dynph || dynph->p_offset > m.len ||
	    dynph->p_filesz > m.len - dynph->p_offset) {
		snprintf(why, whylen, "no dynamic section");
		goto out;
	}
	dyn = (const ElfW(Dyn) *)(m.p + dynph->p_offset);
	n = dynph->p_filesz / sizeof(*dyn);
	for (size_t i = 0; i < n && dyn[i].d_tag != DT_NULL; i++) {
		if (dyn[i].d_tag == DT_STRTAB &&
		    hw_elf_offset(ph, eh->e_phnum, dyn[i].d_un.d_ptr, &strtab)) {
			snprintf(why, whylen, "DT_STRTAB outside the file");
			goto out;
		}
		if (dyn[i].d_tag == DT_STRSZ)
			strsz = dyn[i].d_un.d_val;
	}
	if (!strtab || strtab > m.len || strsz > m.len - strtab) {
		snprintf(why, whylen, "no string table");
		goto out;
	}
	ret = 0;
	for (size_t i = 0; i < n && dyn[i].d_tag != DT_NULL && !ret; i++) {
		const char *name;

		if (dyn[i].d_tag != DT_NEEDED)
			continue;
		if (dyn[i].d_un.d_val >= strsz ||
		    !memchr(m.p + strtab + dyn[i].d_un.d_val, '\0',
			    strsz - dyn[i].d_un.d_val)) {
			snprintf(why, whylen, "a DT_NEEDED name outside the string table");
			ret = -ENOEXEC;
			break;
		}
		name = (const char *)m.p + strtab + dyn[i].d_un.d_val;
		ret = fn(arg, name);
	}
out:
	hw_unmap_file(&m);
	return ret;
}

/* Whether @path is a shared object this process can load. */
static bool hw_elf_suits(const char *path)
{
	struct hw_map m;
	char why[64];
	bool ok;

	if (hw_map_file(path, &m))
		return false;
	ok = hw_elf_header(&m, why, sizeof(why)) != NULL;
	hw_unmap_file(&m);
	return ok;
}

/* ---- ld.so.cache ---- */

static const char *hw_cache_string(const struct hw_map *m, uint32_t off)
{
	if (off >= m->len || !memchr(m->p + off, '\0', m->len - off))
		return NULL;
	return (const char *)m->p + off;
}

/* The first suitable entry of @soname in a new-format cache at @base. */
static int hw_cache_lookup_new(const struct hw_map *m, size_t base,
			       const char *soname, char *path, size_t len)
{
	const struct cache_new_header *h;
	const struct cache_new_entry *e;

	if (base > m->len || m->len - base < sizeof(*h))
		return -ENOENT;
	h = (const struct cache_new_header *)(m->p + base);
	if (memcmp(h->magic, CACHE_NEW_MAGIC, sizeof(h->magic)) ||
	    memcmp(h->version, CACHE_NEW_VERSION, sizeof(h->version)))
		return -ENOENT;
	if (h->nlibs > (m->len - base - sizeof(*h)) / sizeof(*e))
		return -ENOENT;
	e = (const struct cache_new_entry *)(h + 1);
	for (uint32_t i = 0; i < h->nlibs; i++) {
		const char *key = hw_cache_string(m, e[i].key);
		const char *value = hw_cache_string(m, e[i].value);

		if (!key || !value || strcmp(key, soname) || value[0] != '/')
			continue;
		if (!hw_elf_suits(value))
			continue;
		if (strlen(value) >= len)
			return -ENAMETOOLONG;
		strcpy(path, value);
		return 0;
	}
	return -ENOENT;
}

static int hw_cache_lookup(const char *cache, const char *soname, char *path,
			   size_t len)
{
	const struct cache_old_header *old;
	struct hw_map m;
	size_t base = 0;
	int ret;

	ret = hw_map_file(cache, &m);
	if (ret)
		return -ENOENT;
	old = (const struct cache_old_header *)m.p;
	if (m.len >= sizeof(*old) &&
	    !memcmp(old->magic, CACHE_OLD_MAGIC, sizeof(old->magic))) {
		/* The new format follows the old one, 8-byte aligned. */
		base = sizeof(*old) + (size_t)old->nlibs * sizeof(struct cache_old_entry);
		base = (base + 7) & ~(size_t)7;
	}
	ret = hw_cache_lookup_new(&m, base, soname, path, len);
	hw_unmap_file(&m);
	return ret;
}

/* ---- the libc directory ---- */

static int hw_libc_dir_lookup(const char *soname, char *path, size_t len)
{
	char dir[PATH_MAX];
	Dl_info info;
	char *slash;

	/* gnu_get_libc_version lives in libc itself, whatever interposes
	 * malloc and friends (the sanitizers do). */
	if (!dladdr((void *)gnu_get_libc_version, &info) || !info.dli_fname ||
	    !realpath(info.dli_fname, dir))
		return -ENOENT;
	slash = strrchr(dir, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	if ((size_t)snprintf(path, len, "%s/%s", dir, soname) >= len)
		return -ENAMETOOLONG;
	return hw_elf_suits(path) ? 0 : -ENOENT;
}

int hw_path_resolve(const char *cache, const char *soname, char *path,
		    size_t len)
{
	if (!hw_cache_lookup(cache ? cache : HW_LDCACHE, soname, path, len))
		return 0;
	return hw_libc_dir_lookup(soname, path, len);
}
