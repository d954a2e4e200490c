#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate the two translation units of the dat-constants test.

include/rdma/kdat_types.h with kdat_ib_extensions.h, and Debian's
<dat2/udat.h> with <dat2/dat_ib_extensions.h>, define the same DAT_* names, so they cannot be compiled together.  This script finds,
for each side, every DAT_* (and DCNT_*) name that is an integer constant:

  * enumerators of enums declared in the side's own header files
    (found by parsing the preprocessed source, so comments and
    conditional compilation are already resolved), and
  * object-like DAT_* macros (from `gcc -E -dM`)

and then lets the compiler itself decide which of those names are
integer constant expressions (a name used as an enumerator initialiser
must be one; pointers, types, strings and empty macros are rejected).

It writes, into the output directory:

  kern.c  - kern_vals[]: the shared names, evaluated with kdat_types.h
  user.c  - user_vals[]: the same names in the same order, evaluated
            with Debian's headers
  meta.c  - the Debian names the kernel header lacks (and should not),
            the kernel-only names, and the deliberately excluded ones

main.c compares kern_vals[] with user_vals[].
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

# Debian constants that kdat_types.h deliberately leaves out, with the
# reason.  Every other integer DAT_* constant Debian defines in the headers
# scanned below must exist in the kernel header, or the test fails.
EXCLUDED = [
    (r'DAT_CNO_FIELD_\w+',
     'uDAT CNO parameters: OS wait-proxy objects are user-space only'),
    (r'DAT_PROXY_TYPE_\w+',
     'uDAT CNO OS wait-proxy type: user-space only'),
    (r'DAT_(IB_)?\w+_OP',
     'dat_extension_op() codes: kDAT has a function per operation'),
    (r'DAT_IB_\w*COLL\w*|DAT_IB_HANDLE_TYPE_\w+',
     'IB collectives: not offered'),
    (r'DAT_IB_ERR',
     'extension return type of uDAT extension calls only'),
]

# Debian headers whose DAT_* enumerators are collected, and the kernel
# headers that correspond.
DEBIAN_HEADERS = ('dat.h', 'dat_error.h', 'udat.h', 'udat_config.h',
                  'dat_platform_specific.h', 'dat_registry.h',
                  'dat_ib_extensions.h')
KERNEL_HEADERS = ('kdat_types.h', 'kdat_ib_extensions.h')

DEBIAN_PRELUDE = ('#include <netinet/in.h>\n#include <dat2/udat.h>\n'
                  '#include <dat2/dat_registry.h>\n'
                  '#include <dat2/dat_ib_extensions.h>\n')
KERNEL_PRELUDE = ('#include <rdma/kdat_types.h>\n'
                  '#include <rdma/kdat_ib_extensions.h>\n')

# Scalar types whose width and signedness must agree as well, because the
# shim hands values of these types across /dev/kdapl unchanged.
SCALAR_TYPES = ('DAT_UINT32', 'DAT_UINT64', 'DAT_COUNT', 'DAT_TIMEOUT',
                'DAT_RETURN', 'DAT_VLEN', 'DAT_VADDR', 'DAT_PADDR',
                'DAT_SEG_LENGTH', 'DAT_LMR_CONTEXT', 'DAT_RMR_CONTEXT',
                'DAT_CONN_QUAL', 'DAT_PORT_QUAL', 'DAT_HA_LB',
                'DAT_IA_ATTR_MASK', 'DAT_EP_PARAM_MASK',
                'DAT_PROVIDER_ATTR_MASK')
SIZE_ONLY_TYPES = ('DAT_CONTEXT', 'DAT_HANDLE', 'DAT_BOOLEAN',
                   'DAT_RETURN_TYPE', 'DAT_RETURN_SUBTYPE', 'DAT_MEM_TYPE',
                   'DAT_EVENT_NUMBER', 'DAT_EP_STATE', 'DAT_DTOS')

CFLAGS = ['-std=gnu11', '-pedantic-errors', '-w']


def die(msg):
    sys.stderr.write('gen.py: %s\n' % msg)
    sys.exit(2)


class Side:
    def __init__(self, name, cc, prelude, cflags, wanted_file):
        self.name = name
        self.cc = cc
        self.prelude = prelude
        self.cflags = cflags
        self.wanted_file = wanted_file

    def gcc(self, args, src):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'probe.c')
            with open(path, 'w') as f:
                f.write(src)
            proc = subprocess.run([self.cc] + CFLAGS + self.cflags + args +
                                  [path], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE,
                                  universal_newlines=True)
        return proc

    def preprocess(self, extra):
        proc = self.gcc(['-E'] + extra, self.prelude)
        if proc.returncode:
            die('%s side does not preprocess:\n%s' % (self.name, proc.stderr))
        return proc.stdout

    def macro_names(self):
        names = set()
        for line in self.preprocess(['-dM']).splitlines():
            m = re.match(r'#define (DAT_\w+)(\(?)', line)
            if m and not m.group(2):
                names.add(m.group(1))
        return names

    def enumerator_names(self):
        # Keep only the text that came from the side's own headers, using
        # the preprocessor's line markers to know which file we are in.
        chunks = []
        keep = False
        for line in self.preprocess([]).splitlines():
            m = re.match(r'# \d+ "([^"]*)"', line)
            if m:
                keep = self.wanted_file(m.group(1))
                continue
            if keep:
                chunks.append(line)
        text = '\n'.join(chunks)
        names = set()
        for body in re.findall(r'\benum\b[^{;]*\{([^}]*)\}', text):
            depth = 0
            item = ''
            items = []
            for ch in body:
                if ch == '(':
                    depth += 1
                elif ch == ')':
                    depth -= 1
                if ch == ',' and depth == 0:
                    items.append(item)
                    item = ''
                else:
                    item += ch
            items.append(item)
            for it in items:
                m = re.match(r'\s*([A-Za-z_]\w*)', it)
                if m and m.group(1).startswith(('DAT_', 'DCNT_')):
                    names.add(m.group(1))
        return names

    def _probe(self, names):
        """Return the subset of names that failed to compile as ICEs."""
        base = self.prelude.count('\n')
        lines = ['enum { dat_probe_%d = sizeof(char [1 + 0 * (%s)]) };\n'
                 % (i, n) for i, n in enumerate(names)]
        proc = self.gcc(['-fsyntax-only', '-fmax-errors=0'],
                        self.prelude + ''.join(lines))
        if proc.returncode == 0:
            return set()
        bad = set()
        for m in re.finditer(r'^\S*probe\.c:(\d+):\d+: ', proc.stderr,
                             re.MULTILINE):
            idx = int(m.group(1)) - base - 1
            if 0 <= idx < len(names):
                bad.add(names[idx])
        if not bad:
            die('%s probe failed without a location:\n%s'
                % (self.name, proc.stderr))
        return bad

    def integer_constants(self, names):
        proc = self.gcc(['-fsyntax-only'], self.prelude)
        if proc.returncode:
            die('%s headers do not compile on their own:\n%s'
                % (self.name, proc.stderr))
        good = sorted(names)
        rejected = set()
        while True:
            bad = self._probe(good)
            if not bad:
                break
            rejected |= bad
            good = [n for n in good if n not in bad]
        # An error can spill onto a following line; give every rejected
        # name a second chance on its own.
        for n in sorted(rejected):
            if not self._probe([n]):
                good.append(n)
        return set(good)

    def constants(self):
        return self.integer_constants(self.macro_names() |
                                      self.enumerator_names())


def c_string(s):
    return '"%s"' % s.replace('\\', '\\\\').replace('"', '\\"')


def write_values(path, array, includes, names):
    with open(path, 'w') as f:
        f.write('/* Generated by tests/user/dat-constants/gen.py. */\n')
        f.write('#include "dat_const.h"\n')
        f.write(includes)
        f.write('\nconst struct dat_const %s[] = {\n' % array)
        for n in names:
            f.write('\t{ %s, (unsigned long long)(%s) },\n' % (c_string(n), n))
        for t in SCALAR_TYPES:
            f.write('\t{ "sizeof(%s)", sizeof(%s) },\n' % (t, t))
            f.write('\t{ "signed(%s)", (%s)-1 < (%s)0 },\n' % (t, t, t))
        for t in SIZE_ONLY_TYPES:
            f.write('\t{ "sizeof(%s)", sizeof(%s) },\n' % (t, t))
        f.write('};\n\nconst unsigned int %s_count = '
                'sizeof(%s) / sizeof(%s[0]);\n' % (array, array, array))


def write_list(f, array, names):
    f.write('const char *const %s[] = {\n' % array)
    for n in names:
        f.write('\t%s,\n' % c_string(n))
    f.write('\tNULL\n};\n\n')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--header', required=True,
                    help='path of include/rdma/kdat_types.h')
    ap.add_argument('--stub', required=True,
                    help='directory with user-space stand-ins for <linux/*.h>')
    ap.add_argument('--dat-dir', default='/usr/include/dat2',
                    help="directory of Debian's DAT 2.0 headers")
    ap.add_argument('--cc', default=os.environ.get('CC', 'gcc'))
    ap.add_argument('--out', required=True, help='output directory')
    args = ap.parse_args()

    header = os.path.realpath(args.header)
    # include/rdma/kdat_types.h -> include/
    incdir = os.path.dirname(os.path.dirname(header))
    dat_dir = os.path.realpath(args.dat_dir)
    if not os.path.isfile(os.path.join(dat_dir, 'dat.h')):
        die('%s/dat.h not found (install libdapl-dev)' % dat_dir)

    def debian_file(path):
        path = os.path.realpath(path)
        return (os.path.dirname(path) == dat_dir and
                os.path.basename(path) in DEBIAN_HEADERS)

    def kernel_file(path):
        path = os.path.realpath(path)
        return (os.path.dirname(path) == os.path.dirname(header) and
                os.path.basename(path) in KERNEL_HEADERS)

    user = Side('Debian', args.cc, DEBIAN_PRELUDE, [], debian_file)
    kern = Side('kernel', args.cc, KERNEL_PRELUDE,
                ['-I', args.stub, '-I', incdir], kernel_file)

    u = user.constants()
    k = kern.constants()
    shared = sorted(u & k)
    excluded = sorted(n for n in u - k
                      if any(re.fullmatch(p, n) for p, _ in EXCLUDED))
    missing = sorted(n for n in u - k if n not in excluded)
    kernel_only = sorted(k - u)

    os.makedirs(args.out, exist_ok=True)
    write_values(os.path.join(args.out, 'kern.c'), 'kern_vals',
                 KERNEL_PRELUDE, shared)
    write_values(os.path.join(args.out, 'user.c'), 'user_vals',
                 DEBIAN_PRELUDE, shared)
    with open(os.path.join(args.out, 'meta.c'), 'w') as f:
        f.write('/* Generated by tests/user/dat-constants/gen.py. */\n')
        f.write('#include <stddef.h>\n#include "dat_const.h"\n\n')
        write_list(f, 'missing_names', missing)
        write_list(f, 'kernel_only_names', kernel_only)
        write_list(f, 'excluded_names', excluded)
        f.write('const unsigned int debian_count = %d;\n' % len(u))


if __name__ == '__main__':
    main()
