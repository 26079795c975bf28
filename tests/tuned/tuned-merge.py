#!/usr/bin/python3
"""What tuned 2.20 itself makes of a profile: its own loader (include
chain, merge, variables, functions) run over DIR... in hosttune's search
order (the first DIR wins). Prints the merged units, one line a unit and
one an option, the values expanded as tuned's plugins see them:

    unit NAME type=T enabled=E devices=D [uname_regex=R] [cpuinfo_regex=R]
      KEY=VALUE

Used by tests/integration/tuned-profiles.sh as the reference for what
hosttune must carry over. Usage: tuned-merge.py NAME DIR...
Exit 1 with tuned's own message when tuned cannot load the profile."""
import sys

import tuned.profiles as profiles
from tuned.profiles.exceptions import InvalidProfileException


class Config(dict):
    def get(self, key, default=None):
        return dict.get(self, key, default)


def main():
    name, dirs = sys.argv[1], sys.argv[2:]
    variables = profiles.variables.Variables()
    # tuned's Locator searches its list from the end
    loader = profiles.Loader(profiles.Locator(list(reversed(dirs))), profiles.Factory(),
                             profiles.Merger(), Config(), variables)
    try:
        profile = loader.load(name)
    except InvalidProfileException as e:
        print("tuned: %s" % e, file=sys.stderr)
        return 1
    for uname, unit in profile.units.items():
        line = "unit %s type=%s enabled=%s devices=%s" % (uname, unit.type, unit.enabled, unit.devices)
        if unit.uname_regex is not None:
            line += " uname_regex=%s" % unit.uname_regex
        if unit.cpuinfo_regex is not None:
            line += " cpuinfo_regex=%s" % unit.cpuinfo_regex
        print(line)
        for key, value in unit.options.items():
            if isinstance(value, list):
                value = " ".join(value)
            print("  %s=%s" % (key, variables.expand(value)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
