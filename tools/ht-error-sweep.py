#!/usr/bin/env python3
"""Rewrite `*ret_error = xasprintf(ARGS); return R;` as
`return ht_error(ret_error, R, ARGS);` (util.h), issue 36.

Usage: ht-error-sweep.py FILE...

Mechanical: only a statement `*ret_error = xasprintf(...);` directly
followed by a one-line `return ...;` is rewritten; continuation lines
aligned to xasprintf's parenthesis are realigned to ht_error's; a one-line
`if (...) {` whose block becomes that single return loses its braces.
Kept so that a branch that moves such code can run it again after a merge.
"""
import re
import sys

START = re.compile(r'^( *)\*ret_error = xasprintf\(')
RETURN = re.compile(r'^ *return ([^;]+);$')
LIMIT = 120


def call_end(lines, i, col):
    """(line, column) of the ')' closing the '(' at lines[i][col]."""
    depth, quote = 0, None
    j, k = i, col
    while j < len(lines):
        line = lines[j]
        while k < len(line):
            ch = line[k]
            if quote:
                if ch == '\\':
                    k += 1
                elif ch == quote:
                    quote = None
            elif ch in '"\'':
                quote = ch
            elif ch == '(':
                depth += 1
            elif ch == ')':
                depth -= 1
                if depth == 0:
                    return j, k
            k += 1
        j, k = j + 1, 0
    raise ValueError("unbalanced call at line %d" % (i + 1))


def sweep(text):
    lines = text.split('\n')
    out, i, n = [], 0, 0
    while i < len(lines):
        m = START.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        indent = m.group(1)
        paren = m.end() - 1
        j, k = call_end(lines, i, paren)
        if lines[j][k + 1:] != ';' or j + 1 >= len(lines):
            out.append(lines[i])
            i += 1
            continue
        r = RETURN.match(lines[j + 1])
        if not r or len(lines[j + 1]) - len(lines[j + 1].lstrip()) != len(indent):
            out.append(lines[i])
            i += 1
            continue
        head = indent + 'return ht_error('
        new_paren = len(head) - 1
        first = head + 'ret_error, ' + r.group(1) + ', ' + lines[i][paren + 1:]
        body = []
        for line in lines[i + 1:j + 1]:
            ind = len(line) - len(line.lstrip(' '))
            if ind == paren + 1:
                line = ' ' * (new_paren + 1) + line.lstrip(' ')
            body.append(line)
        if len(first) > LIMIT:
            rest = lines[i][paren + 1:]
            first = head + 'ret_error, ' + r.group(1) + ','
            body.insert(0, ' ' * (new_paren + 1) + rest)
        new = [first] + body
        # if (...) {  <the return>  }  ->  if (...)  <the return>
        if out and re.match(r'^ *if \(.*\) \{$', out[-1]) and \
                j + 2 < len(lines) and lines[j + 2] == indent[:-8] + '}' and \
                len(out[-1]) - len(out[-1].lstrip()) == len(indent) - 8:
            out[-1] = out[-1][:-2]
            out.extend(new)
            i = j + 3
        else:
            out.extend(new)
            i = j + 2
        n += 1
    return '\n'.join(out), n


def main(argv):
    total = 0
    for path in argv[1:]:
        with open(path) as f:
            text = f.read()
        new, n = sweep(text)
        if n:
            with open(path, 'w') as f:
                f.write(new)
        total += n
        print("%s: %d" % (path, n))
    print("total: %d" % total)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
