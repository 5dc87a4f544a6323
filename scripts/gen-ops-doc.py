#!/usr/bin/env python3
"""Generate docs/ops.md from parser/opcodes.def and the op headers in interp/.

Every evaluator function under interp/ opens with a header block (SQLite
vdbe.c style):

    /* Op: gather
     * Operands: operand, start_indices
     * Attributes: offset_dims, ...
     *
     * What the op computes, in plain prose.
     *
     * Rule: the XLA / StableHLO rule it follows.
     * Refuses: what it refuses at run time.
     */

Usage:
    scripts/gen-ops-doc.py            write docs/ops.md
    scripts/gen-ops-doc.py --check    exit 1 when docs/ops.md is stale or a
                                      header is missing, doubled, unknown or
                                      malformed
    scripts/gen-ops-doc.py --self-test  run the generator on the fixtures in
                                      tests/ops_doc/ (each bad one must fail);
                                      with --check, then check docs/ops.md
                                      (what CTest's docs/ops runs)
Options: --root DIR (the repository; default: this script's parent's parent),
--allow-missing (report opcodes without a header instead of failing; only
for branches that do not have every header yet).
Standard library only.
"""
import argparse
import contextlib
import io
import os
import re
import sys

# ENUM, "text", min, max, class, then (when given) infer and eval.
OPCODE_ROW = re.compile(r'^OPCODE\(\s*(\w+)\s*,\s*"([^"]+)"\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(\w+)'
                        r'(?:\s*,\s*(\w+)\s*,\s*(\w+))?')
HEADER_START = re.compile(r'^/\* Op: (.*)$')
FUNC_DEF = re.compile(r'^[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\(')
KEYS = ('Operands', 'Attributes', 'Rule', 'Refuses')
CLASS_TEXT = {'OPC_UNARY': 'elementwise, unary', 'OPC_BINARY': 'elementwise, binary',
              'OPC_OTHER': 'other'}
REGENERATE = 'python3 scripts/gen-ops-doc.py'


class Opcode:
    def __init__(self, enum, name, lo, hi, cls, eval_fn):
        self.enum, self.name, self.lo, self.hi, self.cls = enum, name, lo, hi, cls
        self.eval_fn = eval_fn  # the row's eval column, or None


class Header:
    """One parsed block: the ops it names, its fields, where it stands."""

    def __init__(self, path, line):
        self.path, self.line = path, line
        self.ops = []
        self.fields = {}
        self.prose = []
        self.function = None


def read_opcodes(path):
    ops = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            m = OPCODE_ROW.match(line)
            if m:
                ops.append(Opcode(m.group(1), m.group(2), int(m.group(3)), int(m.group(4)),
                                  m.group(5), m.group(7)))
    return ops


def source_files(src_dir):
    for dirpath, dirnames, filenames in os.walk(src_dir):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith('.c'):
                yield os.path.join(dirpath, name)


def parse_block(lines, start, header, problems):
    """Reads the block opening at lines[start]; returns the index after it."""
    where = '%s:%d' % (header.path, header.line)
    names, i = HEADER_START.match(lines[start]).group(1), start + 1
    # A long list of ops goes on over indented lines (" *   atan2, complex").
    while i < len(lines) and lines[i].startswith(' *   ') and names.rstrip().endswith(','):
        names += ' ' + lines[i][5:].strip()
        i += 1
    header.ops = [op.strip() for op in names.split(',')]
    key = None
    while i < len(lines) and lines[i].strip() != '*/':
        text = lines[i].rstrip('\n')
        if not text.startswith(' *'):
            problems.append('%s: header line %d does not start with " * "' % (where, i + 1))
            return i + 1
        body = text[3:] if text.startswith(' * ') else ''
        m = re.match(r'^(\w+): ?(.*)$', body)
        if m and m.group(1) in KEYS:
            key = m.group(1)
            if key in header.fields:
                problems.append('%s: %s: given twice' % (where, key))
            header.fields[key] = m.group(2).strip()
        elif body.startswith('  ') and key:
            header.fields[key] += ' ' + body.strip()
        elif body.strip():
            key = None
            header.prose.append(body.strip())
        else:
            key = None
            if header.prose and header.prose[-1]:
                header.prose.append('')
        i += 1
    if i == len(lines):
        problems.append('%s: header never closed with " */"' % where)
    for k in KEYS:
        if k not in header.fields:
            problems.append('%s: header for %s has no %s:' % (where, ', '.join(header.ops), k))
    while header.prose and not header.prose[-1]:
        header.prose.pop()
    if not header.prose:
        problems.append('%s: header for %s says nothing about what the op computes'
                        % (where, ', '.join(header.ops)))
    return i + 1


def scan_file(path, rel, problems):
    """Headers of one file; each is followed by more headers, then its function."""
    with open(path, encoding='utf-8') as f:
        lines = f.readlines()
    found, pending, i = [], [], 0
    while i < len(lines):
        if HEADER_START.match(lines[i]):
            h = Header(rel, i + 1)
            i = parse_block(lines, i, h, problems)
            pending.append(h)
            continue
        if pending:
            m = FUNC_DEF.match(lines[i])
            if not m or lines[i].lstrip().startswith(('/*', '*', '#')):
                problems.append('%s:%d: a header must stand immediately before its evaluator '
                                'function' % (rel, pending[0].line))
            else:
                for h in pending:
                    h.function = m.group(1)
                    h.function_line = i + 1
                found.extend(pending)
            pending = []
        i += 1
    if pending:
        problems.append('%s:%d: a header at the end of the file has no function'
                        % (rel, pending[0].line))
    return found


def collect(root, src, opcodes, allow_missing):
    """Headers by op name, and the problems (fatal) and notes (reported)."""
    problems, notes = [], []
    headers = []
    for path in source_files(os.path.join(root, src)):
        headers.extend(scan_file(path, os.path.relpath(path, root), problems))
    known = {op.name: op for op in opcodes}
    by_op = {}
    for h in headers:
        for name in h.ops:
            if name not in known:
                problems.append('%s:%d: header names unknown op "%s" (not in opcodes.def)'
                                % (h.path, h.line, name))
            elif known[name].eval_fn and h.function != known[name].eval_fn:
                problems.append('%s:%d: the header of "%s" stands before %s, but its row in '
                                'opcodes.def names %s' % (h.path, h.line, name, h.function,
                                                          known[name].eval_fn))
            elif name in by_op:
                first = by_op[name]
                problems.append('%s:%d: op "%s" has a second header (the first is at %s:%d)'
                                % (h.path, h.line, name, first.path, first.line))
            else:
                by_op[name] = h
    missing = [op.name for op in opcodes if op.name not in by_op]
    if missing:
        text = '%d opcode(s) have no header: %s' % (len(missing), ', '.join(missing))
        (notes if allow_missing else problems).append(text)
    return by_op, problems, notes


def arity(op):
    if op.hi < 0:
        return 'any number' if op.lo == 0 else 'at least %d' % op.lo
    if op.lo == op.hi:
        return str(op.lo)
    return '%d to %d' % (op.lo, op.hi)


def anchor(name):
    return 'op-' + name


def render(opcodes, by_op, opcodes_rel):
    out = ['# HLO operations',
           '',
           '<!-- Generated by scripts/gen-ops-doc.py: do not edit by hand. -->',
           '',
           'Every operation the interpreter evaluates: its arity and class from `%s`, where'
           % opcodes_rel,
           'it is evaluated, and what the header comment on its evaluator function says (what',
           'the op computes, its operands and attributes, the XLA / StableHLO rule it follows,',
           'what it refuses at run time).  This page is generated from those two sources by',
           '`%s`; edit the headers or the table, then run the script.  CTest' % REGENERATE,
           '(`docs/ops`) fails when the page is stale.',
           '',
           '## Index',
           '']
    line = ''
    for op in opcodes:  # the links, wrapped at 100 columns
        link = '[`%s`](#%s)' % (op.name, anchor(op.name))
        if line and len(line) + 1 + len(link) > 100:
            out.append(line)
            line = ''
        line = line + ' ' + link if line else link
    out += [line, '']
    for op in opcodes:
        out += ['<a id="%s"></a>' % anchor(op.name), '', '## `%s`' % op.name, '']
        out.append('- Arity (operands): %s; class: %s' % (arity(op), CLASS_TEXT.get(op.cls, op.cls)))
        h = by_op.get(op.name)
        if not h:
            out += ['- No header yet.', '']
            continue
        link = '../' + h.path.replace(os.sep, '/')
        out.append('- Evaluated by `%s` in [%s](%s)' % (h.function, h.path.replace(os.sep, '/'),
                                                        link))
        if len(h.ops) > 1:
            others = [n for n in h.ops if n != op.name]
            out.append('- Shares its header with %s'
                       % ', '.join('[`%s`](#%s)' % (n, anchor(n)) for n in others))
        out.append('- Operands: %s' % h.fields['Operands'])
        out.append('- Attributes: %s' % h.fields['Attributes'])
        out.append('')
        paragraphs, cur = [], []
        for line in h.prose + ['']:
            if line:
                cur.append(line)
            elif cur:
                paragraphs.append(' '.join(cur))
                cur = []
        for p in paragraphs:
            out += [p, '']
        out += ['**Rule:** %s' % h.fields['Rule'], '',
                '**Refuses:** %s' % h.fields['Refuses'], '']
    return '\n'.join(out)


def generate(root, opcodes_rel, src, out_rel, check, allow_missing):
    """Writes or checks the page; returns the exit status."""
    opcodes = read_opcodes(os.path.join(root, opcodes_rel))
    if not opcodes:
        print('gen-ops-doc: no OPCODE rows in %s' % opcodes_rel, file=sys.stderr)
        return 1
    by_op, problems, notes = collect(root, src, opcodes, allow_missing)
    for n in notes:
        print('gen-ops-doc: note: %s' % n, file=sys.stderr)
    if problems:
        for p in problems:
            print('gen-ops-doc: error: %s' % p, file=sys.stderr)
        return 1
    text = render(opcodes, by_op, opcodes_rel)
    out_path = os.path.join(root, out_rel)
    if check:
        try:
            with open(out_path, encoding='utf-8') as f:
                current = f.read()
        except OSError:
            current = None
        if current != text:
            print('gen-ops-doc: %s is %s: regenerate it with `%s` and commit it'
                  % (out_rel, 'missing' if current is None else 'stale', REGENERATE),
                  file=sys.stderr)
            return 1
        return 0
    with open(out_path, 'w', encoding='utf-8') as f:
        f.write(text)
    return 0


def self_test(root):
    """Each fixture in tests/ops_doc/ must give its status, for its reason."""
    base = os.path.join(root, 'tests', 'ops_doc')
    cases = [  # (fixture, --allow-missing, exit status, text stderr must hold)
        ('good', False, 0, ''),
        ('stale', False, 1, 'ops.md is stale'),
        ('missing', False, 1, 'error: 1 opcode(s) have no header: sort'),
        ('missing', True, 1, 'ops.md is missing'),  # only a note, then the check
        ('duplicate', False, 1, 'op "negate" has a second header'),
        ('unknown', False, 1, 'header names unknown op "frobnicate"'),
        ('malformed', False, 1, 'header for negate has no Refuses:'),
        ('wrongfn', False, 1, 'the header of "sort" stands before eval_sort, but its row in '
                              'opcodes.def names eval_sorting'),
    ]
    failed = 0
    for name, allow, want, text in cases:
        errors = io.StringIO()
        with contextlib.redirect_stderr(errors):
            got = generate(os.path.join(base, name), 'opcodes.def', 'src', 'ops.md', True, allow)
        ok = got == want and text in errors.getvalue()
        print('self-test %-9s%s exit %d (want %d%s): %s'
              % (name, ' --allow-missing' if allow else '', got, want,
                 ', "%s"' % text if text else '', 'ok' if ok else 'FAIL'))
        if not ok:
            print(errors.getvalue(), end='')
        failed += not ok
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description='Generate docs/ops.md from opcodes.def and the '
                                 'op headers under interp/.')
    ap.add_argument('--root', default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument('--check', action='store_true', help='fail when docs/ops.md is stale')
    ap.add_argument('--allow-missing', action='store_true',
                    help='report opcodes without a header instead of failing (temporary)')
    ap.add_argument('--self-test', action='store_true', help='run on tests/ops_doc/ fixtures')
    a = ap.parse_args()
    if a.self_test:  # with --check, the check runs after the self-test passes
        status = self_test(a.root)
        if status or not a.check:
            return status
    return generate(a.root, 'parser/opcodes.def', 'interp', 'docs/ops.md', a.check,
                    a.allow_missing)


if __name__ == '__main__':
    sys.exit(main())
