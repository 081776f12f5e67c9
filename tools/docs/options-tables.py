#!/usr/bin/env python3
"""The option tables of README.md and docs/, made from what -help prints.

Each option of gpumats is defined once, in the call that reads it (PetscOptionsEnum(name, help,
manual page, ...)); the tables are written from the -help output of tests/test_options_help,
which sets a matrix of each type from the options database.  In a Markdown file, a table sits
between the lines

    <!-- options:begin [group ...] -->
    <!-- options:end -->

where a group is the word after -mat_ (gpumats, pcsr, cihybrid, diag); no group: every option.

    options-tables.py PROGRAM FILE...          write the tables
    options-tables.py --check PROGRAM FILE...  fail (exit 1) where a table is not current
"""
import os
import re
import subprocess
import sys

TYPES = ['seqaijpcsr', 'mpiaijpcsr', 'seqaijcihybrid', 'mpiaijcihybrid', 'seqdiag', 'mpidiag']
GROUPS = ['cihybrid', 'pcsr', 'diag', 'gpumats']
# "  -mat_pcsr_kernel <now auto : formerly auto> Help (choose one of) a b (MatPCSRSetKernel)"
LINE = re.compile(r'^\s+-(mat_(' + '|'.join(GROUPS) + r')_\w+):? <([^>]*)>:? (.*) \((\w+)\)\s*$')
BEGIN = re.compile(r'^<!-- options:begin((?: \w+)*) -->$')
END = '<!-- options:end -->'


def default_of(shown):
    value = shown.split(' : ')[0]
    value = value[4:] if value.startswith('now ') else value
    try:
        return '%g' % float(value)
    except ValueError:
        return value.lower() if value in ('TRUE', 'FALSE') else value


def read_options(program):
    """name -> dict(group, default, choices, help, man, types), in the order -help prints them"""
    options = {}
    program = os.path.abspath(program)  # meson gives it relative to the working directory
    for t in TYPES:
        out = subprocess.run([program, '-help', '-types', t], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            m = LINE.match(line)
            if not m:
                continue
            name, group, shown, text, man = m.groups()
            text, _, choices = text.partition(' (choose one of) ')
            o = options.setdefault(name, dict(group=group, default=default_of(shown), choices=choices.split(),
                                              help=text, man=man, types=[]))
            if (o['default'], o['help'], o['man']) != (default_of(shown), text, man):
                sys.exit('options-tables: -%s differs between the types (%s and %s)' % (name, o['types'][0], t))
            o['types'].append(t)
    missing = [g for g in GROUPS if not any(o['group'] == g for o in options.values())]
    if missing:
        sys.exit('options-tables: -help of %s printed no option of %s' % (program, ', '.join(missing)))
    return options


def only(o):
    """which types an option is for, where not every type of its format"""
    family = [t for t in TYPES if o['group'] == 'gpumats' or o['group'] in t]
    if o['types'] == family:
        return ''
    if all(t.startswith('mpi') for t in o['types']):
        return ' MPI types only.'
    if all(t.startswith('seq') for t in o['types']):
        return ' Sequential type only.'
    return ' Only %s.' % ', '.join(o['types'])


def cell(text):
    return text.replace('|', '\\|')


def table(options, groups):
    rows = ['| option | default | meaning |', '|---|---|---|']
    for g in groups or GROUPS:
        for name, o in options.items():
            if o['group'] != g:
                continue
            value = '|'.join(o['choices']) if o['choices'] else 'value'
            where = only(o)
            man = ' `%s()`' % o['man'] if o['man'] not in ('None', 'MatMult', 'MatProductSymbolic') else ''
            rows.append('| `-%s <%s>` | `%s` | %s.%s%s |' % (name, cell(value), o['default'], cell(o['help']), where, man))
    return rows


def update(path, options, check):
    lines = open(path).read().split('\n')
    out, i, found = [], 0, False
    while i < len(lines):
        m = BEGIN.match(lines[i])
        out.append(lines[i])
        i += 1
        if not m:
            continue
        found = True
        groups = m.group(1).split()
        unknown = [g for g in groups if g not in GROUPS]
        if unknown:
            sys.exit('options-tables: %s: unknown group %s' % (path, ' '.join(unknown)))
        while i < len(lines) and lines[i] != END:
            i += 1
        if i == len(lines):
            sys.exit('options-tables: %s: no %s after %s' % (path, END, out[-1]))
        out.extend(table(options, groups))
    if not found:
        sys.exit('options-tables: %s has no %s line' % (path, '<!-- options:begin -->'))
    text = '\n'.join(out)
    if text == open(path).read():
        return True
    if check:
        print('options-tables: the option table of %s is not what -help prints; run tools/docs/options-tables.py <build>/tests/test_options_help %s' % (path, path))
        return False
    open(path, 'w').write(text)
    print('options-tables: %s written' % path)
    return True


def main(argv):
    check = argv[:1] == ['--check']
    argv = argv[1:] if check else argv
    if len(argv) < 2:
        sys.exit(__doc__)
    options = read_options(argv[0])
    ok = all([update(path, options, check) for path in argv[1:]])
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
