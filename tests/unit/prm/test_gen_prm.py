#!/usr/bin/python3
"""Unit tests of prm/gen_prm.py: every layout error fails, good input generates."""

import os
import subprocess
import sys
import tempfile
import unittest

GEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'prm', 'gen_prm.py')


def run_gen(text):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, 't.prm')
        with open(src, 'w') as f:
            f.write(text)
        p = subprocess.run([sys.executable, GEN, '--out-dir', d, src],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out = {}
        if p.returncode == 0:
            for n in ('prm_layouts.h', 'prm_fields.c'):
                with open(os.path.join(d, n)) as f:
                    out[n] = f.read()
        return p.returncode, p.stderr, out


class Errors(unittest.TestCase):
    def bad(self, text, msg):
        rc, err, _ = run_gen(text)
        self.assertNotEqual(rc, 0)
        self.assertIn(msg, err)

    def test_overlap(self):
        self.bad('struct a 0x20\n 0x0 8 x\n 0x4 8 y\nend\n', 'overlaps')

    def test_past_end(self):
        self.bad('struct a 0x20\n 0x20 8 x\nend\n', 'past the end')

    def test_crosses_dword(self):
        self.bad('struct a 0x40\n 0x18 16 x\nend\n', 'crosses a dword')

    def test_misaligned_64(self):
        self.bad('struct a 0x80\n 0x20 64 x\nend\n', 'not 64-bit aligned')

    def test_wide_scalar(self):
        self.bad('struct a 0x80\n 0x0 48 x\nend\n', 'wider than 32 bits')

    def test_nested_misaligned(self):
        self.bad('struct b 0x20\n 0x0 8 x\nend\nstruct a 0x60\n 0x8 b y\nend\n', 'not dword aligned')

    def test_size_multiple(self):
        self.bad('struct a 0x28\n 0x0 8 x\nend\n', 'not a multiple of 32')

    def test_union_offset(self):
        self.bad('union a 0x20\n 0x8 8 x\nend\n', 'not at offset 0')

    def test_unknown_type(self):
        self.bad('struct a 0x20\n 0x0 nosuch x\nend\n', 'unknown type')

    def test_recursion(self):
        self.bad('struct a 0x20\n 0x0 a x\nend\n', 'recursive')

    def test_duplicate_struct(self):
        self.bad('struct a 0x20\nend\nstruct a 0x20\nend\n', 'defined twice')

    def test_duplicate_field(self):
        self.bad('struct a 0x20\n 0x0 8 x\n 0x8 8 x\nend\n', 'duplicate field')

    def test_flex_not_at_end(self):
        self.bad('struct a 0x40\n 0x0 32 x[]\nend\n', 'must start at the end')

    def test_array_elem(self):
        self.bad('struct a 0x40\n 0x0 4 x[4]\nend\n', 'must be 8, 16, 32 or 64')

    def test_array_misaligned(self):
        self.bad('struct a 0x40\n 0x4 8 x[2]\nend\n', 'misaligned')

    def test_missing_end(self):
        self.bad('struct a 0x20\n 0x0 8 x\n', 'missing "end"')

    def test_reserved_name(self):
        self.bad('struct a 0x20\n 0x0 8 reserved_at_0\nend\n', 'generated')

    def test_zero_length(self):
        self.bad('struct a 0x20\n 0x0 8 x[0]\nend\n', 'zero-length')

    def test_bad_attribute(self):
        self.bad('struct a 0x20 be\n 0x0 8 x\nend\n', 'expected "struct <name> <size_bits> [le]"')

    def test_mixed_byte_order(self):
        self.bad('struct b 0x20 le\n 0x0 8 x\nend\nstruct a 0x40\n 0x0 b y\nend\n',
                 'of the other byte order')
        self.bad('struct b 0x20\n 0x0 8 x\nend\nstruct a 0x40 le\n 0x0 b y\nend\n',
                 'of the other byte order')


class Good(unittest.TestCase):
    def test_generates(self):
        rc, err, out = run_gen('''# comment
struct b 0x20
	0x0  8  x
end
union u 0x40
	0x0  b  one
	0x0  32 two
end
struct a 0x100   # trailing comment
	0x0  16 opcode
	0x20 b  nested
	0x40 u  un
	0x80 64 q
	0xc0 8  bytes[4]
	0x100 64 pas[]
end
''')
        self.assertEqual(rc, 0, err)
        h = out['prm_layouts.h']
        self.assertIn('uint8_t reserved_at_10[0x10];', h)
        self.assertIn('struct prm_b_bits nested;', h)
        self.assertIn('uint8_t bytes[4][0x8];', h)
        self.assertIn('uint8_t pas[0][0x40];', h)
        self.assertIn('uint8_t reserved_at_0[0x40];', h)   # union padded to its size
        self.assertIn('\tunion {', h)
        c = out['prm_fields.c']
        self.assertIn('{ "pas", 0x100, 0x40, NULL, UINT32_MAX }', c)
        self.assertIn('{ "nested", 0x20, 0x20, &prm_sd_b, 0 }', c)
        self.assertIn('PRM_STRUCT_UNION', c)
        # nested types come first
        self.assertLess(h.index('struct prm_b_bits {'), h.index('struct prm_a_bits {'))

    def test_little_endian(self):
        rc, err, out = run_gen("""struct b 0x20 le
	0x1d 3  owner
end
union u 0x20 le
	0x0  b  one
end
struct a 0x40 le
	0x0  b  nested
	0x20 u  un
end
""")
        self.assertEqual(rc, 0, err)
        h = out['prm_layouts.h']
        # a name the big-endian accessors cannot reach
        self.assertIn('struct prm_le_b_bits {', h)
        self.assertIn('struct prm_le_b_bits nested;', h)
        self.assertNotIn('struct prm_b_bits', h)
        self.assertIn('PRM_LAYOUT_CHECK_OFF(struct, le_b, owner, 0x1d);', h)
        c = out['prm_fields.c']
        self.assertIn('"b", 0x20, 1, prm_fd_b, PRM_STRUCT_LE', c)
        self.assertIn('PRM_STRUCT_UNION | PRM_STRUCT_LE', c)


if __name__ == '__main__':
    unittest.main()
