/* Python re patterns as POSIX extended ones: tuned's profiles (and
 * hosttune's matches()) write regexes in Python's dialect, and regcomp()
 * does the matching. */
#pragma once

/* Translate the Python re pattern py into a POSIX ERE for
 * regcomp(REG_EXTENDED | REG_NEWLINE) that matches somewhere in a string
 * exactly when re.search(py, string, re.MULTILINE) does (whether, not
 * where: POSIX takes the longest match, Python the first). \d \D \w \W \s
 * \S become bracket classes (inside sets too), \n \t \r \f \v \a \xHH
 * their bytes, an escaped punctuation character itself; (?:...) and
 * (?P<name>...) become plain groups, (?#...) goes, lazy quantifiers
 * (*? +? ?? {m,n}?) become greedy ones (same answer to "does it match"),
 * {,n} is {0,n}, and a { that opens no quantifier is a literal, as in
 * Python. \b \B stay (glibc's regcomp knows them).
 * Returns 0 and *ret (malloc'd); -EINVAL for a pattern Python rejects
 * (trailing backslash, unterminated set); -EOPNOTSUPP for what POSIX
 * cannot say: backreferences, lookaround, inline flags, possessive
 * quantifiers, atomic groups, \A \Z \G, \D \W \S inside a set, [: in a
 * set. Known differences with newlines in the subject: [^...] does not
 * match a newline here (it does in Python), and ^ $ always work per
 * line. */
int ht_regex_from_python(const char *py, char **ret);
