#!/usr/bin/python3
"""Cross-check prm/ layouts against pyverbs' scapy description of the PRM.

rdma-core's test suite describes the PRM structures it uses as scapy Packet
classes (tests/mlx5_prm_structs.py, shipped gzipped in Debian's rdma-core
docs).  This script computes the bit offset and width of every field of those
classes, matches each class to one of our structs, and for every field both
describe under the same name asserts the same offset and width.

Our side comes from prm_dump (JSON lines of the generated field table).
Exit status: 0 all equal, 1 a mismatch (or too few comparisons), 77 skipped
(scapy or the module missing).  Run with Debian's /usr/bin/python3.
"""

import argparse
import gzip
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile

MIN_COMPARED = 300

# scapy class -> our struct, where the snake_case of the class name is not it.
CLASS_MAP = {
    'SwPas': 'cmd_pas',
    'SwCqc': 'cqc',
    'SwAds': 'ads',
    'SwQpc': 'qpc',
    'SwEqc': 'eqc',
    'SwMkc': 'mkc',
    'SwEqe': 'eqe',
    'QueryCmdHcaCapOut': 'query_hca_cap_out',
    # one class for every QP modify command; they share the layout
    'ModifyQpIn': ['rst2init_qp_in', 'init2init_qp_in', 'init2rtr_qp_in', 'rtr2rts_qp_in',
                   'rts2rts_qp_in', 'sqerr2rts_qp_in', 'sqd2rts_qp_in'],
    'ModifyQpOut': ['rst2init_qp_out', 'init2rtr_qp_out', 'rtr2rts_qp_out', 'rts2rts_qp_out'],
    'FlowTableEntryMatchSetLyr24': 'fte_match_set_lyr_2_4',
    'FlowTableEntryMatchSetMisc': 'fte_match_set_misc',
    'FlowTableEntryMatchSetMisc2': 'fte_match_set_misc2',
    'FlowTableEntryMatchSetMisc3': 'fte_match_set_misc3',
    'FlowTableEntryMatchSetMisc4': 'fte_match_set_misc4',
    'FlowTableEntryMatchSetMisc5': 'fte_match_set_misc5',
    'FlowTableEntryMatchParam': 'fte_match_param',
    'AccessPaosRegisterIn': 'access_register_in',
    'AccessPaosRegisterOut': 'access_register_out',
}

# Nested members scapy names differently (scapy name -> ours); compared too.
FIELD_RENAME = {
    'sw_cqc': 'cq_context',
    'sw_qpc': 'qpc',
    'sw_eqc': 'eq_context',
    'sw_mkc': 'memory_key_mkey_entry',
}

# (struct, field) -> why the kernel's layout is kept although scapy differs.
# The kernel (include/linux/mlx5/mlx5_ifc.h) wins unless hardware says
# otherwise; each entry names what the two sources say.
WHITELIST = {
    ('cmd_hca_cap', 'regexp_params'):
        'kernel mlx5_ifc.h: bit 0x249; scapy: bit 0xa1 (older PRM placement)',
    ('cmd_hca_cap', 'relaxed_ordering_read'):
        'kernel mlx5_ifc.h: relaxed_ordering_read at 0x32a and '
        'relaxed_ordering_read_pci_enabled at 0xe9; scapy names bit 0xe9 relaxed_ordering_read',
    ('cmd_hca_cap', 'enhanced_cqe_compression'):
        'kernel mlx5_ifc.h: bit 0x5b0; scapy: bit 0x5bb',
    ('query_flow_counter_in', 'num_of_counters'):
        'kernel mlx5_ifc.h: 16 bits at 0xd0 (0xc2..0xcf reserved); scapy: 30 bits at 0xc2; '
        'the same value encoding for counts below 65536',
}


def camel_to_snake(name):
    s = re.sub(r'(?<=[a-z0-9])([A-Z])', r'_\1', name)
    return s.lower()


def load_scapy_module(path):
    try:
        import scapy  # noqa: F401
    except ImportError:
        print('SKIP: python3-scapy is not installed')
        sys.exit(77)
    if not os.path.exists(path):
        print('SKIP: %s not found' % path)
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix='prm_scapy_')
    src = os.path.join(tmp, 'mlx5_prm_structs.py')
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rb') as f, open(src, 'wb') as g:
        g.write(f.read())
    spec = importlib.util.spec_from_file_location('mlx5_prm_structs', src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class ScapyLayout:
    """Bit offsets of a scapy Packet class's fields (static, default values)."""

    def __init__(self):
        from scapy.packet import Packet
        from scapy import fields as F
        self.Packet = Packet
        self.F = F
        self.cache = {}

    def field_bits(self, fld, pkt):
        """(total_bits, elem_bits, count, nested_cls) of one field."""
        F = self.F
        if isinstance(fld, F.ConditionalField):
            if not fld.cond(pkt):
                return None
            return self.field_bits(fld.fld, pkt)
        if isinstance(fld, F.MultipleTypeField):
            return self.field_bits(fld.dflt, pkt)
        if isinstance(fld, F.PadField):
            inner = self.field_bits(fld.fld, pkt)
            align = fld._align * 8
            total = -(-inner[0] // align) * align
            return (total, inner[1], inner[2], inner[3])
        if isinstance(fld, F.BitField):
            return (fld.size, fld.size, 0, None)
        if isinstance(fld, F.PacketListField):
            n = fld.count_from(pkt) if fld.count_from else 0
            elem = self.size_of(fld.cls)
            return (elem * n, elem, n if n else -1, fld.cls)
        if isinstance(fld, F.PacketField):
            size = self.size_of(fld.cls)
            return (size, size, 0, fld.cls)
        if isinstance(fld, F.FieldListField):
            n = fld.count_from(pkt)
            elem = self.field_bits(fld.field, pkt)[0]
            return (elem * n, elem, n, None)
        if isinstance(fld, F.StrFixedLenField):
            n = fld.length_from(pkt) * 8
            return (n, n, 0, None)
        if getattr(fld, 'sz', None):
            n = fld.sz * 8
            return (n, n, 0, None)
        raise RuntimeError('unsized scapy field %s (%s)' % (fld.name, type(fld).__name__))

    def layout(self, cls):
        if cls in self.cache:
            return self.cache[cls]
        pkt = cls()
        fields = []
        off = 0
        for fld in cls.fields_desc:
            b = self.field_bits(fld, pkt)
            if b is None:
                continue
            fields.append({'name': fld.name, 'off': off, 'total': b[0], 'width': b[1],
                           'count': b[2], 'cls': b[3]})
            off += b[0]
        self.cache[cls] = (fields, off)
        return self.cache[cls]

    def size_of(self, cls):
        return self.layout(cls)[1]


def load_ours(dump):
    out = subprocess.run([dump], check=True, stdout=subprocess.PIPE, text=True).stdout
    structs = {}
    for line in out.splitlines():
        rec = json.loads(line)
        if 'field' not in rec:
            structs[rec['struct']] = {'size': rec['size'], 'union': rec['union'], 'fields': {}}
        else:
            structs[rec['struct']]['fields'][rec['field']] = rec
    return structs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dump', required=True, help='path of the prm_dump program')
    ap.add_argument('--scapy', required=True, help='mlx5_prm_structs.py[.gz]')
    ap.add_argument('-v', '--verbose', action='store_true')
    args = ap.parse_args()

    ours = load_ours(args.dump)
    mod = load_scapy_module(args.scapy)
    sl = ScapyLayout()

    classes = [v for v in vars(mod).values()
               if isinstance(v, type) and issubclass(v, sl.Packet) and v is not sl.Packet
               and v.__module__ == mod.__name__]
    matched = compared = 0
    mismatches = []
    whitelisted = []
    unmatched = []
    scapy_only = 0
    for cls in sorted(classes, key=lambda c: c.__name__):
        targets = CLASS_MAP.get(cls.__name__, camel_to_snake(cls.__name__))
        targets = targets if isinstance(targets, list) else [targets]
        targets = [t for t in targets if t in ours]
        if not targets:
            unmatched.append(cls.__name__)
            continue
        fields, size = sl.layout(cls)
        for t in targets:
            matched += 1
            mine = ours[t]['fields']
            for f in fields:
                name = FIELD_RENAME.get(f['name'], f['name'])
                if name.startswith('reserved') or name not in mine:
                    if not name.startswith('reserved'):
                        scapy_only += 1
                        if args.verbose:
                            print('  scapy only: %s.%s @0x%x/%d' % (t, name, f['off'], f['total']))
                    continue
                m = mine[name]
                # arrays: compare the whole extent (scapy may split differently)
                ours_total = m['width'] * (m['count'] if m['count'] > 0 else 1)
                if m['count'] == -1 or f['count'] == -1:
                    theirs, mine_w = (f['off'], f['width']), (m['bit_off'], m['width'])
                elif m['count'] or f['count']:
                    theirs, mine_w = (f['off'], f['total']), (m['bit_off'], ours_total)
                else:
                    theirs, mine_w = (f['off'], f['width']), (m['bit_off'], m['width'])
                if m['type'] and ours[m['type']]['union']:
                    # kernel unions (hca_cap_union, 0x8000 bits) are wider than
                    # the one member scapy describes (cmd_hca_cap padded to 2 KiB)
                    theirs, mine_w = (theirs[0],), (mine_w[0],)
                compared += 1
                if theirs != mine_w:
                    what = '%s.%s: ours %r, scapy %s.%s %r (bit offset, width in bits)' % (
                        t, name, mine_w, cls.__name__, f['name'], theirs)
                    if (t, name) in WHITELIST:
                        whitelisted.append('%s  [%s]' % (what, WHITELIST[(t, name)]))
                    else:
                        mismatches.append(what)
                elif args.verbose:
                    print('  ok %s.%s %r' % (t, name, mine_w))
    print('scapy classes: %d, matched to our structs: %d (pairs), unmatched: %s'
          % (len(classes), matched, ', '.join(unmatched) or '-'))
    print('fields compared: %d, mismatches: %d, whitelisted: %d, scapy-only names: %d'
          % (compared, len(mismatches), len(whitelisted), scapy_only))
    for w in whitelisted:
        print('WHITELISTED ' + w)
    for m in mismatches:
        print('MISMATCH ' + m)
    if mismatches:
        return 1
    if compared < MIN_COMPARED:
        print('FAIL: fewer than %d fields compared' % MIN_COMPARED)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
