"""What a header file does to the preprocessor and to file scope, read from
its text (for groups.py), and gcc -H's account of the files a compile
opened. Read without preprocessing, so it errs on the side of more: a
macro defined in an #if branch that is not taken counts."""

import os
import re

DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(\w+)(.*)$")
DEFINE = re.compile(r"^[ \t]*#[ \t]*(define|undef)[ \t]+(\w+)(.*)$", re.M)
PUSHPOP = re.compile(r"(?:push|pop)_macro\s*\(\s*\"(\w+)")
INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]")
IDENT = re.compile(r"[A-Za-z_]\w*")
# comments, and the strings and characters a comment cannot start in
COMMENT = re.compile(r"\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|/\*.*?\*/|//[^\n]*", re.S)
GUARD = re.compile(r"\s*#\s*ifndef\s+(\w+)\s*\n\s*#\s*define\s+(\w+)")
CONDITIONAL = ("if", "ifdef", "ifndef", "elif", "elifdef", "elifndef")
# layout pragmas count as one macro that every file uses from its first line
PACK = "#pragma pack"
PRAGMA_LAYOUT = re.compile(r"#[ \t]*pragma[ \t]+(?:pack|scalar_storage_order)\b|"
                           r"_Pragma\s*\(\s*\"\s*(?:pack|scalar_storage_order)")
# names at file scope: two files that define one clash
TAG_DEF = re.compile(r"\b(?:struct|union|enum)\s+(\w+)\s*\{")
ENUM_BODY = re.compile(r"\benum\b[^{;]*\{([^}]*)\}")
TYPEDEF = re.compile(r"\btypedef\b([^;]*);")
FUNC_DEF = re.compile(r"\b(\w+)\s*\([^;{)]*\)\s*\x01")    # \x01: a body, see _names
NOT_NAMES = {"if", "while", "for", "switch", "return", "sizeof", "__attribute__"}
# a file naming one of these reads something else in a joined unit
UNIT_BOUND = ("__COUNTER__", "__BASE_FILE__", "__INCLUDE_LEVEL__")


class FileInfo:
    """defs: macros the file defines or undefines; repl: macro -> the
    identifiers of its replacement list; first: identifier -> the first
    line that uses it (code, #if, a computed #include; not #define);
    includes: [(line, target)]; guarded: one #ifndef guard around it all,
    so that opening it again does nothing; bound: see UNIT_BOUND; names:
    tags, typedefs, enumerators and functions it may define."""

    def __init__(self, text):
        t = COMMENT.sub(lambda m: m.group(0) if m.group(0)[0] in "\"'" else
                        "\n" * m.group(0).count("\n"), text).replace("\\\n", " ")
        self.defs, self.repl = set(PUSHPOP.findall(t)), {}
        for kind, name, rest in DEFINE.findall(t):
            self.defs.add(name)
            if kind == "define":
                self.repl.setdefault(name, set()).update(IDENT.findall(rest))
        if PRAGMA_LAYOUT.search(t):
            self.defs.add(PACK)
        self.first, self.includes, self.guarded = _uses(t)
        self.first.setdefault(PACK, 0)
        self.bound = any(n in text for n in UNIT_BOUND)
        self.names = _names("\n".join(l for l in t.split("\n") if not DIRECTIVE.match(l)))


def _uses(t):
    """first, includes and guarded of FileInfo."""
    first, includes = {}, []
    depth, closed_at, dirs, last = 0, [], [], None
    for n, line in enumerate(t.split("\n")):
        m = DIRECTIVE.match(line)
        if line.strip():
            last = m and m.group(1)
        ids = IDENT.findall(line) if not m else []
        if m:
            d, rest = m.groups()
            dirs.append(d)
            if d in ("if", "ifdef", "ifndef"):
                depth += 1
            elif d == "endif":
                depth -= 1
                if depth == 0:
                    closed_at.append(len(dirs))
            elif d in ("else", "elif", "elifdef", "elifndef") and depth == 1:
                closed_at.append(-1)            # the guard has an else: no plain guard
            inc = INCLUDE.match(line) if d == "include" else None
            if inc:
                includes.append((n, inc.group(1)))
            elif d in CONDITIONAL or d == "include":
                ids = IDENT.findall(rest)
        for i in ids:
            first.setdefault(i, n)
    g = GUARD.match(t)
    guarded = bool(g and g.group(1) == g.group(2) and closed_at == [len(dirs)] and last == "endif")
    return first, includes, guarded


def _names(code):
    """The names code (no directives) may define at file scope."""
    names = {"tag " + n for n in TAG_DEF.findall(code)}
    for body in ENUM_BODY.findall(code):
        names.update(m.group(1) for m in re.finditer(r"(?:^|,)\s*(\w+)", body))
    flat, n = code, 1
    while n:                                    # bodies out: what is left is file scope
        flat, n = re.subn(r"\{[^{}]*\}", "\x01", flat)
    for decl in TYPEDEF.findall(flat):
        m = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl) or re.search(r"(\w+)\s*(?:\[[^\]]*\]\s*)*$", decl)
        if m:
            names.add(m.group(1))
    names.update(n for n in FUNC_DEF.findall(flat) if n not in NOT_NAMES)
    return names


def parse_tree(text):
    """gcc -H's output for one unit -> [(path, depth)], and the files gcc
    found no include guard in (an #include reads them again)."""
    events, noguard, listing = [], set(), False
    for line in text.splitlines():
        m = re.match(r"^(\.+) (.*)$", line)
        if m:
            events.append((os.path.normpath(m.group(2)), len(m.group(1))))
            listing = False
        elif line.startswith("Multiple include guards may be useful for:"):
            listing = True
        elif listing and line.startswith("/"):
            noguard.add(os.path.normpath(line))
    return events, noguard


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return None
