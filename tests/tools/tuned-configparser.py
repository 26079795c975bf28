#!/usr/bin/env python3
"""Print what tuned's configparser reads from each file, one line a
(section, key, value), as tests/tuned-dump prints format-tuned's:
tabs between, \\ \t \n \r escaped. --headerless reads the file as tuned's
variable files are read (a magic header prepended, allow_no_value, the
keys without a value skipped), the magic section printed as "".
tuned's own calls: profiles/loader.py _load_config_data and
profiles/variables.py add_from_file (tuned 2.20).
--split DIR: the Nth path's lines go to DIR/N (from 1), its error to
DIR/N.err, so one process serves a test's every file."""
import configparser
import sys

MAGIC = "this_is_some_magic_section_header_because_of_compatibility"


def esc(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def read(path, headerless):
    """The rows of one file, or raise as tuned's configparser does."""
    c = configparser.ConfigParser(delimiters=('='), inline_comment_prefixes=('#'),
                                  allow_no_value=headerless, strict=False)
    c.optionxform = str
    # open() as tuned opens it: text mode, universal newlines, UTF-8
    with open(path, encoding="utf-8") as f:
        if headerless:
            c.read_string("[" + MAGIC + "]\n" + f.read(), path)
        else:
            c.read_file(f, path)
    rows = []
    for s in c.sections():
        for o in c.options(s):
            v = c.get(s, o, raw=True)
            if v is None:
                continue
            rows.append("%s\t%s\t%s\n" % (esc("" if s == MAGIC else s), esc(o), esc(v)))
    return rows


def dump(path, headerless, out, err):
    """One file's lines to out; 1 when tuned refuses it, 0 otherwise."""
    try:
        rows = read(path, headerless)
    except Exception as e:  # tuned refuses the file on any of them
        err.write("%s: %s\n" % (path, e))
        out.write(b"error\n")
        return 1
    for r in rows:
        out.write(r.encode("utf-8"))
    return 0


def main():
    args = sys.argv[1:]
    headerless = bool(args) and args[0] == "--headerless"
    if headerless:
        args = args[1:]
    split = None
    if len(args) >= 2 and args[0] == "--split":
        split, args = args[1], args[2:]
    ret = 0
    for n, path in enumerate(args, 1):
        if split is None:
            ret |= dump(path, headerless, sys.stdout.buffer, sys.stderr)
        else:
            with open("%s/%d" % (split, n), "wb") as out, open("%s/%d.err" % (split, n), "w") as err:
                ret |= dump(path, headerless, out, err)
    sys.stdout.flush()
    return ret


if __name__ == "__main__":
    sys.exit(main())
