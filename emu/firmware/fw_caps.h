/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_caps.h -- the device's capability pages (what
 * QUERY_HCA_CAP answers), as one modifiable object.
 *
 * emu_fw_caps_new() fills the pages from the one ConnectX-6 Dx table in
 * fw_caps.c.  Configuration may then lower limits or clear features by field
 * name (emu_fw_caps_set) before the device is created; emu_fw_create runs
 * emu_fw_caps_check and refuses an inconsistent set.  Once a device exists
 * its pages never change (max and current are the same page: the device has
 * no SET_HCA_CAP).
 */
#ifndef MLX5EMU_FW_CAPS_H
#define MLX5EMU_FW_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct emu_fw_caps;

/* Size of one capability page: hca_cap_union. */
#define EMU_FW_CAP_PAGE_BYTES 4096u

/* The defaults (ConnectX-6 Dx as emulated).  NULL with errno=ENOMEM. */
struct emu_fw_caps *emu_fw_caps_new(void);
struct emu_fw_caps *emu_fw_caps_dup(const struct emu_fw_caps *caps);
void emu_fw_caps_free(struct emu_fw_caps *caps);

/* True if QUERY_HCA_CAP knows this capability type (MLX5_CAP_*). */
bool emu_fw_cap_type_known(unsigned int type);
/* The PRM struct describing a type's page ("cmd_hca_cap"), or NULL. */
const char *emu_fw_cap_type_struct(unsigned int type);
/* The cmd_hca_cap bit that advertises a type's page ("roce"), or NULL. */
const char *emu_fw_cap_type_gate(unsigned int type);

/* The raw page of a known type (big-endian PRM layout), else NULL. */
const void *emu_fw_caps_page(const struct emu_fw_caps *caps,
			     unsigned int type);
void *emu_fw_caps_page_mut(struct emu_fw_caps *caps, unsigned int type);

/*
 * Read or write one field by name (dotted paths allowed) of a type's page.
 * -ENOENT: unknown type or field; -ERANGE: value wider than the field;
 * -EINVAL: the field is not a scalar of at most 64 bits.
 */
int emu_fw_caps_get(const struct emu_fw_caps *caps, unsigned int type,
		    const char *field, uint64_t *value);
int emu_fw_caps_set(struct emu_fw_caps *caps, unsigned int type,
		    const char *field, uint64_t value);

/*
 * Consistency: every advertising bit has its page filled and every page
 * whose bit is clear is all zero; no feature the emulator does not implement
 * is advertised; limits stay within what the emulator and the PRM field
 * widths allow.  Returns 0, or -EINVAL with a reason in why (if given).
 */
int emu_fw_caps_check(const struct emu_fw_caps *caps, char *why,
		      size_t whylen);

#endif /* MLX5EMU_FW_CAPS_H */
