/*
 * prm/prm_fields.h -- the PRM layouts as a runtime table, for traces.
 *
 * Generated from the same prm/defs/<topic>.prm as prm/prm_layouts.h, so every
 * struct that has accessors has a table entry with the same names, offsets
 * and widths.  Only named fields are listed (no reserved_at_*), in bit
 * offset order.
 */
#ifndef MLX5EMU_PRM_FIELDS_H
#define MLX5EMU_PRM_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct prm_struct_desc;

struct prm_field_desc {
	const char *name;
	uint32_t bit_off;	/* absolute within the containing struct */
	/* width of one element: the scalar width, or the size of the nested
	 * struct/union (arrays: of one element) */
	uint32_t bit_width;
	const struct prm_struct_desc *type;	/* nested struct/union or NULL */
	uint32_t count;		/* 0 scalar, N array, UINT32_MAX flexible */
};

#define PRM_COUNT_FLEX UINT32_MAX

enum {
	PRM_STRUCT_UNION = 1 << 0,	/* every field at offset 0 */
	/* little-endian (MANA/GDMA): bit offsets from each LE dword's LSB */
	PRM_STRUCT_LE = 1 << 1,
};

struct prm_struct_desc {
	const char *name;
	uint32_t size_bits;	/* excluding a trailing flexible array */
	uint32_t nfields;
	const struct prm_field_desc *fields;
	uint32_t flags;		/* PRM_STRUCT_* */
};

/* Lookup by name ("create_cq_in"); NULL if unknown. */
const struct prm_struct_desc *prm_struct_find(const char *name);
size_t prm_struct_count(void);
/* In name order; NULL past the end. */
const struct prm_struct_desc *prm_struct_at(size_t i);
/* Field of a struct by name; dotted paths descend (cq_context.log_cq_size)
 * and the returned bit offset (*abs_off, optional) is relative to sd. */
const struct prm_field_desc *prm_field_find(const struct prm_struct_desc *sd,
					    const char *path, uint32_t *abs_off);

/* Generic big-endian read of width <= 64 bits at any bit offset. */
uint64_t prm_field_read(const void *buf, uint32_t bit_off, uint32_t width);
/* The little-endian counterpart for PRM_STRUCT_LE layouts: a scalar of
 * <= 32 bits inside one dword, or a 64-bit aligned 64-bit field (the only
 * shapes the generator accepts); anything else reads 0. */
uint64_t prm_field_read_le(const void *buf, uint32_t bit_off, uint32_t width);

/*
 * Walk every scalar of sd in buf (len bytes; fields past len are skipped),
 * descending into nested structs and arrays (flexible arrays up to len).
 * path is the dotted name ("cq_context.log_cq_size", "pas[2]"); arrays of
 * bytes are reported as one value per element.  Unions are walked member by
 * member.  PRM_STRUCT_LE layouts are read little-endian.  A non-zero return from the visitor stops the walk and is returned.
 */
typedef int (*prm_field_visitor)(void *ctx, const char *path,
				 const struct prm_field_desc *fd,
				 uint32_t abs_bit_off, uint64_t value);
int prm_visit_fields(const struct prm_struct_desc *sd, const void *buf,
		     size_t len, prm_field_visitor fn, void *ctx);

/*
 * Format sd's fields in buf as "name=0x.. name2=0x.." (space separated,
 * skipping zero values if skip_zero).  Byte arrays print as one hex string.
 * Always NUL-terminates when outlen > 0; returns the length the full text
 * needs (like snprintf), or -1 on bad arguments.
 */
int prm_format_fields(const struct prm_struct_desc *sd, const void *buf,
		      size_t len, bool skip_zero, char *out, size_t outlen);

#endif /* MLX5EMU_PRM_FIELDS_H */
