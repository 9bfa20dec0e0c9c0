/* SPDX-License-Identifier: MIT */
/*
 * emu/mem/mem_pin.c -- what pin_user_pages() would say of a range: the
 * check an emulated kernel makes where a real one pins application memory
 * for the device (a umem, an MR, a queue buffer).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "emu/mem/mem.h"

#define PIN_PAGE 4096u
#define PIN_PAGE_MASK (~(uintptr_t)(PIN_PAGE - 1))

/* mincore() fails with ENOMEM on any unmapped page: the fallback when
 * /proc/self/maps cannot be read (mapping only, not protections). */
static int pin_range_mapped(uintptr_t start, uintptr_t end)
{
	unsigned char vec[64];

	for (uintptr_t p = start; p < end; p += sizeof(vec) * PIN_PAGE) {
		size_t len = end - p;

		if (len > sizeof(vec) * PIN_PAGE)
			len = sizeof(vec) * PIN_PAGE;
		if (mincore((void *)p, len, vec))
			return -EFAULT;
	}
	return 0;
}

int emu_mem_pinnable(const void *addr, size_t size, bool write)
{
	uintptr_t start = (uintptr_t)addr & PIN_PAGE_MASK;
	uintptr_t end = ((uintptr_t)addr + size + PIN_PAGE - 1) & PIN_PAGE_MASK;
	uintptr_t cursor = start;
	size_t cap = 0;
	char *line = NULL;
	FILE *maps;

	maps = fopen("/proc/self/maps", "re");
	if (!maps)
		return pin_range_mapped(start, end);
	/* Lines are sorted by address: walk them until the range is covered. */
	while (cursor < end && getline(&line, &cap, maps) > 0) {
		uintptr_t lo, hi;
		char perms[5];

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s", &lo, &hi,
			   perms) != 3)
			continue;
		if (hi <= cursor)
			continue;
		if (lo > cursor)
			break;		/* a hole */
		if (perms[write ? 1 : 0] == '-')
			break;
		cursor = hi;
	}
	free(line);
	fclose(maps);
	return cursor >= end ? 0 : -EFAULT;
}
