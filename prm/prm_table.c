/* prm/prm_table.c -- lookups, generic reads and decoding over the field table. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prm/prm_fields.h"
#include "prm/prm_fields_int.h"

static int cmp_name(const void *key, const void *elem)
{
	const struct prm_struct_desc *const *sd = elem;

	return strcmp(key, (*sd)->name);
}

const struct prm_struct_desc *prm_struct_find(const char *name)
{
	const struct prm_struct_desc *const *sd;

	if (!name)
		return NULL;
	sd = bsearch(name, prm_struct_table, prm_struct_table_len,
		     sizeof(prm_struct_table[0]), cmp_name);
	return sd ? *sd : NULL;
}

size_t prm_struct_count(void)
{
	return prm_struct_table_len;
}

const struct prm_struct_desc *prm_struct_at(size_t i)
{
	return i < prm_struct_table_len ? prm_struct_table[i] : NULL;
}

const struct prm_field_desc *prm_field_find(const struct prm_struct_desc *sd,
					    const char *path, uint32_t *abs_off)
{
	uint32_t base = 0;

	while (sd && path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);
		const struct prm_field_desc *fd = NULL;

		for (uint32_t i = 0; i < sd->nfields; i++) {
			if (strlen(sd->fields[i].name) == n &&
			    !memcmp(sd->fields[i].name, path, n)) {
				fd = &sd->fields[i];
				break;
			}
		}
		if (!fd)
			return NULL;
		if (!dot) {
			if (abs_off)
				*abs_off = base + fd->bit_off;
			return fd;
		}
		if (!fd->type || fd->count)
			return NULL;	/* only plain nested structs descend */
		base += fd->bit_off;
		sd = fd->type;
		path = dot + 1;
	}
	return NULL;
}

uint64_t prm_field_read(const void *buf, uint32_t bit_off, uint32_t width)
{
	const uint8_t *b = buf;
	uint64_t v = 0;

	if (width == 0 || width > 64)
		return 0;
	for (uint32_t bit = bit_off; bit < bit_off + width;) {
		uint32_t in_byte = bit & 7;
		uint32_t take = 8 - in_byte;
		uint8_t byte = b[bit / 8];

		if (take > bit_off + width - bit)
			take = bit_off + width - bit;
		byte = (uint8_t)(byte >> (8 - in_byte - take)) & (uint8_t)((1u << take) - 1);
		v = (v << take) | byte;
		bit += take;
	}
	return v;
}

uint64_t prm_field_read_le(const void *buf, uint32_t bit_off, uint32_t width)
{
	const uint8_t *b = buf;
	uint64_t v = 0;

	if (width == 64 && bit_off % 64 == 0) {
		for (int i = 7; i >= 0; i--)
			v = (v << 8) | b[bit_off / 8 + (uint32_t)i];
		return v;
	}
	if (width == 0 || width > 32 || bit_off / 32 != (bit_off + width - 1) / 32)
		return 0;
	for (int i = 3; i >= 0; i--)
		v = (v << 8) | b[bit_off / 32 * 4 + (uint32_t)i];
	v >>= bit_off & 31;
	return v & ((UINT64_C(1) << width) - 1);
}

struct walk {
	const uint8_t *buf;
	bool le;
	size_t len_bits;
	prm_field_visitor fn;
	void *ctx;
	char path[512];
};

static int walk_struct(struct walk *w, const struct prm_struct_desc *sd,
		       uint32_t base, size_t plen);

static int walk_one(struct walk *w, const struct prm_field_desc *fd,
		    uint32_t off, size_t plen)
{
	if (fd->type)
		return walk_struct(w, fd->type, off, plen);
	if (off + fd->bit_width > w->len_bits)
		return 0;
	if (fd->bit_width > 64) /* not produced by the generator */
		return 0;
	return w->fn(w->ctx, w->path, fd, off,
		     w->le ? prm_field_read_le(w->buf, off, fd->bit_width) :
			     prm_field_read(w->buf, off, fd->bit_width));
}

static int walk_struct(struct walk *w, const struct prm_struct_desc *sd,
		       uint32_t base, size_t plen)
{
	for (uint32_t i = 0; i < sd->nfields; i++) {
		const struct prm_field_desc *fd = &sd->fields[i];
		uint32_t off = base + fd->bit_off;
		int n, ret;

		if (off >= w->len_bits)
			break;
		n = snprintf(w->path + plen, sizeof(w->path) - plen, "%s%s",
			     plen ? "." : "", fd->name);
		if (n < 0 || (size_t)n >= sizeof(w->path) - plen)
			return -1;
		if (!fd->count) {
			ret = walk_one(w, fd, off, plen + (size_t)n);
		} else {
			uint32_t cnt = fd->count;

			ret = 0;
			if (cnt == PRM_COUNT_FLEX)
				cnt = (uint32_t)((w->len_bits - off) / fd->bit_width);
			for (uint32_t j = 0; j < cnt && !ret; j++) {
				uint32_t eoff = off + j * fd->bit_width;
				int m;

				if (eoff + fd->bit_width > w->len_bits)
					break;
				m = snprintf(w->path + plen + n,
					     sizeof(w->path) - plen - (size_t)n, "[%u]", j);
				if (m < 0 || (size_t)m >= sizeof(w->path) - plen - (size_t)n)
					return -1;
				ret = walk_one(w, fd, eoff, plen + (size_t)n + (size_t)m);
			}
		}
		w->path[plen] = '\0';
		if (ret)
			return ret;
	}
	return 0;
}

int prm_visit_fields(const struct prm_struct_desc *sd, const void *buf,
		     size_t len, prm_field_visitor fn, void *ctx)
{
	struct walk w;

	if (!sd || (!buf && len) || !fn)
		return -1;
	w.buf = buf;
	w.le = sd->flags & PRM_STRUCT_LE;
	w.len_bits = len * 8;
	w.fn = fn;
	w.ctx = ctx;
	w.path[0] = '\0';
	return walk_struct(&w, sd, 0, 0);
}

struct fmt {
	char *out;
	size_t outlen;
	size_t used;		/* as if unbounded */
	bool skip_zero;
	/* an open run of a byte array (GID, MAC, MAD payload): one hex string */
	const struct prm_field_desc *run_fd;
	uint32_t run_next;	/* bit offset the next element must have */
	bool run_nonzero;
	size_t run_len;
	char run_name[512];
	char run_hex[2 * 512 + 1];
};

static void fmt_put(struct fmt *f, const char *fmtstr, ...)
	__attribute__((format(printf, 2, 3)));

static void fmt_put(struct fmt *f, const char *fmtstr, ...)
{
	va_list ap;
	size_t room = f->used < f->outlen ? f->outlen - f->used : 0;
	int n;

	va_start(ap, fmtstr);
	n = vsnprintf(room ? f->out + f->used : NULL, room, fmtstr, ap);
	va_end(ap);
	if (n > 0)
		f->used += (size_t)n;
}

static void fmt_flush_run(struct fmt *f)
{
	if (f->run_fd && (f->run_nonzero || !f->skip_zero))
		fmt_put(f, "%s%s=%s", f->used ? " " : "", f->run_name, f->run_hex);
	f->run_fd = NULL;
}

static int fmt_visit(void *ctx, const char *path, const struct prm_field_desc *fd,
		     uint32_t abs_bit_off, uint64_t value)
{
	struct fmt *f = ctx;

	if (fd->count && fd->bit_width == 8 && !fd->type) {
		if (f->run_fd != fd || f->run_next != abs_bit_off ||
		    f->run_len + 3 > sizeof(f->run_hex)) {
			const char *br = strrchr(path, '[');
			size_t plen = br ? (size_t)(br - path) : strlen(path);

			fmt_flush_run(f);
			if (plen >= sizeof(f->run_name))
				plen = sizeof(f->run_name) - 1;
			memcpy(f->run_name, path, plen);
			f->run_name[plen] = '\0';
			f->run_fd = fd;
			f->run_nonzero = false;
			f->run_len = 0;
		}
		snprintf(f->run_hex + f->run_len, 3, "%02x", (unsigned int)value);
		f->run_len += 2;
		f->run_next = abs_bit_off + 8;
		f->run_nonzero |= value != 0;
		return 0;
	}
	fmt_flush_run(f);
	if (f->skip_zero && !value)
		return 0;
	fmt_put(f, "%s%s=0x%llx", f->used ? " " : "", path, (unsigned long long)value);
	return 0;
}

int prm_format_fields(const struct prm_struct_desc *sd, const void *buf,
		      size_t len, bool skip_zero, char *out, size_t outlen)
{
	struct fmt *f;
	int ret;

	if (!sd || (!buf && len) || (!out && outlen))
		return -1;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	f->out = out;
	f->outlen = outlen;
	f->skip_zero = skip_zero;
	if (outlen)
		out[0] = '\0';
	ret = prm_visit_fields(sd, buf, len, fmt_visit, f);
	if (ret >= 0) {
		fmt_flush_run(f);
		if (outlen)
			out[f->used < outlen ? f->used : outlen - 1] = '\0';
		ret = f->used > (size_t)INT32_MAX ? -1 : (int)f->used;
	}
	free(f);
	return ret;
}
