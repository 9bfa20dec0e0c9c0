/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd_prm.c -- mlx5emu prm list | dump STRUCT | decode ...: prm/'s
 * field table, and mailboxes decoded with the command trace's formatter.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "emu/trace/trace_fmt.h"
#include "prm/prm_fields.h"

#define PRM_CMD "prm"

/* ---- list ---- */

static int prm_list(void)
{
	for (size_t i = 0; i < prm_struct_count(); i++) {
		const struct prm_struct_desc *sd = prm_struct_at(i);

		printf("%-48s %6u bits%s%s\n", sd->name, sd->size_bits,
		       (sd->flags & PRM_STRUCT_UNION) ? "  (union)" : "",
		       (sd->flags & PRM_STRUCT_LE) ? "  (little-endian)" : "");
	}
	return 0;
}

/* ---- dump ---- */

static void dump_struct(const struct prm_struct_desc *sd, uint32_t base,
			const char *prefix);

static void dump_field(const struct prm_field_desc *fd, uint32_t off,
		       const char *prefix)
{
	char name[512], count[24] = "";

	if (fd->count == PRM_COUNT_FLEX)
		snprintf(count, sizeof(count), "[]");
	else if (fd->count)
		snprintf(count, sizeof(count), "[%u]", fd->count);
	snprintf(name, sizeof(name), "%s%s%s%s", prefix, *prefix ? "." : "",
		 fd->name, count);
	printf("0x%-8x %5u.%u  %6u  %s", off, off / 8, off % 8, fd->bit_width,
	       name);
	if (fd->type)
		printf("  (%s %s%s)", (fd->type->flags & PRM_STRUCT_UNION) ?
		       "union" : "struct", fd->type->name,
		       fd->count ? ", width of one element" : "");
	else if (fd->count)
		printf("  (width of one element)");
	printf("\n");
	if (fd->type) {
		/* Arrays of structs: the first element's fields, as [0]. */
		if (fd->count) {
			char p0[520];

			snprintf(p0, sizeof(p0), "%s%s%s[0]", prefix,
				 *prefix ? "." : "", fd->name);
			dump_struct(fd->type, off, p0);
		} else {
			char p[520];

			snprintf(p, sizeof(p), "%s%s%s", prefix,
				 *prefix ? "." : "", fd->name);
			dump_struct(fd->type, off, p);
		}
	}
}

static void dump_struct(const struct prm_struct_desc *sd, uint32_t base,
			const char *prefix)
{
	for (uint32_t i = 0; i < sd->nfields; i++)
		dump_field(&sd->fields[i], base + sd->fields[i].bit_off, prefix);
}

static const struct prm_struct_desc *find_struct(const char *name)
{
	const struct prm_struct_desc *sd = prm_struct_find(name);

	if (!sd)
		cli_error(PRM_CMD, "no structure '%s' (mlx5emu prm list shows them)",
			  name);
	return sd;
}

static int prm_dump(int argc, char **argv)
{
	const struct prm_struct_desc *sd;

	if (argc != 2) {
		cli_error(PRM_CMD, "usage: mlx5emu prm dump STRUCT");
		return CLI_EXIT_USAGE;
	}
	sd = find_struct(argv[1]);
	if (!sd)
		return 1;
	/* a little-endian layout's bit offsets count from each dword's
	 * least significant bit, so byte.bit reads differently */
	printf("%s: %s of 0x%x bits (%u bytes)%s\n", sd->name,
	       (sd->flags & PRM_STRUCT_UNION) ? "union" : "struct",
	       sd->size_bits, sd->size_bits / 8,
	       (sd->flags & PRM_STRUCT_LE) ?
	       ", little-endian (bits from each dword's LSB)" : "");
	printf("%-10s %7s  %6s  %s\n", "bit_off", "byte.bit", "width", "field");
	dump_struct(sd, 0, "");
	return 0;
}

/* ---- decode ---- */

static int hex_val(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

struct bytes {
	uint8_t *p;
	size_t len, cap;
	int half;	/* a pending high nibble, or -1 */
};

/* Adds the hex digits of s; separators and 0x prefixes are skipped. */
static int hex_add(struct bytes *b, const char *s)
{
	for (; *s; s++) {
		int v;

		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
		    b->half < 0) {
			s++;
			continue;
		}
		if (isspace((unsigned char)*s) || *s == ':' || *s == '-' ||
		    *s == ',' || *s == '_')
			continue;
		v = hex_val((unsigned char)*s);
		if (v < 0) {
			cli_error(PRM_CMD, "decode: '%c' is not a hex digit", *s);
			return -1;
		}
		if (b->half < 0) {
			b->half = v;
			continue;
		}
		if (b->len == b->cap) {
			size_t cap = b->cap ? 2 * b->cap : 256;
			uint8_t *p = realloc(b->p, cap);

			if (!p) {
				cli_error(PRM_CMD, "out of memory");
				return -1;
			}
			b->p = p;
			b->cap = cap;
		}
		b->p[b->len++] = (uint8_t)(b->half << 4 | v);
		b->half = -1;
	}
	return 0;
}

/* Only hex digits, separators and 0x prefixes (the first argument may
 * instead name a structure). */
static bool is_hexish(const char *s)
{
	for (; *s; s++) {
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			s++;
			continue;
		}
		if (hex_val((unsigned char)*s) < 0 && !isspace((unsigned char)*s) &&
		    !strchr(":-,_", *s))
			return false;
	}
	return true;
}

static int hex_stdin(struct bytes *b)
{
	char line[4096];

	while (fgets(line, sizeof(line), stdin))
		if (hex_add(b, line))
			return -1;
	return 0;
}

static int prm_decode(int argc, char **argv)
{
	const struct prm_struct_desc *sd = NULL;
	const char *struct_name = NULL, *out_op = NULL;
	bool json = false, all = false, have_opcode = false;
	struct bytes b = { .half = -1 };
	int opcode = 0, op_mod = 0, i, ret = 1;
	enum { BY_IN, BY_OUT, BY_NAME } by = BY_IN;
	char *text;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--all")) {
			all = true;
		} else if (!strcmp(argv[i], "--in")) {
			by = BY_IN;
		} else if (!strcmp(argv[i], "--out") ||
			   !strcmp(argv[i], "--opcode")) {
			if (i + 1 >= argc) {
				cli_error(PRM_CMD, "%s needs an OPCODE", argv[i]);
				return CLI_EXIT_USAGE;
			}
			if (!strcmp(argv[i], "--out"))
				by = BY_OUT;
			out_op = argv[++i];
			opcode = emu_trace_opcode_parse(out_op);
			if (opcode < 0) {
				cli_error(PRM_CMD, "unknown opcode '%s'", out_op);
				return 1;
			}
			have_opcode = true;
		} else if (!strcmp(argv[i], "--op-mod")) {
			char *end;

			if (i + 1 >= argc) {
				cli_error(PRM_CMD, "--op-mod needs a number");
				return CLI_EXIT_USAGE;
			}
			op_mod = (int)strtol(argv[++i], &end, 0);
			if (*end || op_mod < 0 || op_mod > 0xffff) {
				cli_error(PRM_CMD, "bad --op-mod '%s'", argv[i]);
				return CLI_EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			return cli_print_manual("prm");
		} else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (argv[i][0] == '-' && argv[i][1] == '-') {
			cli_error(PRM_CMD, "decode: unknown option '%s'", argv[i]);
			return CLI_EXIT_USAGE;
		} else if (!struct_name && !b.len && prm_struct_find(argv[i])) {
			struct_name = argv[i];
			by = BY_NAME;
		} else if (!b.len && b.half < 0 && !is_hexish(argv[i])) {
			cli_error(PRM_CMD, "decode: '%s' is neither a structure (mlx5emu prm list) nor hex",
				  argv[i]);
			goto out;
		} else if (hex_add(&b, argv[i])) {
			goto out;
		}
	}
	for (; i < argc; i++)
		if (hex_add(&b, argv[i]))
			goto out;
	if (!b.len && b.half < 0 && hex_stdin(&b))
		goto out;
	if (b.half >= 0) {
		cli_error(PRM_CMD, "decode: an odd number of hex digits");
		goto out;
	}
	if (!b.len) {
		cli_error(PRM_CMD, "decode: no bytes given");
		goto out;
	}
	if (by == BY_IN) {
		if (b.len < 2) {
			cli_error(PRM_CMD, "decode: an inbox starts with a 2-byte opcode");
			goto out;
		}
		opcode = b.p[0] << 8 | b.p[1];
		if (b.len >= 8)
			op_mod = b.p[6] << 8 | b.p[7];
		have_opcode = true;
		sd = emu_trace_in_struct((uint16_t)opcode);
	} else if (by == BY_OUT) {
		sd = emu_trace_out_struct((uint16_t)opcode);
	} else {
		sd = find_struct(struct_name);
	}
	if (!sd)
		goto out;

	text = emu_trace_format_struct(sd, b.p, b.len, (uint16_t)opcode,
				       (uint16_t)op_mod,
				       json ? EMU_TRACE_JSON : EMU_TRACE_LINES,
				       !all, false, NULL);
	if (!text) {
		cli_error(PRM_CMD, "decode: %s", strerror(errno));
		goto out;
	}
	if (json) {
		printf("{\"struct\":\"%s\",\"bytes\":%zu,\"fields\":%s}\n",
		       sd->name, b.len, text);
	} else {
		const char *opname = emu_trace_opcode_name((uint16_t)opcode);

		printf("%s, %zu bytes", sd->name, b.len);
		if (b.len * 8 < sd->size_bits)
			printf(" (the layout has %u; the rest is absent)",
			       sd->size_bits / 8);
		printf("\n");
		if (have_opcode && by == BY_IN)
			printf("  [%s (0x%x)%s]\n", opname ? opname : "unknown opcode",
			       opcode, emu_trace_opcode_described((uint16_t)opcode) ?
			       "" : ": no layout of its own, the header only");
		if (by == BY_OUT && b.len >= 8) {
			uint8_t st = b.p[0];
			uint32_t sy = (uint32_t)b.p[4] << 24 | b.p[5] << 16 |
				      b.p[6] << 8 | b.p[7];
			const char *sn = emu_trace_status_name(st);
			const char *yn = emu_trace_syndrome_name(sy);

			printf("  [%s: status %s (0x%x), syndrome 0x%x%s%s%s]\n",
			       opname ? opname : "unknown opcode",
			       sn ? sn : "unknown", st, sy, yn ? " (" : "",
			       yn ? yn : "", yn ? ")" : "");
		}
		fputs(text, stdout);
	}
	free(text);
	ret = 0;
out:
	free(b.p);
	return ret;
}

int cmd_prm(int argc, char **argv)
{
	if (argc < 2) {
		cli_error(PRM_CMD, "usage: mlx5emu prm list | dump STRUCT | decode ...");
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cli_print_manual("prm");
	if (!strcmp(argv[1], "list"))
		return argc == 2 ? prm_list() : CLI_EXIT_USAGE;
	if (!strcmp(argv[1], "dump"))
		return prm_dump(argc - 1, argv + 1);
	if (!strcmp(argv[1], "decode"))
		return prm_decode(argc - 1, argv + 1);
	cli_error(PRM_CMD, "unknown subcommand '%s' (list, dump, decode)", argv[1]);
	return CLI_EXIT_USAGE;
}
