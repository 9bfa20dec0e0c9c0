#!/usr/bin/env python3
"""Generate the PRM layout header and runtime field table from prm/defs/<topic>.prm.

Usage: gen_prm.py --out-dir DIR DEFS...

Writes DIR/prm_layouts.h (bit-array structs `struct prm_<name>_bits`, one
uint8_t per bit, with _Static_asserts) and DIR/prm_fields.c (the table behind
prm/prm_fields.h).  Standard library only.

The .prm format (one description per struct; see prm/README.md):

    # comment (to the end of the line)
    struct <name> <size_bits> [le]     or   union <name> <size_bits> [le]
        <bit_off> <type> <field>           type: a width in bits (scalar) or
        <bit_off> <type> <field>[<n>]          the name of a struct/union
        <bit_off> <type> <field>[]         flexible array (must sit at the end)
    end

`le` marks a little-endian layout (MANA/GDMA): bit offsets count from the
least significant bit of each little-endian dword, 64-bit fields are
little-endian qwords.  Such a struct is emitted as `struct prm_le_<name>_bits`
(so the big-endian PRM_* accessors cannot name it, nor prm_le.h's the mlx5
ones) and its table entry carries PRM_STRUCT_LE.  Little- and big-endian
structs never nest in each other.

Numbers are decimal or 0x-hex.  Offsets are absolute within the struct.
Gaps become `reserved_at_<hex>` members.  A union is emitted as a struct
holding one anonymous union (so the PRM_* macros, which name
`struct prm_<name>_bits`, work on it), padded to its declared size.  Every error is fatal (the build
fails): overlap, a field past the end, a scalar <= 32 bits crossing a dword,
a 64-bit scalar not 64-bit aligned, any other scalar wider than 32 bits, a
nested struct not dword aligned, a size that is not a multiple of 32, a union
member not at offset 0, unknown or recursive types, duplicate names.
"""

import argparse
import os
import re
import sys

NAME_RE = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*$')
FIELD_RE = re.compile(r'^([A-Za-z_][A-Za-z0-9_]*)(?:\[(\d+|0x[0-9a-fA-F]+)?\])?$')
FLEX = -1


class DefError(Exception):
    pass


class Field:
    def __init__(self, off, typ, name, count, where):
        self.off = off          # absolute bit offset
        self.typ = typ          # int width or struct name
        self.name = name
        self.count = count      # 0 scalar, N array, FLEX flexible
        self.where = where
        self.elem_bits = None   # resolved later

    @property
    def is_struct(self):
        return not isinstance(self.typ, int)

    def total_bits(self):
        if self.count == FLEX:
            return 0
        return self.elem_bits * (self.count or 1)


class Struct:
    def __init__(self, kind, name, size, where, le=False):
        self.kind = kind
        self.name = name
        self.size = size
        self.fields = []
        self.where = where
        self.le = le

    @property
    def cname(self):
        return ('le_' if self.le else '') + self.name


def num(tok, where):
    try:
        return int(tok, 0)
    except ValueError:
        raise DefError('%s: bad number %r' % (where, tok))


def parse(paths):
    structs = {}
    order = []
    for path in paths:
        cur = None
        with open(path) as f:
            for lineno, raw in enumerate(f, 1):
                where = '%s:%d' % (os.path.basename(path), lineno)
                line = raw.split('#', 1)[0].strip()
                if not line:
                    continue
                toks = line.split()
                if toks[0] in ('struct', 'union'):
                    if cur:
                        raise DefError('%s: missing "end" for %s' % (where, cur.name))
                    le = len(toks) == 4 and toks[3] == 'le'
                    if len(toks) != 3 + le or not NAME_RE.match(toks[1]):
                        raise DefError('%s: expected "%s <name> <size_bits> [le]"' % (where, toks[0]))
                    if toks[1] in structs:
                        raise DefError('%s: %s defined twice (first at %s)'
                                       % (where, toks[1], structs[toks[1]].where))
                    cur = Struct(toks[0], toks[1], num(toks[2], where), where, le)
                    structs[cur.name] = cur
                    order.append(cur)
                elif toks[0] == 'end':
                    if not cur or len(toks) != 1:
                        raise DefError('%s: stray "end"' % where)
                    cur = None
                else:
                    if not cur:
                        raise DefError('%s: field outside a struct' % where)
                    if len(toks) != 3:
                        raise DefError('%s: expected "<bit_off> <type> <field>"' % where)
                    off = num(toks[0], where)
                    typ = toks[1]
                    typ = num(typ, where) if typ[0].isdigit() else typ
                    m = FIELD_RE.match(toks[2])
                    if not m:
                        raise DefError('%s: bad field name %r' % (where, toks[2]))
                    name, cnt = m.group(1), m.group(2)
                    if '[' in toks[2]:
                        count = FLEX if cnt is None else num(cnt, where)
                        if count == 0:
                            raise DefError('%s: zero-length array; use [] for flexible' % where)
                    else:
                        count = 0
                    if name.startswith('reserved_at_'):
                        raise DefError('%s: reserved_at_* names are generated' % where)
                    cur.fields.append(Field(off, typ, name, count, where))
        if cur:
            raise DefError('%s: missing "end" for %s' % (path, cur.name))
    return structs, order


def check(structs, order):
    # resolve nested types, detect recursion, topologically sort
    state = {}
    topo = []

    def visit(s, chain):
        if state.get(s.name) == 'done':
            return
        if state.get(s.name) == 'busy':
            raise DefError('%s: recursive type via %s' % (s.where, ' -> '.join(chain)))
        state[s.name] = 'busy'
        for f in s.fields:
            if f.is_struct:
                if f.typ not in structs:
                    raise DefError('%s: unknown type %s' % (f.where, f.typ))
                visit(structs[f.typ], chain + [f.typ])
                if structs[f.typ].le != s.le:
                    raise DefError('%s: %s nests %s of the other byte order'
                                   % (f.where, s.name, f.typ))
                f.elem_bits = structs[f.typ].size
            else:
                f.elem_bits = f.typ
        state[s.name] = 'done'
        topo.append(s)

    for s in order:
        visit(s, [s.name])

    for s in topo:
        if s.size <= 0 or s.size % 32:
            raise DefError('%s: size 0x%x of %s is not a multiple of 32' % (s.where, s.size, s.name))
        names = set()
        for f in s.fields:
            if f.name in names:
                raise DefError('%s: duplicate field %s' % (f.where, f.name))
            names.add(f.name)
            w = f.elem_bits
            if w <= 0:
                raise DefError('%s: zero width' % f.where)
            if f.is_struct:
                if f.off % 32:
                    raise DefError('%s: nested %s not dword aligned' % (f.where, f.name))
            elif f.count:
                if w in (8, 16, 32):
                    if f.off % w:
                        raise DefError('%s: array %s of %d-bit elements misaligned' % (f.where, f.name, w))
                elif w == 64:
                    if f.off % 64:
                        raise DefError('%s: array %s of 64-bit elements not 64-bit aligned' % (f.where, f.name))
                else:
                    raise DefError('%s: array elements must be 8, 16, 32 or 64 bits' % f.where)
            else:
                if w == 64:
                    if f.off % 64:
                        raise DefError('%s: 64-bit field %s not 64-bit aligned' % (f.where, f.name))
                elif w > 32:
                    raise DefError('%s: scalar %s wider than 32 bits (use an array)' % (f.where, f.name))
                elif f.off // 32 != (f.off + w - 1) // 32:
                    raise DefError('%s: field %s crosses a dword boundary' % (f.where, f.name))
            end = f.off + f.total_bits()
            if f.count == FLEX:
                if f.off != s.size:
                    raise DefError('%s: flexible array %s must start at the end (0x%x)'
                                   % (f.where, f.name, s.size))
            elif end > s.size:
                raise DefError('%s: field %s ends at 0x%x, past the end 0x%x'
                               % (f.where, f.name, end, s.size))
        if s.kind == 'union':
            for f in s.fields:
                if f.off != 0:
                    raise DefError('%s: union member %s not at offset 0' % (f.where, f.name))
                if f.count == FLEX:
                    raise DefError('%s: flexible union member' % f.where)
        else:
            s.fields.sort(key=lambda f: (f.off, f.count == FLEX))
            prev = None
            for f in s.fields:
                if prev is not None and f.off < prev.off + prev.total_bits():
                    raise DefError('%s: field %s overlaps %s' % (f.where, f.name, prev.name))
                if prev is not None and prev.count == FLEX:
                    raise DefError('%s: field after flexible array %s' % (f.where, prev.name))
                prev = f
    return topo


def c_member(f, structs):
    if f.is_struct:
        base = 'struct prm_%s_bits %s' % (structs[f.typ].cname, f.name)
    else:
        base = 'uint8_t %s' % f.name
    if f.count == FLEX:
        base += '[0]'
    elif f.count:
        base += '[%d]' % f.count
    if not f.is_struct:
        base += '[0x%x]' % f.elem_bits
    return base + ';'


def gen_header(topo, structs):
    out = []
    w = out.append
    w('/* Generated by prm/gen_prm.py from prm/defs/<topic>.prm -- do not edit. */')
    w('#ifndef MLX5EMU_PRM_LAYOUTS_H')
    w('#define MLX5EMU_PRM_LAYOUTS_H')
    w('')
    w('#include <stddef.h>')
    w('#include <stdint.h>')
    w('')
    w('/* One uint8_t per bit: sizeof() is a width in bits, offsetof() a bit offset. */')
    w('#define PRM_LAYOUT_CHECK_SIZE(kw, n, bits) \\')
    w('\t_Static_assert(sizeof(kw prm_##n##_bits) == (bits) && (bits) % 32 == 0, \\')
    w('\t\t       #n ": size is not " #bits " bits or not a multiple of 32")')
    w('#define PRM_LAYOUT_CHECK_OFF(kw, n, f, off) \\')
    w('\t_Static_assert(offsetof(kw prm_##n##_bits, f) == (off), #n "." #f ": offset is not " #off)')
    w('/* scalar: <= 32 bits within one dword, or a 64-bit aligned 64-bit field */')
    w('#define PRM_LAYOUT_CHECK_SCALAR(kw, n, f) \\')
    w('\t_Static_assert((sizeof(((kw prm_##n##_bits *)0)->f) <= 32 && \\')
    w('\t\t\toffsetof(kw prm_##n##_bits, f) / 32 == \\')
    w('\t\t\t(offsetof(kw prm_##n##_bits, f) + sizeof(((kw prm_##n##_bits *)0)->f) - 1) / 32) || \\')
    w('\t\t       (sizeof(((kw prm_##n##_bits *)0)->f) == 64 && \\')
    w('\t\t\toffsetof(kw prm_##n##_bits, f) % 64 == 0), \\')
    w('\t\t       #n "." #f ": wider than 32 bits, crossing a dword, or a misaligned 64-bit field")')
    w('')
    for s in topo:
        # a union is a struct holding one anonymous union, so the PRM_*
        # macros (which say "struct prm_<name>_bits") work on it too
        kw = 'struct'
        w('%s prm_%s_bits {' % (kw, s.cname))
        if s.kind == 'union':
            w('\tunion {')
            for f in s.fields:
                w('\t\t%s' % c_member(f, structs))
            if not any(f.total_bits() == s.size for f in s.fields):
                w('\t\tuint8_t reserved_at_0[0x%x];' % s.size)
            w('\t};')
        else:
            pos = 0
            for f in s.fields:
                if f.off > pos:
                    w('\tuint8_t reserved_at_%x[0x%x];' % (pos, f.off - pos))
                w('\t%s' % c_member(f, structs))
                pos = f.off + f.total_bits()
            if pos < s.size:
                w('\tuint8_t reserved_at_%x[0x%x];' % (pos, s.size - pos))
        w('};')
        w('PRM_LAYOUT_CHECK_SIZE(%s, %s, 0x%x);' % (kw, s.cname, s.size))
        for f in s.fields:
            w('PRM_LAYOUT_CHECK_OFF(%s, %s, %s, 0x%x);' % (kw, s.cname, f.name, f.off))
            if not f.is_struct and not f.count:
                w('PRM_LAYOUT_CHECK_SCALAR(%s, %s, %s);' % (kw, s.cname, f.name))
        w('')
    w('#define PRM_NSTRUCTS %d' % len(topo))
    w('')
    w('#endif /* MLX5EMU_PRM_LAYOUTS_H */')
    return '\n'.join(out) + '\n'


def gen_table(topo, structs):
    out = []
    w = out.append
    w('/* Generated by prm/gen_prm.py from prm/defs/<topic>.prm -- do not edit. */')
    w('#include <stddef.h>')
    w('#include <stdint.h>')
    w('')
    w('#include "prm/prm_fields.h"')
    w('#include "prm/prm_fields_int.h"')
    w('')
    for s in topo:
        w('static const struct prm_struct_desc prm_sd_%s;' % s.name)
    w('')
    for s in topo:
        if s.fields:
            w('static const struct prm_field_desc prm_fd_%s[] = {' % s.name)
            for f in s.fields:
                typ = '&prm_sd_%s' % f.typ if f.is_struct else 'NULL'
                cnt = 'UINT32_MAX' if f.count == FLEX else str(f.count)
                w('\t{ "%s", 0x%x, 0x%x, %s, %s },' % (f.name, f.off, f.elem_bits, typ, cnt))
            w('};')
        flags = ' | '.join(n for n, on in (('PRM_STRUCT_UNION', s.kind == 'union'),
                                            ('PRM_STRUCT_LE', s.le)) if on) or '0'
        w('static const struct prm_struct_desc prm_sd_%s = {' % s.name)
        w('\t"%s", 0x%x, %d, %s, %s' % (s.name, s.size, len(s.fields),
                                        'prm_fd_%s' % s.name if s.fields else 'NULL', flags))
        w('};')
    w('')
    w('/* sorted by name for prm_struct_find() */')
    w('const struct prm_struct_desc *const prm_struct_table[] = {')
    for s in sorted(topo, key=lambda s: s.name):
        w('\t&prm_sd_%s,' % s.name)
    w('};')
    w('const size_t prm_struct_table_len = %d;' % len(topo))
    return '\n'.join(out) + '\n'


def write_file(path, text):
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out-dir', required=True)
    ap.add_argument('defs', nargs='+')
    args = ap.parse_args()
    try:
        structs, order = parse(args.defs)
        topo = check(structs, order)
    except DefError as e:
        sys.stderr.write('gen_prm.py: error: %s\n' % e)
        return 1
    os.makedirs(args.out_dir, exist_ok=True)
    write_file(os.path.join(args.out_dir, 'prm_layouts.h'), gen_header(topo, structs))
    write_file(os.path.join(args.out_dir, 'prm_fields.c'), gen_table(topo, structs))
    return 0


if __name__ == '__main__':
    sys.exit(main())
