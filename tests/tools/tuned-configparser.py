#!/usr/bin/env python3
"""Print what tuned's configparser reads from each file, one line a
(section, key, value), as tests/tuned-dump prints format-tuned's:
tabs between, \\ \t \n \r escaped. --headerless reads the file as tuned's
variable files are read (a magic header prepended, allow_no_value, the
keys without a value skipped), the magic section printed as "".
tuned's own calls: profiles/loader.py _load_config_data and
profiles/variables.py add_from_file (tuned 2.20)."""
import configparser
import sys

MAGIC = "this_is_some_magic_section_header_because_of_compatibility"


def esc(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def main():
    args = sys.argv[1:]
    headerless = bool(args) and args[0] == "--headerless"
    if headerless:
        args = args[1:]
    out = sys.stdout.buffer
    ret = 0
    for path in args:
        try:
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
        except Exception as e:  # tuned refuses the file on any of them
            sys.stderr.write("%s: %s\n" % (path, e))
            out.write(b"error\n")
            ret = 1
            continue
        for r in rows:
            out.write(r.encode("utf-8"))
    out.flush()
    return ret


if __name__ == "__main__":
    sys.exit(main())
